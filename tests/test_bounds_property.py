"""Bounds against brute force: each is the true minimum and maximum over every labeling.

A labeling gives every unjudged key in a metric's top k (metrics without a cutoff
and full-depth ones: in the ranking kept) either grade 0 or the threshold grade;
the keys below the cutoff stay unjudged. The brute force enumerates every such
labeling, scores it with the ordinary scoring (nothing of the bound's arithmetic),
and takes the extremes, per query and for the mean over the queries each labeling
makes scored (a query with no relevant label yet joins the mean once one of its
keys is labeled relevant). judged@k, bpref and R-precision carry no bound (their
bound is their value, see core/metrics.py) and are not drawn here.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.core.judgments import JudgmentSet
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.core.metrics import FULL
from retrieval_eval.core.precision import DECIMALS
from retrieval_eval.core.scoring import ScoreConfig, Scores, score_rankings
from retrieval_eval.formats.judgment_records import judgment_from_record

KEYS = [f"d{i}" for i in range(7)]
QUERIES = ("q1", "q2", "q3")
SLACK = 2 * 10.0**-DECIMALS  # values and bounds are rounded to DECIMALS
UNBOUNDED = ("judged", "bpref", "r_precision")


def score(grades: dict[str, dict[str, int]], rankings: dict[str, list[str]], config: ScoreConfig) -> Scores:
    records = [
        {"query_id": q, "doc_uri": key, "relevance": grade}
        for q, labels in grades.items()
        for key, grade in labels.items()
    ]
    judgments = JudgmentSet(tuple(judgment_from_record(r, i + 1) for i, r in enumerate(records)))
    return score_rankings(LabelIndex.from_judgments(judgments), rankings, config)


def cutoff_of(metric: str) -> int:
    _, sep, cutoff = metric.partition("@")
    return int(cutoff) if sep else FULL


def labelings(
    grades: dict[str, dict[str, int]], rankings: dict[str, list[str]], k: int, threshold: int
) -> list[dict[str, dict[str, int]]]:
    """Every labeling of the unjudged keys in each query's top k, at grade 0 or the threshold grade."""
    slots = [(q, key) for q, ranking in rankings.items() for key in ranking[:k] if key not in grades[q]]
    result = []
    for choice in itertools.product((0, threshold), repeat=len(slots)):
        labeled = {q: dict(labels) for q, labels in grades.items()}
        for (q, key), grade in zip(slots, choice):
            labeled[q][key] = grade
        result.append(labeled)
    return result


cases = st.fixed_dictionaries(
    {
        "grades": st.fixed_dictionaries(
            {q: st.dictionaries(st.sampled_from(KEYS), st.integers(0, 3), min_size=1, max_size=4) for q in QUERIES}
        ),
        "rankings": st.fixed_dictionaries(
            {q: st.lists(st.sampled_from(KEYS), unique=True, max_size=5) for q in QUERIES}
        ),
        "threshold": st.integers(1, 3),
        "gain": st.sampled_from(["exponential", "linear"]),
        "full_depth": st.booleans(),
    }
)


def bounded_metrics(scores: Scores) -> list[str]:
    return [m for m in scores.metrics if not m.startswith(UNBOUNDED)]


@settings(max_examples=150, deadline=None)
@given(cases)
def test_every_bound_is_the_extreme_over_all_labelings(case: dict) -> None:  # type: ignore[type-arg]
    grades, rankings = case["grades"], case["rankings"]
    unjudged = sum(1 for q in QUERIES for key in rankings[q] if key not in grades[q])
    if unjudged > 7:
        return  # 2^7 labelings per cutoff: enough for a small case
    config = ScoreConfig(k=(1, 3), threshold=case["threshold"], gain=case["gain"], full_depth=case["full_depth"])
    scores = score(grades, rankings, config)
    if not scores.per_query:
        return  # nothing scored: no mean, no bound
    for k in {cutoff_of(m) for m in bounded_metrics(scores)}:
        metrics = [m for m in bounded_metrics(scores) if cutoff_of(m) == k]
        outcomes = [score(labeled, rankings, config) for labeled in labelings(grades, rankings, k, config.threshold)]
        for metric in metrics:
            means = [o.metrics[metric] for o in outcomes if o.per_query]
            assert abs(scores.lower[metric] - min(means)) <= SLACK, (metric, "mean lower")
            assert abs(scores.upper[metric] - max(means)) <= SLACK, (metric, "mean upper")
            for q in scores.per_query:
                each = [o.per_query[q][metric] for o in outcomes]
                lower = scores.per_query_lower.get(q, {}).get(metric, scores.per_query[q][metric])
                upper = scores.per_query_upper.get(q, {}).get(metric, scores.per_query[q][metric])
                assert abs(lower - min(each)) <= SLACK, (metric, q, "lower")
                assert abs(upper - max(each)) <= SLACK, (metric, q, "upper")


def test_a_relevant_label_can_lower_ndcg_and_ap() -> None:
    """One relevant key at rank 1 and an unjudged one at rank 3: labeling it relevant lowers both."""
    scores = score({"q": {"a": 1, "b": 0}}, {"q": ["a", "b", "x"]}, ScoreConfig(k=(3,)))
    assert scores.per_query["q"]["ndcg@3"] == 1.0 and scores.per_query["q"]["map@3"] == 1.0
    dcg = 1 + 1 / 2  # a at rank 1, x at rank 3 (log2(4) = 2)
    ideal = 1 + 1 / 1.584962500721156  # two relevant keys at ranks 1 and 2
    assert abs(scores.per_query_lower["q"]["ndcg@3"] - dcg / ideal) < 1e-9
    assert abs(scores.per_query_lower["q"]["map@3"] - (1 + 2 / 3) / 2) < 1e-9
