"""The ``text`` kind (the terminal rendering of a report and its comparison), and a comparison alone.

No Markdown here: instead of being escaped, the comparison's user strings
lose their control characters, so a query id cannot send escape sequences to
a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.lenient import integer, items, mapping, section
from ..core.report_model import Report
from .detectable import comparison_power_lines
from .escape import TEXT_LIMIT, shorten
from .numbers import fmt, fmt_delta, fmt_interval
from .tables import adjusted_mark
from .terminal import clean, mover_line, render_score


def plain(value: Any, *, limit: int = TEXT_LIMIT) -> str:
    """A user string for a terminal: one line, its control characters shown by code (``clean``)."""
    return shorten(clean(" ".join(str(value).split())), limit)


def _metric_line(name: str, row: Mapping[str, Any]) -> str:
    mark = "  confounded" if row.get("confounded") else ("  significant" if adjusted_mark(row) else "")
    return (
        f"  {plain(name, limit=40):<14}{fmt(row.get('base')):>8} -> {fmt(row.get('head')):<8}"
        f"{fmt_delta(row.get('delta')):>9}  {fmt_interval(row.get('ci')):<20}{mark}".rstrip()
    )


def comparison_text(comparison: Mapping[str, Any]) -> str:
    """The comparison for a terminal: one line per metric, then movers and findings."""
    paired = integer(section(comparison, "queries").get("paired")) or 0
    lines = [
        f"compared with base ({plain(comparison.get('yardstick', 'same'), limit=20)} yardstick, "
        f"{paired} paired queries)"
    ]
    lines += [_metric_line(str(name), mapping(row)) for name, row in section(comparison, "metrics").items()]
    lines += comparison_power_lines(comparison, lambda value: plain(value, limit=40))
    moved = section(comparison, "movers")
    for title, key in (("largest drops", "drops"), ("largest gains", "gains")):
        rows = [mapping(r) for r in items(moved.get(key))]
        if rows:
            lines.append(f"{title} ({plain(moved.get('metric'), limit=40)}, base -> head)")
            # As score's text shows them: with --judgments the query text and stratum follow the id.
            lines += [mover_line(r) for r in rows]
    for finding in map(mapping, items(comparison.get("comparability"))):
        lines.append(plain(f"{finding.get('effect')}: {finding.get('detail')}; {finding.get('meaning')}", limit=1000))
    return "\n".join(lines) + "\n"


def render_text(report: Report, comparison: Mapping[str, Any] | None) -> str:
    """What ``score`` prints: the comparison goes in the metric table, the strata and the movers."""
    return render_score(report, comparison)
