"""Reading a file at a commit from the checkout's git object store, without git.

The action only ever needs ``git show <rev>:<path>`` for one small file, so it reads
the object store itself: loose objects, and packfiles (index version 2) with their
offset and reference deltas, all with zlib and hashlib. The image then carries no
git binary (about 100 MB of git and Perl), and the checkout is only read, never
written: a fetch run as the container's root would leave root-owned objects in the
runner's repository.

What the checkout does not hold (actions/checkout fetches the checked-out commit
alone by default, not the base commit) is not fetched here; the caller reads it
through the GitHub API instead. Every failure is an answer (False, None), never an
exception: a missing commit or a store this reader does not understand (reftable,
SHA-256 object names) only means the next baseline source is tried.
"""

from __future__ import annotations

import hashlib
import mmap
import re
import struct
import time
import zlib
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

OBJECT_TYPES = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}
OFS_DELTA, REF_DELTA = 6, 7
# The store is data this reader did not write: every loop and every allocation has a bound,
# and an object past one is refused (the baseline then comes from the next source).
MAX_DELTA_CHAIN = 4095  # git pack-objects --depth cannot go deeper; more is a loop
MAX_PACK_HOPS = 32  # reference deltas whose base sits in another pack (or loose): git makes none
MAX_OBJECT_BYTES = 64 << 20  # one object, inflated; a report is kilobytes, a huge tree megabytes
MAX_INFLATED_BYTES = 256 << 20  # everything inflated to answer one question
MAX_VARINT_BYTES = 10  # a size or an offset of 64 bits; a longer one is not a number git wrote
GIT_SECONDS = 30.0  # one question (a file at a commit, or a file's history)
MAX_SYMREF_DEPTH = 5
_HEX = re.compile(r"[0-9a-f]{40}")
_REV = re.compile(r"(?P<name>.+?)(?P<steps>(?:~[0-9]*|\^[0-9]*)*)")
_STEP = re.compile(r"([~^])([0-9]*)")
T = TypeVar("T")
_UNREADABLE = (OSError, ValueError, KeyError, IndexError, struct.error, zlib.error, OverflowError)


class BadObject(ValueError):
    """An object this reader refuses (past a bound, or not what its header says): reported."""


@dataclass
class _Work:
    """What one question may still spend: time, and bytes inflated; and how deep it is in packs."""

    deadline: float
    inflated: int = 0
    hops: int = 0
    ops: int = 0

    def spend(self, size: int) -> None:
        if size > MAX_OBJECT_BYTES:
            raise BadObject(f"an object declares {size:,} bytes, more than the {MAX_OBJECT_BYTES:,} read")
        self.inflated += size
        if self.inflated > MAX_INFLATED_BYTES:
            raise BadObject(f"reading it needs more than {MAX_INFLATED_BYTES:,} bytes inflated")
        self.tick()

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise BadObject(f"reading it took longer than {GIT_SECONDS:g} seconds")


def _fresh_work() -> _Work:
    return _Work(deadline=time.monotonic() + GIT_SECONDS)


MAX_WALK = 1_000  # commits walked for a file's history: a bound on time, said when reached


@dataclass(frozen=True)
class FileVersion:
    """One version of a file: the commit that brought it (first parents), when, and its bytes."""

    commit: str
    timestamp: int  # the committer's time, seconds since the epoch
    data: bytes


@dataclass(frozen=True)
class FileHistory:
    """A file's versions, newest first, and why the walk stopped before the first commit."""

    versions: list[FileVersion]
    cut: str = ""  # "" when the walk reached the file's first version or the limit


class Git(Protocol):
    problem: str  # why the last question found nothing, when the store held an object refused

    def has_commit(self, rev: str) -> bool: ...

    def show(self, rev: str, path: str) -> bytes | None: ...

    def file_history(self, rev: str, path: str, limit: int) -> FileHistory: ...


@dataclass
class GitObjects:
    """The repository checked out at ``worktree``, read in place."""

    worktree: Path
    # Why the last question found nothing, when the store held something this reader refused.
    problem: str = field(default="", init=False)
    _packs: list[_Pack] | None = field(default=None, init=False, repr=False)
    _work: _Work = field(default_factory=_fresh_work, init=False, repr=False)

    def has_commit(self, rev: str) -> bool:
        return self._guard(lambda: self._commit(rev) is not None) is True

    def show(self, rev: str, path: str) -> bytes | None:
        """The bytes of the file at ``path`` in ``rev``, like ``git show rev:path``; None when
        the commit or the file is not in the checkout (or ``path`` is a folder or a link)."""

        def read() -> bytes | None:
            commit = self._commit(rev)
            return None if commit is None else self._file(commit, path)

        return self._guard(read)

    def file_history(self, rev: str, path: str, limit: int) -> FileHistory:
        """The last ``limit`` versions of ``path`` along ``rev``'s first parents, newest first.

        A version is dated by the commit that brought it; a merge counts as the first
        parent's line, as ``git log --first-parent`` would show it. The walk stops at the
        file's first version, at a commit the checkout lacks (a shallow clone: ``cut``
        says so) or after ``MAX_WALK`` commits.
        """
        found = self._guard(lambda: self._walk(rev, path, limit))
        if found is None:
            return FileHistory([], cut=self.problem or f"{rev} could not be read from the checkout")
        return found

    def _walk(self, rev: str, path: str, limit: int) -> FileHistory:
        sha = self._resolve_commit_sha(rev)
        versions: list[FileVersion] = []
        newer: tuple[str, bytes, str] | None = None  # (commit, object, blob): the oldest commit yet with these bytes
        for _ in range(MAX_WALK):
            commit = None if sha is None else self._peel_to_commit(sha)
            if commit is None:
                if newer is None:
                    return FileHistory(versions, cut=f"commit {rev[:12]} is not in the checkout")
                cut = f"the checkout has no history before commit {newer[0][:12]} (a shallow clone)"
                return FileHistory(self._with(versions, newer), cut=cut)
            blob = self._blob(commit, path)
            if newer is not None and blob != newer[2]:
                versions, newer = self._with(versions, newer), None
                if len(versions) >= limit:
                    return FileHistory(versions)
            if blob is None:
                return FileHistory(versions)  # older than the file's first version
            newer = (str(sha), commit, blob)
            parents = [line[7:47].decode("ascii") for line in _headers(commit) if line.startswith(b"parent ")]
            if not parents:
                return FileHistory(self._with(versions, newer))  # the root commit
            sha = parents[0]
        return FileHistory(self._with(versions, newer), cut=f"the walk stopped after {MAX_WALK} commits")

    def _with(self, versions: list[FileVersion], newer: tuple[str, bytes, str] | None) -> list[FileVersion]:
        if newer is None:
            return versions
        sha, commit, blob = newer
        found = self._object(blob)
        if found is None or found[0] != b"blob":
            return versions
        return [*versions, FileVersion(sha, _committer_time(commit), found[1])]

    def _resolve_commit_sha(self, rev: str) -> str | None:
        parsed = _REV.fullmatch(rev)
        if parsed is None or parsed["steps"]:
            return None
        return self._resolve(parsed["name"])

    def _guard(self, read: Callable[[], T]) -> T | None:
        self.problem, self._work = "", _fresh_work()
        try:
            return read()
        except BadObject as exc:
            self.problem = f"the checkout's git objects could not be read: {exc}"
            return None
        except _UNREADABLE:
            return None  # not a repository, or one this reader cannot read: "not available"
        finally:
            # Packs stay mapped for one question only: a mapping holds a file descriptor,
            # which child processes would inherit (as their stdin, when fd 0 was free).
            for pack in self._packs or ():
                pack.close()
            self._packs = None

    # -- where things are -----------------------------------------------------------

    @property
    def git_dir(self) -> Path:
        """``.git``, or where a ``.git`` file (a linked worktree, a submodule) points."""
        dot_git = self.worktree / ".git"
        if dot_git.is_file():
            target = dot_git.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
            return (self.worktree / target).resolve()
        return dot_git

    @property
    def common_dir(self) -> Path:
        """Where objects and shared refs live: a linked worktree names it in ``commondir``."""
        pointer = self.git_dir / "commondir"
        if pointer.is_file():
            return (self.git_dir / pointer.read_text(encoding="utf-8").strip()).resolve()
        return self.git_dir

    # -- revisions --------------------------------------------------------------------

    def _commit(self, rev: str) -> bytes | None:
        """The commit object ``rev`` names: a full SHA or a ref, then ``~n`` / ``^n`` steps."""
        parsed = _REV.fullmatch(rev)
        sha = None if parsed is None else self._resolve(parsed["name"])
        commit = None if sha is None else self._peel_to_commit(sha)
        for kind, count in _STEP.findall(parsed["steps"] if parsed else ""):
            n = int(count) if count else 1
            # ~n: the first parent, n times; ^n: the n-th parent (^0: the commit itself).
            for which in [1] * n if kind == "~" else [n]:
                commit = None if commit is None else self._parent(commit, which)
        return commit

    def _resolve(self, name: str) -> str | None:
        if _HEX.fullmatch(name):
            return name
        # The order git rev-parse uses for a short name.
        for candidate in (
            name,
            f"refs/{name}",
            f"refs/tags/{name}",
            f"refs/heads/{name}",
            f"refs/remotes/{name}",
            f"refs/remotes/{name}/HEAD",
        ):
            sha = self._ref(candidate, MAX_SYMREF_DEPTH)
            if sha is not None:
                return sha
        return None

    def _ref(self, name: str, depth: int) -> str | None:
        if depth == 0 or name.startswith("/") or ".." in name.split("/"):
            return None
        # Per-worktree refs (HEAD, FETCH_HEAD) sit in the worktree's own git dir.
        for root in dict.fromkeys((self.git_dir, self.common_dir)):
            path = root / name
            if path.is_file():
                text = path.read_text(encoding="utf-8")
                if text.startswith("ref:"):
                    return self._ref(text.removeprefix("ref:").strip(), depth - 1)
                first = text[:40]  # FETCH_HEAD: "<sha>\t...", one line per fetched ref
                return first if _HEX.fullmatch(first) else None
        return self._packed_ref(name)

    def _packed_ref(self, name: str) -> str | None:
        packed = self.common_dir / "packed-refs"
        if not packed.is_file():
            return None
        for line in packed.read_text(encoding="utf-8").splitlines():
            sha, _, ref = line.partition(" ")
            if ref == name and _HEX.fullmatch(sha):
                return sha
        return None

    def _peel_to_commit(self, sha: str) -> bytes | None:
        for _ in range(MAX_SYMREF_DEPTH):  # an annotated tag, perhaps of a tag
            found = self._object(sha)
            if found is None:
                return None
            kind, data = found
            if kind == b"commit":
                return data
            if kind != b"tag":
                return None
            sha = _header(data, b"object") or ""
        return None

    def _parent(self, commit: bytes, which: int) -> bytes | None:
        if which == 0:
            return commit
        parents = [line[7:47].decode("ascii") for line in _headers(commit) if line.startswith(b"parent ")]
        return self._peel_to_commit(parents[which - 1]) if which <= len(parents) else None

    # -- trees -----------------------------------------------------------------------

    def _file(self, commit: bytes, path: str) -> bytes | None:
        sha = self._blob(commit, path)
        blob = None if sha is None else self._object(sha)
        return blob[1] if blob is not None and blob[0] == b"blob" else None

    def _blob(self, commit: bytes, path: str) -> str | None:
        """The name of the file's blob at ``commit``, without reading the blob."""
        sha, mode = _header(commit, b"tree"), b"40000"
        for part in [part for part in path.split("/") if part]:
            tree = None if sha is None or mode != b"40000" else self._object(sha)
            if tree is None or tree[0] != b"tree":
                return None
            entry = _tree_entry(tree[1], part.encode("utf-8"))
            if entry is None:
                return None
            mode, sha = entry
        if sha is None or not mode.startswith(b"100"):
            return None  # a folder, a symbolic link or a submodule, not a file
        return sha

    # -- objects ---------------------------------------------------------------------

    def _object(self, sha: str) -> tuple[bytes, bytes] | None:
        """(type, content) of an object, checked against its name."""
        found = self._loose(sha) or self._packed(sha)
        if found is None:
            return None
        kind, data = found
        if hashlib.sha1(b"%s %d\0" % (kind, len(data)) + data).hexdigest() != sha:
            return None  # corrupt, or not what was asked for
        return found

    def _loose(self, sha: str) -> tuple[bytes, bytes] | None:
        path = self.common_dir / "objects" / sha[:2] / sha[2:]
        if not path.is_file():
            return None
        # zlib never makes data much larger: a bigger file holds no object this reader would read.
        if path.stat().st_size > MAX_OBJECT_BYTES + (1 << 20):
            raise BadObject(f"loose object {sha} is larger than {MAX_OBJECT_BYTES:,} bytes")
        return _inflate_loose(path.read_bytes(), sha, self._work)

    def _packed(self, sha: str) -> tuple[bytes, bytes] | None:
        name = bytes.fromhex(sha)
        for pack in self._all_packs():
            offset = pack.find(name)
            if offset is not None:
                return pack.read(offset, self._object_for_delta, self._work)
        return None

    def _object_for_delta(self, name: bytes) -> tuple[bytes, bytes] | None:
        """The base of a reference delta in another pack, or loose: counted, as a loop may cross packs."""
        self._work.hops += 1
        if self._work.hops > MAX_PACK_HOPS:
            raise BadObject(f"a reference delta leads through more than {MAX_PACK_HOPS} packs")
        return self._object(name.hex())

    def _all_packs(self) -> list[_Pack]:
        if self._packs is None:
            folder = self.common_dir / "objects" / "pack"
            indexes = sorted(folder.glob("pack-*.idx")) if folder.is_dir() else []
            self._packs = [_Pack(index) for index in indexes if index.with_suffix(".pack").is_file()]
        return self._packs


class _Pack:
    """One packfile and its version-2 index, mapped read-only."""

    def __init__(self, index: Path) -> None:
        self.index_path, self.pack_path = index, index.with_suffix(".pack")
        self._index: mmap.mmap | None = None
        self._pack: mmap.mmap | None = None
        self._count = 0

    def _maps(self) -> tuple[mmap.mmap, mmap.mmap]:
        if self._index is None:
            self._index = _map(self.index_path)
            if self._index[:8] != b"\xfftOc\x00\x00\x00\x02":
                raise ValueError(f"{self.index_path}: not a version 2 pack index")
            self._count = struct.unpack_from(">I", self._index, 8 + 255 * 4)[0]
        if self._pack is None:
            self._pack = _map(self.pack_path)
            if self._pack[:4] != b"PACK":
                raise ValueError(f"{self.pack_path}: not a packfile")
        return self._index, self._pack

    def close(self) -> None:
        for mapped in (self._index, self._pack):
            if mapped is not None:
                mapped.close()
        self._index = self._pack = None

    def find(self, name: bytes) -> int | None:
        """The offset of object ``name`` in the pack, by binary search in the sorted names."""
        index, _ = self._maps()
        fanout = 8
        low = struct.unpack_from(">I", index, fanout + (name[0] - 1) * 4)[0] if name[0] else 0
        high = struct.unpack_from(">I", index, fanout + name[0] * 4)[0]
        names = fanout + 256 * 4
        names_view = _Names(index, names)
        i = bisect_left(names_view, name, low, high)
        if i >= high or names_view[i] != name:
            return None
        offsets = names + self._count * 24  # after the names (20 bytes) and CRCs (4 bytes)
        offset = struct.unpack_from(">I", index, offsets + i * 4)[0]
        if offset & 0x80000000:  # the position in the table of 8-byte offsets (packs over 2 GB)
            large = offsets + self._count * 4
            offset = struct.unpack_from(">Q", index, large + (offset & 0x7FFFFFFF) * 8)[0]
        return int(offset)

    def read(
        self, offset: int, elsewhere: Callable[[bytes], tuple[bytes, bytes] | None], work: _Work
    ) -> tuple[bytes, bytes] | None:
        """(type, content) of the object at ``offset``, its chain of deltas applied.

        A loop, not recursion: a delta whose base is itself (or a cycle) ends at the chain's bound.
        """
        _, pack = self._maps()
        deltas: list[bytes] = []
        for _ in range(MAX_DELTA_CHAIN):
            kind, size, at = _entry_header(pack, offset)
            if kind == OFS_DELTA:
                back, at = _offset_back(pack, at)
                if not 0 < back <= offset:
                    raise BadObject(f"an offset delta at {offset} points outside its pack")
                deltas.append(_inflate(pack, at, size, work))
                offset -= back
                continue
            if kind == REF_DELTA:
                base_name = bytes(pack[at : at + 20])
                deltas.append(_inflate(pack, at + 20, size, work))
                here = self.find(base_name)
                if here is not None:
                    offset = here
                    continue
                base = elsewhere(base_name)
                return None if base is None else (base[0], _apply_all(base[1], deltas, work))
            if kind not in OBJECT_TYPES:
                raise ValueError(f"{self.pack_path}: object type {kind} at offset {offset}")
            return OBJECT_TYPES[kind], _apply_all(_inflate(pack, at, size, work), deltas, work)
        raise BadObject(f"a delta chain longer than {MAX_DELTA_CHAIN}")


class _Names:
    """The index's sorted table of 20-byte names, as a sequence for bisect."""

    def __init__(self, index: mmap.mmap, start: int) -> None:
        self.index, self.start = index, start

    def __getitem__(self, i: int) -> bytes:
        at = self.start + i * 20
        return self.index[at : at + 20]


def _map(path: Path) -> mmap.mmap:
    with open(path, "rb") as handle:
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)


def _entry_header(pack: mmap.mmap, at: int) -> tuple[int, int, int]:
    """An entry's type and inflated size: 3 bits of type, then the size 4 + 7n bits at a time."""
    byte = pack[at]
    kind, size, shift = (byte >> 4) & 7, byte & 0x0F, 4
    for _ in range(MAX_VARINT_BYTES):
        if not byte & 0x80:
            return kind, size, at + 1
        at += 1
        byte = pack[at]
        size |= (byte & 0x7F) << shift
        shift += 7
    raise BadObject(f"a size of more than {MAX_VARINT_BYTES} bytes")


def _offset_back(pack: mmap.mmap, at: int) -> tuple[int, int]:
    """An offset delta's distance back to its base (big-endian groups of 7 bits, each
    continuation adding one, so that every distance has exactly one encoding)."""
    byte = pack[at]
    back = byte & 0x7F
    for _ in range(MAX_VARINT_BYTES):
        if not byte & 0x80:
            return back, at + 1
        at += 1
        byte = pack[at]
        back = ((back + 1) << 7) | (byte & 0x7F)
    raise BadObject(f"an offset of more than {MAX_VARINT_BYTES} bytes")


_STEP_BYTES = 64 * 1024


def _inflate(pack: mmap.mmap, at: int, size: int, work: _Work) -> bytes:
    """The zlib stream starting at ``at``, which must inflate to exactly ``size`` bytes, the size
    its header declares: never more is inflated, so a small stream cannot expand to gigabytes."""
    work.spend(size)
    inflater = zlib.decompressobj()
    chunks, total = [], 0
    while not inflater.eof:
        work.tick()
        chunk = pack[at : at + _STEP_BYTES]
        if not chunk:
            raise ValueError("a packed object ends early")
        # At most one byte past the declared size: enough to tell that it is past.
        piece = inflater.decompress(chunk, size + 1 - total)
        total += len(piece)
        if total > size:
            raise BadObject(f"an object inflates past the {size:,} bytes its header declares")
        chunks.append(piece)
        at += _STEP_BYTES
    if total != size:
        raise BadObject(f"an object inflates to {total:,} bytes, not the {size:,} its header declares")
    return b"".join(chunks)


_LOOSE_HEADER = re.compile(rb"(commit|tree|blob|tag) ([0-9]{1,20})")


def _inflate_loose(data: bytes, sha: str, work: _Work) -> tuple[bytes, bytes]:
    """A loose object: ``<type> <size>\\0`` then the content, inflated no further than ``size``."""
    inflater = zlib.decompressobj()
    head = inflater.decompress(data, 32)  # the longest header: "commit ", 20 digits and a NUL
    header, nul, rest = head.partition(b"\0")
    parsed = _LOOSE_HEADER.fullmatch(header) if nul else None
    if parsed is None:
        raise BadObject(f"loose object {sha} has no valid header")
    size = int(parsed[2])
    work.spend(size)
    rest += inflater.decompress(inflater.unconsumed_tail, size + 1 - len(rest)) if len(rest) <= size else b""
    if len(rest) != size or not inflater.eof:
        raise BadObject(f"loose object {sha} does not hold the {size:,} bytes its header declares")
    return parsed[1], rest


def _apply_all(base: bytes, deltas: list[bytes], work: _Work) -> bytes:
    for delta in reversed(deltas):  # the delta nearest the base was found last
        base = _apply_delta(base, delta, work)
    return base


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    for _ in range(MAX_VARINT_BYTES):
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at
    raise BadObject(f"a delta size of more than {MAX_VARINT_BYTES} bytes")


def _apply_delta(base: bytes, delta: bytes, work: _Work) -> bytes:
    """A git delta: the base's size, the result's size, then copy-from-base and insert ops."""
    source_size, at = _varint(delta, 0)
    target_size, at = _varint(delta, at)
    if source_size != len(base):
        raise ValueError("a delta for a base of another size")
    work.spend(target_size)
    out = bytearray()
    while at < len(delta):
        op = delta[at]
        at += 1
        if op & 0x80:  # copy: bits 0-3 say which offset bytes follow, bits 4-6 which size bytes
            offset = size = 0
            for bit in range(4):
                if op & (1 << bit):
                    offset |= delta[at] << (8 * bit)
                    at += 1
            for bit in range(3):
                if op & (1 << (4 + bit)):
                    size |= delta[at] << (8 * bit)
                    at += 1
            size = size or 0x10000
            if offset + size > len(base):
                raise ValueError("a delta copies past the end of its base")
            out += base[offset : offset + size]
        elif op:  # insert the next op bytes
            out += delta[at : at + op]
            at += op
        else:
            raise ValueError("a delta with the reserved instruction 0")
        if len(out) > target_size:  # checked as it grows: copies repeat, so a delta can multiply its base
            raise BadObject(f"a delta makes more than the {target_size:,} bytes it declares")
        work.ops += 1
        if work.ops % 4096 == 0:
            work.tick()
    if len(out) != target_size:
        raise ValueError("a delta gave the wrong size")
    return bytes(out)


def _headers(obj: bytes) -> list[bytes]:
    """The header lines of a commit or tag (up to the blank line before the message)."""
    head, _, _ = obj.partition(b"\n\n")
    return head.split(b"\n")


def _header(obj: bytes, key: bytes) -> str | None:
    for line in _headers(obj):
        if line.startswith(key + b" "):
            value = line[len(key) + 1 :].decode("ascii")
            return value if _HEX.fullmatch(value) else None
    return None


LATEST_TIME = 253_402_300_799  # 9999-12-31T23:59:59Z, the last second every date function can show


def _committer_time(commit: bytes) -> int:
    """Seconds since the epoch from ``committer Name <email> 1767225600 +0000``; 0 (unknown) for a
    time that is no number, or outside the years 1970 to 9999 (a commit may claim any)."""
    for line in _headers(commit):
        if line.startswith(b"committer "):
            parts = line.rsplit(b" ", 2)
            stamp = parts[1] if len(parts) == 3 else b""
            return int(stamp) if stamp.isdigit() and len(stamp) <= 12 and int(stamp) <= LATEST_TIME else 0
    return 0


def _tree_entry(tree: bytes, name: bytes) -> tuple[bytes, str] | None:
    """(mode, sha) of ``name`` in a tree: entries are ``<mode> <name>\\0<20-byte sha>``."""
    at = 0
    while at < len(tree):
        space = tree.index(b" ", at)
        nul = tree.index(b"\0", space)
        if tree[space + 1 : nul] == name:
            return tree[at:space], tree[nul + 1 : nul + 21].hex()
        at = nul + 21
    return None
