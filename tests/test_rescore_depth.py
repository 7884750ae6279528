"""Rescoring the base reads only what its stored rankings can answer.

A base report keeps each ranking only as deep as its own cutoffs needed (max(k, R)).
Condensed lists and full-depth metrics need more: scored from a cut ranking, an
identical run seemed to move. The truth here is by construction: head and base are
the same run, so every delta that is reported must be 0.
"""

from __future__ import annotations

import json
from pathlib import Path

from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.formats.report import as_report
from retrieval_eval.pipeline.evaluate import Evaluation, run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest


def scored(tmp: Path, config: ScoreConfig, baseline: dict | None = None) -> Evaluation:  # type: ignore[type-arg]
    judgments = tmp / "j.jsonl"
    lines = [{"query_id": f"q{i}", "query": "t", "doc_uri": "a", "relevance": 1} for i in range(3)]
    lines += [{"query_id": f"q{i}", "query": "t", "doc_uri": "c", "relevance": 1} for i in range(3)]
    lines += [{"query_id": f"q{i}", "query": "t", "doc_uri": "b", "relevance": 0} for i in range(3)]
    judgments.write_text("".join(json.dumps(line) + "\n" for line in lines))
    run = tmp / "r.jsonl"  # x and y unjudged above the relevant a and c
    ranking = ["x", "y", "a", "c", "b"]
    run.write_text("".join(json.dumps({"query_id": f"q{i}", "ranking": ranking}) + "\n" for i in range(3)))
    return run_pipeline(
        EvaluationRequest(str(judgments), str(run), config, baseline=None if baseline is None else as_report(baseline))
    )


def reported_deltas(evaluation: Evaluation) -> dict[str, float]:
    assert evaluation.comparison is not None
    return {
        name: moved.delta
        for name, moved in evaluation.comparison.metrics.items()
        if moved.delta is not None and not moved.confounded
    }


def test_a_switch_to_condensed_lists_compares_only_what_the_stored_rankings_answer(tmp_path: Path) -> None:
    base = scored(tmp_path, ScoreConfig(k=(1, 3))).report  # rankings kept 3 deep: x, y, a
    head = scored(tmp_path, ScoreConfig(k=(1, 3), unjudged_policy="condensed"), base)
    deltas = reported_deltas(head)
    assert deltas and all(delta == 0 for delta in deltas.values()), deltas
    assert head.comparison is not None
    # Condensed, the stored x, y, a is a alone: one key, where the head's top 3 reads a, c and b.
    assert head.comparison.metrics["precision@3"].confounded


def test_full_depth_metrics_are_not_rescored_from_rankings_cut_at_the_base_cutoffs(tmp_path: Path) -> None:
    base = scored(tmp_path, ScoreConfig(k=(1,))).report  # rankings kept 1 deep: x
    head = scored(tmp_path, ScoreConfig(k=(1,), full_depth=True, gain="linear"), base)  # the gain changed: rescored
    deltas = reported_deltas(head)
    assert all(delta == 0 for delta in deltas.values()), deltas
    assert head.comparison is not None
    assert head.comparison.metrics["map"].confounded and head.comparison.metrics["ndcg"].confounded
