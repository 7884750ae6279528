"""Strict, streaming JSON Lines reading shared by every JSONL format we read.

Policy (the same for judgments, runs and corpora):
- a UTF-8 byte order mark on the first line and CR LF line ends are accepted;
- blank lines are skipped; lines starting with ``//`` are comments where the
  format allows them (judgments files), an error elsewhere;
- each other line must be one JSON object; NaN and Infinity, which Python's
  json module would otherwise accept, are refused because no other JSON reader
  does;
- invalid UTF-8 is refused with the line that holds it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from .errors import InputError

BOM = b"\xef\xbb\xbf"


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _type_name(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def decode_line(raw: bytes, source: str, lineno: int, path: str | None) -> Any:
    """Parse one line as JSON, turning every failure into a ``source:line:`` refusal."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            source, lineno, f"not valid UTF-8 (byte {exc.start + 1} of the line)", path=path
        ) from None
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:
        detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise InputError(source, lineno, f"not valid JSON ({detail})", path=path) from None
    except RecursionError:
        raise InputError(source, lineno, "not valid JSON (nested too deeply)", path=path) from None


def expect_object(value: Any, source: str, lineno: int, path: str | None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(
            source, lineno, f"expected a JSON object, got {_type_name(value)}", path=path
        )
    return value


def iter_raw_lines(handle: BinaryIO, digest: Any = None) -> Iterator[bytes]:
    """Yield the file's lines (with their line ends), feeding ``digest`` every byte.

    Reading in large blocks lets one pass both hash the file and split it,
    which costs less than hashing line by line.
    """
    pending = b""
    while True:
        block = handle.read(1 << 20)
        if not block:
            break
        if digest is not None:
            digest.update(block)
        lines = (pending + block).split(b"\n")
        pending = lines.pop()
        yield from lines
    if pending:
        yield pending


def iter_lines(handle: BinaryIO, digest: Any = None) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, bytes without the BOM and line end), blank lines skipped."""
    for lineno, raw in enumerate(iter_raw_lines(handle, digest), 1):
        if lineno == 1 and raw.startswith(BOM):
            raw = raw[len(BOM):]
        stripped = raw.strip()
        if stripped:
            yield lineno, stripped


def iter_objects(
    handle: BinaryIO,
    source: str,
    *,
    path: str | None = None,
    comments: bool = False,
) -> Iterator[tuple[int, dict[str, Any] | str]]:
    """Yield (line number, object) per line; with ``comments``, ``//`` lines as str."""
    for lineno, raw in iter_lines(handle):
        if raw.startswith(b"//"):
            if comments:
                yield lineno, raw.decode("utf-8", errors="replace")
                continue
            raise InputError(source, lineno, "comments are not allowed in this file", path=path)
        yield lineno, expect_object(decode_line(raw, source, lineno, path), source, lineno, path)
