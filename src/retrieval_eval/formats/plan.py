"""A plan (``retrieval-eval plan --json``, ``Plan.as_dict()``) as JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.lenient import integer, number
from ..core.planning import PlanRecord, PlanRow
from ..core.precision import DECIMALS
from .lenient import items, mapping


def plan_to_json(plan: PlanRecord) -> dict[str, Any]:
    """The JSON object of ``plan``: the design, what it assumes, and every row."""
    return {
        "power": plan.design.power,
        "alpha": plan.design.alpha,
        "method": plan.design.method,
        "correlation": plan.correlation,
        "assumptions": list(plan.assumptions),
        "rows": [plan_row_to_json(row) for row in plan.rows],
    }


def plan_row_to_json(row: PlanRow) -> dict[str, Any]:
    return {
        "metric": row.metric,
        "stratum": row.stratum,
        "n": row.n,
        "sd_diff": _rounded(row.sd_diff),
        "source": row.source,
        "mde": _rounded(row.mde),
        "needed": [{"change": change, "queries": n} for change, n in row.needed],
        "detectable": [{"queries": n, "change": _rounded(change)} for n, change in row.detectable],
    }


def plan_row_from_json(row: Mapping[str, Any]) -> PlanRow:
    """A row of ``plan --json`` read back, leniently (a value of another type reads as missing)."""
    stratum, metric, source = row.get("stratum"), row.get("metric"), row.get("source")
    return PlanRow(
        metric=metric if isinstance(metric, str) else "",
        stratum=stratum if isinstance(stratum, str) else None,
        n=integer(row.get("n")) or 0,
        sd_diff=number(row.get("sd_diff")),
        source=source if isinstance(source, str) else "",
        mde=number(row.get("mde")),
        needed=tuple(
            (number(cell.get("change")) or 0.0, integer(cell.get("queries")))
            for cell in map(mapping, items(row.get("needed")))
        ),
        detectable=tuple(
            (integer(cell.get("queries")) or 0, number(cell.get("change")))
            for cell in map(mapping, items(row.get("detectable")))
        ),
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)
