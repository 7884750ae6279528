"""Strict, streaming JSON Lines reading shared by every JSONL format we read.

Policy (the same for judgments, runs and corpora):
- a UTF-8 byte order mark on the first line and CR LF line ends are accepted;
- blank lines are skipped; lines starting with ``//`` are comments where the
  format allows them (judgments files), an error elsewhere;
- each other line must be one JSON object; NaN and Infinity, which Python's
  json module would otherwise accept, are refused because no other JSON reader
  does;
- invalid UTF-8 is refused with the line that holds it.

Speed: a line is first read on a fast path (orjson when it is installed, else
the standard library's C scanner called directly, which skips the per-call
set-up of ``json.loads``). Whatever the fast path does not accept, or may read
differently, is read again by ``json.loads``, which alone decides the value and
words the refusal, so the fast path never changes a result or a message.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, BinaryIO

from .errors import InputError

try:  # optional: pip install 'retrieval-eval[fast]'
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the environment
    _orjson = None

BOM = b"\xef\xbb\xbf"
# Values orjson reads exactly as json does; it reads integers past 64 bits as
# floats, so a record holding a float (or a container that may hide one) is
# read again by json when its numbers matter.
_PLAIN_TYPES = frozenset((str, int, bool, type(None)))


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_scan = _DECODER.scan_once


def fast_parser() -> str:
    """Which fast path reads lines here: ``orjson`` or ``json`` (the standard library)."""
    return "orjson" if _orjson is not None else "json"


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


_SLOW: Any = object()  # "ask json.loads": no JSON value is this object


def _plain_record(value: Any) -> bool:
    return type(value) is dict and all(map(_PLAIN_TYPES.__contains__, map(type, value.values())))


def _decode_fast(raw: bytes, numbers_matter: bool) -> Any:
    """The line's value, or ``_SLOW`` when only ``json.loads`` may decide."""
    if _orjson is not None:
        try:
            value = _orjson.loads(raw)
        except _orjson.JSONDecodeError:
            return _SLOW
        return value if not numbers_matter or _plain_record(value) else _SLOW
    try:
        text = raw.decode("utf-8")
        value, end = _scan(text, 0)
    except (ValueError, StopIteration, RecursionError):  # UnicodeDecodeError is a ValueError
        return _SLOW
    # Lines come stripped, so json.loads would accept exactly when the value fills the line.
    return value if end == len(text) else _SLOW


def decode_line(
    raw: bytes, source: str, lineno: int, path: str | None, *, numbers_matter: bool = True
) -> Any:
    """Parse one (stripped) line as JSON, turning every failure into a ``source:line:`` refusal.

    ``numbers_matter=False`` says the caller reads no number from the line
    (a run line's query id and keys are strings; other fields are ignored),
    so any reading of a number will do.
    """
    value = _decode_fast(raw, numbers_matter)
    if value is not _SLOW:
        return value
    return _decode_exactly(raw, source, lineno, path)


def _decode_exactly(raw: bytes, source: str, lineno: int, path: str | None) -> Any:
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
