"""The history of the primary and gated metrics, ready for a template: charts per unbroken line, one table.

Mermaid's line charts cannot leave a gap (a value is needed at every x), so a
line that breaks is drawn as one chart per unbroken stretch, each titled with
where it starts, and the table marks the point where the yardstick changed.
A stretch of a single point has no line: the table shows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..core.history import History, HistoryPoint, line_segments
from .escape import escape_markdown, escape_name, mermaid_label
from .numbers import fmt
from .text import plain

REASON_LIMIT = 300


@dataclass(frozen=True, slots=True)
class HistoryChart:
    """One unbroken stretch of one metric, as a Mermaid line chart draws it."""

    title: str
    labels: tuple[str, ...]
    points: tuple[str, ...]  # each value with four decimals
    y_label: str


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One report of the history: its cells, and ``break`` (why the line stops above it), or None.

    ``break`` is a Python keyword, so the field is ``broken``; templates read it as ``row.break``
    (docs/compare.md), which Jinja looks up by subscript once no attribute has that name.
    """

    label: str
    date: str
    cells: tuple[str, ...]
    broken: str | None

    def __getitem__(self, name: Literal["break"]) -> str | None:
        if name != "break":
            raise KeyError(name)
        return self.broken


@dataclass(frozen=True, slots=True)
class HistoryView:
    """What the ``history`` block draws: charts per unbroken line, one table, how many breaks."""

    metrics: tuple[str, ...]
    charts: tuple[HistoryChart, ...]
    rows: tuple[HistoryRow, ...]
    note: str | None
    breaks: int


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """What ``history.md.j2`` sees (``retrieval-eval history --format summary``): the history alone."""

    history: HistoryView | None


def history_view(history: History | None) -> HistoryView | None:
    """Charts, table rows and notes of a history document; None when there is none to show."""
    if history is None:
        return None
    points, metrics = list(history.points), list(history.metrics)
    note = escape_markdown(history.note, limit=REASON_LIMIT) if history.note else None
    if not points:
        return HistoryView(metrics=(), charts=(), rows=(), note=note, breaks=0)
    return HistoryView(
        metrics=tuple(escape_name(m) for m in metrics),
        charts=tuple(chart for metric in metrics for chart in _charts(points, metric)),
        rows=tuple(_row(point, metrics) for point in points),
        note=note,
        breaks=sum(1 for point in points if point.broken),
    )


def _charts(points: list[HistoryPoint], metric: str) -> list[HistoryChart]:
    lines = [line for line in line_segments(points, metric) if len(line) > 1]
    charts = []
    for line in lines:
        first = points[line[0]]
        since = f" since {mermaid_label(first.label)}" if len(lines) > 1 or line[0] > 0 else ""
        charts.append(
            HistoryChart(
                title=f"{mermaid_label(metric)}{since}",
                labels=tuple(mermaid_label(points[i].label) for i in line),
                points=tuple(f"{points[i].values[metric]:.4f}" for i in line),
                y_label=mermaid_label(metric),
            )
        )
    return charts


def _row(point: HistoryPoint, metrics: list[str]) -> HistoryRow:
    return HistoryRow(
        label=escape_markdown(point.label, limit=40),
        date=escape_markdown(point.date or "—", limit=30),
        cells=tuple(fmt(point.values.get(m)) for m in metrics),
        broken=escape_markdown(point.broken, limit=REASON_LIMIT) if point.broken else None,
    )


def history_text(history: History) -> str:
    """The history for a terminal: one line per point, a break said on its own line."""
    metrics = list(history.metrics)
    lines = ["  ".join([f"{'report':<24}", f"{'date':<20}", *(f"{plain(m, limit=20):>12}" for m in metrics)])]
    for point in history.points:
        if point.broken:
            lines.append(f"  -- break: not comparable with the line above: {plain(point.broken)}")
        cells = [f"{plain(point.label, limit=24):<24}", f"{plain(point.date or '-', limit=20):<20}"]
        lines.append("  ".join([*cells, *(f"{fmt(point.values.get(m)):>12}" for m in metrics)]).rstrip())
    if history.note:
        lines.append(plain(history.note))
    return "\n".join(lines)
