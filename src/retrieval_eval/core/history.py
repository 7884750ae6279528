"""A line of reports as records: each point's values, and where the yardstick broke the line.

Built by :mod:`retrieval_eval.comparison.history`, drawn by :mod:`retrieval_eval.render.history`;
:mod:`retrieval_eval.formats.history` gives its JSON form (what ``build_history`` returns).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

HISTORY_KIND = "retrieval-eval history"


@dataclass(frozen=True)
class HistoryPoint:
    """One report on the line: ``label`` names it, ``date`` is ISO 8601; ``broken`` says why it is
    not comparable with the point before (None when it is)."""

    label: str
    date: str | None
    values: Mapping[str, float | None]
    broken: str | None = None


@dataclass(frozen=True)
class History:
    metrics: tuple[str, ...]
    points: tuple[HistoryPoint, ...]
    note: str | None = None  # where the points came from, said under the chart (the action's)
    kind: str = HISTORY_KIND


def line_segments(points: Sequence[HistoryPoint], metric: str) -> list[list[int]]:
    """Indexes of the points one unbroken line of ``metric`` joins: split at a break or a missing value."""
    lines: list[list[int]] = []
    for i, point in enumerate(points):
        if point.values.get(metric) is None:
            continue
        if not lines or point.broken or lines[-1][-1] != i - 1:
            lines.append([])
        lines[-1].append(i)
    return lines
