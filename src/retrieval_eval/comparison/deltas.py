"""Each metric's base, head and delta, with the paired bootstrap's interval and significance.

Base and head are the reports' own numbers when the paired queries are
exactly what both averaged over, so the comparison repeats them to the last
digit; otherwise both are means over the paired queries, so base, head and
delta always describe the same queries.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

from ..core.comparison import difference
from ..core.comparison_document import Holm, MetricRow, SignificanceMethod, StratumRow
from ..core.metrics import ABSTENTION_RATE, FALSE_ABSTENTION_RATE
from ..core.precision import DECIMALS
from ..core.significance import (
    CONFIDENCE,
    RESAMPLES_PER_BLOCK,
    BlockMap,
    Bootstrap,
    holm,
    paired_bootstrap_with_subsets,
)
from .sides import Pairing, Sides, deterministic, metric_names
from .yardstick import Yardstick


def metric_rows(
    sides: Sides,
    pairing: Pairing,
    yardstick: Yardstick,
    *,
    resamples: int,
    seed: int,
    map_blocks: BlockMap = map,
    boots: Mapping[str, Bootstrap] | None = None,
) -> dict[str, MetricRow]:
    """Every metric's row; ``boots`` when the caller bootstrapped already (with strata: ``bootstrap_all``)."""
    names = metric_names(sides)
    if boots is None:
        boots, _ = bootstrap_all(
            pairing, scored_per_query(sides), resamples=resamples, seed=seed, map_blocks=map_blocks
        )
    rows = {}
    for metric in names:
        confounded = yardstick.confounded.get(metric) or yardstick.confounded.get("*")
        values = point_values(sides, pairing, metric, rescored=yardstick.rescored)
        rate = metric in (ABSTENTION_RATE, FALSE_ABSTENTION_RATE)
        if rate and values[0] is None and values[1] is not None and sides.base.measured(metric) is not None:
            confounded = confounded or _OTHER_QUERIES.format(metric=metric)
        rows[metric] = metric_row(values, boots.get(metric), confounded)
    return adjust_family(rows)


Row = TypeVar("Row", MetricRow, StratumRow)


def adjust_family(rows: Mapping[str, Row]) -> dict[str, Row]:
    """Adds Holm's adjusted p-value over the rows that show a test (a p-value, not confounded).

    ``p_value`` and ``significant`` stay the row's own test; ``p_adjusted`` and
    ``significant_adjusted`` (adjusted p at most 1 - confidence) account for the
    others shown beside it. Rows without a test get None.
    """
    family = {name: p for name, row in rows.items() if (p := _tested(row)) is not None}
    adjusted = holm(family)
    level = round(1.0 - CONFIDENCE, DECIMALS)
    return {
        name: replace(row, holm=Holm(p, None if p is None else p <= level))
        for name, row in rows.items()
        for p in (adjusted.get(name),)
    }


def _tested(row: MetricRow | StratumRow) -> float | None:
    """The row's own p-value when it shows a test (a confounded delta shows none)."""
    if isinstance(row, MetricRow):
        return None if row.confounded else row.p_value
    return None if row.test is None else row.test.p_value


def point_values(sides: Sides, pairing: Pairing, metric: str, *, rescored: bool) -> tuple[float | None, float | None]:
    """Base and head values of one metric (see the module's note). A rescored base has no
    number of its own beyond what was rescored."""
    if pairing.base is None or pairing.head is None:
        return sides.base.measured(metric), sides.head.measured(metric)
    whole = not pairing.added and not pairing.removed and not rescored
    if whole or not pairing.ids and not rescored:
        return sides.base.measured(metric), sides.head.measured(metric)
    if not pairing.ids:
        return None, sides.head.measured(metric)
    if not any(metric in pairing.head[q] for q in pairing.ids):
        # A share of the queries with no per-query value (the abstention rates): the head's own
        # figure stands, and the base's where the judgments changed nothing it counts.
        return (
            sides.base.measured(metric) if _base_rate_stands(sides, pairing, metric) else None
        ), sides.head.measured(metric)
    return _mean(pairing, pairing.base, metric), _mean(pairing, pairing.head, metric)


# Why a figure the base report holds has no delta: it counts other queries than the head's judgments do.
_OTHER_QUERIES = (
    "the base report's {metric} counts other queries than the head's judgments do (queries marked "
    "no_answer, or scored, changed), and the base run cannot be counted again over them"
)


def _base_rate_stands(sides: Sides, pairing: Pairing, metric: str) -> bool:
    """Whether the base report's own abstention rate is what the head's judgments would give it.

    An abstention rate reads only which queries the base run left empty, over a set the
    judgments decide: the queries marked no_answer (``abstention_rate``) or the scored ones
    (``false_abstention_rate``). The base run is the base's whatever the labels say, so where
    that set is the same on both sides, a label edit or a re-chunk moves nothing it counts."""
    if metric == ABSTENTION_RATE:
        base, head = sides.base.queries, sides.head.queries
        if base is None or head is None or base.no_answer is None or head.no_answer is None:
            return False
        return set(base.no_answer) == set(head.no_answer)
    if metric == FALSE_ABSTENTION_RATE:
        return not pairing.added and not pairing.removed
    return False


def _mean(pairing: Pairing, side: dict[str, dict[str, float]], metric: str) -> float | None:
    values = [side[q][metric] for q in pairing.ids if metric in side[q]]
    if len(values) != len(pairing.ids):
        return None
    return round(math.fsum(values) / len(values), DECIMALS)


def scored_per_query(sides: Sides) -> list[str]:
    """The metrics both reports hold per query (a judged metric's samples are not)."""
    return [m for m in metric_names(sides) if deterministic(sides.head, m) and deterministic(sides.base, m)]


def bootstrap_all(
    pairing: Pairing,
    names: Sequence[str],
    *,
    resamples: int,
    seed: int,
    map_blocks: BlockMap = map,
    strata: Mapping[str, tuple[str, Collection[str]]] | None = None,
) -> tuple[dict[str, Bootstrap], dict[str, Bootstrap]]:
    """One paired bootstrap for every metric each paired query has on both sides, and from the same
    resamples each stratum's (name -> (metric, members)) when that metric is among them
    (``map_blocks`` draws the resamples: see :class:`~retrieval_eval.core.significance.BlockMap`)."""
    if not pairing.available:
        return {}, {}
    assert pairing.base is not None and pairing.head is not None
    base = {q: pairing.base[q] for q in pairing.ids}
    head = {q: pairing.head[q] for q in pairing.ids}
    rows = list(zip(base.values(), head.values()))
    usable = [m for m in names if all(m in before and m in after for before, after in rows)]
    subsets = {name: pair for name, pair in (strata or {}).items() if pair[0] in usable}
    return paired_bootstrap_with_subsets(
        base, head, usable, subsets, resamples=resamples, seed=seed, map_blocks=map_blocks
    )


def metric_row(values: tuple[float | None, float | None], boot: Bootstrap | None, confounded: str | None) -> MetricRow:
    base, head = values
    delta = difference(base, head)
    row = MetricRow(base, head, delta, n=boot.n if boot else None, confounded=confounded)
    if boot is not None and delta is not None:
        row = replace(row, ci=(boot.low, boot.high), p_value=boot.p_value, significant=boot.significant)
    return row


def method(pairing: Pairing, *, resamples: int, seed: int) -> SignificanceMethod:
    """How significance was computed, for the document (and for anyone repeating it)."""
    return SignificanceMethod(
        name="paired bootstrap over queries",
        resamples=resamples,
        seed=seed,
        draws=f"blocks of {RESAMPLES_PER_BLOCK} resamples, block k from random.Random('{{seed}}:{{k}}')",
        confidence=CONFIDENCE,
        interval="percentile, linear interpolation between order statistics",
        p_value="two-sided, (r + 1) / (B + 1)",
        adjustment="Holm-Bonferroni over the metrics tested; separately over the strata (p_adjusted)",
        strata="each stratum from the same resamples: the deltas of its queries drawn, over its size",
        paired_queries=len(pairing.ids),
    )
