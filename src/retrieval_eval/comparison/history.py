"""The primary metric and every gated metric over a line of reports, with breaks where the yardstick changed.

A point is one report: a version of the base branch's committed report, or a
file given on the command line, and last, the report under review. Two
neighbouring points are comparable when they were measured alike: the same
judgments (by hash), relevance threshold, gain and any other scoring policy
the report records beside them (the same notion as a comparison's yardstick,
:func:`~retrieval_eval.comparison.yardstick.yardstick_changes`). Where they are
not, the point carries a ``break`` naming the change, and a line drawn
through the points must stop there: the two numbers were measured with
different rulers, so joining them would show a move that nobody made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.gates import gate_metric
from ..core.history import HISTORY_KIND, History, HistoryPoint, line_segments
from ..core.lenient import items, mapping, measured, primary_metric, section
from ..formats.history import history_to_json, point_from_json
from .findings import short
from .sides import Sides
from .yardstick import yardstick_changes

__all__ = ["HISTORY_KIND", "Point", "break_reason", "build_history", "history_metrics", "history_of", "segments"]
# Config entries that say how a report was scored; the cutoffs only add or remove metrics. (Which
# optional measures a report computed is not in its config, and breaks no line: ``computed``.)
_NOT_POLICY = frozenset({"k", "threshold", "gain"})


@dataclass(frozen=True)
class Point:
    """One report on the line: ``label`` names it (a short commit, a file), ``date`` is ISO 8601."""

    label: str
    date: str | None
    report: Mapping[str, Any]


def history_metrics(report: Mapping[str, Any]) -> list[str]:
    """The primary metric, then every metric a gate of ``report`` reads, in gate order."""
    gated = [gate_metric(str(mapping(g).get("expression", ""))) for g in items(section(report, "verdict").get("gates"))]
    return list(dict.fromkeys([primary_metric(report), *(m for m in gated if m)]))


def history_of(points: Sequence[Point], metrics: Sequence[str], *, note: str | None = None) -> History:
    """Each point's value of each metric, and a break where it is not comparable with the one before."""
    return History(
        metrics=tuple(metrics),
        points=tuple(
            HistoryPoint(
                point.label,
                point.date,
                {metric: measured(point.report, metric) for metric in metrics},
                None if i == 0 else break_reason(points[i - 1].report, point.report),
            )
            for i, point in enumerate(points)
        ),
        note=note,
    )


def build_history(points: Sequence[Point], metrics: Sequence[str]) -> dict[str, Any]:
    """:func:`history_of` as its JSON object (``break`` per point)."""
    return history_to_json(history_of(points, metrics))


def break_reason(older: Mapping[str, Any], newer: Mapping[str, Any]) -> str | None:
    """Why ``newer`` cannot be joined to ``older`` on one line, or None when it can."""
    reasons = [_said(code, older, newer) for code, _ in yardstick_changes(Sides(older, newer, None))]
    old_config, new_config = section(older, "config"), section(newer, "config")
    for key in sorted((set(old_config) | set(new_config)) - _NOT_POLICY):
        if _values_of(key, old_config.get(key)) != _values_of(key, new_config.get(key)):
            reasons.append(f"{key} {_shown(old_config.get(key))} → {_shown(new_config.get(key))}")
    return "; ".join(reasons) or None


# The bounded policy scores exactly as assume-irrelevant does and adds the bounds beside each
# value, so a switch between the two moves no point; condensed lists change the values.
_SAME_VALUES = {("unjudged", "bounded"): "assume-irrelevant"}


def _values_of(key: str, setting: Any) -> Any:
    """The setting as far as the values depend on it."""
    return _SAME_VALUES.get((key, setting), setting) if isinstance(setting, str) else setting


def segments(points: Sequence[Mapping[str, Any]], metric: str) -> list[list[int]]:
    """:func:`~retrieval_eval.core.history.line_segments` of points in their JSON form."""
    return line_segments([point_from_json(point) for point in points], metric)


def _said(code: str, older: Mapping[str, Any], newer: Mapping[str, Any]) -> str:
    if code == "judgments-changed":
        before = section(older, "inputs").get("judgments_sha256")
        after = section(newer, "inputs").get("judgments_sha256")
        return f"judgments changed ({short(before)} → {short(after)})"
    if code in ("threshold-changed", "gain-changed"):
        name = code.removesuffix("-changed")
        return f"{name} {_shown(section(older, 'config').get(name))} → {_shown(section(newer, 'config').get(name))}"
    if code == "judgments-unknown":
        return "a report does not record its judgments"
    return "a report does not record its threshold and gain"


def _shown(value: Any) -> str:
    return "none" if value is None else str(value)
