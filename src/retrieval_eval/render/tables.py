"""The rows of every table a template draws, escaped and formatted.

Each function turns one part of the report or comparison into a list of
rows of strings, ready to be written into a Markdown table as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.comparison_document import ComparisonDocument, MetricRow, Mover, StratumRow
from ..core.gates import PASS, SEVERITY, gate_metric
from ..core.lenient import number
from ..core.report_model import Floor, GateEntry, Margin, Report, StratumEntry
from .escape import escape_markdown, escape_name, mermaid_label
from .marks import adjusted_mark, report_gates
from .numbers import fmt, fmt_delta, fmt_interval, fmt_p

ICONS = {"PASS": "✅", "FAIL": "❌", "INDETERMINATE": "⚠️"}
QUERY_LIMIT = 120  # characters of query text in a movers row
REASON_LIMIT = 500  # characters of a reason, detail or meaning


@dataclass(frozen=True, slots=True)
class MetricLine:
    """One metric's row: its value, and against a base how it moved and how surely."""

    name: str
    primary: bool
    value: str
    base: str
    head: str
    delta: str
    interval: str
    p: str
    p_adjusted: str
    significant: bool
    confounded: str | None  # why the two sides cannot be compared, escaped; None when they can
    gate: str  # the worst gate's icon, or ""


@dataclass(frozen=True, slots=True)
class StratumLine:
    name: str
    label: str  # for a Mermaid chart
    n: int | str  # "—" when neither side counts it
    head: str
    head_value: float | None
    base: str
    base_value: float | None
    delta: str
    p_adjusted: str


@dataclass(frozen=True, slots=True)
class MoverLine:
    query_id: str
    query: str
    stratum: str
    base: str
    head: str
    delta: str


@dataclass(frozen=True, slots=True)
class GateLine:
    expression: str
    status: str
    icon: str
    reason: str


@dataclass(frozen=True, slots=True)
class FindingLine:
    """A comparability note; ``confounds`` when it changes what a number means."""

    code: str
    effect: str
    detail: str
    meaning: str
    confounds: bool


@dataclass(frozen=True, slots=True)
class MarginLine:
    """One metric's margin over the floor; a bold margin has an interval that excludes 0."""

    name: str
    floor: str
    head: str
    margin: str
    interval: str
    gate: str


@dataclass(frozen=True, slots=True)
class FloorStratumLine(MarginLine):
    """A stratum's margin on the primary metric: ``name`` is the stratum's, ``n`` its queries."""

    n: int


def metric_rows(report: Report, comparison: ComparisonDocument | None, primary: str) -> list[MetricLine]:
    marks = gate_marks(report_gates(report))
    compared = comparison.metrics if comparison else {}
    names = [str(n) for n in dict.fromkeys([*(report.metrics or {}), *compared])]
    # The primary metric leads; gated metrics follow; then the rest in report order.
    names.sort(key=lambda n: (n != primary, n not in marks))
    return [metric_row(n, report, compared.get(n), marks, primary) for n in names]


def metric_row(
    name: str, report: Report, compared: MetricRow | None, marks: Mapping[str, str], primary: str
) -> MetricLine:
    """``compared``: the comparison's row of the metric, None when there is none (no base, or a metric new here)."""
    row = compared or MetricRow()
    significant = adjusted_mark(row)
    confounded = row.confounded
    delta = fmt_delta(row.delta)
    return MetricLine(
        name=escape_name(name),
        primary=name == primary,
        value=fmt(report.measured(name)),
        base=fmt(row.base),
        head=fmt(row.head if compared is not None else report.measured(name)),
        delta=f"**{delta}**" if significant and not confounded else delta + (" ⚠️" if confounded else ""),
        interval="confounded" if confounded else fmt_interval(row.ci),
        p="—" if confounded else fmt_p(row.p_value),
        p_adjusted="—" if confounded else fmt_p(row.holm.p_adjusted if row.holm else None),
        significant=significant,
        confounded=escape_markdown(confounded) if confounded else None,
        gate=marks.get(name, ""),
    )


def gate_marks(gates: Sequence[GateEntry]) -> dict[str, str]:
    """The worst gate status per metric name, as a mark for the metric table."""
    worst: dict[str, str] = {}
    for gate in gates:
        status, metric = str(gate.status), gate_metric(gate.expression or "")
        if status in SEVERITY and SEVERITY[status] >= SEVERITY[worst.get(metric, PASS)]:
            worst[metric] = status
    return {metric: ICONS[status] for metric, status in worst.items()}


def compact_metric_rows(rows: list[MetricLine], primary: str) -> list[MetricLine]:
    """For the comment: the primary cutoff's metrics, every gated metric, and the cutoff-free ones."""
    cutoff = primary.partition("@")[2]
    return [r for r in rows if r.gate or r.primary or "@" not in r.name or r.name.endswith("@" + cutoff)]


def stratum_rows(report: Report, comparison: ComparisonDocument | None, primary: str) -> list[StratumLine]:
    """Every stratum either side reports: the head's in report order (worst first), then the base's."""
    head = report.per_stratum or {}
    compared = comparison.strata if comparison else {}
    return [
        _stratum_row(name, head.get(name) or StratumEntry(), compared.get(name), primary)
        for name in dict.fromkeys([*head, *compared])
    ]


def _stratum_row(name: str, entry: StratumEntry, compared: StratumRow | None, primary: str) -> StratumLine:
    moved = compared or StratumRow()
    value = moved.head if compared is not None else entry.measured(primary)
    # Paired counts when the comparison has them, so n matches the numbers beside it.
    n = moved.n if moved.n is not None else entry.n
    return StratumLine(
        name=escape_markdown(name, limit=80),
        label=mermaid_label(name),
        n=n if n is not None else "—",
        head=fmt(value),
        head_value=number(value),
        base=fmt(moved.base),
        base_value=number(moved.base),
        delta=f"**{fmt_delta(moved.delta)}**" if adjusted_mark(moved) else fmt_delta(moved.delta),
        p_adjusted=fmt_p(moved.holm.p_adjusted if moved.holm else None),
    )


def mover_rows(movers: Sequence[Mover] | None) -> list[MoverLine]:
    return [_mover_row(mover) for mover in movers or ()]


def _mover_row(mover: Mover) -> MoverLine:
    query, stratum = mover.query, mover.stratum
    return MoverLine(
        query_id=escape_markdown(mover.query_id, limit=80),
        query=escape_markdown(query, limit=QUERY_LIMIT) if query else "—",
        stratum=escape_markdown(stratum, limit=60) if stratum else "—",
        base=fmt(mover.base),
        head=fmt(mover.head),
        delta=fmt_delta(mover.delta),
    )


def gate_rows(report: Report) -> list[GateLine]:
    rows = []
    for gate in report_gates(report):
        expression = gate.expression or ""
        # The reason repeats the expression the row already shows.
        reason = (gate.reason or "").removeprefix(expression + ": ")
        status = gate.status or ""
        rows.append(
            GateLine(
                expression=escape_markdown(expression, limit=80),
                status=escape_markdown(status, limit=20),
                icon=ICONS.get(status, ""),
                reason=escape_markdown(reason, limit=REASON_LIMIT),
            )
        )
    return rows


def finding_rows(comparison: ComparisonDocument | None) -> list[FindingLine]:
    return [
        FindingLine(
            code=escape_markdown(f.code, limit=40),
            effect=escape_markdown(f.effect, limit=20),
            detail=escape_markdown(f.detail, limit=REASON_LIMIT),
            meaning=escape_markdown(f.meaning, limit=REASON_LIMIT),
            confounds=f.effect == "confounds",
        )
        for f in (comparison.findings if comparison else ())
    ]


def floor_marks(report: Report) -> dict[str, str]:
    """The worst status of the ``floor:`` gates per metric."""
    return gate_marks([g for g in report_gates(report) if (g.expression or "").startswith("floor:")])


def margin_row(name: str, row: Margin, gate: str = "") -> MarginLine:
    """One metric's margin over the floor; a bold margin has an interval that excludes 0."""
    margin = fmt_delta(row.margin)
    return MarginLine(
        name=escape_name(name),
        floor=fmt(row.floor),
        head=fmt(row.head),
        margin=f"**{margin}**" if row.significant is True else margin,
        interval=fmt_interval(row.ci),
        gate=gate,
    )


def floor_stratum_rows(floor: Floor, primary: str) -> list[FloorStratumLine]:
    """Each stratum's margin on the primary metric, in the report's order (worst first)."""
    rows = []
    for name, entry in (floor.per_stratum or {}).items():
        row = (entry.metrics or {}).get(primary)
        if row is not None and row != Margin():
            line = margin_row(primary, row)
            rows.append(
                FloorStratumLine(
                    name=escape_markdown(name, limit=80),
                    floor=line.floor,
                    head=line.head,
                    margin=line.margin,
                    interval=line.interval,
                    gate=line.gate,
                    n=entry.n or 0,
                )
            )
    return rows
