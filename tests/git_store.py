"""Git object stores written byte by byte, for the reader's hostile cases and its fuzz test:
loose objects and version-2 packs with their indexes, holding whatever a test asks for."""

from __future__ import annotations

import hashlib
import struct
import zlib
from pathlib import Path

TYPES = {"commit": 1, "tree": 2, "blob": 3, "tag": 4, "ofs_delta": 6, "ref_delta": 7}


def varint(value: int) -> bytes:
    """A delta's size: 7 bits at a time, least significant first."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def entry_header(kind: str, size: int) -> bytes:
    out = bytearray([(TYPES[kind] << 4) | (size & 0x0F)])
    size >>= 4
    while size:
        out[-1] |= 0x80
        out.append(size & 0x7F)
        size >>= 7
    return bytes(out)


def write_loose(git_dir: Path, name: str, raw: bytes) -> None:
    """``raw`` (header and content, as git stores them) deflated under the object's name."""
    folder = git_dir / "objects" / name[:2]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name[2:]).write_bytes(zlib.compress(raw))


def write_pack(git_dir: Path, entries: list[tuple[str, bytes]]) -> None:
    """A pack of ``(name, entry bytes)`` and its version-2 index; entries are written in order."""
    body, offsets = bytearray(b"PACK" + struct.pack(">II", 2, len(entries))), {}
    for name, entry in entries:
        offsets[bytes.fromhex(name)] = len(body)
        body += entry
    body += hashlib.sha1(body).digest()
    names = sorted(offsets)
    fanout = [sum(1 for n in names if n[0] <= first) for first in range(256)]
    index = bytearray(b"\xfftOc" + struct.pack(">I", 2) + struct.pack(">256I", *fanout))
    index += b"".join(names) + b"\0\0\0\0" * len(names)
    index += b"".join(struct.pack(">I", offsets[n]) for n in names)
    index += hashlib.sha1(body[-20:]).digest() + b"\0" * 20
    folder = git_dir / "objects" / "pack"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pack-test.pack").write_bytes(bytes(body))
    (folder / "pack-test.idx").write_bytes(bytes(index))


def ref_delta(base: str, delta: bytes) -> bytes:
    return entry_header("ref_delta", len(delta)) + bytes.fromhex(base) + zlib.compress(delta)


def whole(kind: str, data: bytes) -> bytes:
    return entry_header(kind, len(data)) + zlib.compress(data)
