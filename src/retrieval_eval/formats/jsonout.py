"""Indented JSON, written piece by piece, byte for byte what ``json.dumps`` writes.

``json.dumps(value, indent=2, ensure_ascii=False)`` runs the pure-Python
encoder (the C one cannot indent) and joins every piece into one string
before anything is written: for a report of 100k queries that string and its
pieces cost hundreds of megabytes. Here the pieces are yielded as they are
made, and a container holding only scalars (a query's metric values, a
ranking) is encoded by the C encoder in one call, its item separator carrying
the newline and indentation ``indent=2`` would have put there.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from itertools import chain, islice
from typing import Any

from .fileio import atomic_writer
from .jsontext import indented_text

_orjson: Any
try:  # the fast extra; without it every piece is written as below
    import orjson as _orjson
except ImportError:
    _orjson = None

INDENT = "  "
_SCALARS = frozenset((str, int, float, bool, type(None)))
_plain = json.JSONEncoder(ensure_ascii=False)  # the key and scalar encoding indent=2 uses too


def _flat(container: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> bool:
    """Whether every value is a plain scalar (and, for an object, every key a string)."""
    if isinstance(container, dict):
        return all(map(_SCALARS.__contains__, map(type, container.values()))) and set(map(type, container)) <= _STRING
    return all(map(_SCALARS.__contains__, map(type, container)))


_STRING = frozenset((str,))


def _refuse(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _flat_encoder(depth: int) -> Any:
    """Encode a container of scalars with the item separator ``indent=2`` uses at this depth.

    ``JSONEncoder.encode`` sets up a new C encoder on every call, which costs
    more than encoding a query's few values; the C encoder is made once here
    instead, when this Python has one (it is what ``encode`` calls).
    """
    separator = ",\n" + INDENT * (depth + 1)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - a Python without json's C accelerator
        return json.JSONEncoder(ensure_ascii=False, separators=(separator, ": ")).encode
    encoder = make(None, _refuse, json.encoder.encode_basestring, None, ": ", separator, False, False, True)
    return lambda value: "".join(encoder(value, 0))


def iter_indented(value: Any, depth: int = 0, _encoders: dict[int, Any] | None = None) -> Iterator[str]:
    """Yield the text of ``json.dumps(value, indent=2, ensure_ascii=False)`` in pieces."""
    encoders = {} if _encoders is None else _encoders
    is_object = isinstance(value, dict)
    if not (is_object or isinstance(value, (list, tuple))) or not value:
        yield _plain.encode(value)  # a scalar, or an empty container: one piece
        return
    text = _flat_text(value, depth, encoders)
    if text is not None:
        yield text
        return
    inner = "\n" + INDENT * (depth + 1)
    yield "{" if is_object else "["
    items: Iterable[tuple[Any, Any]] = value.items() if is_object else ((None, v) for v in value)
    for position, (key, item) in enumerate(items):
        prefix = "," + inner if position else inner
        if is_object:
            prefix += _plain.encode(_key_text(key)) + ": "
        # A query's metrics or ranking: one piece, without a generator of its own.
        text = _flat_text(item, depth + 1, encoders) if item and type(item) in (dict, list) else None
        if text is not None:
            yield prefix + text
        else:
            yield prefix
            yield from iter_indented(item, depth + 1, encoders)
    yield "\n" + INDENT * depth + ("}" if is_object else "]")


def _flat_text(value: Any, depth: int, encoders: dict[int, Any]) -> str | None:
    """The indented text of a non-empty container of scalars, in one C encoder call; else None."""
    if not _flat(value):
        return None
    encode = encoders.get(depth) or encoders.setdefault(depth, _flat_encoder(depth))
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    # The C encoder wrote "{a,<sep>b}"; indent=2 also breaks the line after the
    # opening bracket and before the closing one.
    inner: str = encode(value)[1:-1]
    return opening + "\n" + INDENT * (depth + 1) + inner + "\n" + INDENT * depth + closing


def _key_text(key: Any) -> str:
    # json turns scalar keys into strings this way; anything else it refuses, as this does.
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return json.dumps(key)
    if isinstance(key, (int, float)):
        return _plain.encode(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def dumps_indented(value: Any) -> str:
    return "".join(iter_indented(value))


# -- with orjson: the same bytes, a block of rows at a time ---------------------------
#
# orjson writes indented JSON as json.dumps(indent=2, ensure_ascii=False) does (same
# separators, same string escapes, same shortest float digits) except for a few values: a
# float below 1e-4 in magnitude (orjson "0.00001" and "5e-7", json "1e-05" and "5e-07"),
# NaN and infinities (orjson writes null), and what orjson refuses (integers past 64 bits,
# keys that are not strings, lone surrogates). A block is handed to orjson only when none of
# those can be in it, which is checked in bulk; any other block is written as above.

ROWS_PER_BLOCK = 2048  # rows handed to orjson at once: the text of one block is all that is held
_PLAIN_TYPES = frozenset((str, int, float, bool, type(None)))
_NUMBERS = frozenset((int, float))
_ROW_VALUES = _PLAIN_TYPES | {list}  # in an object row: scalars, or lists of scalars


def _numbers_alike(values: list[Any], kinds: set[type] | None = None) -> bool:
    """Whether orjson writes every number among these scalars (of these ``kinds``, when known) as json does."""
    kinds = set(map(type, values)) if kinds is None else kinds
    if not kinds & _NUMBERS:
        return True
    numbers = values if kinds <= _NUMBERS else [v for v in values if type(v) is int or type(v) is float]
    if not math.isfinite(sum(numbers)):  # a NaN or an infinity (or a sum past the floats: left to json too)
        return False
    # No NaN from here on, so min and max are well defined. The metrics' values are never
    # negative: their magnitudes are themselves, and no float is made for each (abs would).
    if min(numbers) < 0:
        numbers = list(map(abs, numbers))
    return (
        max(numbers) < 1e16  # integers past 64 bits, and large floats, left to json
        and min(filter(None, numbers), default=1.0) >= 1e-4
    )


def _rows_alike(rows: list[Any]) -> bool:
    """Whether orjson writes this list of rows (scalars, or containers of scalars) as json does.

    A row that is an object may also hold lists of scalars (drift's findings name the chunks
    that cover a label)."""
    kinds = set(map(type, rows))
    if kinds <= _PLAIN_TYPES:
        scalars = rows
    elif kinds == {dict}:
        if not set(map(type, chain.from_iterable(rows))) <= {str}:  # every row's keys
            return False
        scalars = list(chain.from_iterable(map(dict.values, rows)))
        if list in set(map(type, scalars)):
            lists = [value for value in scalars if type(value) is list]
            scalars = [value for value in scalars if type(value) is not list]
            scalars.extend(chain.from_iterable(lists))
    elif kinds == {list}:
        scalars = list(chain.from_iterable(rows))
    else:
        return False
    kinds = set(map(type, scalars))
    return kinds <= _PLAIN_TYPES and _numbers_alike(scalars, kinds)


def _is_rows(container: dict[Any, Any] | list[Any]) -> bool:
    """A container of scalars, or of containers of scalars: written in blocks of rows.

    Only the first block's rows are looked into: every block is checked again before orjson
    writes it (:func:`_block_text`), and one that is not rows is written as
    :func:`iter_indented` writes it, the same text. This only chooses the faster way."""
    values = list(container.values()) if type(container) is dict else container
    kinds = set(map(type, values))
    if kinds <= _PLAIN_TYPES:
        return True
    first = values[:ROWS_PER_BLOCK]
    if kinds == {dict}:
        return set(map(type, chain.from_iterable(map(dict.values, first)))) <= _ROW_VALUES
    if kinds == {list}:
        return set(map(type, chain.from_iterable(first))) <= _PLAIN_TYPES
    return False


def _block_text(block: dict[Any, Any] | list[Any], depth: int) -> str:
    """The indented text of a container of rows at this depth, by orjson when it writes the same."""
    if isinstance(block, dict):
        rows = list(block.values()) if set(map(type, block)) <= {str} else None
    else:
        rows = block
    if rows is None or not _rows_alike(rows):
        return "".join(iter_indented(block, depth))
    try:
        text: str = _orjson.dumps(block, option=_orjson.OPT_INDENT_2).decode()
    except TypeError:  # a lone surrogate, which orjson refuses and json writes (a report read from a file may hold one)
        return "".join(iter_indented(block, depth))
    return text.replace("\n", "\n" + INDENT * depth) if depth else text


def iter_indented_fast(value: Any, depth: int = 0) -> Iterator[str]:
    """:func:`iter_indented`'s text, its containers of rows written by orjson a block at a time."""
    kind = type(value)
    if _orjson is None or (kind is not dict and kind is not list) or not value:
        yield from iter_indented(value, depth)
        return
    opening, closing = ("{", "}") if kind is dict else ("[", "]")
    if _is_rows(value):
        items = iter(value.items()) if kind is dict else iter(value)
        first = True
        while block := list(islice(items, ROWS_PER_BLOCK)):
            text = _block_text(dict(block) if kind is dict else block, depth)
            # "{<items>\n<indent>}": each block's items, joined as one container's.
            yield (opening if first else ",") + text[1 : -(len(INDENT) * depth + 2)]
            first = False
        yield "\n" + INDENT * depth + closing
        return
    inner = "\n" + INDENT * (depth + 1)
    yield opening
    for position, item in enumerate(value.items() if kind is dict else value):
        prefix = "," + inner if position else inner
        if kind is dict:
            key, item = item
            prefix += _plain.encode(_key_text(key)) + ": "
        yield prefix
        yield from iter_indented_fast(item, depth + 1)
    yield "\n" + INDENT * depth + closing


def indented(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``'s text, the fastest way at hand:
    containers of rows by orjson where it is installed (``drift --json`` on 500k chunks prints
    100,000 findings), else :func:`.jsontext.indented_text`."""
    if _orjson is None:
        return indented_text(value)
    try:
        return "".join(iter_indented_fast(value))
    except (TypeError, ValueError):  # what json refuses (a key of another type): in its own words
        return json.dumps(value, indent=2, ensure_ascii=False)


def write_json_atomic(path: str, value: Any, *, chunk: int = 1 << 16) -> None:
    """Write ``value`` as indented JSON and a final newline, atomically, in bounded memory."""
    with atomic_writer(path) as handle:
        pending: list[str] = []
        size = 0
        for piece in iter_indented_fast(value):
            pending.append(piece)
            size += len(piece)
            if size >= chunk:
                handle.write("".join(pending))
                pending.clear()
                size = 0
        pending.append("\n")
        handle.write("".join(pending))
