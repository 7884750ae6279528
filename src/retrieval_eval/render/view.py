"""The view: everything a template sees, built once per rendering.

Templates never see a raw user string or a raw number: every string that
came from a file is escaped here (``escape``) and every number formatted
(``numbers``), so a template can only lay them out. The names in the view
are the ones docs/compare.md lists for user templates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.comparison_document import (
    QUERIES_DROPPED,
    ComparisonDocument,
    MetricRow,
    Movers,
    QueryCounts,
    SignificanceMethod,
)
from ..core.history import History
from ..core.lenient import number
from ..core.report_model import Floor, Inputs, JudgmentsSummary, Report, Tool, WorstStratum
from .escape import code_fence, escape_markdown, escape_name, mermaid_label, show_hidden
from .history import HistoryView, history_view
from .machine import MachineView, machine_view
from .marks import adjusted_mark, report_gates
from .notices import notices
from .numbers import fmt, fmt_delta, fmt_interval
from .power import PowerView, power_view
from .sections import NO_GATES, drift_facts, drift_of, floor_shown
from .tables import (
    ICONS,
    REASON_LIMIT,
    FindingLine,
    FloorStratumLine,
    GateLine,
    MarginLine,
    MetricLine,
    MoverLine,
    StratumLine,
    compact_metric_rows,
    finding_rows,
    floor_marks,
    floor_stratum_rows,
    gate_rows,
    margin_row,
    metric_rows,
    mover_rows,
    stratum_rows,
)
from .unjudged import UnjudgedView, unjudged_view

if TYPE_CHECKING:
    from ..formats.queue import QueueExcerpt


@dataclass(frozen=True)
class BaselineNote:
    """Where the comparison came from (or why there is none), as the action found it."""

    source: str = ""
    reason: str = ""
    notes: tuple[str, ...] = ()
    skipped_gates: tuple[str, ...] = ()  # delta gates set aside: a push has no base branch
    found: bool = False  # a base report was found; the comment then leaves the note to the summary


@dataclass(frozen=True, slots=True)
class VerdictView:
    status: str
    icon: str
    headline: str
    note: str  # "no gates" when none was set


@dataclass(frozen=True, slots=True)
class ScoredView:
    queries: int
    scored: int


@dataclass(frozen=True, slots=True)
class MetricsView:
    rows: tuple[MetricLine, ...]
    total: int
    hidden: int  # rows left out of this rendering (the comment's compact table, or the budget)


@dataclass(frozen=True, slots=True)
class StrataView:
    rows: tuple[StratumLine, ...]
    total: int


@dataclass(frozen=True, slots=True)
class ReasonsView:
    rows: tuple[str, ...]
    total: int


@dataclass(frozen=True, slots=True)
class ComparabilityView:
    rows: tuple[FindingLine, ...]
    total: int


@dataclass(frozen=True, slots=True)
class FloorView:
    """The margin over the floor run; ``shown`` is false when no floor was asked for."""

    shown: bool
    source: str
    unavailable: str | None
    rows: tuple[MarginLine, ...]
    strata: tuple[FloorStratumLine, ...]


@dataclass(frozen=True, slots=True)
class EvalSetLine:
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class EvalSetView:
    rows: tuple[EvalSetLine, ...]
    total: int
    skipped: str | None


@dataclass(frozen=True, slots=True)
class WorstView:
    name: str
    metric: str
    value: str
    n: int


@dataclass(frozen=True, slots=True)
class MoversView:
    metric: str
    drops: tuple[MoverLine, ...]
    gains: tuple[MoverLine, ...]
    down: int
    up: int


@dataclass(frozen=True, slots=True)
class QueriesView:
    paired: int
    added: int
    removed: int


@dataclass(frozen=True, slots=True)
class View:
    """What a Markdown template sees: each field one name of its context (docs/compare.md)."""

    kind: str
    marker: str
    has_base: bool
    primary: str
    primary_label: str
    verdict: VerdictView
    scored: ScoredView
    metrics: MetricsView
    significance: str | None
    floor: FloorView
    eval_set: EvalSetView
    worst: WorstView | None
    drift: str | None
    drift_checked: str | None
    corpus_changes: tuple[str, ...]
    drift_repair: str | None
    drift_queue: str | None
    drift_stranded: str | None
    unjudged: UnjudgedView | None
    machine_labels: MachineView | None
    baseline: tuple[str, ...]
    strata: StrataView
    movers: MoversView
    gates: tuple[GateLine, ...]
    power: PowerView
    reasons: ReasonsView
    comparability: ComparabilityView
    confounds: tuple[FindingLine, ...]
    # Queries the base scored that the head's judgments no longer do: out of every delta, said
    # where the verdict is read (a pull request deleting the labels of queries it breaks).
    dropped: FindingLine | None
    yardstick: str | None
    queries: QueriesView
    footer: str
    history: HistoryView | None
    omitted: tuple[str, ...]  # what the budget left out, when it had to


def build_view(
    report: Report,
    comparison: ComparisonDocument | None,
    *,
    kind: str,
    marker: str,
    baseline: BaselineNote | None = None,
    history: History | None = None,
    queue: QueueExcerpt | None = None,
) -> View:
    primary = report.primary_metric()
    rows = metric_rows(report, comparison, primary)
    shown = compact_metric_rows(rows, primary) if kind == "comment" else rows
    judgments = report.judgments or JudgmentsSummary()
    notes = finding_rows(comparison)
    told = tuple(escape_markdown(reason, limit=REASON_LIMIT) for reason in notices(report).reasons)
    strata = stratum_rows(report, comparison, primary)
    return View(
        kind=kind,
        marker=marker,
        has_base=comparison is not None,
        primary=escape_name(primary),
        primary_label=mermaid_label(primary),
        verdict=verdict(report, comparison, primary),
        scored=ScoredView(queries=judgments.queries or 0, scored=judgments.queries_scored or 0),
        metrics=MetricsView(rows=tuple(shown), total=len(rows), hidden=len(rows) - len(shown)),
        significance=significance_line(comparison),
        floor=floor_view(report, primary, kind),
        eval_set=eval_set_view(report),
        worst=worst_stratum(report),
        drift=drift_warning(report),
        drift_checked=drift_clean(report),
        corpus_changes=tuple(corpus_changes(report)),
        drift_repair=drift_repair(report),
        drift_queue=drift_queue(report),
        drift_stranded=drift_stranded(report),
        unjudged=unjudged_view(report, comparison, queue),
        machine_labels=machine_view(report) if kind == "summary" else None,
        baseline=tuple(baseline_lines(baseline, kind)),
        # Every stratum either side reports, so the count in the heading matches the table.
        strata=StrataView(rows=tuple(strata), total=len(strata)),
        movers=movers(comparison, primary),
        gates=tuple(gate_rows(report)),
        power=power_view(report, comparison),
        reasons=ReasonsView(rows=told, total=len(told)),
        comparability=ComparabilityView(rows=tuple(notes), total=len(notes)),
        confounds=tuple(note for note in notes if note.confounds),
        dropped=next((note for note in notes if note.code == QUERIES_DROPPED), None),
        yardstick=escape_markdown(comparison.yardstick or "", limit=20) if comparison else None,
        queries=queries(comparison),
        footer=footer(report, comparison),
        history=history_view(history) if kind == "summary" else None,
        omitted=(),  # filled by the budget, when it has to leave something out
    )


def verdict(report: Report, comparison: ComparisonDocument | None, primary: str) -> VerdictView:
    status = report.status() or "INDETERMINATE"
    return VerdictView(
        status=escape_markdown(status, limit=20),
        icon=ICONS.get(status, "⚠️"),
        headline=headline(report, comparison, primary),
        # Said beside the status, so a PASS no gate checked is not read as a checked result.
        note="" if report_gates(report) else NO_GATES,
    )


def headline(report: Report, comparison: ComparisonDocument | None, primary: str) -> str:
    """The primary metric in one sentence: its value and, against a base, how it moved and how surely."""
    value = report.measured(primary)
    if value is None:
        return "No metric was computed."
    text = f"{escape_name(primary)} **{fmt(value)}**"
    moved = (comparison.metrics.get(primary) if comparison else None) or MetricRow()
    if comparison is None or number(moved.delta) is None:
        return text
    if moved.confounded:
        return f"{text} ({fmt_delta(moved.delta)} vs base, confounded)"
    versus = f"{fmt_delta(moved.delta)} vs base"
    paired = (comparison.queries or QueryCounts()).paired
    if paired and paired != (report.judgments or JudgmentsSummary()).queries_scored:
        versus += f" on the {paired} queries scored on both sides"
    interval = fmt_interval(moved.ci)
    if interval == "—":
        return f"{text} ({versus})"
    verdict = "significant" if adjusted_mark(moved) else "not significant"
    return f"{text} ({versus}, 95% interval {interval}, {verdict})"


def significance_line(comparison: ComparisonDocument | None) -> str | None:
    method = (comparison.significance if comparison else None) or SignificanceMethod()
    paired, resamples = method.paired_queries, method.resamples
    if not paired or not resamples:
        return None
    seed = method.seed
    intervals = f"Intervals: paired bootstrap over {paired} queries, {resamples:,} resamples (seed {seed})"
    if method.adjustment is None:  # a comparison made before the adjustment marks by each test alone
        return f"{intervals}; a bold Δ has a 95% interval that excludes 0."
    return (
        f"{intervals}; a bold Δ is significant at 5% after Holm's adjustment over the metrics tested "
        "(the strata apart); p is each test's own."
    )


def floor_view(report: Report, primary: str, kind: str) -> FloorView:
    """The margin over the floor run: every metric (the comment: the primary cutoff's and the gated
    ones), and the primary metric per stratum. ``shown`` is false when no floor was asked for."""
    floor = report.floor or Floor()
    unavailable = floor.unavailable
    marks = floor_marks(report)
    cutoff = primary.partition("@")[2]
    rows = [
        margin_row(name, row, marks.get(name, ""))
        for name, row in (floor.metrics or {}).items()
        if kind != "comment" or name in marks or "@" not in name or name.endswith("@" + cutoff)
    ]
    source = floor.source
    name = escape_markdown(floor.method or (source if source != "run" else None) or "floor run", limit=40)
    sha = floor.run_sha256
    return FloorView(
        shown=floor_shown(report),
        source=name + (f" {_short_hash(sha)}" if sha else ""),
        unavailable=escape_markdown(unavailable, limit=REASON_LIMIT) if unavailable is not None else None,
        rows=tuple(rows),
        strata=tuple(floor_stratum_rows(floor, primary)),
    )


def eval_set_view(report: Report) -> EvalSetView:
    """The eval-set sensitivity warnings (easy-set, answer-in-query), and why a check was skipped."""
    warnings = report.sensitivity.warnings if report.sensitivity is not None else None
    rows = tuple(
        EvalSetLine(
            code=escape_markdown(warning.code or "", limit=40),
            message=escape_markdown(warning.message or "", limit=REASON_LIMIT),
        )
        for warning in warnings or ()
    )
    skipped = notices(report).skipped
    return EvalSetView(
        rows=rows,
        total=len(rows),
        skipped=escape_markdown(skipped, limit=REASON_LIMIT) if isinstance(skipped, str) else None,
    )


def worst_stratum(report: Report) -> WorstView | None:
    worst = report.worst_stratum
    if worst is None or worst == WorstStratum():
        return None
    name = worst.name
    entry = (report.per_stratum or {}).get(name) if name is not None else None
    return WorstView(
        name=escape_markdown(name, limit=80),
        metric=escape_name(worst.metric or ""),
        value=fmt(worst.value),
        n=(entry.n if entry is not None else None) or 0,
    )


def drift_warning(report: Report) -> str | None:
    """One sentence when the labels were checked against the corpus and some no longer fit."""
    facts = drift_facts(report)
    return facts.sentence() if facts is not None and facts.stale else None


def drift_clean(report: Report) -> str | None:
    """The sentence saying the labels were checked and all still fit, so a reader knows drift was looked at."""
    facts = drift_facts(report)
    if facts is None or facts.stale:
        return None
    return f"{facts.sentence()} ({dict(facts.counts).get('valid', 0)} labels checked)"


def corpus_changes(report: Report) -> list[str]:
    """How the corpus moved away from the labels and the base branch, one escaped line each."""
    facts = drift_facts(report)
    return [escape_markdown(change, limit=500) for change in (facts.changes if facts else ())]


def drift_repair(report: Report) -> str | None:
    """The command that re-anchors what can be, fenced so no text in it can close the fence;
    None when nothing can be re-anchored."""
    facts = drift_facts(report)
    command = facts.repair_command if facts is not None else None
    if command is None:
        return None
    # A bidi override in a path would make the command read otherwise than it runs: shown, not kept.
    command = show_hidden(command)
    fence = code_fence(command)
    return f"{fence}sh\n{command}\n{fence}"


def drift_queue(report: Report) -> str | None:
    """The command that writes the labels needing a person as a re-judge queue, fenced; None when
    the queue would hold no line (every broken label's document is gone: see drift_stranded)."""
    drift = drift_of(report)
    command = drift.list_command
    broken = (drift.split or 0) + (drift.orphaned or 0) - (drift.stranded or 0)
    if not command or broken <= 0:
        return None
    command = show_hidden(f"{command} --queue rejudge.jsonl")
    fence = code_fence(command)
    return f"{fence}sh\n{command}\n{fence}"


def drift_stranded(report: Report) -> str | None:
    """What clears the broken labels no re-judge queue can hold (their document is gone)."""
    count = drift_of(report).stranded or 0
    if count <= 0:
        return None
    one = count == 1
    return (
        f"{count} label{'' if one else 's'} name{'s' if one else ''} a document that is gone: no re-judge "
        f"queue can hold {'it' if one else 'them'}; delete {'it' if one else 'them'} from the judgments, or "
        f"label the quer{'y' if one else 'ies'} again on the live corpus (drift without --fix lists "
        f"{'it' if one else 'them'})."
    )


def baseline_lines(baseline: BaselineNote | None, kind: str) -> list[str]:
    """The note under the rendering: where the comparison came from, or why there is none.
    The comment carries it only when there is no base report: that is when a reader must act."""
    if baseline is None or (kind == "comment" and baseline.found):
        return []
    shown = escape_markdown(baseline.source or baseline.reason, limit=2000)
    lines = [f"{'Baseline' if baseline.source else 'No baseline'}: {shown}"]
    if baseline.skipped_gates:
        gates = ", ".join(f"`{gate}`" for gate in baseline.skipped_gates)
        lines.append(f"Delta gates set aside (they compare with a base branch, and a push has none): {gates}")
    lines.extend(f"Note: {escape_markdown(note, limit=2000)}" for note in baseline.notes)
    return lines


def movers(comparison: ComparisonDocument | None, primary: str) -> MoversView:
    moved = (comparison.movers if comparison else None) or Movers()
    return MoversView(
        metric=escape_name(primary if moved.metric is None else moved.metric),
        drops=tuple(mover_rows(moved.drops)),
        gains=tuple(mover_rows(moved.gains)),
        down=moved.down or 0,
        up=moved.up or 0,
    )


def queries(comparison: ComparisonDocument | None) -> QueriesView:
    counts = (comparison.queries if comparison else None) or QueryCounts()
    return QueriesView(
        paired=counts.paired or 0,
        added=len(counts.added or ()),
        removed=len(counts.removed or ()),
    )


def footer(report: Report, comparison: ComparisonDocument | None) -> str:
    """Tool, version and the hashes of what was compared, so a reader can find the exact inputs."""
    tool = report.tool or Tool()
    inputs = report.inputs or Inputs()
    parts = [
        f"{escape_markdown('retrieval-eval' if tool.name is None else tool.name, limit=40)} "
        f"{escape_markdown(tool.version or '', limit=20)}",
        f"judgments {_short_hash(inputs.judgments_sha256)}",
        f"run {_short_hash(inputs.run_sha256)}",
    ]
    if comparison is not None:
        parts.append(f"base run {_short_hash(comparison.base.run_sha256)}")
    generated = "—" if report.generated_at is None else report.generated_at
    parts.append(f"generated {escape_markdown(generated, limit=40)}")
    return " · ".join(parts)


def _short_hash(sha: str | None) -> str:
    return escape_markdown(str(sha or "—")[:12], limit=12)
