"""``score`` keeps the cyclic garbage collector off while it reads, scores and writes
(pipeline/collector.collector_paused), which is safe only because nothing it builds forms a
reference cycle: this is checked here, on the one-process and the forked-ranges paths."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import ROOT
from retrieval_eval.cli import cli
from retrieval_eval.commands import score
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.formats.report import write_report
from retrieval_eval.pipeline import collector, run_ranges
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

EXAMPLE = ROOT / "examples" / "first-eval-set"


def cyclic_garbage_of(work: Any) -> int:
    """Objects in reference cycles that ``work`` left behind (the collector kept off meanwhile)."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        work()
        return gc.collect()
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("ranges", [False, True])
def test_scoring_and_writing_the_report_leave_no_cycle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ranges: bool
) -> None:
    workers = 0
    if ranges:  # the run cut into many ranges, a forked worker reading from the back
        monkeypatch.setattr(run_ranges, "PARALLEL_FROM", 0)
        monkeypatch.setattr(run_ranges, "RANGE_BYTES", 97)
        workers = 1

    def work() -> None:
        request = EvaluationRequest(
            str(EXAMPLE / "judgments.jsonl"), str(EXAMPLE / "run.jsonl"), scoring=ScoreConfig(k=(1, 5))
        )
        evaluation = run_pipeline(request, workers=workers)
        assert evaluation.scores.per_query  # something was scored
        write_report(str(tmp_path / "report.json"), evaluation.typed_report)

    work()  # once first: what is loaded and cached on first use is no garbage
    assert cyclic_garbage_of(work) == 0


def test_a_cycle_is_what_the_check_above_would_see() -> None:
    def cycle() -> None:
        a: list[Any] = []
        a.append(a)

    assert cyclic_garbage_of(cycle) == 1


def test_score_runs_with_the_collector_off_and_turns_it_back_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    real = score.run_pipeline

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(score, "run_pipeline", spy)
    assert gc.isenabled()
    judgments, run = str(EXAMPLE / "judgments.jsonl"), str(EXAMPLE / "run.jsonl")
    done = CliRunner().invoke(cli, ["score", "-j", judgments, "-r", run, "--report", str(tmp_path / "r.json")])
    assert done.exit_code == 0, done.output
    assert seen == [False]
    assert gc.isenabled()  # and what score made is frozen, out of later collections
    gc.unfreeze()


def test_the_collector_is_left_as_it_was_found() -> None:
    gc.unfreeze()  # whatever a command run earlier in this process froze
    gc.disable()
    try:
        with collector.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off: it stays off, nothing frozen
        assert gc.get_freeze_count() == 0
    finally:
        gc.enable()
    with collector.collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() > 0
    gc.unfreeze()


# -- compare and the action: the comparison and the pages ----------------------------------


def _files(folder: Path, queries: int) -> tuple[str, str]:
    """Judgments and a run over ``queries`` queries, three labels and five ranked keys each."""
    import json

    judgments, run = folder / f"judgments-{queries}.jsonl", folder / f"run-{queries}.jsonl"
    labels = [
        {"query_id": f"q{q}", "doc_uri": f"d{q}-{i}", "relevance": i % 3, "query": f"question {q}", "stratum": "s"}
        for q in range(queries)
        for i in range(3)
    ]
    rankings = [{"query_id": f"q{q}", "ranking": [f"d{q}-{(i * q) % 5}" for i in range(5)]} for q in range(queries)]
    judgments.write_text("".join(json.dumps(line) + "\n" for line in labels))
    run.write_text("".join(json.dumps(line) + "\n" for line in rankings))
    return str(judgments), str(run)


@pytest.mark.parametrize("workers", [0, 1])
def test_a_comparison_and_the_html_page_leave_no_cycle(tmp_path: Path, workers: int) -> None:
    """The action keeps the collector off while the pipeline compares with the base and while
    it draws its pages (action/flow.py), compare while it compares: safe because none of it
    forms a cycle."""
    from retrieval_eval.formats.comparison import comparison_to_json
    from retrieval_eval.pipeline.evaluate import run_pipeline_with_index
    from retrieval_eval.render.html import html_report

    judgments, run = str(EXAMPLE / "judgments.jsonl"), str(EXAMPLE / "run.jsonl")
    scoring = ScoreConfig(k=(1, 5))
    base = run_pipeline(EvaluationRequest(judgments, run, scoring=scoring)).typed_report

    def work() -> None:
        request = EvaluationRequest(judgments, run, scoring=scoring, baseline=base)
        evaluation, index = run_pipeline_with_index(request, workers=workers)
        assert evaluation.comparison is not None
        document = evaluation.comparison.document
        comparison_to_json(document)
        assert "<html" in html_report(evaluation.typed_report, document, base=base, judgments=judgments, index=index)

    work()
    assert cyclic_garbage_of(work) == 0


def test_a_markdown_rendering_leaves_the_same_few_cycles_whatever_the_queries(tmp_path: Path) -> None:
    """Each Markdown rendering builds its own sandboxed template environment, which holds
    cycles: a fixed number per rendering, not more with more queries, so the few the
    action's one rendering leaves with the collector off are bounded."""
    from retrieval_eval.render.kinds import render

    found = []
    for queries in (3, 300):
        judgments, run = _files(tmp_path, queries)
        base = run_pipeline(EvaluationRequest(judgments, run, scoring=ScoreConfig(k=(1, 5)))).typed_report
        request = EvaluationRequest(judgments, run, scoring=ScoreConfig(k=(1, 5)), baseline=base)
        evaluation = run_pipeline(request)
        assert evaluation.comparison is not None
        document = evaluation.comparison.document

        def work(report: Any = evaluation.typed_report, document: Any = document) -> None:
            for kind in ("summary", "comment"):
                render(kind, report=report, comparison=document, template_dir=None, comment_id="default")

        work()
        found.append(cyclic_garbage_of(work))
    assert found[0] == found[1] < 5_000, found


def test_compare_runs_with_the_collector_off_and_turns_it_back_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retrieval_eval.commands import compare

    judgments, run = str(EXAMPLE / "judgments.jsonl"), str(EXAMPLE / "run.jsonl")
    report = tmp_path / "r.json"
    done = CliRunner().invoke(cli, ["score", "-j", judgments, "-r", run, "--report", str(report)])
    assert done.exit_code == 0, done.output
    gc.unfreeze()
    seen: list[bool] = []
    real = compare.compare_documents

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(compare, "compare_documents", spy)
    done = CliRunner().invoke(cli, ["compare", "--base", str(report), "--head", str(report), "-j", judgments])
    assert done.exit_code == 0, done.output
    assert seen == [False]
    assert gc.isenabled()
    gc.unfreeze()
