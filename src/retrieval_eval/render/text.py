"""The ``text`` kind (the terminal rendering of a report and its comparison), and a comparison alone.

No Markdown here: instead of being escaped, the comparison's user strings
lose their control characters, so a query id cannot send escape sequences to
a terminal.
"""

from __future__ import annotations

from typing import Any

from ..core.comparison_document import ComparisonDocument, MetricRow
from ..core.report_model import Report
from .compared import Compared
from .detectable import comparison_power_lines
from .escape import TEXT_LIMIT, shorten
from .marks import adjusted_mark
from .numbers import fmt, fmt_delta, fmt_interval
from .terminal import clean, mover_line, render_score, significance_note


def plain(value: Any, *, limit: int = TEXT_LIMIT) -> str:
    """A user string for a terminal: one line, its control characters shown by code (``clean``)."""
    return shorten(clean(" ".join(str(value).split())), limit)


def _metric_line(name: str, row: MetricRow, width: int = 14) -> str:
    mark = "  confounded" if row.confounded else ("  significant" if adjusted_mark(row) else "")
    return (
        f"  {plain(name, limit=40):<{width}}{fmt(row.base):>8} -> {fmt(row.head):<8}"
        f"{fmt_delta(row.delta):>9}  {fmt_interval(row.ci):<20}{mark}".rstrip()
    )


def comparison_text(document: ComparisonDocument) -> str:
    """The comparison for a terminal: one line per metric, then movers and findings."""
    paired = (document.queries.paired if document.queries else None) or 0
    yardstick = "same" if document.yardstick is None else document.yardstick
    lines = [f"compared with base ({plain(yardstick, limit=20)} yardstick, {paired} paired queries)"]
    # As wide as the longest name (false_abstention_rate is 21), so the columns line up.
    width = max([14, *(len(plain(name, limit=40)) + 1 for name in document.metrics)])
    lines += [_metric_line(name, row, width) for name, row in document.metrics.items()]
    note = significance_note(document)
    lines += [note] if note else []
    lines += comparison_power_lines(document, lambda value: plain(value, limit=40))
    moved = document.movers
    for title, rows in (
        ("largest drops", moved.drops if moved else None),
        ("largest gains", moved.gains if moved else None),
    ):
        if rows and moved is not None:
            lines.append(f"{title} ({plain(moved.metric, limit=40)}, base -> head)")
            # As score's text shows them: with --judgments the query text and stratum follow the id.
            lines += [mover_line(r) for r in rows]
    for finding in document.findings:
        lines.append(plain(f"{finding.effect}: {finding.detail}; {finding.meaning}", limit=1000))
    return "\n".join(lines) + "\n"


def render_text(report: Report, comparison: Compared) -> str:
    """What ``score`` prints: the comparison goes in the metric table, the strata and the movers."""
    return render_score(report, comparison)
