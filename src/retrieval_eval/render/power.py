"""What the set can detect, as the renderings say it: one line per delta gate, and the effect sizes.

Read from the report (each delta gate's ``detectable``) and the comparison (each metric's
``mde`` and ``moved``), leniently: a report or comparison made before these fields existed
draws nothing here. The view (for the ``power`` template block) is escaped like every other.
The sentences themselves are in :mod:`.detectable`, which the terminal reads without loading
the Markdown escaping.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..core.comparison_document import ComparisonDocument, MetricRow
from ..core.gates import gate_metric
from ..core.lenient import number
from ..core.report_model import Report
from .detectable import detectable_gates, detectable_sentence, detectable_text
from .escape import escape_markdown, escape_name
from .numbers import fmt_delta, fmt_interval


@dataclass(frozen=True, slots=True)
class PowerGate:
    """A delta gate, and the one sentence saying what change it can detect."""

    expression: str
    line: str


@dataclass(frozen=True, slots=True)
class EffectLine:
    """A metric's change, its interval, the smallest change the set detects, and how queries moved."""

    metric: str
    delta: str
    interval: str
    mde: str
    shares: str


@dataclass(frozen=True, slots=True)
class PowerView:
    """The ``power`` block: what the set can detect."""

    gates: tuple[PowerGate, ...]
    effects: tuple[EffectLine, ...]
    strata: str | None
    metric: str


def power_view(report: Report, comparison: ComparisonDocument | None, *, markdown: bool = True) -> PowerView:
    """The ``power`` block's data: ``gates`` (one line per delta gate) and ``effects``.

    ``markdown``: user strings escaped for Markdown; False leaves them for an autoescaping
    HTML template (which must not show Markdown's backslashes), cut to the same lengths.
    """
    name: Callable[[str], str] = escape_name if markdown else _plain_name
    text: Callable[[str], str] = (lambda v: escape_markdown(v, limit=200)) if markdown else _plain_text
    gates = []
    for gate in detectable_gates(report):
        expression = gate.expression or ""
        sentence = detectable_sentence(gate, name(gate_metric(expression)))
        if sentence is not None:
            gates.append(PowerGate(expression=text(expression), line=sentence))
    return PowerView(
        gates=tuple(gates),
        effects=tuple(effect_rows(report, comparison, name)),
        strata=stratum_reach(comparison, text),
        metric=name((comparison.primary if comparison else None) or report.primary_metric()),
    )


def stratum_reach(comparison: ComparisonDocument | None, text: Callable[[str], str]) -> str | None:
    """``faq 0.272 (14 queries), billing 0.216 (13 queries)``: each paired stratum's detectable effect."""
    parts = []
    for name, row in (comparison.strata if comparison else {}).items():
        mde, n = (None if row.power is None else number(row.power.mde)), row.n
        if mde is not None and n is not None:
            parts.append(f"{text(name)} {detectable_text(mde, 3)} ({n} queries)")
    return ", ".join(parts) or None


def _plain_name(value: str) -> str:
    return str(value)[:60]


def _plain_text(value: str) -> str:
    return str(value)[:200]


def effect_rows(
    report: Report, comparison: ComparisonDocument | None, name: Callable[[str], str] = escape_name
) -> list[EffectLine]:
    """The primary and the delta-gated metrics: the change, its interval, and the share of queries
    that improved, tied and worsened (on a large set a tiny change is significant; this says its size)."""
    rows = comparison.metrics if comparison else {}
    wanted = [report.primary_metric(), *(gate_metric(g.expression or "") for g in detectable_gates(report))]
    found = []
    for metric in dict.fromkeys(wanted):
        row = rows.get(metric) or MetricRow()
        moved = None if row.power is None else row.power.moved
        if moved is None:
            continue
        counts = (moved.improved, moved.tied, moved.worsened)
        total = sum(counts)
        if not total:
            continue
        improved, tied, worsened = (f"{c / total:.0%}" for c in counts)
        mde = None if row.power is None else number(row.power.mde)
        found.append(
            EffectLine(
                metric=name(metric),
                delta=fmt_delta(row.delta),
                interval=fmt_interval(row.ci),
                mde="—" if mde is None else detectable_text(mde, 3),
                shares=f"{improved} of queries improved, {tied} tied, {worsened} worsened",
            )
        )
    return found
