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
COLUMN_WIDTH = 14
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


def _headers(row: PlanRow) -> list[str]:
    needed = [f"n for {_given(change)}" for change, _ in row.needed]
    seen = [f"seen at {clean(queries)}" for queries, _ in row.detectable]
    return ["queries", "sd_diff", "detects", *needed, *seen]


def _cells(cells: list[str], headers: list[str]) -> str:
    """Right-aligned under their headers: a column is as wide as its header and a space, at least
    14 (``seen at 1000000000`` is wider), so headers never run into each other."""
    return "".join(f"{cell:>{max(COLUMN_WIDTH, len(header) + 1)}}" for cell, header in zip(cells, headers))


def _columns(row: PlanRow, *, title: str) -> str:
    headers = _headers(row)
    return f"{title:<{NAME_WIDTH}}" + _cells(headers, headers)


def _line(row: PlanRow) -> str:
    """One row's line."""
    name = "whole set" if row.stratum is None else f"  {clean(row.stratum)}"
    if row.source == BORROWED:
        name += " *"
    needed = [_count(queries) for _, queries in row.needed]
    seen = [_change(_rounded(change)) for _, change in row.detectable]
    cells = [clean(row.n), _num(_rounded(row.sd_diff)), _change(_rounded(row.mde)), *needed, *seen]
    return f"{name[:NAME_WIDTH]:<{NAME_WIDTH}}" + _cells(cells, _headers(row))


def _rounded(value: float | None) -> float | None:
    """At the precision ``plan --json`` states it, so the text shows the same figure."""
    return None if value is None else round(value, DECIMALS)


def _given(value: Any) -> str:
    """A change as the user gave it (``0.05``), for a header: no zeros it did not have."""
    found = number(value)
    return "—" if found is None else f"{found:.4f}".rstrip("0").rstrip(".")


def _num(value: Any) -> str:
    # Four places, as every table writes its figures (0.25 beside 0.4082 read as two precisions).
    found = number(value)
    return "—" if found is None else f"{found:.4f}"


def _change(value: Any) -> str:
    """A detectable change: ``none (> 1)`` past the metric's whole range, ``< 0.0001`` for one
    too small to show at four places (a huge set size), never a bare 0 that reads as exact."""
    found = number(value)
    if found is None:
        return "—"
    if found > WHOLE_RANGE:
        return "none (> 1)"
    return "< 0.0001" if 0 < found < 0.00005 else _num(found)


def _count(value: Any) -> str:
    return "—" if not isinstance(value, int) or isinstance(value, bool) else str(value)


WHOLE_SET_NOTE = "* the stratum's own spread is unknown without --judgments: the whole set's is used"
