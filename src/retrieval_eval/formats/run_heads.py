"""A run line's head read by simdjson (the fast extra), or None when the full reading must decide.

Most of ``score``'s time on a large run went to building a Python string for
every id of every ranking (10 million on 10,000 queries x 1,000 ids), only to
keep the first ten. simdjson checks the whole line in C (JSON syntax, UTF-8,
no control character in a string, no trailing text) and builds Python values
only for what is asked for: the query id and the head.

The run format also requires every entry of the ranking to be a non-empty
string, and json.loads keeps the *last* of two equal keys where simdjson finds
the first. So a line is taken here only when these hold, each tested without
building the entries (byte counts and searches in C):

1. the line has no backslash: no string holds an escape, so each string is
   its bytes decoded as UTF-8 (as json.loads decodes it), and every ``"`` in
   the line opens or closes a string;
2. it is an object whose keys are all different, whose ``query_id`` is a
   string and whose ``ranking`` is an array;
3. the line holds exactly one ``{`` and one ``[``: with 2 those are the object
   and the ranking, so no other value and no entry of the ranking is an array
   or an object;
4. the ``"`` in the line number exactly two for each key, each string value
   and each entry of the ranking: an entry that is not a string (a number,
   true, false or null, by 3) has no ``"``, so with one such entry the count
   would fall short by two;
5. the line holds no ``""``: without escapes (1), two quotes side by side can
   only be an empty string, so no entry (and no query id) is empty.

Anything else, including any line simdjson refuses, goes to the full reading
(``runs.read_run_record``), which alone words a refusal, so this path never
changes a result or a message: a line whose head repeats a key goes there too.
A line refused here is often valid (an id holding ``[`` or an escaped
character); it is only read more slowly.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from itertools import islice
from typing import Any

_UNLOADED: Any = object()
# simdjson itself, None when it is not installed, or _UNLOADED until a line is first read: its
# import (8 ms) is paid by the process that reads a run, not by every command importing this.
_simdjson: Any = _UNLOADED

Head = tuple[str, list[str], int, None]  # (query_id, head, entries received, no repeat in the head)

# A parser keeps the memory its longest document needed for as long as its thread lives: longer
# lines (some 60,000 ids and more) go to the full reading, which holds nothing after the line.
LONGEST = 1 << 20
_EMPTY_STRING = re.compile(rb'""')  # re's literal search is faster here than bytes' (a common first byte)
_parsers = threading.local()  # a simdjson parser serves one thread at a time


def simdjson_installed() -> bool:
    """Whether run lines are read by simdjson first (the fast extra)."""
    return _loaded() is not None


def _loaded() -> Any:
    global _simdjson
    if _simdjson is _UNLOADED:
        _simdjson = None
        try:
            import simdjson  # optional, the fast extra: loaded where a run is read (above)
        except ImportError:  # pragma: no cover - depends on the environment
            return None
        _simdjson = simdjson
    return _simdjson


def _parser() -> Any:
    parser = getattr(_parsers, "parser", None)
    if parser is None:
        parser = _parsers.parser = _simdjson.Parser()
    return parser


def fast_head(raw: bytes | memoryview, depth_of: Callable[[str], int]) -> Head | None:
    """The line's (query_id, head, entries received, None), or None for the full reading."""
    if _simdjson is None or _loaded() is None:
        return None
    if len(raw) > LONGEST:
        return None
    line = raw if type(raw) is bytes else bytes(raw)
    if b"\\" in line or line[:1] != b"{" or line.find(b"{", 1) >= 0:
        return None
    bracket = line.find(b"[")
    if bracket < 0 or line.find(b"[", bracket + 1) >= 0 or _EMPTY_STRING.search(line):
        return None
    try:
        return _read(line, depth_of)
    except (ValueError, RuntimeError):  # simdjson's refusals (RuntimeError: an integer past 64 bits)
        return None


def _read(line: bytes, depth_of: Callable[[str], int]) -> Head | None:
    document = _parser().parse(line)
    if type(document) is not _simdjson.Object:
        return None
    keys = list(document.keys())
    if len(set(keys)) != len(keys):
        return None
    query_id = document.get("query_id")
    ranking = document.get("ranking")
    if type(query_id) is not str or not query_id or type(ranking) is not _simdjson.Array:
        return None
    strings = len(keys) + 1  # the keys and the query id
    for key in keys:
        if key != "query_id" and key != "ranking" and type(document[key]) is str:
            strings += 1
    received = len(ranking)
    if line.count(b'"') != 2 * (strings + received):
        return None
    try:
        depth = depth_of(query_id)
    except BaseException:
        # The traceback keeps this frame: without its views of the document, the parser is free
        # for the next line (it refuses a new document while a view of the last one lives).
        del document, ranking
        raise
    # islice walks the array once; slicing the array reads each element from its start (a
    # ranking read whole, under -k all, took time growing with the square of its length).
    head = list(islice(ranking, depth))
    if len(set(head)) != len(head):
        return None  # runs.dedupe_head reads on past the repeat
    return query_id, head, received, None
