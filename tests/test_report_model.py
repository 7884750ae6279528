"""The typed report against its JSON: the shape and the dataclasses describe the same fields with
compatible types, and every report we have (the demo's, the render cases', CLI runs with each
optional section) reads into the model and writes back to the very same JSON, byte for byte."""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

import pytest

from helpers import run_cli
from hostile.cases_io import REPORT as HOSTILE_REPORT
from retrieval_eval.core import report_model
from retrieval_eval.core.report_model import NULL, OTHERS, Report
from retrieval_eval.formats.report import as_report, checked_report, dump_report, report_to_json
from retrieval_eval.formats.shapes import REPORT

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "src" / "retrieval_eval" / "demo"
NOW = "2026-01-01T00:00:00Z"

# JSON Schema's type words for the Python types the model uses.
_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def _resolve(shape: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in shape:
        shape = REPORT["$defs"][shape["$ref"].removeprefix("#/$defs/")]
    return shape


def _kinds(shape: Mapping[str, Any]) -> set[str]:
    """The JSON types a shape admits (``anyOf`` and ``const`` included)."""
    shape = _resolve(shape)
    if "anyOf" in shape:
        return set().union(*(_kinds(option) for option in shape["anyOf"]))
    if "const" in shape:
        return {_TYPES[type(shape["const"])]}
    if "enum" in shape:
        return {_TYPES[type(value)] for value in shape["enum"]}
    kind = shape.get("type")
    if kind is None:
        return {"any"}
    return {kind} if isinstance(kind, str) else set(kind)


def _args(hint: Any) -> tuple[Any, ...]:
    if typing.get_origin(hint) in (Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def _is_json(hint: Any) -> bool:
    return set(_args(hint)) >= {type(None), bool, int, float, str} and len(_args(hint)) == 7


def _compatible(hint: Any, shape: Mapping[str, Any], where: str, problems: list[str]) -> None:
    """Record in ``problems`` every way ``hint`` and ``shape`` disagree, walking into both."""
    shape = _resolve(shape)
    kinds = _kinds(shape)
    if _is_json(hint):
        if kinds != {"any"}:
            problems.append(f"{where}: Json in the model, {kinds} in the shape")
        return
    members = [arg for arg in _args(hint) if arg is not type(None)]
    if type(None) in _args(hint) and "null" in kinds:
        kinds = kinds - {"null"}
    elif "null" in kinds:
        problems.append(f"{where}: the shape admits null, the model does not")
    if len(members) > 1:  # int | str: each member one of the shape's options
        found = {_TYPES[member] for member in members}
        if found != kinds:
            problems.append(f"{where}: {found} in the model, {kinds} in the shape")
        return
    (member,) = members
    if dataclasses.is_dataclass(member):
        if kinds != {"object"} or "properties" not in shape:
            problems.append(f"{where}: a dataclass in the model, {kinds} in the shape")
            return
        _dataclass_against(member, shape, where, problems)  # type: ignore[arg-type]
        return
    origin = typing.get_origin(member)
    if origin is tuple:
        if kinds != {"array"}:
            problems.append(f"{where}: a tuple in the model, {kinds} in the shape")
            return
        _compatible(typing.get_args(member)[0], shape.get("items", {}), f"{where}[]", problems)
        return
    if origin is Mapping:
        if kinds != {"object"} or "properties" in shape:
            problems.append(f"{where}: a Mapping in the model, {kinds} in the shape")
            return
        _compatible(typing.get_args(member)[1], shape["additionalProperties"], f"{where}.*", problems)
        return
    expected = _TYPES[member]
    if expected == "number":
        kinds = {"number" if kind == "integer" else kind for kind in kinds}  # an integer is a number
    if kinds != {expected}:
        problems.append(f"{where}: {expected} in the model, {kinds} in the shape")


def _dataclass_against(kind: type, shape: Mapping[str, Any], where: str, problems: list[str]) -> None:
    """Every property a field and every field a property (but the one keeping the keys the model does not
    name, which the shape must then let through), with compatible types. Every field is optional: the
    shape's ``required`` is checked when a file is read, a report handed over in memory may lack anything."""
    hints = typing.get_type_hints(kind)
    fields = {f.name: f for f in dataclasses.fields(kind) if not f.metadata.get(OTHERS)}
    if len(fields) < len(dataclasses.fields(kind)) and shape.get("additionalProperties", True) is not True:
        problems.append(f"{where}: the model keeps other keys, the shape refuses them")
    properties = shape["properties"]
    if list(fields) != [name for name in fields if name in properties] or set(properties) - set(fields):
        problems.append(f"{where}: fields {sorted(fields)} against properties {sorted(properties)}")
    for name, field in fields.items():
        if name not in properties:
            continue
        if type(None) not in _args(hints[name]) and not _is_json(hints[name]):
            problems.append(f"{where}.{name}: required in the model")
        if field.metadata.get(NULL) and "null" not in _kinds(properties[name]):
            problems.append(f"{where}.{name}: written as null, which the shape refuses")
        _compatible(hints[name], properties[name], f"{where}.{name}", problems)


def test_the_shape_and_the_model_name_the_same_fields_with_compatible_types() -> None:
    problems: list[str] = []
    _dataclass_against(Report, REPORT, "$", problems)
    assert problems == []


def test_every_section_of_the_model_is_reached_from_the_report() -> None:
    reached: set[type] = set()

    def walk(hint: Any) -> None:
        for arg in _args(hint):
            if dataclasses.is_dataclass(arg) and arg not in reached:
                reached.add(arg)  # type: ignore[arg-type]
                for inner in typing.get_type_hints(arg).values():
                    walk(inner)
            for inner in typing.get_args(arg) if not _is_json(arg) else ():
                walk(inner)

    walk(Report)
    defined = {value for value in vars(report_model).values() if dataclasses.is_dataclass(value)}
    assert defined == reached


def test_the_schema_test_catches_a_missing_field() -> None:
    """The check above can fail: a shape with a property the model lacks is reported."""
    shape = {**REPORT, "properties": {**REPORT["properties"], "extra": {"type": "string"}}}
    problems: list[str] = []
    _dataclass_against(Report, shape, "$", problems)
    assert problems and "extra" in problems[0]


def _assert_round_trip(document: dict[str, Any], *, same_bytes: bool = True) -> None:
    report = checked_report(json.loads(json.dumps(document)), "report")
    assert isinstance(report, Report)
    assert report_to_json(report) == document
    if same_bytes:
        assert dump_report(report_to_json(report)) == dump_report(document)


def test_the_demo_reports_round_trip() -> None:
    _assert_round_trip(json.loads((DEMO / "baseline.json").read_text(encoding="utf-8")))
    _assert_round_trip(HOSTILE_REPORT)


def test_the_render_cases_round_trip(tmp_path: Path) -> None:
    """The golden renderings' reports; some are edited by hand after scoring (a section added at the
    end), so their key order is their own and only their content is held to the JSON."""
    from render_cases import CASES

    for name, case in CASES.items():
        directory = tmp_path / name
        directory.mkdir()
        report, _comparison = case(directory)
        _assert_round_trip(report, same_bytes=False)


def _score(tmp_path: Path, name: str, *args: str) -> str:
    out = tmp_path / f"{name}.json"
    common = ["-j", str(DEMO / "judgments.jsonl"), "-r", str(DEMO / "run.jsonl"), "--now", NOW, "--out", str(out)]
    result = run_cli("score", *common, *args)
    assert result.code in (0, 1), result.stderr
    return out.read_text(encoding="utf-8")


@pytest.mark.slow
def test_reports_the_cli_writes_round_trip_byte_for_byte(tmp_path: Path) -> None:
    samples = tmp_path / "faithfulness.json"
    samples.write_text("[0.8, 0.9, 0.7]")
    corpus = str(DEMO / "corpus.json")
    written = [
        _score(tmp_path, "plain", "-k", "5"),
        _score(
            tmp_path,
            "everything",
            *("--corpus", corpus, "--floor", "bm25", "--baseline", str(DEMO / "baseline.json")),
            *("-k", "5,10,all", "--unjudged", "bounded", "--judged", f"faithfulness={samples}"),
            *("-g", "recall@5:-0.02,floor:recall@10:+0.0,faithfulness:ci-lower:0.5", "--require-detectable"),
        ),
        _score(tmp_path, "collapsed", "--corpus", corpus, "--collapse-to-documents", "--max-drift", "0.1"),
        _score(tmp_path, "condensed", "--unjudged", "condensed", "--easy-set", "off", "--corpus", corpus),
    ]
    for text in written:
        report = checked_report(json.loads(text), "report")
        assert dump_report(report_to_json(report)) == text
    everything = json.loads(written[1])
    assert {"floor", "sensitivity", "per_query_lower"} <= everything.keys()
    assert "collapse" in json.loads(written[2])


def test_a_report_of_another_tool_reads_with_what_it_lacks_missing() -> None:
    minimal = {
        "spec_version": "1",
        "tool": {"name": "other", "version": "0"},
        "generated_at": NOW,
        "corpus": {"fingerprint": None},
        "judgments": {"queries": 2, "labels": 3, "unknown": [1]},
        "metrics": {"recall@10": {"value": 0.5}},
        "verdict": {"status": "PASS"},
        "extension": {"kept": False},
    }
    report = checked_report(minimal, "report")
    assert report.config is None and report.per_query is None
    assert report.metrics["recall@10"].value == 0.5 and report.metrics["recall@10"].n is None
    # What the model does not name is not carried (the report is never written back as another tool's).
    written = report_to_json(report)
    assert "extension" not in written and "unknown" not in written["judgments"]
    assert written["judgments"] == {"queries": 2, "labels": 3, "fingerprint": None}


def test_a_report_handed_over_in_memory_reads_as_the_file_would_when_it_has_the_shape() -> None:
    document = json.loads((DEMO / "baseline.json").read_text(encoding="utf-8"))
    assert as_report(document) == checked_report(document, "report")
    assert report_to_json(as_report(document)) == document


def test_what_does_not_fit_its_type_reads_as_missing_down_to_one_entry() -> None:
    """The lenient reading, by construction: each damaged value is dropped, its neighbours kept."""
    damaged = {
        "spec_version": 1,  # not a string: missing
        "tool": "retrieval-eval",  # not an object: missing
        "metrics": {"recall@5": {"value": True, "n": 3}, "ndcg@5": {"value": 0.5}, "map": [0.1]},
        "per_query": {
            "q1": {"recall@5": 1, "ndcg@5": float("nan"), "map": 1e16, "mrr": False, "p": 0.25},
            "q2": [1.0],
        },
        "rankings": {"q1": ["a", 7, None, "b", ["c"]], "q2": "a b"},
        "verdict": {"status": "PASS", "gates": [{"expression": "recall@5:0.5", "status": 3}, "gate"]},
        "config": {"k": [5, "all", "ten", True], "threshold": 1.5, "policy": "x"},
    }
    report = as_report(damaged)
    assert report.spec_version is None and report.tool is None
    assert report.metrics is not None and report.metrics["recall@5"].value is None
    assert report.metrics["recall@5"].n == 3 and report.metrics["ndcg@5"].value == 0.5 and "map" not in report.metrics
    assert report.per_query == {"q1": {"recall@5": 1, "p": 0.25}}  # NaN, past the bound, a bool: dropped
    assert report.rankings == {"q1": ("a", "b")}
    assert report.verdict is not None and report.verdict.gates is not None
    assert [(g.expression, g.status) for g in report.verdict.gates] == [("recall@5:0.5", None)]
    assert report.config is not None and report.config.k == (5, "all", "ten") and report.config.threshold is None
    assert report.config.others == {"policy": "x"}  # kept: a history breaks its line where it changes
    assert as_report(["not", "a", "report"]) == Report()


@pytest.mark.slow
def test_a_report_with_machine_labels_round_trips_byte_for_byte(tmp_path: Path) -> None:
    """The machine-label policy's section, as the pipeline writes it (test_judge_policy's world)."""
    from test_judge_policy import Behaviour, label_holes, score, world

    truth, true_precision, _holes = world(tmp_path)
    label_holes(tmp_path, truth, Behaviour(noise=0.1, leniency=0.1, seed=2))
    _code, written = score(tmp_path, f"precision@10:{round(true_precision - 0.1, 2)}")
    assert written["machine_labels"]["gates"]  # the section this test is about, with a gate
    text = (tmp_path / "report.json").read_text(encoding="utf-8")
    assert dump_report(checked_report(json.loads(text), "report")) == text
