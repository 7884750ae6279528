"""The metric registry: every metric is declared here, once, as data.

Each metric scores one query from a :class:`RankedQuery` (the deduplicated
ranking already turned into gains and relevance flags) at a cutoff ``k``.
Definitions follow trec_eval where they coincide: precision divides by k even
when fewer than k keys came back; average precision divides by all relevant
labels (trec_eval's map_cut); nDCG's ideal ranking is built from every judged
label of the query.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# The cutoffs when none are given (the one place this default lives), and the metric a
# one-number summary uses: recall at the first cutoff given.
DEFAULT_CUTOFFS: tuple[int, ...] = (10,)


def primary_metric_at(cutoffs: Sequence[int]) -> str:
    return f"recall@{(cutoffs or DEFAULT_CUTOFFS)[0]}"


GAINS = ("exponential", "linear")


@dataclass(frozen=True)
class RankedQuery:
    """One query's ranking seen through its labels.

    ``gains`` and ``relevant`` run along the ranking (a key with no label has
    gain 0 and is not relevant); ``ideal`` holds the gains of the query's labels,
    largest first, at least as deep as the deepest cutoff scored; ``n_relevant``
    counts labels at or above the threshold.
    """

    gains: list[float]
    relevant: list[bool]
    ideal: Sequence[float]
    n_relevant: int


@dataclass(frozen=True)
class Metric:
    name: str
    description: str
    at_cutoff: bool
    compute: Callable[[RankedQuery, int], float]

    def label(self, k: int) -> str:
        return f"{self.name}@{k}" if self.at_cutoff else self.name


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


REGISTRY: tuple[Metric, ...] = (
    Metric("precision", "share of the top k that is relevant (divides by k)", True, _precision),
    Metric("recall", "share of the relevant labels found in the top k", True, _recall),
    Metric("ndcg", "discounted cumulative gain in the top k over the ideal ranking's", True, _ndcg),
    Metric("mrr", "reciprocal rank of the first relevant key within the top k", True, _reciprocal_rank),
    Metric("map", "average precision cut at k, over all relevant labels", True, _average_precision),
    Metric("hit_rate", "1 when any relevant key is in the top k, else 0", True, _hit_rate),
    Metric("r_precision", "precision at rank R, R being the number of relevant labels", False, _r_precision),
)
BY_NAME = {metric.name: metric for metric in REGISTRY}

# Measured over the whole set rather than per query, from whether each ranking is empty
# (computed in core/scoring.py; no score threshold anywhere). Reported only when the
# judgments mark a query no_answer.
SET_METRICS: dict[str, str] = {
    "abstention_rate": "share of no_answer queries whose ranking is empty or absent from the run",
    "false_abstention_rate": "share of scored (answerable) queries whose ranking is empty or absent",
}


def metric_names(ks: tuple[int, ...]) -> list[str]:
    """Every metric label a report holds for these cutoffs, in registry order."""
    names: list[str] = []
    for k in ks:
        names.extend(metric.label(k) for metric in REGISTRY if metric.at_cutoff)
    names.extend(metric.name for metric in REGISTRY if not metric.at_cutoff)
    return names


def gain_function(gain: str) -> Callable[[int], float]:
    if gain == "exponential":
        return lambda grade: float(2**grade - 1)
    if gain == "linear":
        return float
    raise ValueError(f"unknown gain {gain!r}")


@functools.lru_cache(maxsize=32)
def _plan(ks: tuple[int, ...]) -> tuple[tuple[str, Callable[[RankedQuery, int], float], int], ...]:
    """(label, compute, cutoff) for every value of a query, in report order, built once per cutoff list."""
    steps = [(metric.label(k), metric.compute, k) for k in ks for metric in REGISTRY if metric.at_cutoff]
    steps += [(metric.name, metric.compute, 0) for metric in REGISTRY if not metric.at_cutoff]
    return tuple(steps)


def score_query(query: RankedQuery, ks: tuple[int, ...]) -> dict[str, float]:
    return {label: compute(query, k) for label, compute, k in _plan(ks)}


def known_metric(name: str) -> bool:
    """True for ``recall@5``-style names of cutoff metrics and plain names of the others.

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
        return bool(sep) and is_positive_decimal(cutoff)
    return not sep


def is_positive_decimal(text: str) -> bool:
    """ASCII digits without a leading zero: what ``str`` of a positive int writes.

    ``str.isdigit`` alone also admits other scripts' digits and superscripts,
    which ``int`` reads differently or refuses.
    """
    return text.isascii() and text.isdigit() and text[0] != "0"


def describe_known() -> str:
    parts = [f"{m.name}@k" if m.at_cutoff else m.name for m in REGISTRY]
    return ", ".join([*parts, *SET_METRICS])
