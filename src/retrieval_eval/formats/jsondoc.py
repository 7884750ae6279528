"""Reading one whole JSON document (a report, a comparison, samples, an event payload), bounded.

Every whole-document reader goes through :func:`parse_document`, so each holds
to the same limits and words its refusals the same way as the JSONL readers:

- at most ``MAX_DOCUMENT_BYTES`` bytes (``RETRIEVAL_EVAL_MAX_DOCUMENT_BYTES``
  raises it), read no further than one byte past the limit, so an endless
  input (``/dev/zero``) is refused rather than read;
- containers nested at most ``MAX_DEPTH`` deep (Python's json would raise
  RecursionError near 1,000, and code that walks the value could fail sooner);
- integers of at most ``MAX_INTEGER_DIGITS`` digits (Python refuses to convert
  past 4,300, with a ValueError);
- numbers a double can hold: ``1e400`` is refused rather than read as infinity,
  and ``NaN`` and ``Infinity``, which no other JSON reader accepts, are refused;
- UTF-8, with or without a byte order mark.
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
from typing import Any

from ..core.errors import InputError
from .fileio import cannot_read
from .jsonl import lone_surrogate

MAX_DOCUMENT_BYTES = 1 << 30
SIZE_ENV = "RETRIEVAL_EVAL_MAX_DOCUMENT_BYTES"
MAX_DEPTH = 64
MAX_INTEGER_DIGITS = 100


class _Refused(ValueError):
    """A number the document may not hold; raised from inside the parser, reworded by the caller."""


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise _Refused(f"an integer of {digits} digits is longer than the {MAX_INTEGER_DIGITS} digits allowed")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise _Refused(f"the number {shown} is too large for a double")
    return value


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_int=_integer, parse_float=_float, parse_constant=_constant)
_PLAIN_DECODER = json.JSONDecoder(parse_constant=_constant)
# A run of digits or an exponent long enough to need the checks above; only a document that holds
# one (or a string that looks like one) pays for a Python call per number.
_SUSPECT = re.compile(rf"\d{{{min(MAX_INTEGER_DIGITS, 300) + 1},}}|[eE][+-]?0*\d{{3,}}")


def max_document_bytes() -> int:
    """The size limit: ``RETRIEVAL_EVAL_MAX_DOCUMENT_BYTES`` when it is a positive whole number."""
    setting = os.environ.get(SIZE_ENV, "").strip()
    return int(setting) if setting.isdigit() and int(setting) > 0 else MAX_DOCUMENT_BYTES


def _too_large(limit: int) -> str:
    return f"larger than {limit:,} bytes, the most a document may hold (set {SIZE_ENV} to raise it)"


def named(source: str, path: str | None) -> str:
    """A whole document's refusal names its role and its file: ``base (reports/main.json)``; a
    line reader's refusal names the line instead, and the hint the file."""
    return source if not path or path == source else f"{source} ({path})"


_BLOCK = 1 << 16  # read a block at a time: a device or a pipe is judged by its first bytes
_JSON_STARTS = b"{["  # our documents are objects (or arrays); a BOM and white space may come first


def read_document_bytes(path: str, source: str, *, json_document: bool = True) -> bytes:
    """The file's bytes, refused past the size limit without reading further, and refused at the
    first block that no document can hold: a NUL byte or bytes that are not UTF-8 (``/dev/zero``,
    ``/dev/urandom``), or, for a JSON document, a start that is not ``{`` or ``[``. Endless input
    is thus refused after kilobytes, not after the size limit."""
    source = named(source, path)
    limit = max_document_bytes()
    blocks: list[bytes] = []
    size = 0
    text = codecs.getincrementaldecoder("utf-8-sig")(errors="strict")
    try:
        with open(path, "rb") as handle:
            while size <= limit:
                block = handle.read(min(_BLOCK << min(len(blocks), 8), limit + 1 - size))
                if not block:
                    break
                if not size:  # later blocks are the parser's to judge, which names the line
                    _check_start(block, text, json_document, source, path)
                blocks.append(block)
                size += len(block)
    except OSError as exc:
        raise cannot_read(path, exc) from None
    if size > limit:
        raise InputError(source, None, _too_large(limit), path=path)
    return b"".join(blocks)


def _check_start(block: bytes, text: codecs.IncrementalDecoder, json_document: bool, source: str, path: str) -> None:
    nul = block.find(b"\0")
    if nul >= 0:
        raise InputError(source, None, f"holds a NUL byte (byte {nul + 1:,}): not a text document", path=path)
    try:
        decoded = text.decode(block)
    except UnicodeDecodeError as exc:
        raise InputError(source, None, f"not valid UTF-8 (byte {exc.start + 1:,})", path=path) from None
    body = decoded.lstrip()
    start = body[:1]
    if json_document and start and start not in _JSON_STARTS.decode():
        line = decoded[: len(decoded) - len(body)].count("\n") + 1
        raise InputError(source, line, f"not a JSON document: it starts with {start!r}, not {{ or [", path=path)


def read_document(path: str, source: str, *, lone_surrogates: bool = False) -> Any:
    """The JSON value of the file at ``path``, within the limits above."""
    return parse_document(read_document_bytes(path, source), source, path=path, lone_surrogates=lone_surrogates)


def parse_document(
    data: bytes, source: str, *, path: str | None = None, where: str = "", lone_surrogates: bool = False
) -> Any:
    """The JSON value of ``data``; every failure is an InputError for ``source``.

    ``where`` names bytes that never were a file here (``"the report in artifact x: "``).
    A ``\\ud800`` escape names no character, and a string holding one cannot be written back
    as UTF-8 (a report's strings are: in a comparison, a page, the next report), so it is
    refused as every line reader refuses it; ``lone_surrogates`` lets it through for a
    document read for a few fields only (the event's payload, GitHub's: refused whole for a
    string nobody reads, the job would fail for nothing).
    """
    source = named(source, path)
    limit = max_document_bytes()
    if len(data) > limit:
        raise InputError(source, None, where + _too_large(limit), path=path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(source, line, where + "not valid UTF-8", path=path) from None
    if not text.strip():  # json would say "Expecting value" at a line that holds nothing
        raise InputError(
            source, None, where + ("the file is empty" if not text else "the file holds only white space"), path=path
        )
    try:
        decoder = _DECODER if _SUSPECT.search(text) else _PLAIN_DECODER
        value = decoder.decode(text)
    except _Refused as exc:
        raise InputError(source, None, where + str(exc), path=path) from None
    except json.JSONDecodeError as exc:
        raise InputError(source, exc.lineno, f"{where}not valid JSON ({exc.msg})", path=path) from None
    except RecursionError:
        raise InputError(source, None, where + _too_deep(), path=path) from None
    if _depth_exceeds(value, MAX_DEPTH):
        raise InputError(source, None, where + _too_deep(), path=path)
    if not lone_surrogates and "\\u" in text and (surrogate := lone_surrogate(value)) is not None:
        # As every line reader refuses it: nothing could write such a string back as UTF-8.
        escape, found = _first_lone_escape(text) or (f"\\u{ord(surrogate):04x}", -1)
        raise InputError(
            source,
            text.count("\n", 0, found) + 1 if found >= 0 else None,
            f"{where}not valid Unicode ({escape} is a lone surrogate, not a character)",
            path=path,
        )
    return value


# Every escape of a JSON text, left to right: outside strings a backslash is no JSON, so each
# match is an escape (a \\ is one, and the "u" after it is text, not another escape).
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def _first_lone_escape(text: str) -> tuple[str, int] | None:
    """The first ``\\uXXXX`` escape of a surrogate that is not half of a pair, lowercased, and
    its offset in ``text``. Searching the text for the escape of the character found instead named
    the line of an escaped backslash followed by the same letters, or of a pair's half, and a
    lowercased copy of the text is not as long as the text (U+0130 is two characters folded)."""
    high: re.Match[str] | None = None  # a high half, waiting for its low half right after it
    for match in _ESCAPE.finditer(text):
        code = int(match.group(1), 16) if match.group(1) else -1
        if high is not None:
            if 0xDC00 <= code <= 0xDFFF and match.start() == high.end():
                high = None
                continue
            return high.group().lower(), high.start()
        if 0xD800 <= code <= 0xDBFF:
            high = match
        elif 0xDC00 <= code <= 0xDFFF:
            return match.group().lower(), match.start()
    return None if high is None else (high.group().lower(), high.start())


def _too_deep() -> str:
    return f"not valid JSON here (nested more than {MAX_DEPTH} levels deep)"


_CONTAINERS = (dict, list)


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Whether containers nest deeper than ``limit`` (iteratively: the walk itself must not recurse).

    A container of scalars only (most of a report: rankings, a query's values)
    is passed over by one scan of its values' types.
    """
    level = [value] if isinstance(value, _CONTAINERS) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        deeper: list[Any] = []
        for container in level:
            children = container.values() if isinstance(container, dict) else container
            if not _CONTAINER_TYPES.isdisjoint(map(type, children)):
                deeper.extend(child for child in children if isinstance(child, _CONTAINERS))
        level = deeper
    return False


_CONTAINER_TYPES = frozenset(_CONTAINERS)
