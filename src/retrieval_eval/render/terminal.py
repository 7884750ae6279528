"""Plain-text rendering for the terminal: metric table, strata bars, gates, verdict.

With a comparison (``score --baseline``, ``render --format text --compare``) the metric
table shows base, head, delta and interval per metric, the strata their base and delta,
and the queries that moved most follow: the terminal answers what the summary answers.

No Jinja here: the score path must start fast, and a terminal table is a
few lines of formatting. Colour is decided by the caller (``--color``,
NO_COLOR, whether stdout is a terminal) and passed in as a flag.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.comparison_document import ComparisonDocument, MetricRow, Mover, Movers, SignificanceMethod
from ..core.gates import gate_metric
from ..core.lenient import number
from ..core.metrics import REGISTRY, SET_METRICS
from ..core.report_model import (
    Calibration,
    Config,
    Floor,
    JudgmentsSummary,
    MachineLabels,
    Margin,
    Measurement,
    Report,
    StratumEntry,
    Tool,
)
from ..core.validate import Validation
from .compared import Compared, as_document
from .detectable import detectable_gates, detectable_sentence
from .marks import adjusted_mark, report_gates
from .notices import notices
from .numbers import fmt_bound, fmt_delta, fmt_interval
from .sections import NO_GATES, drift_facts, floor_shown

_COLOURS = {"PASS": "32", "FAIL": "31", "INDETERMINATE": "33", "dim": "2", "bold": "1"}
BAR_WIDTH = 20
MAX_LISTED = 10
TEXT_WIDTH = 60  # characters of a query's text in a movers line


class Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, tone: str) -> str:
        code = _COLOURS.get(tone)
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour and code else text


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def clean(value: Any) -> str:
    """User text made safe for a terminal: control characters shown by code, not obeyed.

    The one cleaner every command uses for strings from files or arguments: C0 and C1
    controls, DEL, and every other character that is not printable (the bidi marks
    that reorder a line among them) come out as ``\\x1b``, ``\\r``, ``\\u202e``.
    """
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def clean_json_text(text: str) -> str:
    """JSON lines made safe for a terminal by the same rule as :func:`clean`: every character that
    is not printable (a newline between lines apart) is written as its JSON escape, which reads
    back as the same string. Only strings hold such characters, so the JSON stays valid."""
    return "".join(ch if ch.isprintable() or ch == "\n" else json.dumps(ch)[1:-1] for ch in text)


def metric_table(report: Report) -> list[str]:
    metrics = report.metrics or {}
    ks = report.cutoffs()
    if not metrics:
        return ["no metric was computed"]
    # -k all scores ndcg, mrr and map over the whole ranking, under their plain names: a column of
    # their own, or they would be computed and never shown.
    full = report.full_depth()
    rows = [f"{'metric':<12}" + "".join(f"{'@' + str(k):>10}" for k in ks) + (f"{'all':>10}" if full else "")]
    for metric in REGISTRY:
        if metric.at_cutoff:
            cells = [fmt(report.measured(f"{metric.name}@{k}")) for k in ks]
            if full:
                cells.append(fmt(report.measured(metric.name)) if metric.full_depth else "·")
            rows.append(f"{metric.name:<12}" + "".join(f"{c:>10}" for c in cells))
    # R-precision and bpref have no cutoff: below the grid, said so, not under the first column.
    for metric in REGISTRY:
        if not metric.at_cutoff and metric.name in metrics:
            rows.append(f"{metric.name:<12}{fmt(metrics[metric.name].value):>10}  (no cutoff)")
    for name in SET_METRICS:
        if name in metrics:
            measurement = metrics[name]
            rows.append(f"{name:<22}{fmt(measurement.value):>10}  n={clean(measurement.n)}")
    for name, measurement in metrics.items():
        if measurement.deterministic is False:
            rows.append(judged_row(clean(name), measurement))
    return rows


def judged_row(name: str, measurement: Measurement) -> str:
    bounds = measurement.ci or ()
    if len(bounds) == 2:
        spread = f"  95% CI [{bounds[0]:.4f}, {bounds[1]:.4f}]"
    else:
        spread = "  (one sample, no interval)"
    return f"{name:<12}{fmt(measurement.value):>10}{spread}  n={clean(measurement.n)}"


def bar(value: float) -> str:
    filled = max(0, min(BAR_WIDTH, round(value * BAR_WIDTH)))
    return "█" * filled + "░" * (BAR_WIDTH - filled)


def strata_lines(report: Report, comparison: ComparisonDocument | None, style: Style) -> list[str]:
    strata: dict[str, StratumEntry] = {clean(name): entry for name, entry in (report.per_stratum or {}).items()}
    if not strata:
        return []
    primary = report.primary_metric()
    compared = {clean(name): entry for name, entry in (comparison.strata if comparison else {}).items()}
    worst = clean(report.worst_stratum.name if report.worst_stratum is not None else None)
    width = max(len(name) for name in strata)
    versus = "; base and Δ vs base" if comparison is not None else ""
    lines = [f"strata ({primary}, worst first{versus})"]
    for name, entry in strata.items():
        value = entry.measured(primary)
        if value is None:
            lines.append(f"  {name:<{width}}  {'':<{BAR_WIDTH}}  {'—':>6}  n=0 (nothing to score)")
            continue
        moved = compared.get(name)
        then = number(moved.base) if moved else None
        base = f"  base {'—' if then is None else f'{then:.3f}'} {fmt_delta(moved.delta):>8}" if moved else ""
        mark = style("  ← worst", "FAIL") if name == worst else ""
        lines.append(f"  {name:<{width}}  {bar(value)}  {value:6.3f}  n={clean(entry.n)}{base}{mark}")
    return lines


def _margin(row: Margin) -> str:
    ci = row.ci or ()
    interval = f"  [{fmt_bound(ci[0])}, {fmt_bound(ci[1])}]" if len(ci) == 2 else ""
    mark = "  significant" if row.significant is True else ""
    values = f"{fmt(row.floor)}  {fmt(row.head)}  {fmt_delta(row.margin)}"
    return f"{values}{interval}{mark}"


def floor_lines(report: Report) -> list[str]:
    """The margin over the floor on the primary cutoff's metrics, and per stratum on the primary one."""
    if not floor_shown(report):
        return []
    floor = report.floor or Floor()
    if floor.unavailable:
        return [f"floor  {clean(floor.unavailable)}"]
    primary = report.primary_metric()
    cutoff = primary.partition("@")[2]
    source = clean(floor.method or floor.source)
    lines = [f"margin over the floor ({source}; floor, run, margin, 95% interval)"]
    for name, row in (floor.metrics or {}).items():
        if "@" not in name or name.endswith("@" + cutoff):
            lines.append(f"  {clean(name):<14}{_margin(row)}")
    strata = floor.per_stratum or {}
    if strata:
        lines.append(f"  per stratum, {primary}")
        for name, entry in strata.items():
            row = (entry.metrics or {}).get(primary) or Margin()
            lines.append(f"    {clean(name):<12}{_margin(row)}  n={clean(entry.n)}")
    return lines


def eval_set_lines(report: Report, style: Style) -> list[str]:
    """The eval-set sensitivity warnings, and a check that was skipped."""
    warnings = (report.sensitivity.warnings if report.sensitivity is not None else None) or ()
    skipped = notices(report).skipped
    if not warnings and not skipped:
        return []
    lines = ["eval set"]
    for warning in warnings:
        lines.append(f"  {style('warning', 'INDETERMINATE')}  {clean(warning.code)}  {clean(warning.message)}")
    if skipped:
        lines.append(f"  note     {clean(skipped)}")
    return lines


def drift_lines(report: Report, style: Style) -> list[str]:
    """Label drift: how many labels still fit the corpus, what moved, and the repair when one exists."""
    facts = drift_facts(report)
    if facts is None:
        return []
    tone = "INDETERMINATE" if facts.stale else "PASS"
    said = facts.sentence(tick="").removeprefix("Label drift: ")
    lines = ["label drift", f"  {style(clean(said), tone)}"]
    lines += [f"  corpus   {clean(change)}" for change in facts.changes]
    if facts.repair_command:
        lines.append(f"  re-anchor what can be (the others need a person):  {clean(facts.repair_command)}")
    return lines


def gate_lines(report: Report, style: Style) -> list[str]:
    gates = report_gates(report)
    if not gates:
        return []
    lines = ["gates"]
    for gate in gates:
        status, expression = clean(gate.status), clean(gate.expression)
        detail = clean(gate.reason).removeprefix(expression + ": ")
        lines.append(f"  {style(f'{status:<13}', status)} {expression}  {style(detail, 'dim')}")
    return lines


def machine_lines(report: Report) -> list[str]:
    """The ``machine`` policy's block, as the summary words it: what the human labels alone
    say, what the judge labeled and how calibrated it is, and each gate with its labels."""
    machine = report.machine_labels
    if machine is None or machine == MachineLabels():
        return []
    cal = machine.calibration or Calibration()
    share = number(machine.machine_labeled_share)
    said = (
        f"  human labels alone: {clean(machine.human_labels_verdict)}; a judge labeled "
        f"{clean(machine.machine_labeled or 0)} of {clean(machine.holes or 0)} unjudged key(s) in the top k"
        f"{'' if share is None else f' ({share:.0%})'}; its calibration: {clean(cal.status or 'none')}"
    )
    if cal.pairs:
        said += f" on {clean(cal.pairs)} human-labeled pairs, kappa {fmt(cal.kappa_binary)} (binary)"
    lines = ["machine labels", said]
    if machine.invalidated:
        lines.append(
            f"  {clean(machine.invalidated)} machine label(s) not read: their chunk text changed since the judge "
            "read it"
        )
    for gate in machine.gates or ():
        note = f" ({clean(gate.note)})" if gate.note else ""
        lines.append(
            f"  {clean(gate.expression)}: {clean(gate.human_status)} with human labels, "
            f"{clean(gate.status)} with machine labels{note}"
        )
    return lines


def power_lines(report: Report) -> list[str]:
    """What each delta gate's queries can detect, one line per gate (render/power.py)."""
    lines = []
    for gate in detectable_gates(report):
        sentence = detectable_sentence(gate, clean(gate_metric(gate.expression or "")))
        if sentence is not None:
            lines.append(f"  {clean(gate.expression)}  {sentence}")
    return ["detectable", *lines] if lines else []


def reason_lines(report: Report) -> list[str]:
    reasons = [clean(r) for r in notices(report).beyond_gates(report)]
    return ["reasons", *(f"  - {r}" for r in reasons)] if reasons else []


def header(report: Report) -> str:
    config, judged = report.config or Config(), report.judgments or JudgmentsSummary()
    tool = report.tool or Tool()
    ks = ",".join([*(str(k) for k in report.cutoffs()), *(["all"] if report.full_depth() else [])])
    scored = 0 if judged.queries_scored is None else judged.queries_scored
    return (
        f"{clean(tool.name)} {clean(tool.version)}  ·  "
        f"{clean(scored)} of {clean(0 if judged.queries is None else judged.queries)} queries scored  ·  "
        f"k={ks}  ·  threshold {clean(config.threshold)}  ·  gain {clean(config.gain)}"
    )


def verdict_line(report: Report, style: Style) -> str:
    """The verdict; without a gate it says so, so a bare PASS is not read as a checked result."""
    status = clean(report.status() or "INDETERMINATE")
    gated = "" if report_gates(report) else style(f" ({NO_GATES})", "dim")
    return f"verdict  {style(status, status)}{gated}"


NO_ROW = MetricRow()  # a metric the comparison does not hold


def comparison_table(report: Report, comparison: ComparisonDocument, style: Style) -> list[str]:
    """Base, head, delta and interval per metric; a metric only one side has shows a dash."""
    compared = comparison.metrics
    paired = (comparison.queries.paired if comparison.queries else None) or 0
    yardstick = clean(comparison.yardstick or "same")
    lines = [
        f"compared with base ({yardstick} yardstick, {paired} paired queries)",
        f"{'metric':<22}{'base':>8}{'head':>10}{'Δ':>10}  95% interval",
    ]
    names = dict.fromkeys([*compared, *(report.metrics or {})])
    for name in names:
        found = compared.get(name)
        row = found or NO_ROW
        head = row.head if found is not None else report.measured(str(name))
        if row.confounded:
            delta, interval = fmt_delta(row.delta), "confounded"
        else:
            delta, interval = fmt_delta(row.delta), fmt_interval(row.ci)
            if adjusted_mark(row):
                delta, interval = style(delta, "bold"), f"{interval}  significant"
        cells = f"{fmt(number(row.base)):>8}{fmt(number(head)):>10}{delta:>10}"
        if name in SET_METRICS:  # measured over a subset of the queries: say how many
            measured = (report.metrics or {}).get(name)
            interval += f"  n={clean(measured.n if measured is not None else None)}"
        lines.append(f"{clean(name):<22}{cells}  {interval}".rstrip())
    note = significance_note(comparison)
    if note:
        lines.append(style(note, "dim"))
    return lines


def significance_note(comparison: ComparisonDocument) -> str | None:
    """What "significant" means under the metric rows (``score --baseline`` and ``compare`` alike)."""
    method = comparison.significance or SignificanceMethod()
    resamples = method.resamples
    if not resamples:
        return None
    about = f"paired bootstrap, {resamples:,} resamples (seed {method.seed})"
    meaning = (  # the summary's bold delta, in the same words
        "is significant at 5% after Holm's adjustment over the metrics tested"
        if method.adjustment is not None
        else "has a 95% interval that excludes 0"
    )
    return f"{about}; a Δ marked significant {meaning}"


def mover_lines(comparison: ComparisonDocument | None) -> list[str]:
    """The queries that moved most on the primary metric, drops first."""
    moved = (comparison.movers if comparison else None) or Movers()
    lines: list[str] = []
    for title, rows in (("largest drops", moved.drops), ("largest gains", moved.gains)):
        if rows:
            lines.append(f"{title} ({clean(moved.metric)}, base -> head)")
            lines += [mover_line(row) for row in rows]
    if lines:
        counts = f"queries that moved: {moved.down or 0} down, {moved.up or 0} up"
        lines.insert(0, counts)
    return lines


def mover_line(row: Mover) -> str:
    """One mover: its delta, base -> head, id, stratum and query text (when the judgments gave it)."""
    text = " ".join(clean(row.query or "").split())
    text = text if len(text) <= TEXT_WIDTH else text[: TEXT_WIDTH - 1] + "…"
    stratum = f"  [{clean(row.stratum)}]" if row.stratum else ""
    values = f"{fmt(number(row.base))} -> {fmt(number(row.head))}"
    return f"  {fmt_delta(row.delta):>8}  {values}  {clean(row.query_id)}{stratum}  {text}".rstrip()


def finding_lines(comparison: ComparisonDocument | None) -> list[str]:
    findings = comparison.findings if comparison else ()
    if not findings:
        return []
    rows = [f"  {clean(f.effect)}: {clean(f.detail)}; {clean(f.meaning)}" for f in findings]
    return ["comparability", *rows]


def render_score(report: Report, compared: Compared = None, *, colour: bool = False) -> str:
    """The text summary of a report, and its comparison with the base when there is one."""
    comparison = as_document(compared)
    style = Style(colour)
    metrics = metric_table(report) if comparison is None else comparison_table(report, comparison, style)
    sections = [
        [header(report)],
        drift_lines(report, style),
        metrics,
        strata_lines(report, comparison, style),
        mover_lines(comparison),
        finding_lines(comparison),
        floor_lines(report),
        eval_set_lines(report, style),
        gate_lines(report, style),
        machine_lines(report),
        power_lines(report),
        reason_lines(report),
        [verdict_line(report, style)],
    ]
    return "\n\n".join("\n".join(section) for section in sections if section) + "\n"


def render_validation(result: Validation, *, colour: bool = False) -> str:
    style = Style(colour)
    lines = [f"{result.queries} queries, {result.labels} labels"]
    shown: dict[str, int] = {}
    for issue in result.issues:
        count = shown[issue.code] = shown.get(issue.code, 0) + 1
        if count <= MAX_LISTED:
            tone = "FAIL" if issue.severity == "error" else "INDETERMINATE"
            lines.append(f"  {style(issue.severity, tone):<7}  {issue.code}  {clean(issue.message)}")
        elif count == MAX_LISTED + 1:
            total = sum(1 for i in result.issues if i.code == issue.code)
            lines.append(f"           … {total - MAX_LISTED} more {issue.code} (see --json)")
    verdict = style("ok", "PASS") if result.ok else style("unsound", "FAIL")
    lines.append(f"{len(result.errors)} error(s), {len(result.warnings)} warning(s): {verdict}")
    return "\n".join(lines) + "\n"
