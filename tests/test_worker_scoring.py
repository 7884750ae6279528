"""Heads scored on the worker that read them give the very numbers this process gives.

The worker computes each head's exact values, unjudged counts and bounds from the labels it is
sent with the depths; this process keeps them as if it had scored the head itself. Every test
here compares with one process scoring everything, and checks the worker's values were used.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.core.scoring import (
    BOUNDED,
    CONDENSED,
    HeadScorer,
    ScoreConfig,
    head_values,
    index_judgments,
    score_rankings,
)
from retrieval_eval.formats.judgments import parse_judgments, read_label_index
from retrieval_eval.pipeline import run_ranges
from retrieval_eval.pipeline.run_ranges import RunReading, Split
from retrieval_eval.pipeline.score_run import score_run_file

DEMO = Path(run_ranges.__file__).parents[1] / "demo"
CONFIGS = [
    ScoreConfig(k=(1, 3)),
    ScoreConfig(k=(1, 3), unjudged_policy=BOUNDED, bounds=True),
    ScoreConfig(k=(2, 5), gain="linear", threshold=2, bounds=True),
]


def scores_fields(scores: Any) -> dict[str, Any]:
    return {
        name: getattr(scores, name)
        for name in ("metrics", "per_query", "per_query_lower", "per_query_upper", "lower", "upper", "unjudged_keys")
    } | {"strata": {name: (s.n, s.metrics, s.lower, s.upper) for name, s in scores.strata.items()}}


@pytest.mark.parametrize("config", CONFIGS)
def test_heads_scored_on_the_worker_give_the_same_scores(config: ScoreConfig, monkeypatch: pytest.MonkeyPatch) -> None:
    index = read_label_index(str(DEMO / "judgments.jsonl"))
    alone, _run = score_run_file(index, str(DEMO / "run.jsonl"), config)
    adopted: list[str] = []
    real_adopt = HeadScorer.adopt

    def counting_adopt(self: HeadScorer, query_id: str, head: list[str], computed: Any) -> None:
        adopted.append(query_id)
        real_adopt(self, query_id, head, computed)

    monkeypatch.setattr(HeadScorer, "adopt", counting_adopt)
    reading = RunReading(str(DEMO / "run.jsonl"), "jsonl", config.read_depth, Split(1, 97, parallel_from=0))
    assert reading.ranges is not None, "the run should have been split"
    time.sleep(0.5)  # the worker has read every range before it is told the depths (and sent the labels)
    split, _run = score_run_file(index, str(DEMO / "run.jsonl"), config, run_format="jsonl", reading=reading)
    assert scores_fields(split) == scores_fields(alone)
    assert adopted, "the worker's values should have been used"


def test_condensed_heads_are_not_scored_on_a_worker() -> None:
    # A condensed head is scored once its unjudged keys are gone, after the run is merged.
    index = read_label_index(str(DEMO / "judgments.jsonl"))
    config = ScoreConfig(k=(1, 3), unjudged_policy=CONDENSED)
    assert HeadScorer(index, index_judgments(index, config), config).portable() is None


@pytest.mark.parametrize("config", CONFIGS)
def test_values_computed_elsewhere_are_kept_as_those_computed_here(config: ScoreConfig) -> None:
    index = LabelIndex.from_judgments(parse_judgments(str(DEMO / "judgments.jsonl")))
    indexed = index_judgments(index, config)
    here = HeadScorer(index, indexed, config)
    there = HeadScorer(index, indexed, config)
    portable = there.portable()
    assert portable is not None
    compute = head_values(portable)
    unjudged_key_seen = False
    rankings: dict[str, list[str]] = {}
    for query_id, labels in indexed.items():
        # The labeled keys in a fixed shuffle, with keys no one labeled between them.
        keys = sorted(labels.grades, key=lambda key: hash(key) % 7)
        head = [key for pair in zip(keys, [f"unlabeled-{i}" for i in range(len(keys))]) for key in pair]
        rankings[query_id] = head
        here.score_head(query_id, head)
        computed = compute(query_id, head)
        if not labels.n_relevant or labels.no_answer:
            assert computed is None  # not scored early here either
            continue
        assert computed is not None
        unjudged_key_seen |= computed[1] is not None
        there.adopt(query_id, head, computed)
    assert unjudged_key_seen
    assert there.early == here.early
    assert there.unjudged_counts == here.unjudged_counts
    assert (there.uppers, there.lowers) == (here.uppers, here.lowers)
    a = score_rankings(index, rankings, config, indexed=indexed, scorer=here)
    b = score_rankings(index, rankings, config, indexed=indexed, scorer=there)
    fresh = score_rankings(index, rankings, config, indexed=indexed)
    assert scores_fields(a) == scores_fields(b) == scores_fields(fresh)
