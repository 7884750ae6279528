"""The run's heads read by simdjson give what json.loads and the run checks give, or nothing.

formats/run_heads.py takes a run line only when five byte-level rules prove the full
reading would accept it with the same values; every other line goes to the full reading.
The reference here is that full reading with the simdjson path switched off (json.loads
decides there): each line below, and every line Hypothesis writes, must come out of
``read_head`` the same with the path on and off, value or refusal, word for word.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.core.errors import InputError
from retrieval_eval.formats import jsonl, run_heads
from retrieval_eval.formats.runs import read_head

pytestmark = pytest.mark.skipif(not run_heads.simdjson_installed(), reason="the fast extra (pysimdjson) is missing")

COMMON = b'{"query_id": "q1", "ranking": ["d1", "d2", "d3"]}'


def depth(_query_id: str) -> int:
    return 2


def through_full_reading(monkeypatch: pytest.MonkeyPatch, raw: bytes, *, orjson: bool = True) -> tuple[str, Any]:
    with monkeypatch.context() as patch:
        patch.setattr(run_heads, "_simdjson", None)
        if not orjson:
            patch.setattr(jsonl, "_orjson", None)
        return outcome(raw)


def outcome(raw: bytes) -> tuple[str, Any]:
    try:
        return ("read", read_head(raw, 7, "run.jsonl", depth))
    except InputError as error:
        return ("refused", str(error))


def test_the_common_line_is_taken_by_the_fast_path() -> None:
    # Without this the comparisons below would hold with the path never taken.
    assert run_heads.fast_head(COMMON, depth) == ("q1", ["d1", "d2"], 3, None)
    assert run_heads.fast_head(memoryview(b"  " + COMMON)[2:], depth) == ("q1", ["d1", "d2"], 3, None)
    spaced = b'{ "ranking" :\t[ "d1" ,"d2"], "note": "x", "n": -0.5e3, "t": true, "z": null, "query_id": "q\xc3\xa9" }'
    assert run_heads.fast_head(spaced, depth) == ("q\u00e9", ["d1", "d2"], 2, None)
    assert run_heads.fast_head(b'{"query_id": "q1", "ranking": []}', depth) == ("q1", [], 0, None)


# Each breaks one of the module's five rules, at the head or past it, where the full reading
# refuses the line, reads it otherwise, or accepts it: the fast path must leave them all to it.
LEFT_TO_THE_FULL_READING = [
    # 1: an escape anywhere
    b'{"query_id": "q1", "ranking": ["d1", "d\\"2", "d3"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "d\\u0033"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "\\ud800"]}',
    b'{"query_id": "q\\ud800", "ranking": ["d1"]}',
    b'{"query_id": "q1", "ranking": ["d1"], "note": "a\\nb"}',
    # 2: not an object, keys repeated, a query id or ranking of another type, a container beside
    b'["q1", ["d1"]]',
    b'"q1"',
    b'{"query_id": "q1", "query_id": "q2", "ranking": ["d1"]}',
    b'{"query_id": "q2", "ranking": ["d1"], "query_id": 5}',
    b'{"query_id": "q1", "ranking": ["d1"], "ranking": ["d2", 7]}',
    b'{"query_id": "q1", "ranking": ["d1", 7], "ranking": ["d2"]}',
    b'{"query_id": 5, "ranking": ["d1"]}',
    b'{"query_id": null, "ranking": ["d1"]}',
    b'{"ranking": ["d1"]}',
    b'{"query_id": "q1"}',
    b'{"query_id": "q1", "ranking": "d1"}',
    b'{"query_id": "q1", "ranking": {"d1": 1}}',
    b'{"query_id": "q1", "ranking": ["d1"], "meta": {"a": 1}}',
    b'{"query_id": "q1", "ranking": ["d1"], "scores": [1.5]}',
    b'{"q1": ["d1", "d2"]}',
    # 3: another bracket or brace, inside a string or as an entry
    b'{"query_id": "q1", "ranking": ["d1", "d2", ["d3"]]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", {"d": "x"}]}',
    b'{"query_id": "q1", "ranking": ["d1", "d[2]", "d3"]}',
    b'{"query_id": "q{1}", "ranking": ["d1"]}',
    b'{"query_id": "q1", "ranking": ["d1"], "note": "[x]"}',
    # 4: an entry that is not a string, in the head and past it
    b'{"query_id": "q1", "ranking": [1, "d2", "d3"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", 3]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", null]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", true, false]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", -0.0]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", 123456789012345678901234567890]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", 1e400]}',
    # 5: an empty string, as an entry (first, middle, last), a query id or another field
    b'{"query_id": "q1", "ranking": ["", "d2", "d3"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", ""]}',
    b'{"query_id": "q1", "ranking": ["d1", "", "d3", "d4"]}',
    b'{"query_id": "", "ranking": ["d1"]}',
    b'{"query_id": "q1", "ranking": ["d1"], "tag": ""}',
    # simdjson's own refusals: what json.loads refuses or reads otherwise
    b'{"query_id": "q1", "ranking": ["d1", "d2", NaN]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", Infinity]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "d3"]',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "d3"]} {"x": 1}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "d3"]}]',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "d3",]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "bad \xff byte"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "\xed\xa0\x80"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "\xc0\xaf"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "tab\there"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "nul\x00"]}',
    b'{"query_id": "q1", "ranking": ["d1"], "n": 01}',
    b'{"query_id": "q1", "ranking": ["d1"], "n": 18446744073709551616}',
    b'{"query_id": "q1", "ranking": ["d1"], "n": -9223372036854775809}',
    b'{"query_id": "q1", "ranking": ["d1"], "t": tru}',
    b'\xef\xbb\xbf{"query_id": "q1", "ranking": ["d1"]}',
    # a repeat in the head, which only the full reading follows past the head
    b'{"query_id": "q1", "ranking": ["d1", "d1", "d2", "d3"]}',
]

ACCEPTED_BY_THE_FAST_PATH = [
    COMMON,
    b'{"query_id":"q1","ranking":["d1","d2","d3"]}',
    b'{"query_id": "q1", "ranking": ["d1", "d2", "d2", "d1"]}',  # a repeat past the head changes nothing
    b'{"query_id": "q1", "ranking": ["caf\xc3\xa9", "\xf0\x9f\x98\x80", "\xef\xbf\xbf"]}',
    b'{"query_id": "q1", "ranking": ["d,1", "d 2", "d:3"], "n": 18446744073709551615, "f": 1E5}',
    b'{"query_id": "q1", "ranking": ["d1"], "ranking_note": "x", "query": "q"}',
]


@pytest.mark.parametrize("raw", LEFT_TO_THE_FULL_READING, ids=range(len(LEFT_TO_THE_FULL_READING)))
def test_a_line_outside_the_rules_is_left_to_the_full_reading(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_heads.fast_head(raw, depth) is None
    assert outcome(raw) == through_full_reading(monkeypatch, raw)


@pytest.mark.parametrize("raw", ACCEPTED_BY_THE_FAST_PATH, ids=range(len(ACCEPTED_BY_THE_FAST_PATH)))
def test_a_line_the_fast_path_takes_reads_as_the_full_reading_reads_it(
    raw: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run_heads.fast_head(raw, depth) is not None
    full = through_full_reading(monkeypatch, raw)
    assert full[0] == "read"
    assert outcome(raw) == full == through_full_reading(monkeypatch, raw, orjson=False)


# Lines as a retriever's writer (or a hostile hand) may write them: entries of every JSON
# kind, ids with the bytes the rules look for, any spacing, escapes or none.
_ids = st.text(alphabet=st.sampled_from('ab[]{},:" \\\u00e9\U0001f600\t\x00'), max_size=4)
_entries = st.one_of(_ids, _ids, _ids, st.integers(), st.floats(), st.none(), st.booleans(), st.lists(_ids, max_size=1))
_records = st.fixed_dictionaries(
    {"query_id": st.one_of(_ids, st.integers())},
    optional={"ranking": st.lists(_entries, max_size=6), "note": st.one_of(_ids, st.integers(), st.none())},
)


def _written(record: dict[str, Any], ascii_only: bool, compact: bool) -> bytes:
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(record, ensure_ascii=ascii_only, separators=separators).encode("utf-8", "surrogatepass")


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(_records, st.booleans(), st.booleans())
def test_any_written_line_reads_the_same_with_and_without_the_fast_path(
    record: dict[str, Any], ascii_only: bool, compact: bool
) -> None:
    raw = _written(record, ascii_only, compact)
    fast = outcome(raw)
    saved = run_heads._simdjson
    run_heads._simdjson = None  # a context manager is no help in a Hypothesis test's body
    try:
        assert outcome(raw) == fast
    finally:
        run_heads._simdjson = saved


def test_the_lines_hypothesis_writes_reach_the_fast_path() -> None:
    # The property above would hold with the path never taken: the common written line is taken.
    record = {"query_id": "q1", "ranking": ["a", "b{", "\u00e9"], "note": 3}
    assert run_heads.fast_head(_written(record, False, True), depth) is None  # "{" is in an id
    record["ranking"] = ["a", "b", "\u00e9"]
    assert run_heads.fast_head(_written(record, False, True), depth) == ("q1", ["a", "b"], 3, None)
    assert run_heads.fast_head(_written(record, True, False), depth) is None  # \u00e9 is an escape


def test_threads_reading_heads_at_once_each_get_their_own_lines() -> None:
    # A parser's values are views of its last document: one parser shared by two threads
    # would hand one thread the other's ids. The library may be called from threads.
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415 - this test only

    lines = [b'{"query_id": "q%d", "ranking": ["a%d", "b%d", "c%d"]}' % (i, i, i, i) for i in range(4000)]

    def read(chunk: list[bytes]) -> list[Any]:
        return [run_heads.fast_head(line, depth) for line in chunk]

    with ThreadPoolExecutor(4) as pool:
        results = [r for part in pool.map(read, [lines[i::4] for i in range(4)]) for r in part]
    expected = [(f"q{i}", [f"a{i}", f"b{i}"], 3, None) for i in range(4000)]
    assert sorted(results) == sorted(expected)


def test_a_whole_ranking_is_its_head_when_no_depth_cuts_it() -> None:
    # -k all and --unjudged condensed read whole rankings (depth sys.maxsize).
    ids = [f"d{i}" for i in range(5000)]
    line = json.dumps({"query_id": "q1", "ranking": ids}).encode()
    assert run_heads.fast_head(line, lambda _q: sys.maxsize) == ("q1", ids, 5000, None)


def test_a_line_past_the_longest_goes_to_the_full_reading() -> None:
    # A parser keeps the memory of the longest line it read: such lines are not given to it.
    ids = [f"doc-{i:08d}" for i in range(run_heads.LONGEST // 14 + 1)]
    line = json.dumps({"query_id": "q1", "ranking": ids}).encode()
    assert len(line) > run_heads.LONGEST
    assert run_heads.fast_head(line, depth) is None
    assert read_head(line, 1, None, depth) == ("q1", ids[:2], len(ids), None)


def test_a_depth_that_raises_leaves_the_parser_free_for_the_next_line() -> None:
    def broken(_query_id: str) -> int:
        raise KeyError("no depth")

    try:
        run_heads.fast_head(COMMON, broken)
    except KeyError as error:
        kept = error  # a caller holding the error holds its traceback, and the frames in it
    assert kept.__traceback__ is not None
    # The parser refuses a new document while a view of the last lives: the line would then go
    # to the full reading, quietly, and every line after it.
    assert run_heads.fast_head(COMMON, depth) == ("q1", ["d1", "d2"], 3, None)
