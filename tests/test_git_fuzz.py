"""A bounded fuzz over the git object reader: valid stores (loose objects, and a pack of offset
and reference deltas) mutated at random, seeded. Whatever the bytes, the reader answers with
what git wrote (the mutation missed, or hit a byte nobody reads) or with "not available", never
an exception, and quickly. git itself is the witness for the unmutated answer."""

from __future__ import annotations

import random
import struct
import time
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from action_workspace import git, repack
from retrieval_eval.action.git import GitObjects

ROUNDS = 250  # per store: a few seconds in all
SLOWEST = 2.0  # seconds one mutated question may take (the reader's own bound is far above)


def _repo(root: Path, offset_deltas: str | None) -> tuple[Path, str]:
    repo = root / f"repo-{offset_deltas}"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    rng = random.Random(3)
    lines = [f"line {i} {rng.random()}\n" for i in range(300)]
    for n in range(6):
        lines[rng.randrange(len(lines))] = f"changed in {n}\n"
        (repo / "report.json").write_text("".join(lines), encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"commit {n}")
    if offset_deltas is not None:
        repack(repo, offset_deltas)
    return repo, git(repo, "rev-parse", "HEAD")


def _mutations(rng: random.Random) -> list[Callable[[bytes], bytes]]:
    def flip(data: bytes) -> bytes:
        out = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out)

    def cut(data: bytes) -> bytes:
        return data[: rng.randrange(len(data))]

    def grow(data: bytes) -> bytes:
        at = rng.randrange(len(data))
        return data[:at] + bytes([rng.choice((0x80, 0xFF, 0x00, 0x7F))]) * rng.randint(1, 64) + data[at:]

    return [flip, cut, grow]


def _pack_mutations(rng: random.Random, index: bytes) -> list[Callable[[bytes], bytes]]:
    """Mutations that know the pack's layout (from its index): where random flips rarely land."""
    count = struct.unpack_from(">I", index, 8 + 255 * 4)[0]
    names = [index[8 + 1024 + 20 * i : 8 + 1024 + 20 * (i + 1)] for i in range(count)]
    offsets = [struct.unpack_from(">I", index, 8 + 1024 + 24 * count + 4 * i)[0] for i in range(count)]

    def entry(data: bytes) -> tuple[int, int, int]:
        """An entry's offset, type and where its header ends."""
        at = rng.choice(offsets)
        kind, end = (data[at] >> 4) & 7, at
        while data[end] & 0x80:
            end += 1
        return at, kind, end + 1

    def rebase(data: bytes) -> bytes:
        """A reference delta pointed at another object, often itself or one that points back."""
        for _ in range(50):
            at, kind, end = entry(data)
            if kind == 7:
                base = names[offsets.index(at)] if rng.random() < 0.5 else rng.choice(names)
                return data[:end] + base + data[end + 20 :]
            if kind == 6:  # an offset delta pointed at itself or at a neighbour
                return data[:end] + bytes([rng.choice((0x00, 0x01, 0x7F))]) + data[end + 1 :]
        return data

    def long_size(data: bytes) -> bytes:
        at, _kind, _end = entry(data)
        return data[:at] + bytes([data[at] | 0x80]) + b"\xff" * rng.randint(8, 20_000) + data[at + 1 :]

    def inflated_past(data: bytes) -> bytes:
        """An entry's zlib stream replaced by one of many megabytes of zeros."""
        at, kind, end = entry(data)
        start = end + (20 if kind == 7 else 0)
        if kind == 6:
            while data[start] & 0x80:
                start += 1
            start += 1
        return data[:start] + zlib.compress(b"\0" * (rng.randint(1, 16) << 20)) + data[start:]

    return [rebase, long_size, inflated_past]


def _inside_zlib(mutate: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    """A loose object whose inflated bytes (header and content) are mutated, then deflated again."""
    return lambda data: zlib.compress(mutate(zlib.decompress(data)))


def _declared_size(rng: random.Random) -> Callable[[bytes], bytes]:
    """A loose object's header declaring another size, up to far more than memory holds."""

    def mutate(raw: bytes) -> bytes:
        kind, _, rest = raw.partition(b" ")
        _size, _, content = rest.partition(b"\0")
        return kind + b" " + str(rng.choice((0, 1, len(content) + 1, 1 << 40))).encode() + b"\0" + content

    return mutate


@pytest.mark.parametrize("store", ["loose", "pack-offset-deltas", "pack-ref-deltas"])
def test_mutated_stores_answer_truly_or_not_at_all(store: str, tmp_path: Path) -> None:
    deltas = {"loose": None, "pack-offset-deltas": "true", "pack-ref-deltas": "false"}[store]
    repo, head = _repo(tmp_path, deltas)
    truth = (repo / "report.json").read_bytes()
    assert GitObjects(repo).show(head, "report.json") == truth  # the store as git wrote it
    files = [p for p in (repo / ".git" / "objects").rglob("*") if p.is_file() and p.suffix != ".rev"]
    rng = random.Random(store)
    mutations = _mutations(rng)
    if store == "loose":
        mutations += [_inside_zlib(m) for m in mutations] + [_inside_zlib(_declared_size(rng))]
    else:
        pack = next(p for p in files if p.suffix == ".pack")
        files.remove(pack.with_suffix(".idx"))  # mutated too, below, but less often than the pack
        knowing = _pack_mutations(rng, pack.with_suffix(".idx").read_bytes())
    for _ in range(ROUNDS):
        target = rng.choice(files)
        original = target.read_bytes()
        mutate = rng.choice(mutations if target.suffix != ".pack" else mutations + knowing * 2)
        target.write_bytes(mutate(original))
        try:
            reader = GitObjects(repo)
            started = time.monotonic()
            shown = reader.show(head, "report.json")
            history = reader.file_history(head, "report.json", 3)
            took = time.monotonic() - started
        finally:
            target.write_bytes(original)
        assert shown in (truth, None), target
        assert all(version.data for version in history.versions)
        assert took < SLOWEST, (target, took)
