"""A judged metric may not carry the name of a metric scoring computes (or one of its spellings):
it would replace the computed value in the report while gates read the computed one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from retrieval_eval.core.errors import UsageError
from retrieval_eval.core.gates import Gating
from retrieval_eval.core.report_model import Measurement
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest


def files(tmp: Path) -> tuple[Path, Path, Path]:
    judgments = tmp / "j.jsonl"
    judgments.write_text(json.dumps({"query_id": "q", "query": "t", "doc_uri": "a", "relevance": 1}) + "\n")
    run = tmp / "r.jsonl"
    run.write_text(json.dumps({"query_id": "q", "ranking": ["a"]}) + "\n")
    samples = tmp / "s.json"
    samples.write_text("[1, 1, 1]")
    return judgments, run, samples


@pytest.mark.parametrize("name", ["recall@5", "nDCG@5", "P_5", "bpref", "judged@5", "false_abstention_rate"])
def test_the_cli_refuses_a_judged_name_that_names_a_computed_metric(name: str, tmp_path: Path) -> None:
    judgments, run, samples = files(tmp_path)
    done = run_cli("score", "-j", str(judgments), "-r", str(run), "-k", "5", "--judged", f"{name}={samples}")
    assert done.code == 2 and "names a metric retrieval-eval computes" in done.stderr, done.stderr


def test_a_request_with_a_shadowing_judged_name_is_refused(tmp_path: Path) -> None:
    judgments, run, _ = files(tmp_path)
    shadow = {"recall@5": Measurement(value=1.0, n=3)}
    request = EvaluationRequest(str(judgments), str(run), ScoreConfig(k=(5,)), gating=Gating(judged=shadow))
    with pytest.raises(UsageError, match="names a metric retrieval-eval computes"):
        run_pipeline(request)


def test_a_judged_name_of_its_own_is_kept(tmp_path: Path) -> None:
    judgments, run, samples = files(tmp_path)
    report = tmp_path / "report.json"
    done = run_cli(
        "score",
        "-j",
        str(judgments),
        "-r",
        str(run),
        "-k",
        "5",
        "--judged",
        f"faithfulness={samples}",
        "--report",
        str(report),
    )
    assert done.code == 0, done.stderr
    metrics = json.loads(report.read_text())["metrics"]
    assert metrics["faithfulness"]["value"] == 1.0 and metrics["recall@5"]["value"] == 1.0
