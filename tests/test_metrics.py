"""Metric definitions on rankings small enough to compute by hand."""

from __future__ import annotations

import math

import pytest

from retrieval_eval.core.judgments import JudgmentSet, judgment_from_record
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.core.metrics import REGISTRY, describe_known, known_metric, metric_names
from retrieval_eval.core.scoring import ScoreConfig, score_rankings


def labels(grades: dict[str, dict[str, int]]) -> LabelIndex:
    records = [{"query_id": q, "doc_uri": d, "relevance": g} for q, docs in grades.items() for d, g in docs.items()]
    return LabelIndex.from_judgments(JudgmentSet(tuple(judgment_from_record(r, i + 1) for i, r in enumerate(records))))


def per_query(grades: dict[str, int], ranking: list[str], **config: object) -> dict[str, float]:
    scores = score_rankings(labels({"q": grades}), {"q": ranking}, ScoreConfig(**config))  # type: ignore[arg-type]
    return scores.per_query["q"]


def test_each_metric_by_hand() -> None:
    # Relevant: a (grade 3), b (grade 1); c judged not relevant; x unjudged.
    values = per_query({"a": 3, "b": 1, "c": 0}, ["x", "a", "c", "b"], k=(2, 4))
    assert values["precision@2"] == 1 / 2
    assert values["precision@4"] == 2 / 4
    assert values["recall@2"] == 1 / 2
    assert values["recall@4"] == 2 / 2
    assert values["hit_rate@2"] == 1.0
    assert values["mrr@2"] == 1 / 2
    # AP@4 = (1/2 + 2/4) / R=2
    assert values["map@4"] == pytest.approx((1 / 2 + 2 / 4) / 2)
    # Exponential gain: DCG@4 = 7/log2(3) + 1/log2(5); IDCG@4 = 7/1 + 1/log2(3)
    dcg = 7 / math.log2(3) + 1 / math.log2(5)
    idcg = 7 + 1 / math.log2(3)
    assert values["ndcg@4"] == pytest.approx(dcg / idcg)
    # R = 2: precision at rank 2 of the ranking
    assert values["r_precision"] == 1 / 2


def test_linear_gain_is_trec_eval_ndcg_cut() -> None:
    values = per_query({"a": 3, "b": 1}, ["b", "a"], k=(2,), gain="linear")
    assert values["ndcg@2"] == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)))


def test_precision_divides_by_k_even_when_fewer_came_back() -> None:
    assert per_query({"a": 1}, ["a"], k=(10,))["precision@10"] == 0.1


def test_map_denominator_counts_relevant_labels_beyond_the_cutoff() -> None:
    values = per_query({"a": 1, "b": 1, "c": 1, "d": 1}, ["a", "x", "b", "c", "d"], k=(1,))
    assert values["map@1"] == 1 / 4


def test_threshold_changes_binary_metrics_but_not_gains() -> None:
    at_1 = per_query({"a": 1, "b": 2}, ["a", "b"], k=(1,), threshold=1)
    at_2 = per_query({"a": 1, "b": 2}, ["a", "b"], k=(1,), threshold=2)
    assert at_1["precision@1"] == 1.0 and at_2["precision@1"] == 0.0
    assert at_1["ndcg@1"] == at_2["ndcg@1"] == pytest.approx(1 / 3)


def test_registry_names_and_lookup() -> None:
    assert metric_names((5,)) == ["precision@5", "recall@5", "ndcg@5", "mrr@5", "map@5", "hit_rate@5", "r_precision"]
    assert known_metric("recall@5") and known_metric("r_precision")
    assert not known_metric("recall") and not known_metric("recall@0") and not known_metric("r_precision@5")
    assert all(m.name in describe_known() for m in REGISTRY)


def test_average_is_over_scored_queries_and_missing_queries_score_zero() -> None:
    judgments = labels({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}})
    scores = score_rankings(judgments, {"q1": ["a"]}, ScoreConfig(k=(1,)))
    assert scores.metrics["recall@1"] == 0.5
    assert scores.missing_from_run == ["q2"]
    assert scores.without_positives == ["q3"]
    assert scores.per_query["q2"]["recall@1"] == 0.0
