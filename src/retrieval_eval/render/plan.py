"""A plan (``retrieval-eval plan``) as terminal text: one line per metric and stratum, then what it assumes."""

from __future__ import annotations

from typing import Any

from ..comparison.plan import WHOLE_SET
from ..core.lenient import number
from ..core.planning import PlanRecord, PlanRow
from ..core.precision import DECIMALS
from .detectable import WHOLE_RANGE
from .terminal import clean

NAME_WIDTH = 24
BORROWED = WHOLE_SET  # a stratum planned with the whole set's spread, marked *


def plan_text(plan: PlanRecord) -> str:
    """Queries needed per change and the change seen per size, for every row of ``plan``."""
    design = plan.design
    head = f"planned at {design.power:.0%} power and the {design.alpha:.0%} level ({clean(design.method)} quantiles)"
    lines = [head, ""]
    metric = None
    for row in plan.rows:
        if row.metric != metric:
            metric = row.metric
            lines.append(_columns(row, title=clean(metric)))
        lines.append(_line(row))
    lines += ["", "assumptions", *(f"  - {clean(text)}" for text in plan.assumptions)]
    if any(row.source == BORROWED for row in plan.rows):
        lines.append(WHOLE_SET_NOTE)
    return "\n".join(lines) + "\n"


def _columns(row: PlanRow, *, title: str) -> str:
    needed = [f"n for {_num(change)}" for change, _ in row.needed]
    seen = [f"seen at {clean(queries)}" for queries, _ in row.detectable]
    cells = ["queries", "sd_diff", "detects", *needed, *seen]
    return f"{title:<{NAME_WIDTH}}" + "".join(f"{cell:>14}" for cell in cells)


def _line(row: PlanRow) -> str:
    """One row's line."""
    name = "whole set" if row.stratum is None else f"  {clean(row.stratum)}"
    if row.source == BORROWED:
        name += " *"
    needed = [_count(queries) for _, queries in row.needed]
    seen = [_change(_rounded(change)) for _, change in row.detectable]
    cells = [clean(row.n), _num(_rounded(row.sd_diff)), _change(_rounded(row.mde)), *needed, *seen]
    return f"{name[:NAME_WIDTH]:<{NAME_WIDTH}}" + "".join(f"{cell:>14}" for cell in cells)


def _rounded(value: float | None) -> float | None:
    """At the precision ``plan --json`` states it, so the text shows the same figure."""
    return None if value is None else round(value, DECIMALS)


def _num(value: Any) -> str:
    found = number(value)
    return "—" if found is None else f"{found:.4f}".rstrip("0").rstrip(".")


def _change(value: Any) -> str:
    """A detectable change: ``none (> 1)`` past the metric's whole range."""
    found = number(value)
    return "—" if found is None else "none (> 1)" if found > WHOLE_RANGE else _num(found)


def _count(value: Any) -> str:
    return "—" if not isinstance(value, int) or isinstance(value, bool) else str(value)


WHOLE_SET_NOTE = "* the stratum's own spread is unknown without --judgments: the whole set's is used"
