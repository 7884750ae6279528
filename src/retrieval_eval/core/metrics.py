"""The metric registry: every metric is declared here, once, as data.

Each metric scores one query from a :class:`RankedQuery` (the deduplicated
ranking already turned into gains and relevance flags) at a cutoff ``k``.
Definitions follow trec_eval where they coincide: precision divides by k even
when fewer than k keys came back; average precision divides by all relevant
labels (trec_eval's map_cut); nDCG's ideal ranking is built from every judged
label of the query. Metrics without a cutoff, and the full-depth ones
(``-k all``), read the whole ranking kept (cutoff :data:`FULL`).

Every metric also has an *upper bound* (:func:`upper_query`). The reported
value counts every unjudged key as not relevant (trec_eval's convention); the
upper bound is the largest value over every labeling that gives each unjudged
key in the top k grade 0 or the threshold grade (metrics without a cutoff: every
unjudged key of the ranking kept). A key labeled relevant joins the query's
labels, so it also grows recall's and AP's R, and nDCG's ideal ranking gains a
key of the threshold grade's gain. For precision, recall, hit rate and MRR more
relevant keys never lower the value, so the bound labels every unjudged key in
the top k relevant. For nDCG and AP they can (R and the ideal grow too); among
the labelings with m of them relevant the best one labels the m highest-ranked,
so the bound is the largest of those u + 1 values (u unjudged keys in the top
k). judged@k, bpref and R-precision have no bound but their value: judged@k
counts labels, not relevance; bpref skips unjudged keys by design (a label can
move it either way: a key labeled not relevant also enlarges the number of
non-relevant keys it divides by); R-precision's cutoff is R itself, which new
labels move below the depth of the ranking kept.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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


Upper = Callable[[RankedQuery, int, list[int]], float]  # (query, k, positions of the unjudged keys in the top k)


@dataclass(frozen=True)
class Metric:
    """One metric. ``upper`` computes its upper bound from the positions of the unjudged
    keys in the top k (None: the value does not depend on relevance, the bound is the
    value); ``full_depth``: also computed over the whole ranking with ``-k all``, named
    without a cutoff; ``trec_eval``: the name trec_eval (or ir_measures) gives it."""

    name: str
    description: str
    at_cutoff: bool
    compute: Callable[[RankedQuery, int], float]
    upper: Upper | None = None
    full_depth: bool = False
    trec_eval: str = ""

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
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, 1) if gain)


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


# -- upper bounds (see the module docstring) ------------------------------------------------


def _upper_precision(q: RankedQuery, k: int, unjudged: list[int]) -> float:
    return (sum(q.relevant[:k]) + len(unjudged)) / k


def _upper_recall(q: RankedQuery, k: int, unjudged: list[int]) -> float:
    return (sum(q.relevant[:k]) + len(unjudged)) / (q.n_relevant + len(unjudged))


def _upper_hit_rate(_q: RankedQuery, _k: int, _unjudged: list[int]) -> float:
    return 1.0  # called only with an unjudged key in the top k


def _upper_reciprocal_rank(q: RankedQuery, k: int, unjudged: list[int]) -> float:
    return max(1.0 / (unjudged[0] + 1), _reciprocal_rank(q, k))


def _upper_average_precision(q: RankedQuery, k: int, unjudged: list[int]) -> float:
    # With the first m unjudged keys relevant, a relevant key at rank p counts the relevant
    # keys above it plus min(m, unjudged keys above it); the i-th flipped key counts the
    # relevant keys above it plus i. One pass gathers both, then every m is arithmetic.
    relevant: list[tuple[int, int]] = []  # (rank, unjudged keys above it) of each relevant key
    flipped: list[float] = []  # each unjudged key's precision when it and those above it are relevant
    hits = seen = 0
    plain = 0.0  # the sum of precisions as scored
    for rank, (is_relevant, is_judged) in enumerate(zip(q.relevant[:k], q.judged[:k]), 1):
        if is_relevant:
            hits += 1
            plain += hits / rank
            relevant.append((rank, seen))
        elif not is_judged:
            seen += 1
            flipped.append((hits + seen) / rank)
    best = plain / q.n_relevant
    total = plain
    for m in range(1, len(unjudged) + 1):
        total += flipped[m - 1]
        for rank, above in relevant:
            if above >= m:  # one more flipped key above it
                total += 1 / rank
        value = total / (q.n_relevant + m)
        if value > best:
            best = value
    return best


def _upper_ndcg(q: RankedQuery, k: int, unjudged: list[int]) -> float:
    # The ideal ranking with m more keys of the flip gain: the labels' gains at or above it,
    # then the m new keys, then the rest shifted down by m, cut at k. Only that shifted tail
    # needs a loop per m; the rest is prefix sums of the discounts.
    gain = q.flip_gain
    ideal = q.ideal[:k]
    gains = q.gains[:k]
    depth = min(k, max(len(gains), len(ideal) + len(unjudged)))
    discount = _discounts(depth)
    cumulative = _cumulative_discounts(depth)
    above = 0
    while above < len(ideal) and ideal[above] >= gain:
        above += 1
    rest = ideal[above:]
    top = cumulative_gain(ideal[:above], discount)
    dcg = cumulative_gain(gains, discount)
    best = dcg / top if top > 0 else 0.0
    start = cumulative[above]
    for m, position in enumerate(unjudged, 1):
        dcg += gain * discount[position]
        ideal_dcg = top + gain * (cumulative[min(above + m, depth)] - start)
        if rest:
            ideal_dcg += sum(g * discount[j + m] for j, g in enumerate(rest, above) if j + m < depth)
        value = dcg / ideal_dcg
        if value > best:
            best = value
    return best


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
        _upper_precision,
        False,
        "P",
    ),
    Metric("recall", "share of the relevant labels found in the top k", True, _recall, _upper_recall, False, "recall"),
    Metric(
        "ndcg",
        "discounted cumulative gain in the top k over the ideal ranking's",
        True,
        _ndcg,
        _upper_ndcg,
        True,
        "ndcg_cut (full depth: ndcg)",
    ),
    Metric(
        "mrr",
        "reciprocal rank of the first relevant key within the top k",
        True,
        _reciprocal_rank,
        _upper_reciprocal_rank,
        True,
        "recip_rank",
    ),
    Metric(
        "map",
        "average precision cut at k, over all relevant labels",
        True,
        _average_precision,
        _upper_average_precision,
        True,
        "map_cut (full depth: map)",
    ),
    Metric(
        "hit_rate",
        "1 when any relevant key is in the top k, else 0",
        True,
        _hit_rate,
        _upper_hit_rate,
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
    ),
)
BY_NAME = {metric.name: metric for metric in REGISTRY}

# Measured over the whole set rather than per query, from whether each ranking is empty
# (computed in core/scoring.py; no score threshold anywhere). Reported only when the
# judgments mark a query no_answer.
SET_METRICS: dict[str, str] = {
    "abstention_rate": "share of no_answer queries whose ranking is empty or absent from the run",
    "false_abstention_rate": "share of scored (answerable) queries whose ranking is empty or absent",
}


def metric_names(ks: tuple[int, ...], full_depth: bool = False) -> list[str]:
    """Every metric label a report holds for these cutoffs, in registry order."""
    return [step[0] for step in _plan(ks, full_depth)]


def gain_function(gain: str) -> Callable[[int], float]:
    if gain == "exponential":
        return lambda grade: float(2**grade - 1)
    if gain == "linear":
        return float
    raise ValueError(f"unknown gain {gain!r}")


Step = tuple[str, Callable[[RankedQuery, int], float], int, "Upper | None"]


@functools.lru_cache(maxsize=32)
def _plan(ks: tuple[int, ...], full_depth: bool = False) -> tuple[Step, ...]:
    """(label, compute, cutoff, upper) for every value of a query, in report order, built once per cutoff list."""
    steps: list[Step] = [
        (metric.label(k), metric.compute, k, metric.upper) for k in ks for metric in REGISTRY if metric.at_cutoff
    ]
    if full_depth:
        steps += [(m.name, m.compute, FULL, m.upper) for m in REGISTRY if m.at_cutoff and m.full_depth]
    steps += [(metric.name, metric.compute, FULL, metric.upper) for metric in REGISTRY if not metric.at_cutoff]
    return tuple(steps)


def score_query(query: RankedQuery, ks: tuple[int, ...], full_depth: bool = False) -> dict[str, float]:
    return {label: compute(query, k) for label, compute, k, _ in _plan(ks, full_depth)}


def upper_query(
    query: RankedQuery, values: dict[str, float], ks: tuple[int, ...], full_depth: bool = False
) -> dict[str, float] | None:
    """The upper bound of every metric that has one, or None when every key of the ranking is
    judged (each bound is then the value itself). ``values`` are the query's values, from
    :func:`score_query`; a metric without a bound (``upper`` None) is left out."""
    if all(query.judged):
        return None
    unjudged = [position for position, judged in enumerate(query.judged) if not judged]
    within: dict[int, list[int]] = {}  # the unjudged positions in the top k, by k
    uppers = {}
    for label, _, k, upper in _plan(ks, full_depth):
        if upper is None:
            continue  # no bound but the value: the reader falls back to it
        top = within.get(k)
        if top is None:
            top = within[k] = unjudged if k >= len(query.judged) else [p for p in unjudged if p < k]
        uppers[label] = upper(query, k, top) if top else values[label]
    return uppers


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
    parts = [f"{m.name}@k" if m.at_cutoff else m.name for m in REGISTRY]
    parts += [f"{m.name} (-k all)" for m in REGISTRY if m.full_depth]
    return ", ".join([*parts, *SET_METRICS])
