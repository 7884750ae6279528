"""A plan (``retrieval-eval plan``) as terminal text: one line per metric and stratum, then what it assumes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..comparison.plan import WHOLE_SET
from ..core.lenient import items, mapping, number
from .detectable import WHOLE_RANGE
from .terminal import clean

NAME_WIDTH = 24
BORROWED = WHOLE_SET  # a stratum planned with the whole set's spread, marked *


def plan_text(plan: Mapping[str, Any]) -> str:
    """Queries needed per change and the change seen per size, for every row of ``plan`` (its ``as_dict()``)."""
    rows = [mapping(row) for row in items(plan.get("rows"))]
    head = (
        f"planned at {number(plan.get('power')) or 0:.0%} power and the {number(plan.get('alpha')) or 0:.0%} level "
        f"({clean(plan.get('method'))} quantiles)"
    )
    lines = [head, ""]
    metric = None
    for row in rows:
        if row.get("metric") != metric:
            metric = row.get("metric")
            lines.append(_columns(row, title=clean(metric)))
        lines.append(_line(row))
    lines += ["", "assumptions", *(f"  - {clean(text)}" for text in items(plan.get("assumptions")))]
    if any(row.get("source") == BORROWED for row in rows):
        lines.append(WHOLE_SET_NOTE)
    return "\n".join(lines) + "\n"


def _columns(row: Mapping[str, Any], *, title: str) -> str:
    needed = [f"n for {_num(mapping(cell).get('change'))}" for cell in items(row.get("needed"))]
    seen = [f"seen at {clean(mapping(cell).get('queries'))}" for cell in items(row.get("detectable"))]
    cells = ["queries", "sd_diff", "detects", *needed, *seen]
    return f"{title:<{NAME_WIDTH}}" + "".join(f"{cell:>14}" for cell in cells)


def _line(row: Mapping[str, Any]) -> str:
    stratum = row.get("stratum")
    name = "whole set" if stratum is None else f"  {clean(stratum)}"
    if row.get("source") == BORROWED:
        name += " *"
    needed = [_count(mapping(cell).get("queries")) for cell in items(row.get("needed"))]
    seen = [_change(mapping(cell).get("change")) for cell in items(row.get("detectable"))]
    cells = [clean(row.get("n")), _num(row.get("sd_diff")), _change(row.get("mde")), *needed, *seen]
    return f"{name[:NAME_WIDTH]:<{NAME_WIDTH}}" + "".join(f"{cell:>14}" for cell in cells)


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
