"""One pipeline, one set of settings: the CLI, the action and the config file give the same report."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from dataclasses import dataclass, replace
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
    return make_workspace(tmp_path)


def make_workspace(tmp_path: Path) -> Path:
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

# Every row of the settings table is an evaluation setting, which the API takes as a keyword of
# the same name, or is listed here with why the API has no keyword for it.
NOT_IN_THE_API = {
    "report": "the API returns the Evaluation; Evaluation.save writes it",
    "fail-on-indeterminate": "an exit code; the API returns the verdict",
    "config": "the API takes its settings as arguments, not from a file",
    "mode": "the action's fork recipe",
    "github-token": "the action's access to GitHub",
    "api-url": "the action's GitHub API",
    "comment": "the action's pull request comment",
    "comment-id": "the action's pull request comment",
    "template-dir": "the action's summary and comment templates",
    "history": "the action's summary chart of the base branch's reports",
    "label-queue": "the action's file beside the report; outside a workflow retrieval-eval holes writes it",
    "baseline-path": "where the action looks for the base report; the API is handed the base report (baseline=)",
    **{
        name: "a judge the action calls over the network; the API reads its labels (machine_labels=), "
        "written by retrieval-eval judge"
        for name in ("judge-endpoint", "judge-model", "judge-key-env", "judge-max-calls", "judge-max-tokens")
    },
}


@dataclass(frozen=True)
class Given:
    """One setting given: as the text of an action input (and of a CLI flag), and as the API's value."""

    text: str
    value: Any
    beside: tuple[tuple[str, str, Any], ...] = ()  # settings it needs: (name, text, the API's value)
    together: tuple[tuple[str, str, Any], ...] = ()  # settings that need it as it needs them: given with it only


# For each evaluation setting, values other than its default; the paths are the workspace's.
WITH_CORPUS = ("corpus", "corpus.json", "corpus.json")
GIVEN: dict[str, list[Given]] = {
    "judgments": [Given("labels/copy.jsonl", "labels/copy.jsonl")],
    "run": [Given("base-run.jsonl", Path("base-run.jsonl"))],
    "k": [Given("5", 5), Given("3,10,all", "3,10,all")],
    "threshold": [Given("2", 2)],
    "gain": [Given("linear", "linear")],
    "run-format": [Given("jsonl", "jsonl")],
    "unjudged": [Given("bounded", "bounded"), Given("condensed", "condensed")],
    "machine-labels": [Given("machine.jsonl", "machine.jsonl", together=(("unjudged", "machine", "machine"),))],
    "gates": [Given("recall@10:0.5", ["recall@10:0.5"])],
    "judged": [Given("faithfulness=faith.json", {"faithfulness": "faith.json"})],
    "baseline": [Given("base.json", "base.json")],
    "corpus": [Given("corpus.json", Path("corpus.json"))],
    "floor": [
        Given("base-run.jsonl", "base-run.jsonl"),
        Given("bm25", "bm25", (WITH_CORPUS,)),
    ],
    "easy-set": [Given("0.5", 0.5), Given("off", None)],
    "answer-in-query": [Given("3", 3), Given("off", None)],
    "collapse-to-documents": [Given("true", True, (WITH_CORPUS,))],
    "max-drift": [Given("0.05", 0.05, (WITH_CORPUS,))],
    "power": [Given("0.9", 0.9)],
    "require-detectable": [Given("true", True)],
    "bounds": [Given("true", True)],
}
REQUIRED = (
    ("judgments", "labels/judgments.jsonl", "labels/judgments.jsonl"),
    ("run", "runs/head.jsonl", "runs/head.jsonl"),
)


def test_every_setting_is_reachable_from_the_api_or_says_why_not() -> None:
    import inspect

    import retrieval_eval
    from retrieval_eval.pipeline.settings import SETTINGS

    keywords = inspect.signature(retrieval_eval.evaluate).parameters
    names = [setting.name for setting in SETTINGS]
    unsorted = [name for name in names if (name in NOT_IN_THE_API) == (name in GIVEN)]
    assert not unsorted, (
        f"say of each setting whether the API reaches it (GIVEN) or why not (NOT_IN_THE_API): {unsorted}"
    )
    missing = [name for name in GIVEN if name.replace("-", "_") not in keywords]
    assert not missing, f"settings the Python API cannot reach: {missing}"


class Captured(Exception):  # noqa: N818  (not an error: the request, caught on its way into the pipeline)
    def __init__(self, request: Any) -> None:
        super().__init__("captured")
        self.request = request


def _captured(call: Any) -> Any:
    with pytest.raises(Captured) as caught:
        call()
    return caught.value.request


def _normalised(request: Any) -> Any:
    """The request with its paths made real: the CLI anchors them at the working directory,
    the action at the workspace and the API leaves them as given."""

    def real(path: str | None) -> str | None:
        return path if path in (None, "", "bm25") else os.path.realpath(path)

    return replace(
        request,
        judgments_path=real(request.judgments_path),
        run_path=real(request.run_path),
        corpus_path=real(request.corpus_path),
        floor=real(request.floor),
        machine_labels_path=real(request.machine_labels_path),
    )


def requests_of(workspace: Path, given: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """The request the CLI, the action and the API each hand the pipeline for the settings ``given``."""
    from click.testing import CliRunner

    import retrieval_eval
    from retrieval_eval.commands.score import command as score_command
    from retrieval_eval.pipeline.holes import BOUNDED_ADVICE
    from retrieval_eval.pipeline.settings import ACTION, BY_NAME

    args = ["--now", NOW]
    for name, text, _value in given:
        flag = BY_NAME[name].flag.split(",")[-1].split("/")[0].strip()
        args += [flag] if text == "true" else [flag, text]
    result = CliRunner().invoke(score_command, args)
    assert isinstance(result.exception, Captured), result.output
    requests = {"cli": result.exception.request}
    values = {name.replace("-", "_"): value for name, _text, value in given}
    judgments, run = values.pop("judgments"), values.pop("run")
    requests["api"] = _captured(lambda: retrieval_eval.evaluate(judgments, run, generated_at=NOW, **values))
    if all(ACTION in BY_NAME[name].where for name, _text, _value in given):
        inputs = {name: text for name, text, _value in given}
        # The action alone asks for the label queue (it writes it beside the report), and words
        # its advice for a workflow (an input to set, not a flag): neither is a setting.
        action = _captured(lambda: action_report(workspace, inputs))
        assert action.bounded_advice != BOUNDED_ADVICE
        requests["action"] = replace(action, label_queue=False, queue_limit=None, bounded_advice=BOUNDED_ADVICE)
    return {adapter: _normalised(request) for adapter, request in requests.items()}


CASES = [(name, index) for name, givens in GIVEN.items() for index in range(len(givens))]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace, made once: the requests are caught before any file is written."""
    workspace = make_workspace(tmp_path_factory.mktemp("inputs"))
    (workspace / "labels" / "copy.jsonl").write_bytes((workspace / "labels" / "judgments.jsonl").read_bytes())
    (workspace / "faith.json").write_text("[0.9, 0.7, 0.8, 0.95]")
    (workspace / "machine.jsonl").write_text("")  # read by the pipeline, past the request
    return workspace


@pytest.mark.parametrize(("name", "index"), CASES, ids=[f"{name}-{index}" for name, index in CASES])
def test_each_setting_changes_the_request_alike_from_the_cli_the_action_and_the_api(
    inputs: Path, monkeypatch: pytest.MonkeyPatch, name: str, index: int
) -> None:
    import retrieval_eval.pipeline.evaluate as pipeline
    from retrieval_eval.pipeline.settings import ACTION, BY_NAME

    def capture(request: Any, workers: int) -> Any:
        raise Captured(request)

    workspace = inputs
    monkeypatch.setattr(pipeline, "_run_pipeline", capture)
    monkeypatch.chdir(workspace)

    case = GIVEN[name][index]
    beside = {n: (n, text, value) for n, text, value in (*REQUIRED, *case.beside)}
    before = requests_of(workspace, list(beside.values()))
    with_it = {**beside, **{n: (n, text, value) for n, text, value in case.together}}
    after = requests_of(workspace, list({**with_it, name: (name, case.text, case.value)}.values()))
    assert after["cli"] != before["cli"], f"{name}: {case.text} changes nothing the pipeline is asked"
    for adapter in ("api", "action"):
        if adapter in after:  # the action has no input for a CLI-only setting
            assert before[adapter] == before["cli"], adapter
            assert after[adapter] == after["cli"], f"{name}: the {adapter} asks otherwise than the CLI"
    assert ("action" in after) == (ACTION in BY_NAME[name].where), name


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


# Where the request and its slices are built: a second place would be a second translation.
BUILT_ONLY_IN = {
    "EvaluationRequest(": {"pipeline/request.py"},
    "Gating(": {"pipeline/request.py", "core/gates.py"},  # and evaluate_gate's default: no judged metric
    # Besides the request: a base report's recorded definition, read again to rescore its rankings,
    # and validate's eval-set check (a command of its own, without a run).
    "ScoreConfig(": {"pipeline/request.py", "comparison/rescore.py", "commands/validate.py"},
    "GateReadings(": {"pipeline/evaluate.py"},
}


@pytest.mark.parametrize("call", sorted(BUILT_ONLY_IN))
def test_the_request_and_its_slices_are_built_in_one_place(call: str) -> None:
    package = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval"
    found = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if re.search(rf"(?<![\w.]){re.escape(call)}", path.read_text(encoding="utf-8"))
    }
    assert found == BUILT_ONLY_IN[call], f"{call} is built in {sorted(found)}"


def test_the_retired_translations_are_gone() -> None:
    package = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval"
    for path in package.rglob("*.py"):
        found = re.findall(r"\b(ScoreRequest|LexicalRequest|GateContext)\b", path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(package).as_posix()}: {found}: the request and its slices are one type"
