"""Reciprocal rank fusion: hand-computed cases, and ranx's rrf on generated runs."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from retrieval_eval.core.fusion import fuse_rrf, parse_weights, rrf_scores


def test_rrf_sums_reciprocal_ranks_from_one() -> None:
    fused = fuse_rrf([{"q1": ["a", "b", "c"]}, {"q1": ["b", "d"]}], k=60)
    # a 1/61 = .016393, b 1/62 + 1/61 = .032522, c 1/63 = .015873, d 1/62 = .016129
    assert fused == {"q1": ["b", "a", "d", "c"]}
    assert rrf_scores([["a", "b", "c"], ["b", "d"]], (1, 1), 60) == {
        "a": 1 / 61,
        "b": 1 / 62 + 1 / 61,
        "c": 1 / 63,
        "d": 1 / 62,
    }


def test_equal_scores_are_ordered_by_key_whatever_the_order_of_addition() -> None:
    # Each key sums 1/61, 1/62 and 1/63, in three different orders.
    runs = [{"q": ["y", "x", "z"]}, {"q": ["x", "z", "y"]}, {"q": ["z", "y", "x"]}]
    assert fuse_rrf(runs) == {"q": ["x", "y", "z"]}


def test_weights_and_k() -> None:
    runs = [{"q": ["a", "b"]}, {"q": ["b", "a"]}]
    # k = 0, weights 2 and 1: a = 2/1 + 1/2 = 2.5, b = 2/2 + 1/1 = 2
    assert fuse_rrf(runs, k=0, weights=(2, 1)) == {"q": ["a", "b"]}
    # weights 1 and 3: a = 1/1 + 3/2 = 2.5, b = 1/2 + 3/1 = 3.5
    assert fuse_rrf(runs, k=0, weights=(1, 3)) == {"q": ["b", "a"]}


def test_a_query_in_some_runs_is_fused_from_those_and_depth_cuts() -> None:
    runs = [{"q1": ["a", "b"], "q2": ["m", "n", "o"]}, {"q1": ["b"], "q3": []}]
    assert fuse_rrf(runs, depth=2) == {"q1": ["b", "a"], "q2": ["m", "n"], "q3": []}


def test_a_repeated_key_keeps_its_first_rank() -> None:
    # distinct keys a, b, c rank 1, 2, 3; the second a is not a fourth rank
    assert rrf_scores([["a", "b", "a", "c"]], (1,), 60) == {"a": 1 / 61, "b": 1 / 62, "c": 1 / 63}


def test_weights_parse_one_positive_number_per_run() -> None:
    assert parse_weights("1, 0.5", 2) == (1.0, 0.5)
    for text, runs, problem in (
        ("1", 2, "1 weights for 2 runs"),
        ("1,x", 2, "'x' is not a number"),
        ("1,0", 2, "'0' is not a positive finite number"),
        ("1,nan", 2, "'nan' is not a number"),
    ):
        with pytest.raises(ValueError, match=problem):
            parse_weights(text, runs)


def generated_runs(seed: int, count: int) -> list[dict[str, list[str]]]:
    rng = random.Random(seed)
    documents = [f"d{n:02d}" for n in range(40)]
    queries = [f"q{n}" for n in range(60)]
    return [{q: rng.sample(documents, rng.randint(1, 30)) for q in queries} for _ in range(count)]


@pytest.mark.ranx
@pytest.mark.parametrize(("count", "k"), [(2, 60), (3, 10), (4, 0)])
def test_rrf_equals_ranx(count: int, k: int) -> None:
    ranx = pytest.importorskip("ranx")
    runs = generated_runs(count * 100 + k, count)
    # ranx ranks by score: give each run's keys falling scores in rank order.
    ranx_runs = [ranx.Run({q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in run.items()}) for run in runs]
    expected = ranx.fuse(ranx_runs, method="rrf", params={"k": k}).to_dict()
    fused = fuse_rrf(runs, k=k)
    assert fused.keys() == expected.keys()
    for query, ranking in fused.items():
        scores = rrf_scores([run[query] for run in runs], (1,) * count, k)
        assert scores == pytest.approx(expected[query], rel=1e-12)
        assert ranking == sorted(expected[query], key=lambda d: (-round(expected[query][d], 12), d))


def exact_order(runs: list[dict[str, list[str]]], weights: list[float], k: int, query: str) -> list[str]:
    """The fused order in exact rational arithmetic, ties by key: the witness for the doubles."""
    scores: dict[str, Fraction] = {}
    for run, weight in zip(runs, weights):
        for rank, key in enumerate(dict.fromkeys(run.get(query, [])), 1):
            scores[key] = scores.get(key, Fraction(0)) + Fraction(weight) / (k + rank)
    return sorted(scores, key=lambda key: (-scores[key], key))


@pytest.mark.parametrize(("scale", "k"), [(1e-9, 60), (1.0, 10**9), (1e-6, 10**5), (1.0, 60)])
def test_fusion_orders_by_the_exact_score_whatever_the_scale(scale: float, k: int) -> None:
    """Scaled weights or a large k make every score tiny; rounding them before ordering made
    the fused ranking alphabetical."""
    runs = [{"q": ["z", "y", "x", "w"]}, {"q": ["y", "z", "w", "x"]}, {"q": ["x", "z"]}]
    weights = [3 * scale, 2 * scale, 1 * scale]
    fused = fuse_rrf(runs, k=k, weights=weights)
    assert fused["q"] == exact_order(runs, weights, k, "q")
    assert fused["q"][0] == "z"  # never alphabetical: w would lead


def test_fusion_ties_in_exact_arithmetic_are_ties_whatever_the_order_of_the_terms() -> None:
    """Keys whose scores are equal as rationals are ordered by key, on every permutation of the runs."""
    rng = random.Random(5)
    keys = [f"k{i}" for i in range(8)]
    for _ in range(50):
        runs = [{"q": rng.sample(keys, 8)} for _ in range(4)]
        for permutation in ([0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]):
            chosen = [runs[i] for i in permutation]
            assert fuse_rrf(chosen, k=60)["q"] == exact_order(chosen, [1.0] * 4, 60, "q")
