"""The bounds are computed only when something reads them, and a report says whether they were.

Two queries, each with one relevant key d1 and one key labeled 0. The base run ranks an
unlabeled key x first, then d1: precision@2 is 0.5, and 1.0 should x prove relevant. The head
ranks d1 then the key labeled 0: precision@2 is 0.5 whatever is labeled. So the delta of
precision@2 lies between 0.5 - 1.0 = -0.5 (head lower less base upper) and 0.5 - 0.5 = 0
(head upper less base lower), by hand; read the base's bound as its value and it would be 0 to 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.pipeline.evaluate import Evaluation, ScoreRequest, needs_bounds, run_pipeline

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
    return run_pipeline(ScoreRequest(judgments, run, ScoreConfig(k=(2,)), **more))


def _without_bounds(report: dict[str, Any]) -> dict[str, Any]:
    """The report as it reads with its bounds left out."""
    stripped = {k: v for k, v in report.items() if k not in ("per_query_lower", "per_query_upper")}
    stripped["config"] = {**report["config"], "computed": []}
    stripped["metrics"] = {
        name: {k: v for k, v in row.items() if k not in ("lower", "upper")} for name, row in report["metrics"].items()
    }
    return stripped


def test_nothing_reads_the_bounds_so_none_are_computed_and_the_report_says_so(tmp_path: Path) -> None:
    judgments, base_run, _ = _files(tmp_path)
    plain = _score(judgments, base_run).report
    assert plain["config"]["computed"] == []
    assert "per_query_upper" not in plain and "per_query_lower" not in plain
    assert plain["metrics"]["precision@2"] == {"value": 0.5, "n": 2, "deterministic": True}
    # Every other field is what the bounds' run writes: no answer changes.
    asked = _score(judgments, base_run, bounds=True).report
    assert asked["config"]["computed"] == ["bounds"]
    assert asked["metrics"]["precision@2"] == {"value": 0.5, "lower": 0.5, "upper": 1.0, "n": 2, "deterministic": True}
    assert asked["per_query_upper"]["q1"]["precision@2"] == 1.0
    assert _without_bounds(asked) == plain
    # The unjudged keys in the top k are counted either way (the judged-drop note reads them).
    assert plain["unjudged"]["keys"] == {"2": 2, "all": 2}


@pytest.mark.parametrize(
    "more",
    [
        {"config": ScoreConfig(k=(2,), unjudged_policy="bounded")},
        {"baseline": {"config": {}}},
        {"label_queue": True},
        {"machine_labels_path": "labels.jsonl"},
        {"bounds": True},
    ],
)
def test_what_reads_the_bounds_computes_them(more: dict[str, Any]) -> None:
    assert needs_bounds(ScoreRequest("j.jsonl", "r.jsonl", **more))


def test_assume_irrelevant_alone_reads_no_bounds() -> None:
    assert not needs_bounds(ScoreRequest("j.jsonl", "r.jsonl"))
    assert not needs_bounds(ScoreRequest("j.jsonl", "r.jsonl", ScoreConfig(unjudged_policy="condensed")))


def test_a_base_without_bounds_compares_as_if_it_had_them(tmp_path: Path) -> None:
    judgments, base_run, head_run = _files(tmp_path)
    lean = _score(judgments, base_run).report
    full = _score(judgments, base_run, bounds=True).report
    assert "per_query_upper" not in lean
    for base in (lean, full):
        head = _score(judgments, head_run, baseline=base)
        assert head.report["config"]["computed"] == ["bounds"]  # a comparison reads them
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
    assert reports["--bounds"]["config"]["computed"] == ["bounds"]
    assert reports["--bounds"]["metrics"]["precision@2"]["upper"] == 1.0
    assert reports["--no-bounds"]["config"]["computed"] == []
    assert "per_query_upper" not in reports["--no-bounds"]
