"""The machine-filled interval for any metric: draws of the holes' grades, calibrated on the overlap.

:mod:`.judge_interval` draws a sum of per-key relevances. nDCG, recall, MRR and MAP do not add
up over keys (a relevant hole also raises the ideal ranking, or hides the next one), so each
draw here gives every hole a grade and scores the queries with it:

1. the judge's sensitivity and false-positive rate, and the holes' relevant share read off how
   often it called them relevant, are drawn as :mod:`.judge_interval` draws them (the overlap
   tells how the judge errs, not how often the holes are relevant);
2. a hole the judge read one way is relevant with that reading's chance among the holes, and
   its grade, relevant or not, is drawn from the human grades of the overlap pairs the judge
   read that way and the humans placed on that side of the threshold (a Dirichlet posterior,
   half a count per grade);
3. holes without a usable reading are counted twice, not relevant and at the threshold
   grade, and the query keeps the lower of the two values for the low end and the higher
   for the high end (a relevant hole can lower nDCG: it raises the ideal ranking more than
   the ranking when it sits low, so neither count is the worst for every metric);
4. the metric's mean is computed from the query's labels plus the drawn grades.

The interval is the 2.5th percentile of the low ends to the 97.5th of the high ends; the
estimate is the median of the draws with unread holes relevant at the holes' drawn share.
The interval is not clipped to the bounds of the ``bounded`` policy: for nDCG the true value
can lie below the value with every hole counted not relevant (item 3). A seeded generator
makes a report reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .judge import GRADES, TOP_GRADE
from .judge_interval import JudgeErrors, drawn_share, relevant_given_reading
from .metrics import BY_NAME, FULL, gain_function
from .scoring import QueryLabels, rank_query

DRAWS = 400


@dataclass(frozen=True)
class QueryHoles:
    """One scored query with holes in its top k: its labels, its kept ranking, its holes."""

    labels: QueryLabels
    ranking: tuple[str, ...]
    holes: Mapping[str, bool | None]  # key -> the judge's usable reading (None: no usable label)


@dataclass(frozen=True)
class MetricSpec:
    metric: str  # e.g. ndcg@10
    gain: str
    threshold: int
    queries: int  # scored queries: the mean's denominator
    others: float  # the sum of the metric over the scored queries without holes


def _value(spec: MetricSpec, query: QueryHoles, drawn: Mapping[str, int]) -> float:
    """The metric of one query with the drawn grades added to its labels."""
    name, _, cutoff = spec.metric.partition("@")
    k = int(cutoff) if cutoff else FULL
    grades = {**query.labels.grades, **{key: grade for key, grade in drawn.items() if grade > 0}}
    gain = gain_function(spec.gain)
    gain_of = {grade: gain(grade) for grade in set(grades.values()) | {0}}
    relevant = sum(1 for grade in grades.values() if grade >= spec.threshold)
    ideal = tuple(sorted((gain_of[g] for g in grades.values() if g > 0), reverse=True))
    labels = QueryLabels(grades, relevant, ideal, query.labels.stratum, query.labels.no_answer, len(grades) - relevant)
    ranked = rank_query(labels, list(query.ranking), gain_of, spec.threshold, gain(spec.threshold))
    return BY_NAME[name].compute(ranked, k)


def _posterior(rng: random.Random, counts: Sequence[float]) -> list[float]:
    draws = [rng.gammavariate(count + 0.5, 1.0) for count in counts]
    total = sum(draws)
    return [d / total for d in draws]


def _grade(rng: random.Random, shares: Sequence[float]) -> int:
    return rng.choices(GRADES, weights=shares)[0]


def drawn_interval(
    spec: MetricSpec,
    queries: Sequence[QueryHoles],
    overlap: Sequence[tuple[int, int]],
    *,
    draws: int = DRAWS,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(estimate, low, high) of the metric's mean (module docstring).

    ``overlap``: (human grade, judge grade) per calibration pair the judge labeled.
    """
    threshold = spec.threshold
    errors = JudgeErrors.of((machine >= threshold, human >= threshold) for human, machine in overlap)
    # The human grades among the overlap pairs, by the judge's reading and the human's side of the threshold.
    counts = {(reading, side): [0.0] * len(GRADES) for reading in (False, True) for side in (False, True)}
    for human, machine in overlap:
        grade = min(human, TOP_GRADE)
        counts[(machine >= threshold, grade >= threshold)][grade] += 1
    readings = [r for query in queries for r in query.holes.values() if r is not None]
    read_yes = sum(readings)
    rng = random.Random(seed)
    lows, highs, middles = [], [], []
    for _ in range(draws):
        share, sensitivity, false_positive = drawn_share(rng, errors, read_yes, len(readings) - read_yes)
        chances = dict(zip((False, True), relevant_given_reading(share, sensitivity, false_positive)))
        shares = {
            reading: _shares(_within(rng, counts[(reading, True)], threshold, True),
                             _within(rng, counts[(reading, False)], threshold, False), chances[reading])
            for reading in (False, True)
        }  # fmt: skip
        low = high = middle = spec.others
        for query in queries:
            drawn = {key: _grade(rng, shares[r]) for key, r in query.holes.items() if r is not None}
            unread = [key for key, r in query.holes.items() if r is None]
            value = _value(spec, query, {**drawn, **dict.fromkeys(unread, 0)})
            if not unread:
                low, high, middle = low + value, high + value, middle + value
                continue
            other = _value(spec, query, {**drawn, **dict.fromkeys(unread, threshold)})
            low, high = low + min(value, other), high + max(value, other)
            guessed = {key: threshold if rng.random() < share else 0 for key in unread}
            middle += _value(spec, query, {**drawn, **guessed})
        lows.append(low / spec.queries)
        highs.append(high / spec.queries)
        middles.append(middle / spec.queries)
    lows.sort()
    highs.sort()
    middles.sort()
    low_end = lows[int(0.025 * (draws - 1))]
    high_end = highs[int(round(0.975 * (draws - 1)))]
    estimate = min(max(middles[draws // 2], low_end), high_end)
    return estimate, low_end, high_end


def _within(rng: random.Random, counts: Sequence[float], threshold: int, relevant: bool) -> list[float]:
    """The grade shares on one side of the threshold (zero on the other), drawn from their posterior."""
    side = [g for g in GRADES if (g >= threshold) == relevant]
    drawn = _posterior(rng, [counts[g] for g in side])
    shares = [0.0] * len(GRADES)
    for grade, value in zip(side, drawn):
        shares[grade] = value
    return shares


def _shares(relevant: Sequence[float], other: Sequence[float], chance: float) -> list[float]:
    """A hole's grade distribution: relevant with ``chance``, each side's grades in their shares."""
    return [chance * r + (1 - chance) * o for r, o in zip(relevant, other)]
