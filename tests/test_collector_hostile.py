"""The cyclic collector comes back on however a paused command ends: a refusal, an error of
ours, an interrupt (Ctrl-C), an exit from deep inside; and a collector found off stays off."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import ROOT
from retrieval_eval.cli import cli
from retrieval_eval.core.errors import InputError
from retrieval_eval.pipeline import collector

EXAMPLE = ROOT / "examples" / "first-eval-set"
JUDGMENTS, RUN = str(EXAMPLE / "judgments.jsonl"), str(EXAMPLE / "run.jsonl")
ENDINGS = [
    InputError("judgments", 3, "a refusal raised while paused"),
    KeyboardInterrupt(),
    SystemExit(3),
    RuntimeError("a fault of ours"),
    MemoryError(),
]


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()
    gc.unfreeze()


def _raising(ending: BaseException) -> Any:
    def called(*args: Any, **kwargs: Any) -> Any:
        assert not gc.isenabled()  # raised from inside the pause
        raise ending

    return called


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda e: type(e).__name__)
def test_score_turns_the_collector_back_on_however_it_ends(
    ending: BaseException, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from retrieval_eval.commands import score

    monkeypatch.setattr(score, "run_pipeline", _raising(ending))
    done = CliRunner().invoke(cli, ["score", "-j", JUDGMENTS, "-r", RUN, "--report", str(tmp_path / "r.json")])
    assert done.exit_code != 0
    assert gc.isenabled()
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda e: type(e).__name__)
def test_drift_turns_the_collector_back_on_however_it_ends(
    ending: BaseException, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retrieval_eval.commands import drift

    monkeypatch.setattr(drift, "parse_judgments", _raising(ending))
    corpus = str(ROOT / "src" / "retrieval_eval" / "demo" / "corpus.json")
    done = CliRunner().invoke(cli, ["drift", "-j", JUDGMENTS, "-c", corpus])
    assert done.exit_code != 0
    assert gc.isenabled()


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda e: type(e).__name__)
def test_compare_turns_the_collector_back_on_however_it_ends(
    ending: BaseException, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from retrieval_eval.commands import compare

    report = tmp_path / "r.json"
    assert CliRunner().invoke(cli, ["score", "-j", JUDGMENTS, "-r", RUN, "--report", str(report)]).exit_code == 0
    monkeypatch.setattr(compare, "compare_documents", _raising(ending))
    out = tmp_path / "c.json"
    done = CliRunner().invoke(cli, ["compare", "--base", str(report), "--head", str(report), "--out", str(out)])
    assert done.exit_code != 0
    assert gc.isenabled()
    assert not out.exists()


@pytest.mark.parametrize("ending", ENDINGS, ids=lambda e: type(e).__name__)
def test_a_pause_inside_a_pause_and_one_found_off_leave_the_collector_as_found(ending: BaseException) -> None:
    with pytest.raises(type(ending)):
        with collector.collector_paused():
            with collector.collector_paused():
                raise ending
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(type(ending)), collector.collector_paused():
            raise ending
        assert not gc.isenabled()
    finally:
        gc.enable()
