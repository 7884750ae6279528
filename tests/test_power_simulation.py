"""The stated power holds for the gate as it runs: a simulation over paired per-query scores.

Known by construction: each set's per-query differences are drawn with a chosen mean (the
true change) and standard deviation 0.15, from a normal distribution and from a skewed one
(a gamma with shape 4, skewness 1, oriented so that most queries lose a little and a few
gain a lot: the orientation in which the gate sees a drop less often than the normal
formula says, measured both ways while building this). For each set the product's own
delta gate ``recall@5:-0:significant`` is evaluated on a comparison whose interval is the
product's paired bootstrap (core/significance.py) with 200 resamples instead of 10,000,
to fit the suite's time; a FAIL is a detection.

Two questions, each for both distributions:

- at the minimum detectable effect the comparison states for 30, 100 and 300 queries,
  does the gate detect the drop 80% of the time?
- with the queries the planner asks for to see changes of 0.1, 0.05 and 0.03 (three
  effect sizes), does it?

Why 5 points is a fair bar: with 400 trials per cell, the binomial standard error of a
rate near 0.8 is sqrt(0.8 * 0.2 / 400) = 0.020, so a gate whose power truly is 0.80 lands
within 5 points (2.5 standard errors) in 98.8% of cells. The draws are seeded, so the test
gives the same answer on every run. The pooled rate of each distribution over its six
cells (2,400 trials, standard error 0.008) is held to 3 points.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from retrieval_eval.comparison.power import gate_design
from retrieval_eval.core.comparison import Deltas, MetricDelta
from retrieval_eval.core.gates import FAIL, GateReadings, evaluate_gate, parse_gate
from retrieval_eval.core.power import detectable_effect, queries_needed
from retrieval_eval.core.significance import paired_bootstrap

SD = 0.15
POWER = 0.8
TRIALS = 400
RESAMPLES = 200
METRIC = "recall@5"
GATE = parse_gate(f"{METRIC}:-0:significant", ks=(5,))
SIZES = (30, 100, 300)
CHANGES = (0.1, 0.05, 0.03)

Draw = Callable[[random.Random], float]  # one standardised difference: mean 0, sd 1


def normal(rng: random.Random) -> float:
    return rng.gauss(0.0, 1.0)


def skewed(rng: random.Random) -> float:
    shape = 4.0
    return (rng.gammavariate(shape, 1.0) - shape) / math.sqrt(shape)


DISTRIBUTIONS = {"normal": normal, "skewed": skewed}


def detects(rng: random.Random, draw: Draw, n: int, change: float) -> bool:
    """One set of ``n`` queries whose differences have mean ``change``: does the gate FAIL it?"""
    base = {f"q{i}": {METRIC: 0.5} for i in range(n)}
    head = {f"q{i}": {METRIC: round(0.5 + change + SD * draw(rng), 12)} for i in range(n)}
    boot = paired_bootstrap(base, head, [METRIC], resamples=RESAMPLES, seed=rng.randrange(2**31))[METRIC]
    mean_head = math.fsum(row[METRIC] for row in head.values()) / n
    moved = MetricDelta(METRIC, 0.5, mean_head, (boot.low, boot.high), boot.p_value, boot.significant, n=n)
    context = GateReadings({METRIC: mean_head}, comparison=Deltas(metrics={METRIC: moved}))
    return evaluate_gate(GATE, context).status == FAIL


def rate(name: str, n: int, change: float) -> float:
    rng = random.Random(f"{name}:{n}:{change}")
    return sum(detects(rng, DISTRIBUTIONS[name], n, change) for _ in range(TRIALS)) / TRIALS


def cells() -> list[tuple[str, int, float]]:
    """(why, queries, true change) for the six cells of one distribution."""
    design = gate_design(POWER)
    at_effect = [(f"mde at {n}", n, -(detectable_effect(SD, n, design) or 0.0)) for n in SIZES]
    planned = [(f"planned for {d}", queries_needed(SD, d, design) or 0, -d) for d in CHANGES]
    return at_effect + planned


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DISTRIBUTIONS))
def test_the_gate_detects_the_stated_effect_at_the_stated_power(name: str) -> None:
    found = {why: rate(name, n, change) for why, n, change in cells()}
    far = {why: r for why, r in found.items() if abs(r - POWER) > 0.05}
    assert not far, f"{name}: {found}"
    pooled = sum(found.values()) / len(found)
    assert abs(pooled - POWER) <= 0.03, f"{name}: pooled {pooled:.3f} over {found}"


def test_the_planned_sizes_are_the_ones_by_hand() -> None:
    # ((1.959964 + 0.841621) * 0.15 / d)^2: 17.66, 70.63, 196.2 -> 18, 71, 197
    design = gate_design(POWER)
    assert [queries_needed(SD, d, design) for d in CHANGES] == [18, 71, 197]
