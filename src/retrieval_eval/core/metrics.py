"""The metric registry: every metric is declared here, once, as data.

Each metric scores one query from a :class:`RankedQuery` (the deduplicated
ranking already turned into gains and relevance flags) at a cutoff ``k``.
Definitions follow trec_eval where they coincide: precision divides by k even
when fewer than k keys came back; average precision divides by all relevant
labels (trec_eval's map_cut); nDCG's ideal ranking is built from every judged
label of the query. Metrics without a cutoff, and the full-depth ones
(``-k all``), read the whole ranking kept (cutoff :data:`FULL`).

Every bounded metric also has a *lower* and an *upper bound* (:func:`bounds_query`).
The reported value counts every unjudged key as not relevant (trec_eval's
convention); the bounds are the smallest and largest values over every labeling
that gives each unjudged key in the top k grade 0 or the threshold grade (metrics
without a cutoff: every unjudged key of the ranking kept). A key labeled relevant
joins the query's labels, so it also grows recall's and AP's R, and nDCG's ideal
ranking gains a key of the threshold grade's gain (beside every label graded below
the threshold, which the ideal ranking always holds). For precision, recall, hit
rate and MRR more relevant keys never lower the value: the upper bound labels every
unjudged key in the top k relevant, the lower bound none. For nDCG and AP a key
labeled relevant can lower the value (R and the ideal grow too); among the labelings
with m of them relevant the m highest-ranked give the largest value and the m
lowest-ranked the smallest, so each bound is the extreme of u + 1 values (u unjudged
keys in the top k). A query with no relevant label yet is scored only under a
labeling that makes one of its keys relevant; its bounds range over those labelings
(see core/scoring.py for the mean). judged@k, bpref and R-precision have no bound
but their value: judged@k counts labels, not relevance; bpref skips unjudged keys by
design (a label can move it either way: a key labeled not relevant also enlarges the
number of non-relevant keys it divides by); R-precision's cutoff is R itself, which
new labels move below the depth of the ranking kept.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import truediv

# The cutoffs when none are given (the one place this default lives), and the metric a
# one-number summary uses: recall at the first cutoff given.
DEFAULT_CUTOFFS: tuple[int, ...] = (10,)


def primary_metric_at(cutoffs: Sequence[int]) -> str:
    return f"recall@{(cutoffs or DEFAULT_CUTOFFS)[0]}"


GAINS = ("exponential", "linear")
FULL = sys.maxsize  # the cutoff of a metric read over the whole ranking kept


@dataclass(frozen=True)
class RankedQuery:
    """One query's ranking seen through its labels.

    ``gains``, ``relevant`` and ``judged`` run along the ranking (a key with no
    label has gain 0 and is neither relevant nor judged; a key labeled 0 is
    judged); ``ideal`` holds the gains of the query's labels, largest first, at
    least as deep as the deepest cutoff scored; ``n_relevant`` counts labels at
    or above the threshold and ``n_nonrelevant`` those below it, grade 0
    included; ``flip_gain`` is the threshold grade's gain, which an unjudged key
    has when an upper bound counts it relevant.
    """

    gains: list[float]
    relevant: list[bool]
    ideal: Sequence[float]
    n_relevant: int
    judged: list[bool]
    n_nonrelevant: int = 0
    flip_gain: float = 1.0


# (query, k, positions of the unjudged keys in the top k, whether one must be labeled relevant) -> (lowest, highest)
Bounds = Callable[[RankedQuery, int, list[int], bool], tuple[float, float]]


@dataclass(frozen=True)
class Metric:
    """One metric. ``bounds`` computes its lowest and highest value over labelings from the
    positions of the unjudged keys in the top k (None: no bound but the value);
    ``full_depth``: also computed over the whole ranking with ``-k all``, named without a
    cutoff; ``trec_eval``: the name trec_eval (or ir_measures) gives it; ``whole_ranking``:
    computed only with ``-k all``."""

    name: str
    description: str
    at_cutoff: bool
    compute: Callable[[RankedQuery, int], float]
    bounds: Bounds | None = None
    full_depth: bool = False
    trec_eval: str = ""
    # Read over the whole ranking only: computed with -k all alone, where rankings are kept
    # whole (a ranking cut at max(k, R) would give another number under trec_eval's name).
    whole_ranking: bool = False

    def label(self, k: int) -> str:
        return f"{self.name}@{k}" if self.at_cutoff and k != FULL else self.name


def _precision(q: RankedQuery, k: int) -> float:
    return sum(q.relevant[:k]) / k


def _recall(q: RankedQuery, k: int) -> float:
    return sum(q.relevant[:k]) / q.n_relevant


def _hit_rate(q: RankedQuery, k: int) -> float:
    return 1.0 if any(q.relevant[:k]) else 0.0


def _reciprocal_rank(q: RankedQuery, k: int) -> float:
    for rank, is_relevant in enumerate(q.relevant[:k], 1):
        if is_relevant:
            return 1.0 / rank
    return 0.0


def _average_precision(q: RankedQuery, k: int) -> float:
    hits = 0
    total = 0.0
    for rank, is_relevant in enumerate(q.relevant[:k], 1):
        if is_relevant:
            hits += 1
            total += hits / rank
    return total / q.n_relevant


def _dcg(gains: Sequence[float]) -> float:
    # gain / log2(rank + 1) at each rank, summed in rank order: the divisors come from a table
    # (the same floats math.log2 gives), and a zero gain adds 0.0, which leaves any sum as it is.
    total: float = sum(map(truediv, gains, _log2_ranks(len(gains))))
    return total


@functools.lru_cache(maxsize=64)
def _log2_ranks(depth: int) -> tuple[float, ...]:
    """log2(rank + 1) for ranks 1..depth, the divisors of nDCG's gains."""
    return tuple(math.log2(rank + 1) for rank in range(1, depth + 1))


def _ndcg(q: RankedQuery, k: int) -> float:
    ideal = _dcg(q.ideal[:k])
    return _dcg(q.gains[:k]) / ideal if ideal > 0 else 0.0


def _r_precision(q: RankedQuery, _k: int) -> float:
    return sum(q.relevant[: q.n_relevant]) / q.n_relevant


def _judged(q: RankedQuery, k: int) -> float:
    """ir_measures' Judged@k: over the keys in the top k, so a short ranking is not
    penalised for what it did not return; 0 for an empty ranking."""
    top = q.judged[:k]
    return sum(top) / len(top) if top else 0.0


def _bpref(q: RankedQuery, _k: int) -> float:
    """trec_eval's bpref: unjudged keys are skipped; a relevant key scores 1 less the share
    of judged non-relevant keys above it (at most R of them count, over min(R, N))."""
    pairs = min(q.n_nonrelevant, q.n_relevant)
    above = 0
    total = 0.0
    for is_relevant, is_judged in zip(q.relevant, q.judged):
        if is_relevant:
            total += 1.0 - min(above, q.n_relevant) / pairs if above else 1.0
        elif is_judged:
            above += 1
    return total / q.n_relevant


# -- bounds (see the module docstring) ------------------------------------------------------
#
# A bound function takes the query, the cutoff, the positions of the unjudged keys in the top
# k (at least one) and whether at least one of them must be labeled relevant (a query with
# no relevant label yet is scored only then), and returns (lowest, highest) over labelings.


def _bounds_precision(q: RankedQuery, k: int, unjudged: list[int], one: bool) -> tuple[float, float]:
    # More relevant keys never lower precision, recall, hit rate or MRR: the highest value
    # labels every unjudged key in the top k relevant, the lowest none, or, when one must be
    # (a query with no relevant label yet), the lowest-ranked one.
    hits = sum(q.relevant[:k])
    return (hits + one) / k, (hits + len(unjudged)) / k


def _bounds_recall(q: RankedQuery, k: int, unjudged: list[int], one: bool) -> tuple[float, float]:
    hits = sum(q.relevant[:k])
    return (hits + one) / (q.n_relevant + one), (hits + len(unjudged)) / (q.n_relevant + len(unjudged))


def _bounds_hit_rate(q: RankedQuery, k: int, _unjudged: list[int], one: bool) -> tuple[float, float]:
    return (1.0 if one else _hit_rate(q, k)), 1.0


def _bounds_reciprocal_rank(q: RankedQuery, k: int, unjudged: list[int], one: bool) -> tuple[float, float]:
    value = _reciprocal_rank(q, k)
    low = max(value, 1.0 / (unjudged[-1] + 1)) if one else value
    return low, max(value, 1.0 / (unjudged[0] + 1))


def _extremes(top: list[float], bottom: list[float], denominators: list[float], first: int) -> tuple[float, float]:
    """The lowest of ``bottom[m] / denominators[m]`` and the highest of ``top[m] / denominators[m]``
    over m = first..u: for each number m of keys labeled relevant, the m lowest-ranked give the
    smallest value and the m highest-ranked the largest (a zero denominator: the value 0)."""
    low = high = None
    for m in range(first, len(top)):
        denominator = denominators[m]
        a = bottom[m] / denominator if denominator > 0 else 0.0
        b = top[m] / denominator if denominator > 0 else 0.0
        low = a if low is None or a < low else low
        high = b if high is None or b > high else high
    assert low is not None and high is not None  # called with at least one unjudged key
    return low, high


def _bounds_average_precision(q: RankedQuery, k: int, unjudged: list[int], one: bool) -> tuple[float, float]:
    # For a given number m of keys labeled relevant, R is R + m whichever they are, and moving
    # one of them to a lower unjudged position lowers the sum of precisions (its own precision
    # falls, and every relevant key it passes loses one hit above it, worth more than the gain
    # in its own count): the m highest give the largest value, the m lowest the smallest.
    # Each sum is built one key at a time from suffix sums, so every m costs O(1).
    relevant = q.relevant[:k]
    above = [0] * len(relevant)  # relevant keys above each position
    below = [0.0] * (len(relevant) + 1)  # sum of 1/rank of the relevant keys below each position
    hits = 0
    plain = 0.0
    for position, is_relevant in enumerate(relevant):
        above[position] = hits
        if is_relevant:
            hits += 1
            plain += hits / (position + 1)
    for position in range(len(relevant) - 1, -1, -1):
        below[position] = below[position + 1] + (1 / (position + 1) if relevant[position] else 0.0)
    top = [plain]  # the sum with the m highest unjudged keys relevant
    for m, position in enumerate(unjudged, 1):
        top.append(top[-1] + (above[position] + m) / (position + 1) + below[position + 1])
    bottom = [plain]  # the sum with the m lowest relevant
    flipped_below = 0.0
    for position in reversed(unjudged):
        own = (above[position] + 1) / (position + 1)
        bottom.append(bottom[-1] + own + below[position + 1] + flipped_below)
        flipped_below += 1 / (position + 1)

    denominators = [float(q.n_relevant + m) for m in range(len(unjudged) + 1)]
    return _extremes(top, bottom, denominators, 1 if one else 0)


def _bounds_ndcg(q: RankedQuery, k: int, unjudged: list[int], one: bool) -> tuple[float, float]:
    # The ideal ranking depends only on how many keys are labeled relevant (m more keys of
    # the threshold grade's gain); the DCG is largest with the m highest, smallest with the
    # m lowest.
    gain = q.flip_gain
    discount = _discounts(k if k != FULL else max(len(q.gains), len(q.ideal) + len(unjudged), 1))
    dcg = cumulative_gain(q.gains[:k], discount)
    top, bottom = [dcg], [dcg]
    for position in unjudged:
        top.append(top[-1] + gain * discount[position])
    for position in reversed(unjudged):
        bottom.append(bottom[-1] + gain * discount[position])
    depth = len(discount)
    ideal = q.ideal[:depth]
    above = sum(1 for g in ideal if g >= gain)  # the ideal is sorted: these come first
    head = cumulative_gain(ideal[:above], discount)
    tail = ideal[above:]
    cumulative = _cumulative_discounts(depth)

    def ideal_dcg(m: int) -> float:
        # The labels at or above the gain, then m keys of the gain, then the rest shifted by m.
        added = head + gain * (cumulative[min(above + m, depth)] - cumulative[above])
        if not tail:  # the usual case (threshold 1): nothing to shift
            return added
        return added + sum(g * discount[j + m] for j, g in enumerate(tail, above) if j + m < depth)

    ideals = [ideal_dcg(m) for m in range(len(unjudged) + 1)]
    return _extremes(top, bottom, ideals, 1 if one else 0)


def cumulative_gain(gains: Sequence[float], discount: Sequence[float]) -> float:
    return sum(g * d for g, d in zip(gains, discount) if g)


@functools.lru_cache(maxsize=64)
def _discounts(depth: int) -> tuple[float, ...]:
    """1 / log2(rank + 1) for ranks 1..depth, as nDCG discounts them."""
    return tuple(1.0 / math.log2(rank + 1) for rank in range(1, depth + 1))


@functools.lru_cache(maxsize=64)
def _cumulative_discounts(depth: int) -> tuple[float, ...]:
    """Prefix sums of :func:`_discounts`: element i sums the first i discounts."""
    sums = [0.0]
    for value in _discounts(depth):
        sums.append(sums[-1] + value)
    return tuple(sums)


REGISTRY: tuple[Metric, ...] = (
    Metric(
        "precision",
        "share of the top k that is relevant (divides by k)",
        True,
        _precision,
        _bounds_precision,
        False,
        "P",
    ),
    Metric("recall", "share of the relevant labels found in the top k", True, _recall, _bounds_recall, False, "recall"),
    Metric(
        "ndcg",
        "discounted cumulative gain in the top k over the ideal ranking's",
        True,
        _ndcg,
        _bounds_ndcg,
        True,
        "ndcg_cut (full depth: ndcg)",
    ),
    Metric(
        "mrr",
        "reciprocal rank of the first relevant key within the top k",
        True,
        _reciprocal_rank,
        _bounds_reciprocal_rank,
        True,
        "recip_rank",
    ),
    Metric(
        "map",
        "average precision cut at k, over all relevant labels",
        True,
        _average_precision,
        _bounds_average_precision,
        True,
        "map_cut (full depth: map)",
    ),
    Metric(
        "hit_rate",
        "1 when any relevant key is in the top k, else 0",
        True,
        _hit_rate,
        _bounds_hit_rate,
        False,
        "success",
    ),
    Metric(
        "r_precision",
        "precision at rank R, R being the number of relevant labels",
        False,
        _r_precision,
        trec_eval="Rprec",
    ),
    Metric(
        "judged",
        "share of the keys in the top k that carry a label for the query, grade 0 included",
        True,
        _judged,
        trec_eval="ir_measures' Judged@k",
    ),
    Metric(
        "bpref",
        "share of preferences kept: relevant keys above judged non-relevant ones; unjudged keys skipped",
        False,
        _bpref,
        trec_eval="bpref",
        whole_ranking=True,
    ),
)
BY_NAME = {metric.name: metric for metric in REGISTRY}

# Measured over the whole set rather than per query, from whether each ranking is empty
# (computed in core/scoring.py; no score threshold anywhere). Reported only when the
# judgments mark a query no_answer.
ABSTENTION_RATE, FALSE_ABSTENTION_RATE = "abstention_rate", "false_abstention_rate"
SET_METRICS: dict[str, str] = {
    ABSTENTION_RATE: "share of no_answer queries whose ranking is empty or absent from the run",
    FALSE_ABSTENTION_RATE: "share of scored (answerable) queries whose ranking is empty or absent",
}
# The one metric where less is better: a gate on it is an "at most" (false_abstention_rate:<=0.02).
LOWER_IS_BETTER = frozenset({FALSE_ABSTENTION_RATE})


def metric_names(ks: tuple[int, ...], full_depth: bool = False) -> list[str]:
    """Every metric label a report holds for these cutoffs, in registry order."""
    return [step[0] for step in _plan(ks, full_depth)]


def gain_function(gain: str) -> Callable[[int], float]:
    if gain == "exponential":
        return lambda grade: float(2**grade - 1)
    if gain == "linear":
        return float
    raise ValueError(f"unknown gain {gain!r}")


Step = tuple[str, Callable[[RankedQuery, int], float], int, "Bounds | None"]


@functools.lru_cache(maxsize=32)
def _plan(ks: tuple[int, ...], full_depth: bool = False) -> tuple[Step, ...]:
    """(label, compute, cutoff, bounds) for every value of a query, in report order, built once per cutoff list."""
    steps: list[Step] = [
        (metric.label(k), metric.compute, k, metric.bounds) for k in ks for metric in REGISTRY if metric.at_cutoff
    ]
    if full_depth:
        steps += [(m.name, m.compute, FULL, m.bounds) for m in REGISTRY if m.at_cutoff and m.full_depth]
    steps += [
        (metric.name, metric.compute, FULL, metric.bounds)
        for metric in REGISTRY
        if not metric.at_cutoff and (full_depth or not metric.whole_ranking)
    ]
    return tuple(steps)


def score_query(query: RankedQuery, ks: tuple[int, ...], full_depth: bool = False) -> dict[str, float]:
    return {label: compute(query, k) for label, compute, k, _ in _plan(ks, full_depth)}


Compute = Callable[[RankedQuery, int], float]


class ValuesOnDemand(dict[str, float]):
    """A query's values (:func:`score_query`'s), each computed the first time it is read.

    :func:`bounds_query` reads a metric's value only where no unjudged key lies in its
    top k; a caller that wants the bounds alone hands it this instead of every value,
    and gets the same bounds: each value read is the very float ``score_query`` computes.
    """

    def __init__(self, query: RankedQuery, ks: tuple[int, ...], full_depth: bool = False) -> None:
        super().__init__()
        self._query = query
        self._steps = _steps_by_label(ks, full_depth)

    def __missing__(self, label: str) -> float:
        compute, k = self._steps[label]
        value = self[label] = compute(self._query, k)
        return value


@functools.lru_cache(maxsize=32)
def _steps_by_label(ks: tuple[int, ...], full_depth: bool) -> dict[str, tuple[Compute, int]]:
    return {label: (compute, k) for label, compute, k, _ in _plan(ks, full_depth)}


@dataclass(frozen=True)
class QueryBounds:
    """One query's bounds, per metric label: the lowest and highest value over labelings."""

    lower: dict[str, float]
    upper: dict[str, float]


def bounds_query(
    query: RankedQuery, values: dict[str, float] | None, ks: tuple[int, ...], full_depth: bool = False
) -> QueryBounds | None:
    """The bounds of every metric that has one, or None when every key of the ranking is
    judged (each bound is then the value itself). ``values`` are the query's values, from
    :func:`score_query`; None for a query with no relevant label yet, whose bounds range
    over the labelings that make it scored (one key at least labeled relevant) and cover
    only the metrics with an unjudged key in their top k. A metric without a bound is left out."""
    if all(query.judged):
        return None
    unjudged = [position for position, judged in enumerate(query.judged) if not judged]
    lower: dict[str, float] = {}
    upper: dict[str, float] = {}
    for label, _, k, bounds in _plan(ks, full_depth):
        if bounds is None:
            continue  # no bound but the value: the reader falls back to it
        top = unjudged if k >= len(query.judged) else [p for p in unjudged if p < k]
        if top:
            lower[label], upper[label] = bounds(query, k, top, values is None)
        elif values is not None:
            lower[label] = upper[label] = values[label]
    return QueryBounds(lower, upper)


def known_metric(name: str) -> bool:
    """True for ``recall@5``-style names of cutoff metrics and plain names of the others
    (and of the full-depth ones, computed with ``-k all``).

    The cutoff must be written as reports write it (ASCII digits, no leading
    zero): ``recall@05`` would name a metric no report holds.
    """
    if name in SET_METRICS:
        return True
    base, sep, cutoff = name.partition("@")
    metric = BY_NAME.get(base)
    if metric is None:
        return False
    if metric.at_cutoff:
        return is_positive_decimal(cutoff) if sep else metric.full_depth
    return not sep


def is_positive_decimal(text: str) -> bool:
    """ASCII digits without a leading zero: what ``str`` of a positive int writes.

    ``str.isdigit`` alone also admits other scripts' digits and superscripts,
    which ``int`` reads differently or refuses.
    """
    return text.isascii() and text.isdigit() and text[0] != "0"


def describe_known() -> str:
    parts = [f"{m.name}@k" if m.at_cutoff else m.name for m in REGISTRY if not m.whole_ranking]
    parts += [f"{m.name} (-k all)" for m in REGISTRY if m.full_depth or m.whole_ranking]
    return ", ".join([*parts, *SET_METRICS])
