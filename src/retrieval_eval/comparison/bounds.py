"""Each delta's bounds: how far it could move once the unjudged keys are labeled.

Paired per query: the least favourable delta is head lower bound less base upper
bound, the most favourable head upper bound less base lower bound, each averaged
over the paired queries. A query a report lists no bound for has that bound equal
to its value (nothing in its ranking was unjudged); so does every query of a
report made before bounds existed (a report made before lower bounds existed has
its lower bounds read as its values). A report that says it left its bounds out
(``computed`` without ``bounds``) would read the same way, claiming the delta
cannot move: a caller that could not compute them drops the rows' bounds
(:func:`drop_unknown_bounds`). With the head's judgments at hand, each
metric also counts the unjudged keys in its top k on both sides: what a bounded
gate asks to have labeled.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from itertools import repeat
from operator import itemgetter, sub

from ..core.comparison_document import ComparisonDocument, MetricRow
from ..core.labelindex import LabelIndex
from ..core.precision import DECIMALS
from ..core.report_model import Report
from ..core.scoring import BOUNDS
from .sides import Pairing, PerQuery, Sides, as_table

_NONE: dict[str, float] = {}  # a query a report lists no bound for


def upper_table(report: Report, side: str = "upper") -> PerQuery:
    """A report's per-query upper (or lower) bounds (queries with an unjudged key only); {} when it has none."""
    return as_table(report.per_query_upper if side == "upper" else report.per_query_lower) or {}


def left_out_bounds(report: Report) -> bool:
    """Whether a report says it did not compute its bounds (one made before ``computed`` existed has them)."""
    return report.computed is not None and BOUNDS not in report.computed


def drop_unknown_bounds(document: ComparisonDocument, base: Report, head: Report) -> ComparisonDocument:
    """The document without any delta's bounds when a side left its own out: they were read from its values.

    A rescored (or translated) base has its bounds from the rescoring, whatever its report kept."""
    rescored = document.yardstick in ("rescored", "translated")
    if left_out_bounds(head) or (not rescored and left_out_bounds(base)):
        return replace(document, metrics={name: replace(row, bounds=None) for name, row in document.metrics.items()})
    return document


def add_bounds(
    rows: Mapping[str, MetricRow],
    sides: Sides,
    pairing: Pairing,
    base_upper: PerQuery | None,
    base_lower: PerQuery | None = None,
) -> dict[str, MetricRow]:
    """The rows with ``bounds`` (and, with judgments, ``unjudged``) in every one the paired queries carry."""
    found = dict(rows)
    if not pairing.available:
        return found
    assert pairing.base is not None and pairing.head is not None
    head_upper, head_lower = upper_table(sides.head), upper_table(sides.head, "lower")
    base_upper = base_upper if base_upper is not None else upper_table(sides.base)
    base_lower = base_lower if base_lower is not None else upper_table(sides.base, "lower")
    unjudged: dict[int | None, int] = {}  # by cutoff: every metric at one cutoff counts the same keys
    ids = pairing.ids
    base_rows, head_rows = [pairing.base[q] for q in ids], [pairing.head[q] for q in ids]
    # Each query's four bound rows, looked up once for every metric.
    head_lowers = [head_lower.get(q, _NONE) for q in ids]
    base_uppers = [base_upper.get(q, _NONE) for q in ids]
    head_uppers = [head_upper.get(q, _NONE) for q in ids]
    base_lowers = [base_lower.get(q, _NONE) for q in ids]
    for metric, row in rows.items():
        if row.delta is None:
            continue
        try:  # every paired query holds the metric on both sides, or it gets no bounds
            bases = list(map(itemgetter(metric), base_rows))
            heads = list(map(itemgetter(metric), head_rows))
        except KeyError:
            continue
        # A bound a row does not list is the value itself; the lists are made in C, one
        # dict.get(row, metric, value) each, then subtracted pairwise.
        name = repeat(metric)
        low = list(map(sub, map(dict.get, head_lowers, name, heads), map(dict.get, base_uppers, name, bases)))
        high = list(map(sub, map(dict.get, head_uppers, name, heads), map(dict.get, base_lowers, name, bases)))
        bounds = (round(math.fsum(low) / len(low), DECIMALS), round(math.fsum(high) / len(high), DECIMALS))
        count = None
        if sides.judgments is not None:
            k = _cutoff(metric)
            if k not in unjudged:
                unjudged[k] = unjudged_in_top(sides, ids, k)
            count = unjudged[k]
        found[metric] = replace(row, bounds=bounds, unjudged=count)
    return found


def _cutoff(metric: str) -> int | None:
    _, sep, cutoff = metric.partition("@")
    return int(cutoff) if sep and cutoff.isdigit() else None


def unjudged_in_top(sides: Sides, ids: list[str], k: int | None) -> int:
    """Unjudged keys (under the head's judgments) in the top k of both sides' rankings, over ``ids``."""
    index: LabelIndex | None = sides.judgments
    assert index is not None
    count = 0
    for report in (sides.base, sides.head):
        rankings = report.rankings or {}
        for query_id in ids:
            ranking = rankings.get(query_id)
            if ranking is None:
                continue
            query = index.queries.get(query_id)
            grades = query.grades if query is not None else {}
            count += sum(1 for key in ranking[:k] if key not in grades)
    return count
