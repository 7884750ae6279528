"""The machine-filled estimate of a metric and its interval, calibrated on the overlap.

A metric that is linear in the unjudged keys' relevance (precision@k, any per-key weighted
sum) is ``known + sum(w_h * y_h)`` over the holes ``h``, with ``y_h`` the true binary
relevance nobody labeled. Filling ``y_h`` with the judge's reading is biased by the judge's
leniency, and correcting it needs more than the calibration overlap (pairs labeled by both
a human and the judge) says on its own.

The judge's errors are what the overlap measures and what carries over to the holes: its
sensitivity ``s`` (the share of relevant pairs it reads relevant) and its false-positive
rate ``f`` (the share of the others it reads relevant). How often a key is relevant does
not carry over: the overlap is drawn from the human labels (pools of earlier retrievers,
mostly relevant), the holes are the keys a new retriever brings (mostly not). So the share
of the overlap the humans call relevant among the pairs the judge read one way, taken as
the holes' chance, is right only when both are equally often relevant: with 50% relevant
labels, 15% relevant holes and a judge wrong on one pair in five, it says 0.8 where the
truth is 0.41, and the interval covers nothing. Instead the holes' own relevant share
``pi`` is read off how often the judge calls them relevant, ``q = pi s + (1 - pi) f``
(Rogan and Gladen's correction), and a hole the judge read relevant is relevant with chance
``pi s / q``, one it read not relevant with ``pi (1 - s) / (1 - q)`` (Bayes' rule).

The interval is drawn: each draw takes ``s`` and ``f`` from their posteriors on the overlap
and ``q`` from its posterior on the holes' readings (each a Beta with half a count on each
side), turns them into ``pi`` (any value when the drawn judge tells nothing, ``s <= f``),
then every hole's relevance from its reading's chance: the judge's uncertainty, the holes'
share and the holes' own chance, in one. Holes without a usable machine label (refused,
unreadable, split) are counted at their worst in the interval (anywhere between not
relevant and relevant) and at ``pi`` in the point estimate. The interval never leaves the
bounds, and a seeded generator makes a report reproducible.

What it rests on: the judge errs on the holes as on the overlap, for relevant and for other
keys alike (its sensitivity and false-positive rate are the same); :mod:`.judge_calibration`
samples the overlap from the human labels, stratified by grade, and the report says so.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .gates import FAIL, INDETERMINATE, PASS

DRAWS = 2000
LOW, HIGH = 0.025, 0.975  # the interval's percentiles: 95%


@dataclass(frozen=True)
class Hole:
    weight: float  # how much the metric rises if this key is relevant (signed for a delta)
    reading: bool | None  # the judge's usable binary reading; None: no usable label


@dataclass(frozen=True)
class Filled:
    estimate: float
    low: float
    high: float
    lower_bound: float  # every hole not relevant
    upper_bound: float  # every hole relevant


@dataclass(frozen=True)
class JudgeErrors:
    """The calibration overlap counted by the human's and the judge's binary readings."""

    hits: int  # relevant, read relevant
    misses: int  # relevant, read not relevant
    false_alarms: int  # not relevant, read relevant
    rejections: int  # not relevant, read not relevant

    @classmethod
    def of(cls, overlap: Iterable[tuple[bool, bool]]) -> JudgeErrors:
        """From (judge's reading, human reading) per calibration pair."""
        counts = {(True, True): 0, (False, True): 0, (True, False): 0, (False, False): 0}
        for machine, human in overlap:
            counts[(bool(machine), bool(human))] += 1
        return cls(counts[(True, True)], counts[(False, True)], counts[(True, False)], counts[(False, False)])

    def draw(self, rng: random.Random) -> tuple[float, float]:
        """(sensitivity, false-positive rate), drawn from their posteriors."""
        return (
            rng.betavariate(self.hits + 0.5, self.misses + 0.5),
            rng.betavariate(self.false_alarms + 0.5, self.rejections + 0.5),
        )

    def point(self) -> tuple[float, float]:
        """(sensitivity, false-positive rate): the posteriors' means."""
        return (
            (self.hits + 0.5) / (self.hits + self.misses + 1),
            (self.false_alarms + 0.5) / (self.false_alarms + self.rejections + 1),
        )

    @property
    def relevant_share(self) -> float:
        """The share of the overlap the humans call relevant (0.5 for an empty overlap)."""
        total = self.hits + self.misses + self.false_alarms + self.rejections
        return (self.hits + self.misses) / total if total else 0.5


def holes_relevant_share(read_relevant: float, sensitivity: float, false_positive: float) -> float | None:
    """The share of the holes truly relevant, from the share the judge read relevant (Rogan and
    Gladen), within [0, 1]; None when such a judge tells nothing (``sensitivity <= false_positive``)."""
    spread = sensitivity - false_positive
    if spread <= 0:
        return None
    return min(1.0, max(0.0, (read_relevant - false_positive) / spread))


def relevant_given_reading(share: float, sensitivity: float, false_positive: float) -> tuple[float, float]:
    """(chance a hole read not relevant is relevant, chance a hole read relevant is), among holes
    of which ``share`` are relevant (Bayes' rule)."""
    read_yes = share * sensitivity + (1 - share) * false_positive
    yes = share * sensitivity / read_yes if read_yes > 0 else share
    no = share * (1 - sensitivity) / (1 - read_yes) if read_yes < 1 else share
    return no, yes


_GRID = tuple((i + 0.5) / 64 for i in range(64))  # the holes' relevant share, in 64 cells of [0, 1]
_TRIES = 32  # draws of the readings' share before the grid is used instead


def drawn_share(rng: random.Random, errors: JudgeErrors, read_yes: int, read_no: int) -> tuple[float, float, float]:
    """One draw of (the holes' relevant share, the judge's sensitivity, its false-positive rate).

    The share is drawn from its posterior given the holes' readings and the drawn judge, under a
    flat prior on [0, 1]: a hole is read relevant with chance ``q = share * s + (1 - share) * f``,
    so ``q`` is flat between ``f`` and ``s`` and its posterior is the readings' Beta cut to that
    range (drawn until a draw falls in it; on a grid when few do). Inverting the readings' share
    instead piles every draw past the ends onto exactly 0 or 1, as if a handful of relevant holes
    were impossible."""
    sensitivity, false_positive = errors.draw(rng)
    low, high = sorted((false_positive, sensitivity))
    if high - low < 1e-9:  # a judge that reads relevant and other keys alike tells nothing
        return rng.random(), sensitivity, false_positive
    for _ in range(_TRIES):
        read = rng.betavariate(read_yes + 1, read_no + 1)
        if low <= read <= high:
            return (read - false_positive) / (sensitivity - false_positive), sensitivity, false_positive
    return _grid_share(rng, sensitivity, false_positive, read_yes, read_no), sensitivity, false_positive


def _grid_share(rng: random.Random, sensitivity: float, false_positive: float, read_yes: int, read_no: int) -> float:
    logs = []
    for share in _GRID:
        read = min(max(share * sensitivity + (1 - share) * false_positive, 1e-12), 1 - 1e-12)
        logs.append(read_yes * math.log(read) + read_no * math.log(1 - read))
    top = max(logs)
    cumulative = list(itertools.accumulate(math.exp(value - top) for value in logs))
    cell = bisect.bisect_left(cumulative, rng.random() * cumulative[-1])
    return (min(cell, len(_GRID) - 1) + rng.random()) / len(_GRID)


def point_share(errors: JudgeErrors, read_yes: int, read_no: int) -> tuple[float, float, float]:
    """(the holes' relevant share, sensitivity, false-positive rate) at their point values."""
    sensitivity, false_positive = errors.point()
    read = read_yes / (read_yes + read_no) if read_yes + read_no else 0.5
    share = holes_relevant_share(read, sensitivity, false_positive)
    return (errors.relevant_share if share is None else share), sensitivity, false_positive


def filled_interval(
    known: float,
    holes: Sequence[Hole],
    overlap: Sequence[tuple[bool, bool]],
    *,
    draws: int = DRAWS,
    seed: int = 0,
) -> Filled:
    """The estimate and interval of ``known + sum(w_h y_h)`` (module docstring).

    ``overlap``: (judge's reading, human reading) per calibration pair.
    """
    lower = known + sum(min(h.weight, 0.0) for h in holes)
    upper = known + sum(max(h.weight, 0.0) for h in holes)
    errors = JudgeErrors.of(overlap)
    groups: dict[tuple[float, bool], int] = {}
    for hole in holes:
        if hole.reading is not None:
            groups[(hole.weight, hole.reading)] = groups.get((hole.weight, hole.reading), 0) + 1
    read_yes = sum(n for (_, reading), n in groups.items() if reading)
    read_no = sum(n for (_, reading), n in groups.items() if not reading)
    unknown = [h.weight for h in holes if h.reading is None]
    spread_low, spread_high = sum(min(w, 0.0) for w in unknown), sum(max(w, 0.0) for w in unknown)

    rng = random.Random(seed)
    sums = sorted(_drawn_sum(rng, groups, *drawn_share(rng, errors, read_yes, read_no)) for _ in range(draws))
    low = max(lower, known + sums[int(LOW * (draws - 1))] + spread_low)
    high = min(upper, known + sums[int(round(HIGH * (draws - 1)))] + spread_high)
    share, sensitivity, false_positive = point_share(errors, read_yes, read_no)
    no, yes = relevant_given_reading(share, sensitivity, false_positive)
    expected = sum(n * weight * (yes if reading else no) for (weight, reading), n in groups.items())
    # The holes nobody could read count at the holes' relevant share in the point estimate (the
    # interval spans them whole): reporting them as not relevant would bias it low.
    estimate = known + expected + share * sum(unknown)
    return Filled(estimate=min(max(estimate, low), high), low=low, high=high, lower_bound=lower, upper_bound=upper)


def _drawn_sum(
    rng: random.Random, groups: dict[tuple[float, bool], int], share: float, sensitivity: float, false_positive: float
) -> float:
    """One draw of ``sum(w_h y_h)`` over the read holes, each relevant with its reading's chance."""
    no, yes = relevant_given_reading(share, sensitivity, false_positive)
    return sum(weight * _binomial(rng, count, yes if reading else no) for (weight, reading), count in groups.items())


def _binomial(rng: random.Random, count: int, chance: float) -> int:
    """How many of ``count`` holes, each relevant with ``chance``, are: one uniform, inverted
    (walking the rarer outcome's probabilities, a few steps); past the floats' range, its normal."""
    rare = min(chance, 1 - chance)
    first = (1 - rare) ** count
    if first <= 1e-300 or rare <= 0:
        if rare <= 0:
            drawn = 0
        else:
            spread = math.sqrt(count * rare * (1 - rare))
            drawn = min(count, max(0, round(count * rare + spread * rng.gauss(0.0, 1.0))))
    else:
        target, drawn, mass, cumulative = rng.random(), 0, first, first
        odds = rare / (1 - rare)
        while cumulative < target and drawn < count:
            mass *= (count - drawn) / (drawn + 1) * odds
            drawn += 1
            cumulative += mass
    return drawn if rare == chance else count - drawn


def resolve(status: str, filled: Filled, threshold: float, *, at_most: bool = False) -> str:
    """A gate's status with machine labels: only an INDETERMINATE one can move, and only when
    the whole interval lies on one side of the threshold."""
    if status != INDETERMINATE:
        return status
    if at_most:
        if filled.high <= threshold:
            return PASS
        return FAIL if filled.low > threshold else INDETERMINATE
    if filled.low >= threshold:
        return PASS
    return FAIL if filled.high < threshold else INDETERMINATE


def bounds_status(filled: Filled, threshold: float) -> str:
    """What the bounds alone say of an "at least" gate: the human labels' verdict."""
    if filled.lower_bound >= threshold:
        return PASS
    return FAIL if filled.upper_bound < threshold else INDETERMINATE
