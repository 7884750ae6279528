"""Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009) of ranked runs.

For each query, a key ``d`` scores

    score(d) = sum over the runs i that rank d of  w_i / (k + rank_i(d))

with ``rank_i(d)`` starting at 1 and counted over distinct keys (a key
listed again further down a ranking keeps its first rank, as the run readers
keep it). A run that does not list the query, or does not rank ``d``,
adds nothing, so a query present in only some runs is still fused from those.

Each score is the correctly rounded sum of its terms (``math.fsum``), which does
not depend on the order the terms arrive in, so two keys with the same terms in
another order score the same double. Keys are ordered by that exact value (never
rounded first: scaled weights or a large k make every score tiny, and rounding
would tie them all), and equal scores by key (code point order). The fused
ranking is then the same on every machine. Only what is written is rounded, to
:data:`SCORE_DECIMALS` decimals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from .numbers import parse_decimal

SCORE_DECIMALS = 12
DEFAULT_K = 60

Rankings = Mapping[str, Sequence[str]]


def parse_weights(text: str, runs: int) -> tuple[float, ...]:
    """``"1,0.5"`` -> (1.0, 0.5): one positive, finite number per run."""
    parts = [part.strip() for part in text.split(",")]
    weights: list[float] = []
    for part in parts:
        try:
            value = parse_decimal(part)
        except ValueError:
            raise ValueError(f"{part!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise ValueError(f"{part!r} is not a positive finite number")
        weights.append(value)
    if len(weights) != runs:
        raise ValueError(f"{len(weights)} weights for {runs} runs; give one weight per run")
    return tuple(weights)


def rrf_scores(rankings: Sequence[Sequence[str] | None], weights: Sequence[float], k: int) -> dict[str, float]:
    """One query's fused scores: ``rankings[i]`` is run i's ranking, None when the run lacks the query."""
    terms: dict[str, list[float]] = {}
    for ranking, weight in zip(rankings, weights):
        for rank, key in enumerate(dict.fromkeys(ranking or ()), 1):
            terms.setdefault(key, []).append(weight / (k + rank))
    return {key: math.fsum(values) for key, values in terms.items()}


def order_by_score(scores: Mapping[str, float], depth: int | None = None) -> list[str]:
    """Keys by exact score descending, then by key; the first ``depth``."""
    ordered = sorted(scores, key=lambda key: (-scores[key], key))
    return ordered if depth is None else ordered[:depth]


def fuse_rrf(
    runs: Sequence[Rankings],
    *,
    k: int = DEFAULT_K,
    weights: Sequence[float] | None = None,
    depth: int | None = None,
) -> dict[str, list[str]]:
    """Every query of any run, fused; queries in code point order."""
    if weights is None:
        weights = (1.0,) * len(runs)
    if len(weights) != len(runs):
        raise ValueError(f"{len(weights)} weights for {len(runs)} runs")
    if k < 0:
        raise ValueError("k must be at least 0")
    queries = sorted({query for run in runs for query in run})
    return {query: order_by_score(rrf_scores([run.get(query) for run in runs], weights, k), depth) for query in queries}
