"""The bounds are computed only when something reads them, and a report says whether they were.

Two queries, each with one relevant key d1 and one key labeled 0. The base run ranks an
unlabeled key x first, then d1: precision@2 is 0.5, and 1.0 should x prove relevant. The head
ranks d1 then the key labeled 0: precision@2 is 0.5 whatever is labeled. So the delta of
precision@2 lies between 0.5 - 1.0 = -0.5 (head lower less base upper) and 0.5 - 0.5 = 0
(head upper less base lower), by hand; read the base's bound as its value and it would be 0 to 0.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.formats.report import as_report
from retrieval_eval.pipeline.evaluate import Evaluation, needs_bounds, run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

QUERIES = ("q1", "q2")


def _write(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _files(tmp_path: Path) -> tuple[str, str, str]:
    labels = [
        {"query_id": q, "query": f"question {q}", "doc_uri": doc, "relevance": grade}
        for q in QUERIES
        for doc, grade in (("d1", 1), ("z", 0))
    ]
    base = [{"query_id": q, "ranking": ["x", "d1"]} for q in QUERIES]
    head = [{"query_id": q, "ranking": ["d1", "z"]} for q in QUERIES]
    return (
        _write(tmp_path / "judgments.jsonl", labels),
        _write(tmp_path / "base.jsonl", base),
        _write(tmp_path / "head.jsonl", head),
    )


def _score(judgments: str, run: str, **more: Any) -> Evaluation:
    return run_pipeline(EvaluationRequest(judgments, run, ScoreConfig(k=(2,)), **more))


def _without_bounds(report: dict[str, Any]) -> dict[str, Any]:
    """The report as it reads with its bounds left out."""
    stripped = {k: v for k, v in report.items() if k not in ("per_query_lower", "per_query_upper")}
    stripped["computed"] = []
    stripped["metrics"] = {
        name: {k: v for k, v in row.items() if k not in ("lower", "upper")} for name, row in report["metrics"].items()
    }
    return stripped


def test_nothing_reads_the_bounds_so_none_are_computed_and_the_report_says_so(tmp_path: Path) -> None:
    judgments, base_run, _ = _files(tmp_path)
    plain = _score(judgments, base_run).report
    assert plain["computed"] == []
    assert "per_query_upper" not in plain and "per_query_lower" not in plain
    assert plain["metrics"]["precision@2"] == {"value": 0.5, "n": 2, "deterministic": True}
    # Every other field is what the bounds' run writes: no answer changes.
    asked = _score(judgments, base_run, bounds=True).report
    assert asked["computed"] == ["bounds"]
    assert asked["metrics"]["precision@2"] == {"value": 0.5, "lower": 0.5, "upper": 1.0, "n": 2, "deterministic": True}
    assert asked["per_query_upper"]["q1"]["precision@2"] == 1.0
    assert _without_bounds(asked) == plain
    # The unjudged keys in the top k are counted either way (the judged-drop note reads them).
    assert plain["unjudged"]["keys"] == {"2": 2, "all": 2}


@pytest.mark.parametrize(
    "more",
    [
        {"scoring": ScoreConfig(k=(2,), unjudged_policy="bounded")},
        {"baseline": {"config": {}}},
        {"label_queue": True},
        {"machine_labels_path": "labels.jsonl"},
        {"bounds": True},
    ],
)
def test_what_reads_the_bounds_computes_them(more: dict[str, Any]) -> None:
    assert needs_bounds(EvaluationRequest("j.jsonl", "r.jsonl", **more))


def test_assume_irrelevant_alone_reads_no_bounds() -> None:
    assert not needs_bounds(EvaluationRequest("j.jsonl", "r.jsonl"))
    assert not needs_bounds(EvaluationRequest("j.jsonl", "r.jsonl", ScoreConfig(unjudged_policy="condensed")))


def test_a_base_without_bounds_compares_as_if_it_had_them(tmp_path: Path) -> None:
    judgments, base_run, head_run = _files(tmp_path)
    lean = _score(judgments, base_run).report
    full = _score(judgments, base_run, bounds=True).report
    assert "per_query_upper" not in lean
    for base in (lean, full):
        head = _score(judgments, head_run, baseline=as_report(base))
        assert head.report["computed"] == ["bounds"]  # a comparison reads them
        assert head.comparison is not None
        assert head.comparison.metrics["precision@2"].bounds == (-0.5, 0.0)  # by hand (module docstring)


def test_the_bounds_flag_asks_for_them_on_the_command_line(tmp_path: Path) -> None:
    judgments, base_run, _ = _files(tmp_path)
    reports = {}
    for flag in ("--bounds", "--no-bounds"):
        out = tmp_path / f"report{flag}.json"
        result = run_cli("score", "-j", judgments, "-r", base_run, "-k", "2", "--out", str(out), flag)
        assert result.code == 0, result.stderr
        reports[flag] = json.loads(out.read_text())
    assert reports["--bounds"]["computed"] == ["bounds"]
    assert reports["--bounds"]["metrics"]["precision@2"]["upper"] == 1.0
    assert reports["--no-bounds"]["computed"] == []
    assert "per_query_upper" not in reports["--no-bounds"]


def _reports(tmp_path: Path, base_run: str, head_run: str, judgments: str) -> tuple[str, str]:
    """Both reports as `score --out` writes them with nothing reading the bounds: neither has any."""
    paths = []
    for name, run in (("base", base_run), ("head", head_run)):
        out = tmp_path / f"{name}.json"
        result = run_cli("score", "-j", judgments, "-r", run, "-k", "2", "--out", str(out))
        assert result.code == 0, result.stderr
        assert json.loads(out.read_text())["computed"] == []
        paths.append(str(out))
    return paths[0], paths[1]


@pytest.mark.parametrize(("swap", "expected"), [(False, [-0.5, 0.0]), (True, [0.0, 0.5])])
def test_compare_computes_the_bounds_that_two_lean_reports_left_out(
    tmp_path: Path, swap: bool, expected: list[float]
) -> None:
    # Swapped, the head is the run with the unjudged key: 0.5 - 0.5 = 0 to 1.0 - 0.5 = 0.5, by hand.
    judgments, base_run, head_run = _files(tmp_path)
    if swap:
        base_run, head_run = head_run, base_run
    base, head = _reports(tmp_path, base_run, head_run, judgments)
    result = run_cli("compare", "--base", base, "--head", head, "-j", judgments, "--json")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["metrics"]["precision@2"]["bounds"] == expected
    import retrieval_eval

    document = retrieval_eval.compare(base, head, judgments=judgments).to_dict()
    assert document["metrics"]["precision@2"]["bounds"] == expected


def test_compare_without_judgments_states_no_bounds_a_lean_report_cannot_give(tmp_path: Path) -> None:
    # Read as values, the missing bounds would claim the delta cannot move (0 to 0); it can (-0.5 to 0).
    judgments, base_run, head_run = _files(tmp_path)
    base, head = _reports(tmp_path, base_run, head_run, judgments)
    result = run_cli("compare", "--base", base, "--head", head, "--json")
    assert result.code == 0, result.stderr
    assert "bounds" not in json.loads(result.stdout)["metrics"]["precision@2"]


def test_a_lean_base_without_rankings_gives_no_delta_bounds_to_gate_on(tmp_path: Path) -> None:
    # A base that left its bounds out and kept no rankings cannot have them computed again: read
    # as values they would claim the delta lies in 0 to 0 (it lies in -0.5 to 0, by hand). The
    # comparison then states no bounds, and a bounded delta gate says it cannot decide.
    judgments, base_run, head_run = _files(tmp_path)
    base = _score(judgments, base_run).report
    assert base["computed"] == []
    trimmed = {key: value for key, value in base.items() if key != "rankings"}
    gate = "precision@2:-0.1"
    config = ScoreConfig(k=(2,), unjudged_policy="bounded")
    request = EvaluationRequest(judgments, head_run, config, baseline=as_report(trimmed))
    head = run_pipeline(replace(request, gating=replace(request.gating, gates=(gate,))))
    comparison = head.comparison
    assert comparison is not None
    row = comparison.get("precision@2")
    assert row is not None and row.bounds is None
    found = head.report["verdict"]["gates"][0]
    assert found["expression"] == gate and found["status"] == "INDETERMINATE", found
    # With the rankings kept, the same base gives the bounds by hand.
    whole = run_pipeline(replace(request, baseline=as_report(base), gating=replace(request.gating, gates=(gate,))))
    kept = whole.comparison.get("precision@2") if whole.comparison is not None else None
    assert kept is not None and kept.bounds == (-0.5, 0.0)
