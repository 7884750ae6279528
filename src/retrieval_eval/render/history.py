"""The history of the primary and gated metrics, ready for a template: charts per unbroken line, one table.

Mermaid's line charts cannot leave a gap (a value is needed at every x), so a
line that breaks is drawn as one chart per unbroken stretch, each titled with
where it starts, and the table marks the point where the yardstick changed.
A stretch of a single point has no line: the table shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..comparison.history import segments
from ..core.lenient import items, mapping, number
from .escape import escape_markdown, escape_name, mermaid_label
from .numbers import fmt
from .text import plain

REASON_LIMIT = 300


def history_view(history: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Charts, table rows and notes of a history document; None when there is none to show."""
    if history is None:
        return None
    points = [mapping(p) for p in items(history.get("points"))]
    metrics = [str(m) for m in items(history.get("metrics"))]
    note = escape_markdown(history["note"], limit=REASON_LIMIT) if history.get("note") else None
    if not points:
        return {"metrics": [], "charts": [], "rows": [], "note": note, "breaks": 0}
    return {
        "metrics": [escape_name(m) for m in metrics],
        "charts": [chart for metric in metrics for chart in _charts(points, metric)],
        "rows": [_row(point, metrics) for point in points],
        "note": note,
        "breaks": sum(1 for point in points if point.get("break")),
    }


def _charts(points: list[Mapping[str, Any]], metric: str) -> list[dict[str, Any]]:
    lines = [line for line in segments(points, metric) if len(line) > 1]
    charts = []
    for line in lines:
        first = points[line[0]]
        since = f" since {mermaid_label(str(first.get('label', '')))}" if len(lines) > 1 or line[0] > 0 else ""
        charts.append(
            {
                "title": f"{mermaid_label(metric)}{since}",
                "labels": [mermaid_label(str(points[i].get("label", ""))) for i in line],
                "points": [f"{number(mapping(points[i].get('values')).get(metric)):.4f}" for i in line],
                "y_label": mermaid_label(metric),
            }
        )
    return charts


def _row(point: Mapping[str, Any], metrics: list[str]) -> dict[str, Any]:
    values = mapping(point.get("values"))
    reason = point.get("break")
    return {
        "label": escape_markdown(point.get("label", ""), limit=40),
        "date": escape_markdown(point.get("date") or "—", limit=30),
        "cells": [fmt(values.get(m)) for m in metrics],
        "break": escape_markdown(reason, limit=REASON_LIMIT) if reason else None,
    }


def history_text(history: Mapping[str, Any]) -> str:
    """The history for a terminal: one line per point, a break said on its own line."""
    metrics = [str(m) for m in items(history.get("metrics"))]
    lines = ["  ".join([f"{'report':<24}", f"{'date':<20}", *(f"{plain(m, limit=20):>12}" for m in metrics)])]
    for point in map(mapping, items(history.get("points"))):
        if point.get("break"):
            lines.append(f"  -- break: not comparable with the line above: {plain(point['break'])}")
        values = mapping(point.get("values"))
        cells = [f"{plain(point.get('label', ''), limit=24):<24}", f"{plain(point.get('date') or '-', limit=20):<20}"]
        lines.append("  ".join([*cells, *(f"{fmt(values.get(m)):>12}" for m in metrics)]).rstrip())
    if history.get("note"):
        lines.append(plain(history["note"]))
    return "\n".join(lines)
