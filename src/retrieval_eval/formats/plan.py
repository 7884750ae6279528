"""A plan (``retrieval-eval plan --json``, ``Plan.as_dict()``) as JSON."""

from __future__ import annotations

from typing import Any

from ..core.planning import PlanRecord, PlanRow
from ..core.precision import DECIMALS


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


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)
