"""The drawn interval for metrics that do not add up over keys (nDCG, recall, MRR).

A query's metric with drawn hole grades is checked against pytrec_eval; the interval's
coverage is simulated from worlds whose hole grades are drawn first (truth by construction).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
import pytrec_eval

from retrieval_eval.core.judge_draws import MetricSpec, QueryHoles, _value, drawn_interval
from retrieval_eval.core.scoring import QueryLabels

POPULATION = [0, 0, 0, 1, 1, 2, 3]  # the true grade of a pair, before any judge reads it


def labels_of(grades: dict[str, int], threshold: int = 1) -> QueryLabels:
    relevant = sum(g >= threshold for g in grades.values())
    return QueryLabels(dict(grades), relevant, (), None, False, len(grades) - relevant)


@pytest.mark.parametrize("seed", range(6))
def test_a_query_with_drawn_grades_scores_as_pytrec_eval_scores_it(seed: int) -> None:
    rng = random.Random(seed)
    ranking = [f"d{i}" for i in range(12)]
    human = {key: rng.choice(POPULATION) for key in ranking[:6]} | {"elsewhere": 2}
    drawn = {key: rng.choice(POPULATION) for key in ranking[6:]}
    query = QueryHoles(labels_of(human), tuple(ranking), dict.fromkeys(drawn, True))
    qrels = {"q": {**human, **drawn}}
    if not any(g >= 1 for g in qrels["q"].values()):
        pytest.skip("no relevant label")
    run = {"q": {key: float(100 - i) for i, key in enumerate(ranking)}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.10", "recip_rank"}).evaluate(run)["q"]
    for metric, name in (("ndcg@10", "ndcg_cut_10"), ("recall@10", "recall_10"), ("mrr", "recip_rank")):
        spec = MetricSpec(metric, "linear", 1, 1, 0.0)
        assert _value(spec, query, drawn) == pytest.approx(theirs[name], abs=1e-9), metric


def _world(rng: random.Random, *, queries: int, noise: float, holes_from: list[int] = POPULATION) -> tuple:
    """Queries with 5 labeled and 5 unlabeled keys in the top 10, a judge reading each hole and
    an overlap of human-labeled pairs drawn from the labels' population and read by the same judge;
    the holes' grades come from ``holes_from`` (by default the same population)."""

    def reading(grade: int) -> bool:
        return (grade >= 1) if rng.random() >= noise else rng.random() < 0.5

    spec_queries, truths = [], []
    for q in range(queries):
        ranking = tuple(f"q{q}d{i}" for i in range(10))
        human = {key: rng.choice(POPULATION) for key in ranking[:5]}
        human[f"q{q}-extra"] = 3  # every query has a relevant label: it is scored
        holes = {key: rng.choice(holes_from) for key in ranking[5:]}
        readings = {key: (None if rng.random() < 0.1 else reading(g)) for key, g in holes.items()}
        spec_queries.append(QueryHoles(labels_of(human), ranking, readings))
        truths.append(holes)
    overlap = []
    for _ in range(rng.randint(60, 150)):
        grade = rng.choice(POPULATION)
        overlap.append((grade, 2 if reading(grade) else 0))
    return spec_queries, truths, overlap


def _coverage(rng: random.Random, worlds: int, draws: int, world: Callable[[], tuple]) -> float:
    """The share of ``worlds`` whose true nDCG@10 lies in the drawn interval."""
    covered = 0
    for _ in range(worlds):
        queries, truths, overlap = world()
        spec = MetricSpec("ndcg@10", "exponential", 1, len(queries), 0.0)
        true_value = sum(_value(spec, q, t) for q, t in zip(queries, truths)) / len(queries)
        estimate, low, high = drawn_interval(spec, queries, overlap, draws=draws, seed=1)
        assert low <= estimate <= high
        covered += low <= true_value <= high
    return covered / worlds


@pytest.mark.slow  # 120 worlds, 150 draws each
def test_the_drawn_interval_covers_the_true_ndcg_at_least_93_in_100_times() -> None:
    rng = random.Random(11)
    coverage = _coverage(rng, 120, 150, lambda: _world(rng, queries=8, noise=rng.uniform(0.1, 0.4)))
    assert coverage >= 0.93, coverage


def test_the_drawn_interval_covers_the_true_ndcg_when_the_holes_are_less_often_relevant_than_the_labels() -> None:
    # Labels 4 in 7 relevant, holes 1 in 5: the overlap's share of relevant pairs among those the
    # judge read one way is no hole's chance; the judge's errors are (docs/judge.md).
    rng = random.Random(12)
    coverage = _coverage(rng, 60, 100, lambda: _world(rng, queries=8, noise=0.25, holes_from=[0, 0, 0, 0, 1]))
    assert coverage >= 0.9, coverage


def test_a_relevant_hole_low_in_the_ranking_lowers_ndcg_so_the_interval_is_not_clipped_to_the_bounds() -> None:
    # Labeled: a relevant key first. A hole at rank 4 that is relevant raises the ideal more than the ranking.
    query = QueryHoles(labels_of({"a": 1, "b": 0, "c": 0}), ("a", "b", "c", "h"), {"h": True})
    spec = MetricSpec("ndcg@4", "linear", 1, 1, 0.0)
    value_without, value_with = _value(spec, query, {"h": 0}), _value(spec, query, {"h": 1})
    assert value_with < value_without == 1.0
    overlap = [(1, 2)] * 100  # the judge's "relevant" is always right
    _estimate, low, high = drawn_interval(spec, [query], overlap, draws=100)
    assert low <= value_with < value_without and high <= 1.0


def test_holes_read_perfectly_give_a_narrow_interval_around_the_truth() -> None:
    human = {"a": 2, "b": 0}
    query = QueryHoles(labels_of(human), ("a", "h1", "b", "h2"), {"h1": True, "h2": False})
    overlap = [(2, 2)] * 200 + [(0, 0)] * 200  # the judge's reading always matches the human grade 2 or 0
    spec = MetricSpec("ndcg@4", "exponential", 1, 1, 0.0)
    truth = _value(spec, query, {"h1": 2, "h2": 0})
    estimate, low, high = drawn_interval(spec, [query], overlap, draws=200)
    assert low <= truth <= high and high - low < 0.2 and estimate == pytest.approx(truth, abs=0.05)
