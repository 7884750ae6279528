"""The action with a judge: the demo workspace, the fake GitHub and a fake chat endpoint, all on 127.0.0.1.

The judge labels the label queue, its labels land beside the report (never in the
judgments), and the summary says what the human labels alone decide. Without a judge, or
with its key variable empty (a fork's pull request), nothing is asked.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from action_workspace import DEMO, demo_rows, make_workspace
from fake_github import FakeGitHub
from fake_judge import FakeChat, serve
from test_action_integration import REPO, act

GATE = "precision@5:0.3"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(repo=REPO).serve() as server:
        yield server


def truth() -> dict[str, int]:
    """Every demo chunk's grade: the human one where there is one, else 1 (the judge's answer)."""
    human = {row["chunk_id"]: row["relevance"] for row in demo_rows("judgments.jsonl") if "chunk_id" in row}
    chunks = json.loads((DEMO / "corpus.json").read_text())["chunks"]
    return {chunk["text"]: human.get(chunk["chunk_id"], 1) for chunk in chunks}


def test_the_action_runs_the_judge_and_keeps_the_human_verdict_beside(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    shutil.copy(DEMO / "corpus.json", ws.root / "corpus.json")
    judgments_before = (ws.root / "judgments.jsonl").read_bytes()
    chat = FakeChat(truth())
    with serve(chat) as url:
        inputs = {"unjudged": "machine", "judge-endpoint": url, "judge-model": "m", "corpus": "corpus.json"}
        run = act(ws, fake, gates=GATE, **inputs)
    assert run.code in (0, 1), run.log
    assert chat.requests, "the judge was never asked"
    report = json.loads((ws.root / "retrieval-eval-report.json").read_text())
    section = report["machine_labels"]
    assert section["human_labels_verdict"] in ("PASS", "FAIL", "INDETERMINATE")
    assert section["calibration"] is not None and section["holes"] >= section["machine_labeled"] > 0
    labels = (ws.root / "retrieval-eval-report.machine-labels.jsonl").read_text().splitlines()
    assert labels and all("relevance" not in json.loads(line) for line in labels)
    assert (ws.root / "judgments.jsonl").read_bytes() == judgments_before
    assert "### Machine labels" in run.summary and "Human labels alone:" in run.summary
    assert "judge: " in run.log


def test_an_empty_key_variable_skips_the_judge_and_says_so(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    shutil.copy(DEMO / "corpus.json", ws.root / "corpus.json")
    chat = FakeChat(truth())
    with serve(chat) as url:
        inputs = {"unjudged": "machine", "judge-endpoint": url, "judge-model": "m", "judge-key-env": "JUDGE_KEY"}
        run = act(ws, fake, gates=GATE, corpus="corpus.json", **inputs)
    assert run.code in (0, 1), run.log
    assert not chat.requests
    # The input's name holds KEY, so its value is masked like a secret: a key pasted there by
    # mistake never reaches the log.
    assert "::warning::judge skipped: *** is empty (a pull request from a fork gets no secrets)" in run.log
    report = json.loads((ws.root / "retrieval-eval-report.json").read_text())
    assert "machine_labels" not in report


def test_a_judge_without_the_machine_policy_is_refused_with_the_other_settings(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    ws = make_workspace(tmp_path)
    run = act(ws, fake, **{"judge-endpoint": "http://127.0.0.1:9/v1"})
    assert run.code == 2
    assert "judge-endpoint: machine labels are read only under unjudged: machine" in run.summary
    assert "judge-model: the judge endpoint needs the model it serves" in run.summary


def test_the_collector_is_off_while_scoring_and_drawing_and_on_while_the_judge_asks(
    tmp_path: Path, fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The action keeps the cyclic collector off while the pipeline scores and compares, and
    while it draws and publishes the pages (none of it forms a cycle; docs/benchmarks.md), but
    not while the judge makes its requests (one per label: cycles there would be kept), and
    turns it back on when done."""
    import gc

    from retrieval_eval.action import flow

    seen: list[tuple[str, bool]] = []

    def spy(name: str, real: Any) -> Any:
        def called(*args: Any, **kwargs: Any) -> Any:
            seen.append((name, gc.isenabled()))
            return real(*args, **kwargs)

        return called

    for name in ("run_pipeline_with_index", "machine_labels", "html_page", "write_files"):
        monkeypatch.setattr(flow, name, spy(name, getattr(flow, name)))
    ws = make_workspace(tmp_path)
    shutil.copy(DEMO / "corpus.json", ws.root / "corpus.json")
    assert gc.isenabled()
    with serve(FakeChat(truth())) as url:
        inputs = {"unjudged": "machine", "judge-endpoint": url, "judge-model": "m", "corpus": "corpus.json"}
        run = act(ws, fake, gates=GATE, **inputs)
    assert run.code in (0, 1), run.log
    assert seen == [
        ("run_pipeline_with_index", False),
        ("machine_labels", True),
        ("run_pipeline_with_index", False),
        ("html_page", False),
        ("write_files", False),
    ]
    assert gc.isenabled()
    gc.unfreeze()
