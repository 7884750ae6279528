"""The paired bootstrap: checked by hand on small cases, against theory on larger ones, and for determinism."""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest

from retrieval_eval.core import significance
from retrieval_eval.core.significance import (
    UNITS,
    Packer,
    PairingError,
    _general_drawer,
    binomial,
    paired_bootstrap,
    percentile,
    resample_sums,
    summarize,
    two_sided_p,
)
from retrieval_eval.pipeline.forking import map_shared, shared_map


def sides(deltas: list[float]) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Base all zero, head carrying the deltas, one metric ``m``."""
    base = {f"q{i}": {"m": 0.0} for i in range(len(deltas))}
    head = {f"q{i}": {"m": d} for i, d in enumerate(deltas)}
    return base, head


# -- the statistics of a sample, by hand ---------------------------------------------


def test_percentile_interpolates_linearly_between_order_statistics() -> None:
    ordered = [0, 10, 20, 30]
    assert percentile(ordered, 0.0) == 0
    assert percentile(ordered, 1.0) == 30
    assert percentile(ordered, 0.5) == 15  # position 1.5: halfway from 10 to 20
    assert percentile(ordered, 0.025) == pytest.approx(0.75)  # position 0.075 of the way from 0 to 10
    assert percentile(ordered, 0.975) == pytest.approx(29.25)


def test_p_value_takes_twice_the_smaller_tail_and_is_never_zero() -> None:
    assert two_sided_p([1, 2, 3, 4]) == pytest.approx(2 * 1 / 5)  # no resample at or below 0
    assert two_sided_p([-3, -1, 2, 5, 7]) == pytest.approx(2 * 3 / 6)  # 2 at or below 0
    assert two_sided_p([-1, 0, 2, 3]) == 1.0  # 2 and 3 on each side: capped at 1
    assert two_sided_p([0, 0, 0]) == 1.0


def test_the_p_value_counts_each_tail_as_the_definition_does() -> None:
    """Brute force: the tails counted one by one, against the bisection over the sorted sums."""
    rng = random.Random(7)
    for _ in range(2_000):
        sums = sorted(rng.randint(-4, 4) for _ in range(rng.randint(1, 12)))
        below = sum(1 for value in sums if value <= 0)
        above = sum(1 for value in sums if value >= 0)
        assert two_sided_p(sums) == min(1.0, 2.0 * (min(below, above) + 1) / (len(sums) + 1)), sums


def test_summarize_reads_interval_and_p_value_from_the_resampled_sums() -> None:
    # Four resamples of n = 2 deltas, sums in units: means -0.5, 0.5, 1.0, 1.5.
    sums = [3 * UNITS, -1 * UNITS, 2 * UNITS, 1 * UNITS]
    result = summarize(sums, observed=2 * UNITS, n=2, confidence=0.5)
    # Sorted means -0.5, 0.5, 1.0, 1.5; the 25th and 75th percentiles sit at positions 0.75 and 2.25.
    assert result.delta == 1.0
    assert result.low == pytest.approx(0.25)
    assert result.high == pytest.approx(1.125)
    assert result.p_value == pytest.approx(2 * 2 / 5)
    assert result.significant


# -- the resampling, by hand ---------------------------------------------------------


def test_two_queries_zero_and_one_give_the_hand_computed_distribution() -> None:
    """Deltas 0 and 1: a resample of 2 queries has mean 0, 0.5 or 1 with chances 1/4, 1/2, 1/4.

    With 10,000 resamples about 2,500 land on each end, so the 2.5th and 97.5th
    percentiles are exactly 0 and 1, the interval holds 0, and the p-value is
    2 (r + 1) / (B + 1) with r the resamples at or below 0.
    """
    sums = resample_sums([[0, 1]], resamples=10_000, seed=7)[0]
    counts = {value: sums.count(value) for value in (0, 1, 2)}
    assert sum(counts.values()) == 10_000
    for value, share in ((0, 0.25), (1, 0.5), (2, 0.25)):
        expected = 10_000 * share
        assert abs(counts[value] - expected) < 4 * (10_000 * share * (1 - share)) ** 0.5
    base, head = sides([0.0, 1.0])
    result = paired_bootstrap(base, head, ["m"], resamples=10_000, seed=7)["m"]
    assert (result.low, result.high) == (0.0, 1.0)
    assert result.delta == 0.5
    assert result.p_value == pytest.approx(2 * (counts[0] + 1) / 10_001)
    assert not result.significant


def test_equal_deltas_give_a_point_interval_and_the_smallest_p_value() -> None:
    base, head = sides([0.1] * 12)
    result = paired_bootstrap(base, head, ["m"], resamples=1_000, seed=1)["m"]
    assert (result.low, result.delta, result.high) == (0.1, 0.1, 0.1)
    assert result.p_value == pytest.approx(2 / 1_001)
    assert result.significant


def test_no_change_is_never_significant() -> None:
    base, head = sides([0.0] * 30)
    result = paired_bootstrap(base, head, ["m"], resamples=500, seed=1)["m"]
    assert (result.low, result.high, result.p_value, result.significant) == (0.0, 0.0, 1.0, False)


def test_one_query_resamples_to_itself() -> None:
    base, head = sides([-0.25])
    result = paired_bootstrap(base, head, ["m"], resamples=200, seed=3)["m"]
    assert (result.low, result.high) == (-0.25, -0.25)
    assert result.significant


# -- against theory ------------------------------------------------------------------


def test_resampled_sums_have_the_bootstrap_mean_and_variance() -> None:
    """The sum of n draws with replacement has mean n*mean(d) and variance n*pvariance(d)."""
    rng = random.Random(11)
    deltas = [rng.choice([0, 0, 0, 0, 1, -2, 5]) for _ in range(300)]  # mostly unchanged queries
    sums = resample_sums([deltas], resamples=10_000, seed=5)[0]
    n = len(deltas)
    assert statistics.fmean(sums) == pytest.approx(
        n * statistics.fmean(deltas), abs=0.2 * (n * statistics.pvariance(deltas)) ** 0.5
    )
    assert statistics.pvariance(sums) == pytest.approx(n * statistics.pvariance(deltas), rel=0.06)


def test_columns_are_resampled_jointly() -> None:
    """One set of draws serves every metric: a column twice another resamples to twice its sums."""
    column = [3, 0, -1, 4, 0, 2]
    first, doubled, again = resample_sums([column, [2 * v for v in column], column], resamples=300, seed=2)
    assert doubled == [2 * v for v in first]
    assert again == first


def test_the_general_path_for_huge_sets_draws_uniformly() -> None:
    packer = Packer.for_columns([[0, 1, 2, 3]], draws=1)
    draw = _general_drawer(packer)
    rng = random.Random(4)
    values = [packer.unpack(draw(rng, 1), 1)[0] for _ in range(8_000)]
    for value in range(4):
        assert abs(values.count(value) - 2_000) < 4 * (8_000 * 0.25 * 0.75) ** 0.5


@pytest.mark.parametrize(("trials", "p"), [(40, 0.05), (1_000, 0.3), (5_000, 0.9), (10, 1.0), (10, 0.0)])
def test_binomial_has_the_right_mean_and_variance(trials: int, p: float) -> None:
    rng = random.Random(8)
    draws = [binomial(rng, trials, p) for _ in range(20_000)]
    assert all(0 <= k <= trials for k in draws)
    assert statistics.fmean(draws) == pytest.approx(trials * p, abs=0.05 + 0.02 * trials * p)
    assert statistics.pvariance(draws) == pytest.approx(trials * p * (1 - p), abs=0.05 + 0.06 * trials * p * (1 - p))


# -- determinism and pairing ---------------------------------------------------------


def test_same_inputs_give_the_same_result_whatever_the_query_order() -> None:
    rng = random.Random(9)
    base = {f"q{i}": {"m": round(rng.random(), 12), "n": round(rng.random(), 12)} for i in range(50)}
    head = {q: {"m": round(rng.random(), 12), "n": v["n"]} for q, v in base.items()}
    shuffled = dict(reversed(list(head.items())))
    first = paired_bootstrap(base, head, ["m", "n"], resamples=2_000, seed=42)
    again = paired_bootstrap(base, shuffled, ["m", "n"], resamples=2_000, seed=42)
    assert first == again
    assert first["m"] != paired_bootstrap(base, head, ["m"], resamples=2_000, seed=43)["m"]


def test_pairing_is_checked_by_query_id() -> None:
    base, head = sides([0.1, 0.2])
    head["q9"] = head.pop("q1")
    with pytest.raises(PairingError, match="only in base"):
        paired_bootstrap(base, head, ["m"], resamples=10)


def test_resamples_must_be_positive() -> None:
    base, head = sides([0.1])
    with pytest.raises(ValueError):
        paired_bootstrap(base, head, ["m"], resamples=0)


def test_sharing_the_resamples_with_workers_changes_no_number(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(11)
    base = {f"q{i}": {"m": rng.random(), "n": rng.choice([0.0, 0.5, 1.0])} for i in range(300)}
    head = {q: {"m": v["m"] + rng.uniform(-0.2, 0.3), "n": rng.choice([0.0, 1.0])} for q, v in base.items()}
    alone = paired_bootstrap(base, head, ["m", "n"], resamples=1_100, seed=9)
    monkeypatch.setattr(significance, "SHARE_FROM", 0)
    monkeypatch.setattr(significance, "_numpy_draws", lambda: None)  # the pure path shares its blocks
    forked = []

    def shared(function: Any, items: Any) -> list[Any]:
        forked.append(len(items))
        return map_shared(lambda i: function(items[i]), len(items), workers=2)

    assert paired_bootstrap(base, head, ["m", "n"], resamples=1_100, seed=9, map_blocks=shared) == alone
    assert forked == [5], "the blocks should have been drawn through the map given"
    assert paired_bootstrap(base, head, ["m", "n"], resamples=1_100, seed=9, map_blocks=shared_map(2)) == alone


def test_strata_come_from_the_same_resamples_and_change_no_metric() -> None:
    from retrieval_eval.core.significance import paired_bootstrap_with_subsets

    rng = random.Random(8)
    base = {f"q{i}": {"m": rng.random(), "n": rng.random()} for i in range(200)}
    head = {q: {k: v + rng.choice((0.0, 0.25, -0.25)) for k, v in row.items()} for q, row in base.items()}
    for i in range(150, 200):  # the last fifty never move on m
        head[f"q{i}"]["m"] = base[f"q{i}"]["m"]
    alone = paired_bootstrap(base, head, ["m", "n"], resamples=1_000, seed=4)
    subsets = {"all": ("m", list(base)), "still": ("m", [f"q{i}" for i in range(150, 200)]), "none": ("m", [])}
    metrics, strata = paired_bootstrap_with_subsets(base, head, ["m", "n"], subsets, resamples=1_000, seed=4)
    assert metrics == alone
    assert strata["all"] == alone["m"]  # every query: the metric's own resampled means
    assert (strata["still"].low, strata["still"].high, strata["still"].p_value) == (0.0, 0.0, 1.0)
    assert strata["still"].n == 50 and "none" not in strata
    with pytest.raises(ValueError, match="not bootstrapped"):
        paired_bootstrap_with_subsets(base, head, ["n"], {"x": ("m", ["q1"])}, resamples=10)
