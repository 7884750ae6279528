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

from collections.abc import Sequence
from dataclasses import dataclass, fields

from ..core.gates import gate_metric
from ..core.history import HISTORY_KIND, History, HistoryPoint
from ..core.report_model import Config, Json, Report
from .findings import short
from .sides import Sides
from .yardstick import yardstick_changes

__all__ = ["HISTORY_KIND", "Point", "break_reason", "history_metrics", "history_of"]
# Config entries that say how a report was scored; the cutoffs only add or remove metrics. (Which
# optional measures a report computed is not in its config, and breaks no line: ``computed``.)
# ``others`` holds the entries the model does not name: each of those is a policy of its own.
_NOT_POLICY = frozenset({"k", "threshold", "gain", "others"})


@dataclass(frozen=True)
class Point:
    """One report on the line: ``label`` names it (a short commit, a file), ``date`` is ISO 8601."""

    label: str
    date: str | None
    report: Report  # a report held as JSON is read into one by formats/report.py first


def history_metrics(report: Report) -> list[str]:
    """The primary metric, then every metric a gate of ``report`` reads, in gate order."""
    gates = report.verdict.gates if report.verdict is not None else None
    gated = [gate_metric(gate.expression or "") for gate in gates or ()]
    return list(dict.fromkeys([report.primary_metric(), *(m for m in gated if m)]))


def history_of(points: Sequence[Point], metrics: Sequence[str], *, note: str | None = None) -> History:
    """Each point's value of each metric, and a break where it is not comparable with the one before."""
    reports = [point.report for point in points]
    return History(
        metrics=tuple(metrics),
        points=tuple(
            HistoryPoint(
                point.label,
                point.date,
                {metric: report.measured(metric) for metric in metrics},
                None if i == 0 else break_reason(reports[i - 1], report),
            )
            for i, (point, report) in enumerate(zip(points, reports))
        ),
        note=note,
    )


def break_reason(older: Report, newer: Report) -> str | None:
    """Why ``newer`` cannot be joined to ``older`` on one line, or None when it can."""
    reasons = [_said(code, older, newer) for code, _ in yardstick_changes(Sides(older, newer, None))]
    old_policies, new_policies = _policies(older.config), _policies(newer.config)
    for key in sorted(set(old_policies) | set(new_policies)):
        before, after = old_policies.get(key), new_policies.get(key)
        if _values_of(key, before) != _values_of(key, after):
            reasons.append(f"{key} {_shown(before)} → {_shown(after)}")
    return "; ".join(reasons) or None


def _policies(config: Config | None) -> dict[str, Json]:
    """The entries of ``config`` that say how a report was scored beside its threshold and gain
    (the unjudged policy, and any a later version records), those it holds."""
    if config is None:
        return {}
    named: dict[str, Json] = {f.name: getattr(config, f.name) for f in fields(Config) if f.name not in _NOT_POLICY}
    found = {name: value for name, value in named.items() if value is not None}
    return {**found, **(config.others or {})}


# The bounded policy scores exactly as assume-irrelevant does and adds the bounds beside each
# value, so a switch between the two moves no point; condensed lists change the values.
_SAME_VALUES = {("unjudged", "bounded"): "assume-irrelevant"}


def _values_of(key: str, setting: Json) -> Json:
    """The setting as far as the values depend on it."""
    return _SAME_VALUES.get((key, setting), setting) if isinstance(setting, str) else setting


def _said(code: str, older: Report, newer: Report) -> str:
    if code == "judgments-changed":
        before = older.inputs.judgments_sha256 if older.inputs is not None else None
        after = newer.inputs.judgments_sha256 if newer.inputs is not None else None
        return f"judgments changed ({short(before)} → {short(after)})"
    if code in ("threshold-changed", "gain-changed"):
        name = code.removesuffix("-changed")
        before, after = getattr(older.config, name, None), getattr(newer.config, name, None)
        return f"{name} {_shown(before)} → {_shown(after)}"
    if code == "judgments-unknown":
        return "a report does not record its judgments"
    return "a report does not record its threshold and gain"


def _shown(value: object) -> str:
    return "none" if value is None else str(value)
