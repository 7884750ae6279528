"""The comparison document's records against its JSON: the same bytes back, and the shape's fields.

``compare`` builds records (core/comparison_document.py) and only formats/comparison.py turns
them into JSON and back. Two things must hold for that to change nothing:

- every comparison the tests make, read into records and written again, is the same JSON
  byte for byte (key order included), and every record the types allow is accepted by
  ``formats.shapes.COMPARISON`` and read back equal;
- the shape and the records name the same fields, both ways: a field added to one and not
  the other would be written unchecked, or checked and never read.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compare_data import labels, run, score
from from_json import build_comparison, report_of
from helpers import run_cli
from hostile.cases_io import COMPARISON as HOSTILE_CASES_COMPARISON
from render_cases import CASES
from retrieval_eval.comparison.document import build_document
from retrieval_eval.core.comparison_document import (
    ComparisonDocument,
    Finding,
    Holm,
    MetricRow,
    Mover,
    Movers,
    PowerDesign,
    QueryCounts,
    RowPower,
    SideSummary,
    SignificanceMethod,
    StratumRow,
    StratumTest,
    Tool,
)
from retrieval_eval.core.power import Moved
from retrieval_eval.core.precision import MAX_MAGNITUDE
from retrieval_eval.formats.comparison import comparison_from_json, comparison_to_json, read_comparison
from retrieval_eval.formats.judgments import parse_judgments
from retrieval_eval.formats.report import dump_report
from retrieval_eval.formats.shapes import COMPARISON, comparison_problem

# -- the shape and the records name the same fields -------------------------------------


def json_fields(record: type) -> dict[str, Any]:
    """The JSON keys a record is written with, each with its field's type (inline groups flattened)."""
    hints = typing.get_type_hints(record)
    found: dict[str, Any] = {}
    for field in dataclasses.fields(record):
        kind = hints[field.name]
        if field.metadata.get("inline"):
            found.update(json_fields(_record_in(kind)))
        else:
            found[field.name] = kind
    return found


def _without_none(kind: Any) -> Any:
    if typing.get_origin(kind) in (Union, types.UnionType):
        rest = [k for k in typing.get_args(kind) if k is not type(None)]
        return rest[0] if len(rest) == 1 else kind
    return kind


def _record_in(kind: Any) -> type:
    inner = _without_none(kind)
    assert dataclasses.is_dataclass(inner), kind
    return typing.cast(type, inner)


def assert_same_fields(shape: Mapping[str, Any], record: type, at: str) -> int:
    """Properties against fields, both ways, down every nested record; returns the records checked."""
    properties = shape.get("properties", {})
    fields = json_fields(record)
    assert sorted(properties) == sorted(fields), (
        f"{at}: in the shape only {sorted(set(properties) - set(fields))}, "
        f"in {record.__name__} only {sorted(set(fields) - set(properties))}"
    )
    assert set(shape.get("required", ())) <= set(fields), at
    checked = 1
    for key, kind in fields.items():
        inner, part = _without_none(kind), properties[key]
        origin = typing.get_origin(inner)
        if origin is tuple and len(typing.get_args(inner)) == 2 and typing.get_args(inner)[1] is Ellipsis:
            inner, part = typing.get_args(inner)[0], part["items"]
        elif origin in (Mapping, dict):
            inner, part = typing.get_args(inner)[1], part["additionalProperties"]
        if dataclasses.is_dataclass(inner):
            checked += assert_same_fields(part, typing.cast(type, inner), f"{at}.{key}")
    return checked


def test_the_shape_and_the_records_name_the_same_fields() -> None:
    # The document, its two sides, tool, findings, significance, power, queries, metric rows and
    # their moved counts, stratum rows and theirs, movers and their drops and gains: 15 parts.
    assert assert_same_fields(COMPARISON, ComparisonDocument, "$") == 15


def test_a_field_the_shape_lacks_is_caught() -> None:
    """The check above can fail: a record with one field more than its part of the shape."""

    @dataclasses.dataclass(frozen=True)
    class Wider(Tool):
        build: str | None = None

    with pytest.raises(AssertionError, match=r"in Wider only \['build'\]"):
        assert_same_fields(COMPARISON["properties"]["tool"], Wider, "$.tool")


# -- every record the types allow: written, accepted, read back equal ---------------------

texts = st.text(max_size=12)
maybe_text = st.none() | texts
counts = st.integers(min_value=0, max_value=10**6)
maybe_count = st.none() | counts
# As the documents hold them: a float, or an integer where a report held one (written back as one).
numbers = st.floats(-MAX_MAGNITUDE, MAX_MAGNITUDE, allow_nan=False) | st.integers(-(10**9), 10**9)
maybe_number = st.none() | numbers
maybe_p = st.none() | st.floats(0, 1)
maybe_flag = st.none() | st.booleans()
maybe_pair = st.none() | st.tuples(numbers, numbers)

holm = st.builds(Holm, maybe_p, maybe_flag)
moved = st.builds(Moved, counts, counts, counts)
row_power = st.builds(RowPower, maybe_number, maybe_number, maybe_text, st.none() | moved)
metric_row = st.builds(
    MetricRow,
    base=maybe_number,
    head=maybe_number,
    delta=maybe_number,
    n=maybe_count,
    ci=maybe_pair,
    p_value=maybe_p,
    significant=maybe_flag,
    confounded=maybe_text,
    holm=st.none() | holm,
    bounds=maybe_pair,
    unjudged=maybe_count,
    power=st.none() | row_power,
)
stratum_row = st.builds(
    StratumRow,
    n=maybe_count,
    base=maybe_number,
    head=maybe_number,
    delta=maybe_number,
    test=st.none() | st.builds(StratumTest, maybe_pair, maybe_p, maybe_flag),
    holm=st.none() | holm,
    power=st.none() | row_power,
)
mover = st.builds(Mover, texts, maybe_text, maybe_text, numbers, numbers, numbers)
movers = st.builds(
    Movers,
    metric=maybe_text,
    down=maybe_count,
    up=maybe_count,
    unchanged=maybe_count,
    drops=st.none() | st.lists(mover, max_size=3).map(tuple),
    gains=st.none() | st.lists(mover, max_size=3).map(tuple),
)
side = st.builds(SideSummary, *[maybe_text] * 7)
finding = st.builds(Finding, texts, texts, texts, texts, st.lists(texts, max_size=2).map(tuple))
significance = st.builds(
    SignificanceMethod,
    name=maybe_text,
    resamples=maybe_count,
    seed=maybe_count,
    draws=maybe_text,
    confidence=maybe_p,
    interval=maybe_text,
    p_value=maybe_text,
    adjustment=maybe_text,
    strata=maybe_text,
    paired_queries=maybe_count,
)
design = st.builds(PowerDesign, maybe_p, maybe_p, maybe_text, maybe_text, maybe_text, maybe_text)
query_counts = st.builds(
    QueryCounts, maybe_count, st.none() | st.lists(texts, max_size=3).map(tuple), st.none() | st.lists(texts).map(tuple)
)
documents = st.builds(
    ComparisonDocument,
    kind=texts,
    version=st.just(1),
    base=side,
    head=side,
    metrics=st.dictionaries(texts, metric_row, max_size=3),
    tool=st.none() | st.builds(Tool, maybe_text, maybe_text),
    primary=maybe_text,
    yardstick=maybe_text,
    comparable=maybe_flag,
    comparability=st.none() | st.lists(finding, max_size=3).map(tuple),
    significance=st.none() | significance,
    power=st.none() | design,
    queries=st.none() | query_counts,
    per_stratum=st.none() | st.dictionaries(texts, stratum_row, max_size=3),
    movers=st.none() | movers,
)


@pytest.mark.slow  # 300 generated documents
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_every_record_is_written_as_the_shape_wants_and_read_back_equal(document: ComparisonDocument) -> None:
    data = json.loads(dump_report(comparison_to_json(document)))
    assert comparison_problem(data) is None
    assert comparison_from_json(data) == document


# -- every comparison the tests make: the same bytes back -------------------------------


def assert_round_trip(data: dict[str, Any]) -> None:
    again = comparison_to_json(comparison_from_json(data))
    assert dump_report(again) == dump_report(data)  # key order and number types included


# The render cases scored without a base report: they hold no comparison to read back.
WITHOUT_COMPARISON = frozenset(
    {
        "floor_and_abstention_gates",
        "floor_and_abstention_indeterminate",
        "floor_unavailable",
        "machine_labels_policy",
        "pass_without_baseline",
    }
)


@pytest.mark.parametrize("case", sorted(set(CASES) - WITHOUT_COMPARISON))
def test_each_rendered_comparison_reads_back_to_the_same_bytes(case: str, tmp_path: Path) -> None:
    _, comparison = CASES[case](tmp_path)
    assert comparison is not None
    # Some cases change the document by hand (oversized_truncated: strata without a test).
    assert_round_trip(comparison)


@pytest.mark.parametrize("case", sorted(WITHOUT_COMPARISON))
def test_the_cases_without_a_base_report_hold_no_comparison(case: str, tmp_path: Path) -> None:
    assert CASES[case](tmp_path)[1] is None


def test_the_comparison_the_hostile_cases_hold_reads_back_to_the_same_bytes() -> None:
    assert_round_trip(HOSTILE_CASES_COMPARISON)


def compared(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """A comparison of each kind the compare tests make: paired, rescored, confounded, averages only."""
    found = {}
    base = score(tmp_path, "base", labels(), run(misses=range(10)))
    head = score(tmp_path, "head", labels(), run(misses=[0, 1, 2, 3, 4, 20]))
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    found["paired, with judgments"] = build_comparison(base, head, judgments=judgments, resamples=300)
    found["paired, without judgments"] = build_comparison(base, head, resamples=300)
    linear = score(tmp_path, "linear", labels(), run(misses=[1]), gain="linear")
    found["gain changed: ndcg confounded"] = build_comparison(linear, head, resamples=300)
    found["threshold changed: rescored"] = build_comparison(
        score(tmp_path, "strict", labels(), run(misses=[1]), threshold=2), head, judgments=judgments, resamples=300
    )
    extra = score(tmp_path, "extra", labels(41), run(41))
    found["queries added"] = build_comparison(base, extra, resamples=300)
    bare_base, bare_head = dict(base), dict(head)
    del bare_base["per_query"], bare_head["per_query"]
    found["averages only"] = build_comparison(bare_base, bare_head, resamples=300)
    return found


def test_each_kind_of_comparison_reads_back_to_the_same_bytes(tmp_path: Path) -> None:
    found = compared(tmp_path)
    for data in found.values():
        assert_round_trip(data)
    # The kinds differ where the records have optional parts: bounds, confounded rows, no intervals.
    assert found["gain changed: ndcg confounded"]["metrics"]["ndcg@5"]["confounded"]
    assert found["averages only"]["metrics"]["recall@5"]["ci"] is None
    assert found["paired, with judgments"]["per_stratum"]["faq"]["p_adjusted"] is not None
    assert "p_adjusted" not in found["paired, without judgments"]["per_stratum"]["faq"]


def test_the_records_and_the_json_are_one_comparison(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(misses=range(10)))
    head = score(tmp_path, "head", labels(), run(misses=[3, 30]))
    records = build_document(report_of(base), report_of(head), resamples=300)
    assert comparison_to_json(records) == build_comparison(base, head, resamples=300)
    assert comparison_from_json(build_comparison(base, head, resamples=300)) == records


def test_the_file_compare_writes_is_read_back_to_the_same_bytes(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(misses=range(10)))
    head = score(tmp_path, "head", labels(), run(misses=[3, 30]))
    (tmp_path / "base.json").write_text(dump_report(base), encoding="utf-8")
    (tmp_path / "head.json").write_text(dump_report(head), encoding="utf-8")
    out = tmp_path / "cmp.json"
    result = run_cli(
        "compare", "--base", str(tmp_path / "base.json"), "--head", str(tmp_path / "head.json"), "--out", str(out)
    )
    assert result.code == 0, result.stderr
    assert dump_report(comparison_to_json(read_comparison(str(out)))) == out.read_text(encoding="utf-8")
