"""Strict, streaming JSON Lines reading shared by every JSONL format we read.

Policy (the same for judgments, runs and corpora):
- a UTF-8 byte order mark on the first line and CR LF line ends are accepted;
- blank lines are skipped; lines starting with ``//`` are comments where the
  format allows them (judgments files), an error elsewhere;
- each other line must be one JSON object; NaN and Infinity, which Python's
  json module would otherwise accept, are refused because no other JSON reader
  does;
- invalid UTF-8 is refused with the line that holds it, and so is a ``\\u``
  escape that names a lone surrogate (``"\\ud800"``): json would read it into
  a string no UTF-8 file or terminal can hold, and the failure would come
  later, far from the line.

Speed: a line is first read on a fast path (orjson when it is installed, else
the standard library's C scanner called directly, which skips the per-call
set-up of ``json.loads``). Whatever the fast path does not accept, or may read
differently, is read again by ``json.loads``, which alone decides the value and
words the refusal, so the fast path never changes a result or a message.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from ..core.errors import InputError
from ..core.judgments import ExactNumber

_orjson: Any
try:  # optional: pip install 'retrieval-eval[fast]'
    import orjson as _orjson
except ImportError:  # pragma: no cover - depends on the environment
    _orjson = None

BOM = b"\xef\xbb\xbf"


def orjson_installed() -> bool:
    """Whether lines are read by orjson first (the fast extra)."""
    return _orjson is not None


# Values orjson reads exactly as json does; it reads integers past 64 bits as
# floats, so a record holding a float (or a container that may hide one) is
# read again by json when its numbers matter.
_PLAIN_TYPES = frozenset((str, int, bool, type(None)))
PLAIN_TYPES = _PLAIN_TYPES  # for readers that check a record's values themselves


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
_scan: Any = _DECODER.scan_once  # type: ignore[attr-defined]  # the C scanner, set by __init__


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


def _decode_fast(raw: bytes | memoryview, numbers_matter: bool) -> Any:
    """The line's value, or ``_SLOW`` when only ``json.loads`` may decide."""
    if _orjson is not None:
        try:
            value = _orjson.loads(raw)
        except _orjson.JSONDecodeError:
            return _SLOW
        return value if not numbers_matter or _plain_record(value) else _SLOW
    try:
        text = str(raw, "utf-8")  # raw may be a memoryview of a larger buffer
        value, end = _scan(text, 0)
    except (ValueError, StopIteration, RecursionError):  # UnicodeDecodeError is a ValueError
        return _SLOW
    if "\\u" in text:  # an escape may name a lone surrogate: json.loads words the refusal
        return _SLOW
    # Lines come stripped, so json.loads would accept exactly when the value fills the line.
    return value if end == len(text) else _SLOW


def scan_deferring_escapes(raw: bytes | memoryview) -> tuple[Any, str] | None:
    """Without orjson: the line's value and text by the C scanner, or None when only
    ``json.loads`` may decide. Unlike :func:`_decode_fast` it does not look for a ``\\u``
    escape (a lone surrogate must be refused): the caller does, and may skip that search
    of the whole line when every string it read is ASCII, which no surrogate is."""
    try:
        text = str(raw, "utf-8")
        value, end = _scan(text, 0)
    except (ValueError, StopIteration, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    return (value, text) if end == len(text) else None


def decode_line(
    raw: bytes | memoryview, source: str, lineno: int, path: str | None, *, numbers_matter: bool = True
) -> Any:
    """Parse one (stripped) line as JSON, turning every failure into a ``source:line:`` refusal.

    ``numbers_matter=False`` says the caller reads no number from the line,
    so any reading of a number will do. The caller must then also take what
    it reads only when it holds no container beyond the one it expects:
    orjson nests deeper than json does.
    """
    value = _decode_fast(raw, numbers_matter)
    if value is not _SLOW:
        return value
    return decode_exactly(raw, source, lineno, path)


def loose_loads() -> Callable[[bytes], Any]:
    """What ``decode_line(numbers_matter=False)`` tries first, as one callable a reader binds
    once: it returns the line's value or raises ValueError when only :func:`decode_line` may
    decide (which then reads the line again and words any refusal). With orjson it is
    ``orjson.loads`` itself, so a line costs no Python frame (orjson's error is a ValueError)."""
    if _orjson is not None:
        loads: Callable[[bytes], Any] = _orjson.loads
        return loads
    return _loose_stdlib


def _loose_stdlib(raw: bytes) -> Any:
    value = _decode_fast(raw, False)
    if value is _SLOW:
        raise ValueError("decode_line decides")
    return value


def decode_exactly(raw: bytes | memoryview, source: str, lineno: int, path: str | None) -> Any:
    """Parse one line with ``json.loads``: the reading, and the refusal, every fast path defers to."""
    try:
        text = str(raw, "utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(source, lineno, f"not valid UTF-8 (byte {exc.start + 1} of the line)", path=path) from None
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:
        # json words some errors to be followed by where ("Unterminated string starting at"): say it.
        detail = f"{exc.msg}: character {exc.pos + 1}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise InputError(source, lineno, f"not valid JSON ({detail})", path=path) from None
    except RecursionError:
        raise InputError(source, lineno, "not valid JSON (nested too deeply)", path=path) from None
    if "\\u" in text and (surrogate := lone_surrogate(value)) is not None:
        raise InputError(
            source,
            lineno,
            f"not valid Unicode (\\u{ord(surrogate):04x} is a lone surrogate, not a character)",
            path=path,
        )
    return value


def decode_keeping_numbers(raw: bytes | memoryview, source: str, lineno: int, path: str | None) -> Any:
    """Like :func:`decode_exactly`, with every non-integer number kept as written
    (:class:`~retrieval_eval.core.judgments.ExactNumber`), for files we write back."""
    decode_exactly(raw, source, lineno, path)  # the refusals, word for word
    return json.loads(str(raw, "utf-8"), parse_float=ExactNumber, parse_constant=_refuse_constant)


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in any string of a decoded value (keys included), else None.

    Only a ``\\u`` escape can put one there: strict UTF-8 decoding refuses encoded ones,
    and json joins an escaped pair into one character.
    """
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return found.group()
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


def expect_object(value: Any, source: str, lineno: int, path: str | None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(source, lineno, f"expected a JSON object, got {_type_name(value)}", path=path)
    return value


BLOCK = 1 << 20
# Below this size a file is read on the calling thread: a second one would cost more than it saves.
READ_AHEAD_FROM = 8 * BLOCK


MAX_LINE_BYTES = 256 << 20  # a 100 MB line works; /dev/zero (no line end, ever) is refused
MAX_INPUT_BYTES = 64 << 30  # far past any judgment set or run; an endless stream is refused
LINE_ENV = "RETRIEVAL_EVAL_MAX_LINE_BYTES"
INPUT_ENV = "RETRIEVAL_EVAL_MAX_INPUT_BYTES"


@dataclass(frozen=True)
class Limits:
    """How long one line, and how large one file, a line reader accepts."""

    line: int = MAX_LINE_BYTES
    total: int = MAX_INPUT_BYTES

    @classmethod
    def from_environment(cls) -> Limits:
        """The defaults, or what ``RETRIEVAL_EVAL_MAX_LINE_BYTES`` / ``..._INPUT_BYTES`` say."""
        return cls(_positive(LINE_ENV, MAX_LINE_BYTES), _positive(INPUT_ENV, MAX_INPUT_BYTES))


def _positive(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    return int(text) if text.isascii() and text.isdigit() and int(text) > 0 else default


def iter_raw_lines(
    handle: BinaryIO, digest: Any = None, *, source: str = "input", path: str | None = None
) -> Iterator[bytes]:
    """Yield the file's lines (without their ``\\n``), feeding ``digest`` every byte.

    Reading in large blocks lets one pass both hash the file and split it,
    which costs less than hashing line by line. At most about one block's
    worth of lines is held at a time (a few with read-ahead). A line cut by
    block ends is kept in parts and joined once, so an endless line costs
    linear time; past :class:`Limits` it is refused with its line number.
    """
    limits = Limits.from_environment()
    pending: list[bytes] = []
    pending_size = total = 0
    lineno = 0
    for lines in _split_blocks(handle, digest):
        total += sum(map(len, lines)) + len(lines) - 1
        if total > limits.total:
            raise InputError(source, None, _too_large("the file", limits.total, INPUT_ENV), path=path)
        if len(lines) > 1 and pending:
            lines[0] = b"".join([*pending, lines[0]])  # only the line cut by block ends is copied again
            pending, pending_size = [], 0
        last = lines.pop()
        pending.append(last)
        pending_size += len(last)
        if pending_size > limits.line:
            raise InputError(source, lineno + len(lines) + 1, _too_large("a line", limits.line, LINE_ENV), path=path)
        lineno += len(lines)
        yield from lines
        del lines  # before the next block is read, not after
    if pending_size:
        yield b"".join(pending)


def _too_large(what: str, limit: int, variable: str) -> str:
    return f"{what} is longer than {limit:,} bytes, the most accepted (set {variable} to raise it)"


def _split_blocks(handle: BinaryIO, digest: Any) -> Iterator[list[bytes]]:
    """Each block's lines, the last one possibly cut short by the block's end."""
    if _size(handle) < READ_AHEAD_FROM:
        return _read_inline(handle, digest)
    return _read_ahead(handle, digest)


def _size(handle: BinaryIO) -> int:
    try:
        return os.fstat(handle.fileno()).st_size
    except (AttributeError, OSError, ValueError):  # not a real file: read it inline
        return 0


def _read_block(handle: BinaryIO, digest: Any) -> list[bytes] | None:
    block = handle.read(BLOCK)
    if not block:
        return None
    if digest is not None:
        digest.update(block)
    # Only the split lines outlive this call, so a block is never held twice.
    return block.split(b"\n")


def _read_inline(handle: BinaryIO, digest: Any) -> Iterator[list[bytes]]:
    while True:
        lines = _read_block(handle, digest)
        if lines is None:
            return
        yield lines
        del lines  # a suspended frame would keep it alive through the next read


def _read_ahead(handle: BinaryIO, digest: Any) -> Iterator[list[bytes]]:
    """Blocks read, hashed and split on a second thread while this one parses.

    File reads and SHA-256 release the GIL, so on a machine with a free core
    hashing a large run costs no wall time. Two blocks at most wait in the
    queue, so memory stays bounded.
    """
    blocks: queue.Queue[list[bytes] | BaseException | None] = queue.Queue(maxsize=2)
    stop = threading.Event()

    def read() -> None:
        try:
            while not stop.is_set():
                lines = _read_block(handle, digest)
                blocks.put(lines)
                if lines is None:
                    return
        except BaseException as exc:  # handed to the parsing thread, which raises it
            blocks.put(exc)

    reader = threading.Thread(target=read, name="retrieval-eval-read-ahead", daemon=True)
    reader.start()
    try:
        while (item := blocks.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item
            del item
    finally:
        stop.set()
        while reader.is_alive():  # the reader may wait on a full queue: make room until it sees stop
            with contextlib.suppress(queue.Empty):
                blocks.get_nowait()
            reader.join(0.01)


_SPACE = frozenset(b" \t\n\r\x0b\x0c")  # what bytes.strip() strips


def clean_line(raw: bytes | memoryview, first: bool) -> bytes | memoryview:
    """A line as every JSONL reader takes it: a BOM dropped from the file's first line, white space stripped.

    A view into a larger buffer is copied only when it has white space to strip.
    """
    if first and raw[: len(BOM)] == BOM:
        raw = raw[len(BOM) :]
    if type(raw) is bytes:
        return raw.strip()
    if raw and (raw[0] in _SPACE or raw[-1] in _SPACE):
        return bytes(raw).strip()
    return raw


def iter_lines(
    handle: BinaryIO, digest: Any = None, *, source: str = "input", path: str | None = None
) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, bytes without the BOM and line end), blank lines skipped.

    ``source`` and ``path`` name the file when a line or the file is past its limit."""
    lines = iter_raw_lines(handle, digest, source=source, path=path)
    first = next(lines, None)
    if first is None:
        return
    stripped = clean_line(first, True)
    if stripped:
        yield 1, stripped  # type: ignore[misc]  # bytes in, bytes out
    # The raw lines are bytes: past the first (and its BOM) cleaning a line is strip(),
    # written out because a call per line showed in the profile of a large file.
    for lineno, raw in enumerate(lines, 2):
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
    for lineno, raw in iter_lines(handle, source=source, path=path):
        if raw.startswith(b"//"):
            if comments:
                yield lineno, raw.decode("utf-8", errors="replace")
                continue
            raise InputError(source, lineno, "comments are not allowed in this file", path=path)
        yield lineno, expect_object(decode_line(raw, source, lineno, path), source, lineno, path)
