"""One pipeline, one set of settings: the CLI, the action and the config file give the same report."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from action_workspace import DEMO, EPOCH, rechunked_corpus, worse_run, write_jsonl
from helpers import run_cli
from retrieval_eval.action.main import main as action_main

NOW = "2026-01-01T00:00:00Z"  # what EPOCH says
SETTINGS = {
    "judgments": "labels/judgments.jsonl",
    "run": "runs/head.jsonl",
    "k": "5,10",
    "gates": "recall@5:-0.02,ndcg@10:0.3",
    "corpus": "corpus.json",
    "max-drift": "0.05",
    "baseline": "base.json",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """Judgments, a worse run, the base branch's report made on the old corpus, and a re-chunked corpus."""
    (tmp_path / "labels").mkdir()
    shutil.copy(DEMO / "judgments.jsonl", tmp_path / "labels" / "judgments.jsonl")
    shutil.copy(DEMO / "run.jsonl", tmp_path / "base-run.jsonl")
    shutil.copy(DEMO / "corpus.json", tmp_path / "old-corpus.json")
    write_jsonl(tmp_path / "runs" / "head.jsonl", worse_run())
    base = run_cli(
        "score", "-j", "labels/judgments.jsonl", "-r", "base-run.jsonl", "-k", "5,10",
        "--corpus", "old-corpus.json", "--report", "base.json", "--now", NOW, cwd=tmp_path,
    )  # fmt: skip
    assert base.code in (0, 1), base.stderr
    document = json.loads((DEMO / "corpus.json").read_text())
    moved = document["chunks"][0]["doc_uri"]
    (tmp_path / "corpus.json").write_text(json.dumps(rechunked_corpus(moved)))
    return tmp_path


def cli_report(workspace: Path, *extra: str) -> dict[str, Any]:
    result = run_cli("score", "--report", "cli.json", "--now", NOW, *extra, cwd=workspace)
    assert result.code in (0, 1) and "Traceback" not in result.stderr, result.stderr
    return json.loads((workspace / "cli.json").read_text())


def action_report(workspace: Path, inputs: dict[str, str]) -> dict[str, Any]:
    runner = workspace.parent / f"{workspace.name}-runner"
    runner.mkdir(exist_ok=True)
    env = {
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_STEP_SUMMARY": str(runner / "summary"),
        "GITHUB_OUTPUT": str(runner / "output"),
        "SOURCE_DATE_EPOCH": EPOCH,
        "INPUT_REPORT": "action.json",
        "INPUT_COMMENT": "off",
        **{f"INPUT_{name.upper()}": value for name, value in inputs.items()},
    }
    code = action_main(env, stdout=io.StringIO())
    assert code in (0, 1), (runner / "summary").read_text()
    return json.loads((workspace / "action.json").read_text())


def flags(settings: dict[str, str]) -> list[str]:
    spelled = {"judgments": "-j", "run": "-r", "k": "-k", "gates": "-g"}
    return [part for name, value in settings.items() for part in (spelled.get(name, f"--{name}"), value)]


def without_time(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key != "generated_at"}


def test_the_cli_and_the_action_give_the_same_report(workspace: Path) -> None:
    from_cli = cli_report(workspace, *flags(SETTINGS))
    from_action = action_report(workspace, SETTINGS)
    assert without_time(from_cli) == without_time(from_action)
    # What only the action did before is now the pipeline's: the max-drift gate and the fingerprint check.
    gates = {gate["expression"]: gate["status"] for gate in from_cli["verdict"]["gates"]}
    assert gates["max-drift:0.05"] == "FAIL" and from_cli["verdict"]["status"] == "FAIL"
    changes = from_cli["judgments"]["drift"]["changes"]
    assert any("changed since the base branch" in change for change in changes), changes
    assert from_cli["judgments"]["drift"]["repair_command"] == (
        "retrieval-eval drift -j labels/judgments.jsonl -c corpus.json --fix"
    )


def test_the_config_file_means_the_same_to_both(workspace: Path) -> None:
    lines = [f"{name}: {value!r}" if name != "gates" else f"gates: [{value}]" for name, value in SETTINGS.items()]
    (workspace / ".retrieval-eval.yml").write_text("\n".join(lines) + "\n")
    from_cli = cli_report(workspace)
    from_action = action_report(workspace, {})
    assert without_time(from_cli) == without_time(from_action)
    assert without_time(from_cli) == without_time(cli_report(workspace, "--config", "none", *flags(SETTINGS)))


def test_a_flag_wins_over_the_config_file(workspace: Path) -> None:
    (workspace / ".retrieval-eval.yml").write_text("judgments: labels/judgments.jsonl\nrun: runs/head.jsonl\nk: 10\n")
    assert cli_report(workspace, "-k", "5")["config"]["k"] == [5]
    assert cli_report(workspace)["config"]["k"] == [10]


# -- the Python API: the same settings, read by the same rows ---------------------------------

# The score command's settings that do not change what is evaluated, with why the API has none.
NOT_EVALUATION = {
    "report": "the API returns the Evaluation; Evaluation.save writes it",
    "fail-on-indeterminate": "an exit code; the API returns the verdict",
    "config": "the API takes its settings as arguments, not from a file",
}


def test_every_evaluation_setting_is_a_keyword_of_the_api() -> None:
    import inspect

    import retrieval_eval
    from retrieval_eval.commands.score import SCORE_SETTINGS
    from retrieval_eval.pipeline.settings import BY_NAME

    keywords = inspect.signature(retrieval_eval.evaluate).parameters
    wanted = [name for name in SCORE_SETTINGS if name not in NOT_EVALUATION]
    assert all(name in BY_NAME for name in wanted)
    missing = [name for name in wanted if name.replace("-", "_") not in keywords]
    assert not missing, f"settings the Python API cannot reach: {missing}"


# Every evaluation setting given a value other than its default, where one applies here.
EVERY = {
    **SETTINGS,
    "threshold": "1",
    "gain": "linear",
    "run-format": "jsonl",
    "floor": "bm25",
    "easy-set": "0.5",
    "answer-in-query": "3",
    "judged": "faithfulness=faith.json",
    "gates": SETTINGS["gates"] + ",faithfulness:ci-lower:0.5,floor:ndcg@10:0",
    "power": "0.9",
    "require-detectable": "",
}


def test_the_cli_the_action_and_the_api_give_the_same_report(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import retrieval_eval

    (workspace / "faith.json").write_text("[0.9, 0.7, 0.8, 0.95]")
    cli = [part for part in flags(EVERY) if part != ""]
    from_cli = cli_report(workspace, *cli)
    monkeypatch.chdir(workspace)
    evaluation = retrieval_eval.evaluate(
        EVERY["judgments"],
        EVERY["run"],
        k="5,10",
        threshold=1,
        gain="linear",
        run_format="jsonl",
        gates=EVERY["gates"],
        corpus=Path(EVERY["corpus"]),
        max_drift=0.05,
        baseline="base.json",
        floor="bm25",
        easy_set=0.5,
        answer_in_query=3,
        judged={"faithfulness": "faith.json"},
        power=0.9,
        require_detectable=True,
        generated_at="2030-01-01T00:00:00Z",
    )
    assert without_time(evaluation.report) == without_time(from_cli)
    # The values arrived: the floor, the judged metric and the eval-set checks are in the report.
    gates = {gate["expression"]: gate["status"] for gate in from_cli["verdict"]["gates"]}
    assert {"faithfulness:ci-lower:0.5", "floor:ndcg@10:0"} <= set(gates), gates
    assert from_cli["sensitivity"]["thresholds"] == {"easy_set": 0.5, "answer_in_query": 3}
    from_action = action_report(workspace, {**EVERY, "require-detectable": "true"})
    assert without_time(from_action) == without_time(from_cli)


@pytest.mark.parametrize(
    ("keyword", "value", "words"),
    [
        ("easy_set", 1.5, "easy_set: 1.5 is out of range"),
        ("answer_in_query", 0, "answer_in_query: 0 is out of range"),
        ("power", 0.3, "power: '0.3' must be a power from 0.5"),
        ("run_format", "csv", "run_format: 'csv' is not one of"),
        ("floor", "bm25", "floor: bm25 is computed over a corpus"),
        ("unjudged", "machine", "unjudged: the machine policy reads the judge's labels"),
        ("judged", {"ndcg@10": "x.json"}, "judged: judged metric 'ndcg@10' names a metric"),
        ("judged", {"faith": "a,b.json"}, "judged['faith']: a name or path holding a comma"),
        ("judged", {"faith": ""}, "judged: 'faith=' must be NAME=PATH"),
    ],
)
def test_the_api_refuses_what_the_cli_refuses(keyword: str, value: Any, words: str) -> None:
    import retrieval_eval
    from action_workspace import DEMO as demo

    with pytest.raises(retrieval_eval.UsageError) as caught:
        retrieval_eval.evaluate(demo / "judgments.jsonl", demo / "run.jsonl", **{keyword: value})
    assert words in str(caught.value.message), caught.value.message
