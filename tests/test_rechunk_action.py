"""A re-chunk pull request through the action: the base branch's report (scored on the old
chunks, committed on the base branch) against the head's run, corpus and repaired labels,
with a fake GitHub API. The verdict and the gate's delta must be the scenario's truth."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_workspace import REPO, Workspace, git
from fake_github import FakeGitHub
from helpers import run_cli
from rechunk_scenarios import CHUNKERS, OUTCOMES, Scenario, make_scenario
from retrieval_eval.action.main import main
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.formats.report import dump_report
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

TOLERANCE = 0.02


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(repo=REPO).serve() as server:
        yield server


def rechunk_workspace(tmp: Path, scenario: Scenario, *, without_quotes: int = 0) -> Workspace:
    """Base commit: old corpus, labels, run and the base report; head commit: the re-chunked
    corpus, the labels `drift --fix` repaired, the new run."""
    files = scenario.write(tmp / "scenario")
    if without_quotes:  # labels whose paragraph the re-chunk cut, with nothing to say which piece answers
        labels = [json.loads(line) for line in files.judgments.read_text().splitlines()]
        for record in labels[:without_quotes]:
            del record["quote"]
        files.judgments.write_text("".join(json.dumps(r) + "\n" for r in labels))
    root = tmp / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    shutil.copy(files.base_corpus, root / "corpus.json")
    shutil.copy(files.judgments, root / "judgments.jsonl")
    shutil.copy(files.base_run, root / "run.jsonl")
    request = EvaluationRequest(
        judgments_path=str(root / "judgments.jsonl"),
        run_path=str(root / "run.jsonl"),
        scoring=ScoreConfig(k=(5, 10)),
        corpus_path=str(root / "corpus.json"),
        generated_at="2025-12-31T00:00:00Z",
    )
    report = dump_report(run_pipeline(request).report)
    (root / ".retrieval-eval").mkdir()
    (root / ".retrieval-eval" / "report.json").write_text(report, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base_sha = git(root, "rev-parse", "HEAD")
    shutil.copy(files.head_corpus, root / "corpus.json")
    shutil.copy(files.head_run, root / "run.jsonl")
    fixed = run_cli("drift", "-j", "judgments.jsonl", "-c", "corpus.json", "--fix", cwd=root)
    assert fixed.code == (1 if without_quotes else 0), fixed.stdout + fixed.stderr
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "re-chunk")
    runner = tmp / "runner"
    runner.mkdir()
    workspace = Workspace(root, runner, base_sha, git(root, "rev-parse", "HEAD"), report)
    workspace.reset_runner_files()
    workspace.pull_request_event()
    return workspace


@pytest.mark.parametrize(
    ("chunker", "outcome", "ids"),
    [
        *((chunker, outcome, "c1") for chunker in CHUNKERS for outcome in OUTCOMES),
        ("sections", "worse", "uuid"),  # a vector store's ids
        ("windows", "better", "slot"),  # ids a re-chunk reuses for other text
    ],
)
def test_the_action_decides_a_rechunk_against_the_base_branch_report(
    tmp_path: Path, fake: FakeGitHub, chunker: str, outcome: str, ids: str
) -> None:
    scenario = make_scenario(chunker, outcome, ids=ids)
    workspace = rechunk_workspace(tmp_path, scenario)
    env = workspace.env(fake.url, corpus="corpus.json", gates="recall@5:-0.02")
    code = main(env, stdout=io.StringIO(), sleep=lambda _seconds: None)
    verdict = scenario.truth.verdict(0.02)
    assert workspace.outputs()["verdict"] == verdict
    assert code == (0 if verdict == "PASS" else 1)
    report = json.loads((workspace.root / "retrieval-eval-report.json").read_text(encoding="utf-8"))
    (gate,) = report["verdict"]["gates"]
    assert gate["baseline"] == pytest.approx(scenario.truth.base["recall@5"], abs=TOLERANCE)
    assert gate["observed"] - gate["baseline"] == pytest.approx(scenario.truth.delta("recall@5"), abs=TOLERANCE)
    assert "translated yardstick" in workspace.summary()


def test_labels_a_rechunk_broke_make_the_action_indeterminate_and_point_at_the_queue(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    scenario = make_scenario("sentences", "worse")
    workspace = rechunk_workspace(tmp_path, scenario, without_quotes=2)
    env = workspace.env(fake.url, corpus="corpus.json", gates="recall@5:-0.02")
    code = main(env, stdout=io.StringIO(), sleep=lambda _seconds: None)
    assert code == 1 and workspace.outputs()["verdict"] == "INDETERMINATE"
    summary = workspace.summary()
    assert r"2 label\(s\) broke in the re-chunk" in summary  # Markdown-escaped, as the summary shows it
    assert r"q00 \(line 1, SPLIT\), q01 \(line 2, SPLIT\); list them with" in summary
    assert "retrieval-eval drift -j judgments.jsonl -c corpus.json --queue rejudge.jsonl" in summary
