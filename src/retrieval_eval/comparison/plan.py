"""Planning a set's size from a pilot report: the queries a change needs, the change a size sees.

The spread comes from the pilot. With a base report beside it, it is the standard deviation
of the paired per-query differences (head - base) over the queries both scored, which is
what a comparison tests; alone, it is one report's per-query standard deviation through the
proxy of :func:`retrieval_eval.core.power.proxy_sd` (an assumed correlation of two runs).
Strata are planned alike over their own queries when the judgments say which query is in
which; without them, each stratum of the report is planned with the whole set's spread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.aliases import canonical_metric
from ..core.comparison import difference
from ..core.errors import UsageError
from ..core.metrics import describe_known, known_metric
from ..core.planning import PlanRecord, PlanRow
from ..core.power import (
    ASSUMPTIONS,
    DEFAULT_CORRELATION,
    NO_SPREAD,
    PROXY_ASSUMPTION,
    SPREAD_ASSUMPTION,
    SPREAD_LEVEL,
    SPREAD_TOO_LOOSE,
    Design,
    detectable_effect,
    proxy_sd,
    queries_needed,
    sample_sd,
    spread_interval,
)
from ..core.report_model import Report
from ..formats.plan import plan_to_json
from ..formats.typedjson import JsonObject
from .sides import PerQuery, pair_queries, per_query

PAIRED, PROXY, WHOLE_SET = "paired", "proxy", "whole set's spread"
__all__ = ["DEFAULT_CHANGES", "PAIRED", "PROXY", "WHOLE_SET", "Plan", "PlanRequest", "PlanRow", "plan"]
DEFAULT_CHANGES = (0.01, 0.02, 0.05)


class Plan(PlanRecord):
    """Every row, and what they assume; ``as_dict()`` is ``plan --json``."""

    def as_dict(self) -> JsonObject:
        return plan_to_json(self)


@dataclass(frozen=True)
class PlanRequest:
    """What to plan: which metrics, for which changes, at which sizes, under which design."""

    metrics: tuple[str, ...] = ()  # empty: the report's primary metric
    changes: tuple[float, ...] = DEFAULT_CHANGES
    sizes: tuple[int, ...] = ()
    design: Design = Design()
    correlation: float = DEFAULT_CORRELATION


def plan(
    report: Report,
    request: PlanRequest,
    *,
    baseline: Report | None = None,
    strata: Mapping[str, str | None] | None = None,
    names: tuple[str, str] = ("the report", "the base report"),
) -> Plan:
    """The plan for ``report`` (the pilot); ``baseline`` pairs it; ``strata``: query id -> stratum.

    ``names``: the report and the base report as the user knows them, for messages."""
    values = per_query(report)
    if not values:
        raise UsageError(
            f"{names[0]} holds no per-query values to measure the spread from",
            hint="plan from a report written by retrieval-eval score --out",
        )
    paired = _paired(values, baseline, names)
    metrics = tuple(_our_name(m) for m in request.metrics) or (report.primary_metric(),)
    rows = []
    for metric in metrics:
        whole = _row(metric, None, paired or values, list(paired or values), request, paired is not None)
        rows.append(whole)
        rows.extend(_stratum_rows(metric, report, whole, paired or values, strata, request, paired is not None))
    assumptions = [ASSUMPTIONS[request.design.method]]
    assumptions += [] if paired is not None else [PROXY_ASSUMPTION.format(rho=f"{request.correlation:g}")]
    assumptions += [NO_SPREAD] if any(row.sd_diff is None for row in rows) else []
    assumptions += _spread_uncertainty(rows)
    return Plan(request.design, None if paired is not None else request.correlation, tuple(assumptions), tuple(rows))


def _spread_uncertainty(rows: Sequence[PlanRow]) -> list[str]:
    """How far the whole set's spread may be from the pilot's: every figure scales with it
    (the queries needed with its square), and a small pilot measures it loosely."""
    sizes = [row.n for row in rows if row.stratum is None and row.sd_diff is not None]
    if not sizes:
        return []
    interval = spread_interval(min(sizes))
    if interval is None:
        return [SPREAD_TOO_LOOSE.format(n=min(sizes))]
    low, high = interval
    text = SPREAD_ASSUMPTION.format(
        n=min(sizes), level=SPREAD_LEVEL, low=low, high=high, low2=low * low, high2=high * high
    )
    return [text]


def _our_name(metric: str) -> str:
    """Our name for a metric named as ir_measures or trec_eval name it (``nDCG@10``); as given otherwise."""
    try:
        return canonical_metric(metric)
    except UsageError:
        return metric


def _paired(head: PerQuery, baseline: Report | None, names: tuple[str, str]) -> PerQuery | None:
    """Per query, head - base of every metric both hold; None without a base report."""
    if baseline is None:
        return None
    pairing = pair_queries(per_query(baseline), head)
    if not pairing.available:
        raise UsageError(
            f"{names[1]} shares no scored query with {names[0]}",
            hint="pass a base report scored over the same queries, or plan from one report alone",
        )
    assert pairing.base is not None
    found: PerQuery = {}
    for q in pairing.ids:
        row = {m: difference(pairing.base[q].get(m), v) for m, v in head[q].items()}
        found[q] = {m: d for m, d in row.items() if d is not None}
    return found


def _row(
    metric: str, stratum: str | None, table: PerQuery, ids: Sequence[str], request: PlanRequest, paired: bool
) -> PlanRow:
    values = [table[q][metric] for q in ids if metric in table[q]]
    if not values and stratum is None and not known_metric(metric):
        raise UsageError(f"unknown metric {metric!r}; known metrics: {describe_known()}")
    if not values and stratum is None:
        raise UsageError(
            f"the pilot report has no per-query values of {metric}",
            hint="name a metric the report was scored with, e.g. the first cutoff's recall",
        )
    sd = sample_sd(values) or None  # no spread (every value alike) says nothing about the next run's
    sd_diff = sd if sd is None or paired else proxy_sd(sd, request.correlation) or None
    return _sized(metric, stratum, len(values), sd_diff, PAIRED if paired else PROXY, request)


def _sized(metric: str, stratum: str | None, n: int, sd: float | None, source: str, request: PlanRequest) -> PlanRow:
    design = request.design
    if sd is None:
        return PlanRow(metric, stratum, n, None, source, None, (), ())
    return PlanRow(
        metric,
        stratum,
        n,
        sd,
        source,
        detectable_effect(sd, n, design),
        tuple((change, queries_needed(sd, change, design)) for change in request.changes),
        tuple((size, detectable_effect(sd, size, design)) for size in request.sizes),
    )


def _stratum_rows(
    metric: str,
    report: Report,
    whole: PlanRow,
    table: PerQuery,
    strata: Mapping[str, str | None] | None,
    request: PlanRequest,
    paired: bool,
) -> list[PlanRow]:
    per_stratum = report.per_stratum or {}
    names = list(per_stratum)
    if strata:
        members: dict[str, list[str]] = {}
        for q in table:
            members.setdefault(str(strata.get(q)), []).append(q)
        return [_row(metric, name, table, members.get(name, []), request, paired) for name in names]
    sizes = {name: entry.n for name, entry in per_stratum.items()}
    return [_sized(metric, name, n, whole.sd_diff, WHOLE_SET, request) for name, n in sizes.items() if n is not None]
