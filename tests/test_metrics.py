"""Metric definitions on rankings small enough to compute by hand."""

from __future__ import annotations

import math

import pytest

from retrieval_eval.core.judgments import JudgmentSet
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.core.metrics import REGISTRY, describe_known, known_metric, metric_names
from retrieval_eval.core.scoring import ScoreConfig, score_rankings
from retrieval_eval.formats.judgment_records import judgment_from_record


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
    at_5 = ["precision@5", "recall@5", "ndcg@5", "mrr@5", "map@5", "hit_rate@5", "judged@5"]
    assert metric_names((5,)) == [*at_5, "r_precision"]
    assert metric_names((5,), full_depth=True) == [*at_5, "ndcg", "mrr", "map", "r_precision", "bpref"]
    assert known_metric("recall@5") and known_metric("r_precision") and known_metric("bpref")
    assert known_metric("map") and known_metric("judged@10") and not known_metric("judged")
    assert not known_metric("recall") and not known_metric("recall@0") and not known_metric("r_precision@5")
    assert all(m.name in describe_known() for m in REGISTRY)


def test_average_is_over_scored_queries_and_missing_queries_score_zero() -> None:
    judgments = labels({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}})
    scores = score_rankings(judgments, {"q1": ["a"]}, ScoreConfig(k=(1,)))
    assert scores.metrics["recall@1"] == 0.5
    assert scores.missing_from_run == ["q2"]
    assert scores.without_positives == ["q3"]
    assert scores.per_query["q2"]["recall@1"] == 0.0


# -- judged@k, bpref and the upper bounds, by hand --------------------------------------------


def scored(grades: dict[str, int], ranking: list[str], **config: object) -> tuple[dict[str, float], dict[str, float]]:
    """(values, upper bounds) of one query; the bounds are the values when nothing is unjudged."""
    scores = score_rankings(labels({"q": grades}), {"q": ranking}, ScoreConfig(**config))  # type: ignore[arg-type]
    values = scores.per_query["q"]
    return values, {**values, **scores.per_query_upper.get("q", {})}  # a metric without a bound: its value


def test_judged_counts_grade_zero_and_divides_by_the_keys_returned() -> None:
    values, _ = scored({"a": 1, "c": 0}, ["x", "a", "c", "y"], k=(2, 4, 10))
    assert values["judged@2"] == 1 / 2
    assert values["judged@4"] == 2 / 4
    assert values["judged@10"] == 2 / 4  # four keys came back: ir_measures' Judged@k


def test_bpref_by_hand() -> None:
    # R = 2 (a, b), N = 2 (c, d); x is unjudged and skipped.
    # a: no judged non-relevant above -> 1; b: c above -> 1 - 1/min(2, 2) = 0.5.
    values, _ = scored({"a": 1, "b": 1, "c": 0, "d": 0}, ["a", "x", "c", "b", "d"], k=(5,), full_depth=True)
    assert values["bpref"] == pytest.approx((1 + 0.5) / 2)
    # Without -k all the ranking is cut at max(k, R), and bpref, which reads the whole
    # ranking, is not reported rather than reported as another number under its name.
    values, _ = scored({"a": 1, "b": 1, "c": 0, "d": 0}, ["a", "x", "c", "b", "d"], k=(1,))
    assert "bpref" not in values


def test_upper_equals_value_when_everything_is_judged() -> None:
    values, upper = scored({"a": 2, "b": 0, "c": 1}, ["b", "a", "c"], k=(1, 3))
    assert upper == values


def test_upper_of_an_unjudged_top_k_is_an_all_relevant_top_k() -> None:
    # Nothing in the top 3 is judged; one relevant label (z, grade 1) was never retrieved.
    values, upper = scored({"z": 1}, ["x", "y", "w"], k=(3,))
    assert all(values[m] == 0.0 for m in ("precision@3", "recall@3", "ndcg@3", "mrr@3", "map@3", "hit_rate@3"))
    assert upper["precision@3"] == 1.0 and upper["hit_rate@3"] == 1.0 and upper["mrr@3"] == 1.0
    assert upper["recall@3"] == pytest.approx(3 / 4)  # x, y, w join R: 3 of 4 relevant labels found
    assert upper["map@3"] == pytest.approx(3 / 4)  # precision 1 at ranks 1-3, over R = 4
    # Ideal: four keys of gain 1 cut at 3, the same as the ranking's: nDCG 1.
    assert upper["ndcg@3"] == pytest.approx(1.0)
    assert upper["judged@3"] == values["judged@3"] == 0.0


def test_upper_of_ndcg_and_ap_labels_only_the_keys_that_help() -> None:
    # a relevant at rank 1, b and c judged not relevant; x unjudged at rank 4. Counting x
    # relevant would grow R and the ideal more than the ranking gains: the bound keeps x not relevant.
    values, upper = scored({"a": 1, "b": 0, "c": 0}, ["a", "b", "c", "x"], k=(4,))
    assert values["map@4"] == 1.0 and values["ndcg@4"] == 1.0
    assert upper["map@4"] == 1.0  # with x relevant: (1 + 2/4) / 2 = 0.75
    assert upper["ndcg@4"] == 1.0  # with x relevant: (1 + 1/log2(5)) / (1 + 1/log2(3)) < 1
    assert upper["recall@4"] == 1.0 and upper["precision@4"] == pytest.approx(2 / 4)
    # With x at rank 2 it helps AP: (1 + 2/2) / 2 = 1 >= 1, nDCG: (1 + 1/log2(3)) / the same ideal.
    values, upper = scored({"a": 1}, ["a", "x"], k=(2,))
    assert upper["map@2"] == 1.0 and upper["ndcg@2"] == pytest.approx(1.0)


def test_upper_of_ap_takes_the_best_number_of_unjudged_keys() -> None:
    # x at 1 and y at 5 unjudged, a relevant at 2 (R = 1), b and c not relevant.
    # none: 1/2 / 1 = 0.5; x: (1 + 2/2) / 2 = 1.0; x and y: (1 + 1 + 3/5) / 3 = 0.8667.
    _, upper = scored({"a": 1, "b": 0, "c": 0}, ["x", "a", "b", "c", "y"], k=(5,))
    assert upper["map@5"] == pytest.approx(1.0)


def test_upper_at_the_threshold_grade_with_exponential_gain() -> None:
    # Threshold 2: an unjudged key counts at gain 2^2 - 1 = 3 in the bound.
    _, upper = scored({"a": 3}, ["x", "a"], k=(2,), threshold=2)
    dcg = 3 + 7 / math.log2(3)
    ideal = 7 + 3 / math.log2(3)
    assert upper["ndcg@2"] == pytest.approx(dcg / ideal)


def test_condensed_drops_unjudged_keys_before_the_cut() -> None:
    values, upper = scored({"a": 1, "c": 0}, ["x", "y", "c", "a"], k=(2,), unjudged_policy="condensed")
    assert values["precision@2"] == 1 / 2 and values["mrr@2"] == 1 / 2 and values["judged@2"] == 1.0
    assert upper == values
