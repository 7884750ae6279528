"""Every fast path gives what the plain path gives: the same values, the same refusals, the same bytes.

The score path reads lines with orjson when it is installed (else the C
scanner called directly), accepts common judgment records after checks made
in C, streams judgments into a compact index and writes the report piece by
piece. Each of these is checked here against the straightforward reading it
replaces.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.core.errors import InputError
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.formats import jsonl, jsonout
from retrieval_eval.formats.jsonout import dumps_indented, iter_indented_fast, write_json_atomic
from retrieval_eval.formats.judgment_records import _check_in_order, common_judgment_fields
from retrieval_eval.formats.judgments import parse_judgments, read_label_index
from retrieval_eval.formats.runs import read_run_record

TRICKY_LINES = [
    b'{"query_id": "q1", "ranking": ["a", "b"]}',
    b'{"a": 1, "b": 2, "a": 3}',  # a repeated key: the last value, at the first key's place
    b'{"big": 123456789012345678901234567890}',  # past 64 bits
    b'{"big": 18446744073709551615, "neg": -9223372036854775809}',
    b'{"f": 1e400}',  # json reads it as infinity
    b'{"f": 0.1e-400, "g": -0, "h": 1.5E3}',
    b'{"s": "\\ud800"}',  # a lone surrogate, which json accepts
    b'{"s": "\\ud83d\\ude00 \\u00e9 \\u0000"}',
    b'{"n": NaN}',
    b'{"n": -Infinity}',
    b'{"x": [1,]}',
    b'{"q": "unterminated}',
    b'{"a": 1} {"b": 2}',
    b'\xef\xbb\xbf{"a": 1}',  # a byte order mark past the first line
    b'{"s": "caf\xc3\xa9"}',
    b'{"s": "bad \xff byte"}',
    b'{"s": "\xed\xa0\x80"}',  # a surrogate encoded in UTF-8: not valid UTF-8
    b'{"deep": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'"just a string"',
    b"[1, 2, 3]",
    b'{"t": true, "f": false, "z": null}',
]


def outcome(raw: bytes, numbers_matter: bool) -> tuple[str, str]:
    try:
        value = jsonl.decode_line(raw, "run", 1, None, numbers_matter=numbers_matter)
    except InputError as exc:
        return ("refused", exc.message)
    return ("read", json.dumps(value) if numbers_matter else "accepted")


@pytest.mark.parametrize("raw", TRICKY_LINES, ids=range(len(TRICKY_LINES)))
def test_a_line_reads_the_same_on_every_path(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = outcome_with(monkeypatch, raw, True, fast=False)
    assert outcome(raw, True) == plain
    assert outcome_with(monkeypatch, raw, True, fast=True, use_orjson=False) == plain


@pytest.mark.parametrize("raw", TRICKY_LINES, ids=range(len(TRICKY_LINES)))
def test_a_line_refused_without_numbers_is_refused_by_json_too(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    # Values may differ in their numbers (and orjson nests deeper), which callers
    # that pass numbers_matter=False re-read; a refusal must be json's own.
    fast = outcome(raw, False)
    if fast[0] == "refused":
        assert fast == outcome_with(monkeypatch, raw, True, fast=False)


def outcome_with(
    monkeypatch: pytest.MonkeyPatch, raw: bytes, numbers_matter: bool, *, fast: bool, use_orjson: bool = True
) -> tuple[str, str]:
    with monkeypatch.context() as patch:
        if not use_orjson:
            patch.setattr(jsonl, "_orjson", None)
        if not fast:
            patch.setattr(jsonl, "_decode_fast", lambda _raw, _numbers: jsonl._SLOW)
        return outcome(raw, numbers_matter)


RUN_LINES = [
    b'{"query_id": "q1", "ranking": ["a", "b"], "scores": [1.5, 2]}',
    b'{"query_id": "q1", "ranking": ["a", ' + b"[" * 3000 + b"]" * 3000 + b"]}",
    b'{"query_id": "q1", "ranking": ["a"], "x": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"query_id": "q1", "ranking": ["a", 123456789012345678901234567890]}',
    b'{"query_id": "q1", "ranking": ["a", ""], "score": 1e400}',
    b'{"query_id": "q1", "ranking": ["\\ud800", "b"]}',
    b'{"query_id": 12345678901234567890123, "ranking": []}',
    # Without orjson a line whose strings are all ASCII skips the search for an escape: these are not.
    b'{"\\ud800": 1, "query_id": "q1", "ranking": ["a"]}',
    b'{"query_id": "q1", "ranking": ["a"], "note": "\\udc00"}',
    b'{"query_id": "q\\ud800", "ranking": ["a"]}',
    b'{"query_id": "q\\u00e9", "ranking": ["\\u00e9", "b"]}',
    b'{"query_id": "q1", "ranking": ["caf\xc3\xa9", "\\ud83d\\ude00"]}',
    b'{"query_id": "q1", "ranking": ["a\\u0062"], "n": 5, "f": 0.5, "t": true, "z": null}',
]


@pytest.mark.parametrize("raw", RUN_LINES + TRICKY_LINES, ids=range(len(RUN_LINES) + len(TRICKY_LINES)))
def test_a_run_line_is_read_or_refused_as_json_alone_would(raw: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    def read() -> tuple[str, Any]:
        try:
            return ("read", read_run_record(raw, 1, None))
        except InputError as exc:
            return ("refused", exc.message)

    fast = read()
    with monkeypatch.context() as patch:
        patch.setattr(jsonl, "_orjson", None)
        assert read() == fast
        patch.setattr(jsonl, "_decode_fast", lambda _raw, _numbers: jsonl._SLOW)
        assert read() == fast


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=6))
records = st.dictionaries(
    st.sampled_from(
        ["query_id", "doc_uri", "relevance", "chunk_id", "text_sha", "query", "stratum", "labeled_by", "notes", "extra"]
    ),
    st.one_of(
        scalars,
        st.integers(-2, 1002),
        st.sampled_from(["c1:" + "a" * 32, "t1:" + "b" * 32, ""]),
        st.lists(scalars, max_size=2),
    ),
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(records)
def test_the_common_record_check_only_accepts_what_the_full_check_accepts(record: dict[str, Any]) -> None:
    fields = common_judgment_fields(record)
    if fields is not None:
        assert _check_in_order(record, 1, "judgments", None) == fields


JUDGMENTS = """\
// golden set, hand-checked
{"query_id": "q1", "query": "reset password", "doc_uri": "d1", "relevance": 2, "labeled_by": "human:ana", "stratum": "account"}
{"query_id": "q1", "query": "reset password", "doc_uri": "d2", "relevance": 0, "labeled_by": "synthetic:gen"}

{"query_id": "q2", "query": "invoice", "doc_uri": "d3", "chunk_id": "c1:0123456789abcdef0123456789abcdef", "relevance": 1, "corpus_fingerprint": "f1"}
{"query_id": "q1", "query": "Reset password", "doc_uri": "d1", "relevance": 3, "labeled_by": "intern", "stratum": "billing"}
{"query_id": "q3", "doc_uri": "d9", "relevance": 0, "seen": 7}
{"query_id": "q2", "query": "invoice", "doc_uri": "d4", "relevance": 1, "labeled_by": "", "extra": {"nested": [1.5]}}
{"query_id": "q1", "doc_uri": "d1", "relevance": 1}
"""


def index_fields(index: LabelIndex) -> dict[str, Any]:
    queries = {
        q: (dict(e.grades), e.labels, e.texts, e.strata, e.repeats, e.unknown_provenance)
        for q, e in index.queries.items()
    }
    return {
        "queries": queries,
        "labels": index.labels,
        "human": index.human_labels,
        "synthetic": index.synthetic_labels,
        "fingerprints": index.fingerprints,
        "chunk_ids": index.chunk_ids,
    }


@pytest.mark.parametrize("use_orjson", [True, False])
def test_streaming_the_judgments_indexes_what_parsing_them_indexes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_orjson: bool
) -> None:
    if not use_orjson:
        monkeypatch.setattr(jsonl, "_orjson", None)
    path = tmp_path / "judgments.jsonl"
    path.write_text(JUDGMENTS, encoding="utf-8")
    streamed = read_label_index(str(path))
    parsed = LabelIndex.from_judgments(parse_judgments(str(path)))
    assert index_fields(streamed) == index_fields(parsed)
    q1 = streamed.queries["q1"]
    assert q1.grades == {"d1": 3, "d2": 0} and q1.repeats == {"d1": [2, 6, 9]}  # d2 is judged, at grade 0
    assert q1.texts == ("reset password", "Reset password") and q1.strata == ("account", "billing")
    assert q1.unknown_provenance == [6]
    assert streamed.sha256 is not None and parsed.sha256 is None
    ids = {label.query_id for label in parse_judgments(str(path)).labels}
    assert streamed.query_set_sha256() == hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()


def test_query_set_hash_names_queries_not_labels(tmp_path: Path) -> None:
    path = tmp_path / "judgments.jsonl"
    path.write_text('{"query_id":"q1","doc_uri":"d1","relevance":1}\n', encoding="utf-8")
    before = read_label_index(str(path)).query_set_sha256()
    path.write_text(path.read_text() + '{"query_id":"q1","doc_uri":"d2","relevance":1}\n', encoding="utf-8")
    assert read_label_index(str(path)).query_set_sha256() == before
    path.write_text(path.read_text() + '{"query_id":"q2","doc_uri":"d2","relevance":1}\n', encoding="utf-8")
    assert read_label_index(str(path)).query_set_sha256() != before


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(st.one_of(st.text(max_size=4), st.integers(), st.booleans(), st.none()), children, max_size=4),
    ),
    max_leaves=25,
)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(json_values)
def test_indented_output_is_byte_for_byte_what_json_dumps_writes(value: Any) -> None:
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


# Rows as a report holds them, with the values orjson writes otherwise than json: floats below
# 1e-4 (1e-05, 5e-07), NaN and infinities, integers past 64 bits, keys that are not strings.
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.floats(min_value=-1e-3, max_value=1e-3),
    st.sampled_from([1e-05, 5e-07, 2.5e-05, 1e16, 1.5e16, 0.0001, -0.0]),
    st.text(max_size=3),
)
_rows = st.one_of(
    _scalars,
    st.dictionaries(st.text(max_size=3), _scalars, max_size=4),
    st.dictionaries(st.one_of(st.integers(), st.none()), _scalars, max_size=2),
    st.lists(_scalars, max_size=4),
)
report_like = st.dictionaries(
    st.text(max_size=3),
    st.one_of(_scalars, st.dictionaries(st.text(max_size=3), _rows, max_size=7), st.lists(_rows, max_size=7)),
    max_size=5,
)


@pytest.mark.skipif(jsonout._orjson is None, reason="the fast extra (orjson) is not installed")
@settings(max_examples=300, deadline=None)
@given(st.one_of(report_like, json_values))
def test_rows_written_by_orjson_are_byte_for_byte_what_json_dumps_writes(value: Any) -> None:
    previous = jsonout.ROWS_PER_BLOCK
    jsonout.ROWS_PER_BLOCK = 2  # several blocks in one container, joined
    try:
        text = "".join(iter_indented_fast(value))
    finally:
        jsonout.ROWS_PER_BLOCK = previous
    assert text == json.dumps(value, indent=2, ensure_ascii=False)


@pytest.mark.skipif(jsonout._orjson is None, reason="the fast extra (orjson) is not installed")
def test_orjson_writes_the_clean_blocks_and_json_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    written: list[Any] = []
    dumps = jsonout._orjson.dumps
    monkeypatch.setattr(
        jsonout,
        "_orjson",
        type(
            "Spy",
            (),
            {
                "dumps": staticmethod(lambda v, option: written.append(v) or dumps(v, option=option)),
                "OPT_INDENT_2": jsonout._orjson.OPT_INDENT_2,
            },
        ),
    )
    clean = {f"q{i}": {"recall@10": i / 7, "ndcg@10": 0.0} for i in range(5)}
    tiny = {"q": {"recall@10": 1e-05}}  # json writes 1e-05, orjson 0.00001
    report = {"per_query": clean, "other": tiny, "nan": {"q": {"v": float("nan")}}}
    assert "".join(iter_indented_fast(report)) == json.dumps(report, indent=2, ensure_ascii=False)
    assert written == [clean]


def test_the_report_file_is_what_dump_report_would_write(tmp_path: Path) -> None:
    report = {
        "per_query": {f"q{i}": {"recall@10": i / 7, "ndcg@10": 0.0} for i in range(300)},
        "rankings": {f"q{i}": [f"d{i}", 'é\n"x"'] for i in range(300)},
        "empty": {},
        "none": None,
    }
    path = tmp_path / "report.json"
    write_json_atomic(str(path), report, chunk=1_000)
    assert path.read_text(encoding="utf-8") == json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def test_dump_report_writes_what_json_dumps_writes_for_a_whole_report() -> None:
    # A real report compared with a base, with bounds and rankings (as the action writes it), not a sample
    # of shapes: every section goes through the same pieces as the file the action writes.
    from retrieval_eval.api import evaluate
    from retrieval_eval.formats.report import dump_report, report_to_json

    demo = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
    report = evaluate(
        str(demo / "judgments.jsonl"), str(demo / "run.jsonl"), baseline=str(demo / "baseline.json")
    ).typed_report
    data = report_to_json(report)
    assert data["per_query"] and data["per_query_upper"] and data["rankings"] and data["per_stratum"]
    assert dump_report(report) == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.skipif(jsonout._orjson is None, reason="the fast extra (orjson) is not installed")
def test_a_block_past_the_first_is_checked_before_orjson_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the first block says whether a container is written by blocks; each later block is
    checked on its own: a nested row, a negative value below 1e-4, a NaN there is written by json."""
    monkeypatch.setattr(jsonout, "ROWS_PER_BLOCK", 2)
    flat = {"a": {"v": 0.5}, "b": {"v": 0.25}}
    for late in ({"v": {"nested": [1, 2]}}, {"v": -2.5e-05}, {"v": float("nan")}, {"v": -0.5}, {"v": 10**20}):
        value = {**flat, "c": {"v": 0.125}, "d": late, "e": {"v": 1.0}}
        assert "".join(iter_indented_fast(value)) == json.dumps(value, indent=2, ensure_ascii=False), late
    assert jsonout._numbers_alike([0.5, -0.25, 0.0, 3])
    assert not jsonout._numbers_alike([0.5, -2.5e-05])  # orjson writes -0.000025, json -2.5e-05
    assert not jsonout._numbers_alike([0.5, float("inf")])
    assert not jsonout._numbers_alike([0.5, 1e16])


@pytest.mark.skipif(jsonout._orjson is None, reason="the fast extra (orjson) is not installed")
def test_a_block_orjson_refuses_is_written_as_json_writes_it() -> None:
    """A lone surrogate passes the rows' checks (they look at types and numbers), and orjson
    refuses to write it: that block is written the plain way, the same text as json.dumps."""
    value = {"rows": {"q1": {"text": "caf\ud800"}, "q2": {"text": "ok"}}, "list": ["\udfff", "x"]}
    assert "".join(iter_indented_fast(value)) == json.dumps(value, indent=2, ensure_ascii=False)


_finding_rows = st.lists(
    st.dictionaries(
        st.text(max_size=3),
        st.one_of(_scalars, st.lists(_scalars, max_size=3), st.lists(st.lists(_scalars, max_size=2), max_size=2)),
        max_size=4,
    ),
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(st.one_of(json_values, report_like, st.dictionaries(st.text(max_size=3), _finding_rows, max_size=3)))
def test_what_a_command_prints_as_json_is_what_json_dumps_writes(value: Any) -> None:
    """``--json`` prints through jsonout.indented: rows that are objects holding lists of scalars
    (drift's findings and the chunks covering each) go to orjson a block at a time too."""
    from retrieval_eval.formats.jsonout import indented

    try:
        expected = json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError) as refused:
        with pytest.raises(type(refused)):
            indented(value)
        return
    assert indented(value) == expected


def test_rows_holding_lists_of_scalars_are_written_by_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    if jsonout._orjson is None:
        pytest.skip("the fast extra (orjson) is not installed")
    rows = [{"line": i, "status": "SPLIT", "covering": [f"c1:{i}", f"c1:{i + 1}"]} for i in range(5)]
    calls: list[int] = []
    real = jsonout._orjson.dumps
    monkeypatch.setattr(jsonout._orjson, "dumps", lambda *a, **k: calls.append(1) or real(*a, **k))
    value = {"labels": rows}
    assert jsonout.indented(value) == json.dumps(value, indent=2, ensure_ascii=False)
    assert calls, "orjson wrote no block"
