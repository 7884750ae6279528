"""The machine-filled interval for any metric: draws of the holes' grades, calibrated on the overlap.

:mod:`.judge_interval` is exact in form for metrics that add up over keys. nDCG, recall,
MRR and MAP do not (a relevant hole also raises the ideal ranking, or hides the next one),
so their interval is drawn instead. Each draw:

1. for each judge reading ``r`` (relevant or not), the human grade distribution among the
   overlap pairs the judge read as ``r`` is drawn from its posterior (Dirichlet, with a
   half count per grade): the rectifier's uncertainty;
2. each hole's grade is drawn from its reading's distribution: the holes' own chance;
3. holes without a usable reading are counted twice, not relevant and at the threshold
   grade, and the query keeps the lower of the two values for the low end and the higher
   for the high end (a relevant hole can lower nDCG: it raises the ideal ranking more than
   the ranking when it sits low, so neither count is the worst for every metric);
4. the metric's mean is computed from the query's labels plus the drawn grades.

The interval is the 2.5th percentile of the low ends to the 97.5th of the high ends; the
estimate is the median of the draws with unread holes at the overlap's relevant share.
The interval is not clipped to the bounds of the ``bounded`` policy: for nDCG the true value
can lie below the value with every hole counted not relevant (item 3). A seeded generator
makes a report reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .judge import GRADES, TOP_GRADE
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
    counts = {reading: [0.0] * len(GRADES) for reading in (False, True)}
    for human, machine in overlap:
        counts[machine >= spec.threshold][min(human, TOP_GRADE)] += 1
    base_rate = sum(h >= spec.threshold for h, _ in overlap) / len(overlap) if overlap else 0.5
    rng = random.Random(seed)
    lows, highs, middles = [], [], []
    for _ in range(draws):
        shares = {reading: _posterior(rng, counts[reading]) for reading in (False, True)}
        low = high = middle = spec.others
        for query in queries:
            drawn = {key: _grade(rng, shares[r]) for key, r in query.holes.items() if r is not None}
            unread = [key for key, r in query.holes.items() if r is None]
            value = _value(spec, query, {**drawn, **dict.fromkeys(unread, 0)})
            if not unread:
                low, high, middle = low + value, high + value, middle + value
                continue
            other = _value(spec, query, {**drawn, **dict.fromkeys(unread, spec.threshold)})
            low, high = low + min(value, other), high + max(value, other)
            guessed = {key: spec.threshold if rng.random() < base_rate else 0 for key in unread}
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
