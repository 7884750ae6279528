"""The label queue is counted on every run and built only on demand.

The count must be the length of the queue that would have been built: checked by building
both on random runs (repeated keys, unjudged keys on either side, queries only one side ranks,
queries nobody labeled), and end to end through the action's ``label-queue`` input.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from action_workspace import REPO, Workspace, make_workspace, worse_run
from fake_github import FakeGitHub
from retrieval_eval.action.main import main
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.pipeline import settings as settings_module
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

GATES = "recall@5:0.8\nrecall@5:-0.05\nndcg@10:0.7"  # as the action's integration tests


def _write(path: Path, lines: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _workload(rng: random.Random, queries: int) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    labels: list[dict[str, object]] = []
    run: list[dict[str, object]] = []
    for q in range(queries):
        qid = f"q{q:03d}"
        pool = [f"d{q}-{i}" for i in range(12)]
        for key in rng.sample(pool, rng.randint(1, 8)):
            labels.append({"query_id": qid, "query": f"question {q}", "doc_uri": key, "relevance": rng.randint(0, 3)})
        if rng.random() < 0.9:  # a few judged queries the run leaves out
            ranking = [rng.choice(pool) for _ in range(rng.randint(0, 15))]  # repeated keys too
            run.append({"query_id": qid, "ranking": ranking})
    run.append({"query_id": "nobody-labeled", "ranking": ["x", "y"]})
    return labels, run


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("policy", ["assume-irrelevant", "bounded"])
def test_the_count_is_the_length_of_the_queue_it_stands_for(tmp_path: Path, seed: int, policy: str) -> None:
    rng = random.Random(seed)
    labels, base_run = _workload(rng, 60)
    _, head_run = _workload(random.Random(seed + 100), 60)
    judgments = _write(tmp_path / "judgments.jsonl", labels)
    k = rng.choice([3, 5, 10])
    config = ScoreConfig(k=(k,), unjudged_policy=policy)
    base = run_pipeline(
        EvaluationRequest(judgments_path=judgments, run_path=_write(tmp_path / "base.jsonl", base_run), scoring=config)
    )
    request = EvaluationRequest(
        judgments_path=judgments,
        run_path=_write(tmp_path / "head.jsonl", head_run),
        scoring=config,
        baseline=base.typed_report,
    )
    built = run_pipeline(request.with_queue())
    assert built.queue and built.queued == len(built.queue)
    counted = run_pipeline(request.with_queue(0))
    assert counted.queue == () and counted.queued == len(built.queue)
    within = run_pipeline(request.with_queue(len(built.queue)))
    assert within.queue == built.queue
    # Without a base, the head's keys alone.
    alone = run_pipeline(replace(request, baseline=None).with_queue())
    assert run_pipeline(replace(request, baseline=None).with_queue(0)).queued == len(alone.queue)
    assert built.report == counted.report  # the report does not depend on the queue


# -- the action ------------------------------------------------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(repo=REPO).serve() as server:
        yield server


def _act(ws: Workspace, fake: FakeGitHub, **inputs: str) -> dict[str, str]:
    ws.reset_runner_files()
    main(ws.env(fake.url, **{"gates": GATES, **inputs}), stdout=io.StringIO(), sleep=lambda _: None)
    return ws.outputs()


def test_the_action_writes_the_queue_on_request_and_counts_it_always(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = make_workspace(tmp_path)
    queue = ws.root / "retrieval-eval-report.queue.jsonl"
    written = _act(ws, fake, **{"label-queue": "write"})
    count = int(written["label-queue-count"])
    assert count > 1 and len(queue.read_text().splitlines()) == count
    queue.unlink()

    off = _act(ws, fake, **{"label-queue": "off"})
    assert (
        off["label-queue-count"] == off["unjudged-count"] == str(count)
        and off["label-queue-path"] == ""
        and not queue.exists()
    )
    assert off["verdict"] == written["verdict"]
    assert "Label these first" not in ws.summary()

    # auto: a queue longer than the limit is counted, not written; within it, written.
    monkeypatch.setattr(settings_module, "QUEUE_AUTO_LIMIT", count - 1)
    over = _act(ws, fake)
    assert over["label-queue-count"] == str(count) and over["label-queue-path"] == "" and not queue.exists()
    monkeypatch.setattr(settings_module, "QUEUE_AUTO_LIMIT", count)
    within = _act(ws, fake)
    assert within["label-queue-path"] == queue.name and len(queue.read_text().splitlines()) == count


def test_an_unknown_label_queue_value_is_refused(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    outputs = _act(ws, fake, **{"label-queue": "sometimes"})
    assert outputs["verdict"] == "ERROR"
    assert "label-queue" in ws.summary() and "'sometimes' is not one of auto, write, off" in ws.summary()


def test_the_summary_command_for_the_whole_queue_writes_the_queue_the_action_wrote(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    # The base report is a file of the base commit, not of the workspace: the command the summary
    # gives must still bring in the base's holes, or it writes a shorter queue than the one counted.
    import re
    import subprocess
    import sys

    ws = make_workspace(tmp_path, head_run=worse_run())
    outputs = _act(ws, fake, **{"label-queue": "write"})
    action_queue = (ws.root / outputs["label-queue-path"]).read_text()
    assert any('"surfaced_by":"base"' in line for line in action_queue.splitlines())
    (command,) = re.findall(r"```sh\n(.*?)\n```", ws.summary().split("The whole queue")[1])[:1]
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(["bash", "-c", command], cwd=ws.root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    written = (ws.root / "label-queue.jsonl").read_text()
    assert len(written.splitlines()) == int(outputs["label-queue-count"])
    assert written == action_queue
