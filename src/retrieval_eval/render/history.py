"""The history of the primary and gated metrics, ready for a template: charts per unbroken line, one table.

Mermaid's line charts cannot leave a gap (a value is needed at every x), so a
line that breaks is drawn as one chart per unbroken stretch, each titled with
where it starts, and the table marks the point where the yardstick changed.
A stretch of a single point has no line: the table shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.history import History, HistoryPoint, line_segments
from ..formats.history import history_from_json
from .escape import escape_markdown, escape_name, mermaid_label
from .numbers import fmt
from .text import plain

REASON_LIMIT = 300


def as_history(history: History | Mapping[str, Any]) -> History:
    """The records of a history, also when a caller gives its JSON form (``build_history``'s)."""
    return history if isinstance(history, History) else history_from_json(history)


def history_view(given: History | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Charts, table rows and notes of a history document; None when there is none to show."""
    if given is None:
        return None
    history = as_history(given)
    points, metrics = list(history.points), list(history.metrics)
    note = escape_markdown(history.note, limit=REASON_LIMIT) if history.note else None
    if not points:
        return {"metrics": [], "charts": [], "rows": [], "note": note, "breaks": 0}
    return {
        "metrics": [escape_name(m) for m in metrics],
        "charts": [chart for metric in metrics for chart in _charts(points, metric)],
        "rows": [_row(point, metrics) for point in points],
        "note": note,
        "breaks": sum(1 for point in points if point.broken),
    }


def _charts(points: list[HistoryPoint], metric: str) -> list[dict[str, Any]]:
    lines = [line for line in line_segments(points, metric) if len(line) > 1]
    charts = []
    for line in lines:
        first = points[line[0]]
        since = f" since {mermaid_label(first.label)}" if len(lines) > 1 or line[0] > 0 else ""
        charts.append(
            {
                "title": f"{mermaid_label(metric)}{since}",
                "labels": [mermaid_label(points[i].label) for i in line],
                "points": [f"{points[i].values[metric]:.4f}" for i in line],
                "y_label": mermaid_label(metric),
            }
        )
    return charts


def _row(point: HistoryPoint, metrics: list[str]) -> dict[str, Any]:
    return {
        "label": escape_markdown(point.label, limit=40),
        "date": escape_markdown(point.date or "—", limit=30),
        "cells": [fmt(point.values.get(m)) for m in metrics],
        "break": escape_markdown(point.broken, limit=REASON_LIMIT) if point.broken else None,
    }


def history_text(given: History | Mapping[str, Any]) -> str:
    """The history for a terminal: one line per point, a break said on its own line."""
    history = as_history(given)
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
