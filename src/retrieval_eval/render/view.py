"""The view: everything a template sees, built once per rendering.

Templates never see a raw user string or a raw number: every string that
came from a file is escaped here (``escape``) and every number formatted
(``numbers``), so a template can only lay them out. The names in the view
are the ones docs/compare.md lists for user templates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.comparison_document import ComparisonDocument, MetricRow, Movers, QueryCounts, SignificanceMethod
from ..core.history import History
from ..core.lenient import integer, items, mapping, measured, number, primary_metric, section
from .escape import code_fence, escape_markdown, escape_name, mermaid_label, show_hidden
from .history import history_view
from .machine import machine_view
from .notices import notices
from .numbers import fmt, fmt_delta, fmt_interval
from .power import power_view
from .sections import NO_GATES, drift_facts
from .tables import (
    ICONS,
    REASON_LIMIT,
    adjusted_mark,
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
from .unjudged import unjudged_view

View = dict[str, Any]


@dataclass(frozen=True)
class BaselineNote:
    """Where the comparison came from (or why there is none), as the action found it."""

    source: str = ""
    reason: str = ""
    notes: tuple[str, ...] = ()
    skipped_gates: tuple[str, ...] = ()  # delta gates set aside: a push has no base branch
    found: bool = False  # a base report was found; the comment then leaves the note to the summary


def build_view(
    report: Mapping[str, Any],
    comparison: ComparisonDocument | None,
    *,
    kind: str,
    marker: str,
    baseline: BaselineNote | None = None,
    history: History | Mapping[str, Any] | None = None,
    queue: Mapping[str, Any] | None = None,
) -> View:
    primary = primary_metric(report)
    rows = metric_rows(report, comparison, primary)
    shown = compact_metric_rows(rows, primary) if kind == "comment" else rows
    judgments = section(report, "judgments")
    notes = finding_rows(comparison)
    told = [escape_markdown(reason, limit=REASON_LIMIT) for reason in notices(report).reasons]
    strata = stratum_rows(report, comparison, primary)
    return {
        "kind": kind,
        "marker": marker,
        "has_base": comparison is not None,
        "primary": escape_name(primary),
        "primary_label": mermaid_label(primary),
        "verdict": verdict(report, comparison, primary),
        "scored": {
            "queries": integer(judgments.get("queries")) or 0,
            "scored": integer(judgments.get("queries_scored")) or 0,
        },
        "metrics": {"rows": shown, "total": len(rows), "hidden": len(rows) - len(shown)},
        "significance": significance_line(comparison),
        "floor": floor_view(report, primary, kind),
        "eval_set": eval_set_view(report),
        "worst": worst_stratum(report),
        "drift": drift_warning(report),
        "drift_checked": drift_clean(report),
        "corpus_changes": corpus_changes(report),
        "drift_repair": drift_repair(report),
        "drift_queue": drift_queue(report),
        "unjudged": unjudged_view(report, comparison, queue),
        "machine_labels": machine_view(report) if kind == "summary" else None,
        "baseline": baseline_lines(baseline, kind),
        # Every stratum either side reports, so the count in the heading matches the table.
        "strata": {"rows": strata, "total": len(strata)},
        "movers": movers(comparison, primary),
        "gates": gate_rows(report),
        "power": power_view(report, comparison),
        "reasons": {"rows": told, "total": len(told)},
        "comparability": {"rows": notes, "total": len(notes)},
        "confounds": [note for note in notes if note["confounds"]],
        "yardstick": escape_markdown(comparison.yardstick or "", limit=20) if comparison else None,
        "queries": queries(comparison),
        "footer": footer(report, comparison),
        "history": history_view(history) if kind == "summary" else None,
        "omitted": [],  # filled by the budget, when it has to leave something out
    }


def verdict(report: Mapping[str, Any], comparison: ComparisonDocument | None, primary: str) -> dict[str, str]:
    status = str(section(report, "verdict").get("status", "INDETERMINATE"))
    return {
        "status": escape_markdown(status, limit=20),
        "icon": ICONS.get(status, "⚠️"),
        "headline": headline(report, comparison, primary),
        # Said beside the status, so a PASS no gate checked is not read as a checked result.
        "note": "" if items(section(report, "verdict").get("gates")) else NO_GATES,
    }


def headline(report: Mapping[str, Any], comparison: ComparisonDocument | None, primary: str) -> str:
    """The primary metric in one sentence: its value and, against a base, how it moved and how surely."""
    value = measured(report, primary)
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
    if paired and paired != integer(section(report, "judgments").get("queries_scored")):
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


def floor_view(report: Mapping[str, Any], primary: str, kind: str) -> dict[str, Any]:
    """The margin over the floor run: every metric (the comment: the primary cutoff's and the gated
    ones), and the primary metric per stratum. ``shown`` is false when no floor was asked for."""
    floor = section(report, "floor")
    unavailable = floor.get("unavailable")
    marks = floor_marks(report)
    cutoff = primary.partition("@")[2]
    rows = [
        margin_row(str(name), mapping(row), marks.get(str(name), ""))
        for name, row in section(floor, "metrics").items()
        if kind != "comment" or name in marks or "@" not in str(name) or str(name).endswith("@" + cutoff)
    ]
    source = floor.get("source")
    name = escape_markdown(floor.get("method") or (source if source != "run" else None) or "floor run", limit=40)
    sha = floor.get("run_sha256")
    return {
        "shown": bool(floor),
        "source": name + (f" {_short_hash(sha)}" if sha else ""),
        "unavailable": escape_markdown(unavailable, limit=REASON_LIMIT) if isinstance(unavailable, str) else None,
        "rows": rows,
        "strata": floor_stratum_rows(floor, primary),
    }


def eval_set_view(report: Mapping[str, Any]) -> dict[str, Any]:
    """The eval-set sensitivity warnings (easy-set, answer-in-query), and why a check was skipped."""
    sensitivity = section(report, "sensitivity")
    rows = [
        {
            "code": escape_markdown(warning.get("code", ""), limit=40),
            "message": escape_markdown(warning.get("message", ""), limit=REASON_LIMIT),
        }
        for warning in map(mapping, items(sensitivity.get("warnings")))
    ]
    skipped = notices(report).skipped
    return {
        "rows": rows,
        "total": len(rows),
        "skipped": escape_markdown(skipped, limit=REASON_LIMIT) if isinstance(skipped, str) else None,
    }


def worst_stratum(report: Mapping[str, Any]) -> dict[str, Any] | None:
    worst = section(report, "worst_stratum")
    if not worst:
        return None
    name = worst.get("name")
    # Stratum names are strings; a file may hold a list there, which no mapping can look up.
    entry = section(section(report, "per_stratum"), name) if isinstance(name, str) else {}
    return {
        "name": escape_markdown(name, limit=80),
        "metric": escape_name(worst.get("metric", "")),
        "value": fmt(worst.get("value")),
        "n": integer(entry.get("n")) or 0,
    }


def drift_warning(report: Mapping[str, Any]) -> str | None:
    """One sentence when the labels were checked against the corpus and some no longer fit."""
    facts = drift_facts(report)
    return facts.sentence() if facts is not None and facts.stale else None


def drift_clean(report: Mapping[str, Any]) -> str | None:
    """The sentence saying the labels were checked and all still fit, so a reader knows drift was looked at."""
    facts = drift_facts(report)
    if facts is None or facts.stale:
        return None
    return f"{facts.sentence()} ({dict(facts.counts).get('valid', 0)} labels checked)"


def corpus_changes(report: Mapping[str, Any]) -> list[str]:
    """How the corpus moved away from the labels and the base branch, one escaped line each."""
    facts = drift_facts(report)
    return [escape_markdown(change, limit=500) for change in (facts.changes if facts else ())]


def drift_repair(report: Mapping[str, Any]) -> str | None:
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


def drift_queue(report: Mapping[str, Any]) -> str | None:
    """The command that writes the labels needing a person as a re-judge queue, fenced."""
    drift = section(section(report, "judgments"), "drift")
    command = drift.get("list_command")
    broken = sum(number(drift.get(name)) or 0 for name in ("split", "orphaned"))
    if not isinstance(command, str) or not command or not broken:
        return None
    command = show_hidden(f"{command} --queue rejudge.jsonl")
    fence = code_fence(command)
    return f"{fence}sh\n{command}\n{fence}"


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


def movers(comparison: ComparisonDocument | None, primary: str) -> dict[str, Any]:
    moved = (comparison.movers if comparison else None) or Movers()
    return {
        "metric": escape_name(primary if moved.metric is None else moved.metric),
        "drops": mover_rows(moved.drops),
        "gains": mover_rows(moved.gains),
        "down": moved.down or 0,
        "up": moved.up or 0,
    }


def queries(comparison: ComparisonDocument | None) -> dict[str, int]:
    counts = (comparison.queries if comparison else None) or QueryCounts()
    return {
        "paired": counts.paired or 0,
        "added": len(counts.added or ()),
        "removed": len(counts.removed or ()),
    }


def footer(report: Mapping[str, Any], comparison: ComparisonDocument | None) -> str:
    """Tool, version and the hashes of what was compared, so a reader can find the exact inputs."""
    tool = section(report, "tool")
    inputs = section(report, "inputs")
    parts = [
        f"{escape_markdown(tool.get('name', 'retrieval-eval'), limit=40)} "
        f"{escape_markdown(tool.get('version', ''), limit=20)}",
        f"judgments {_short_hash(inputs.get('judgments_sha256'))}",
        f"run {_short_hash(inputs.get('run_sha256'))}",
    ]
    if comparison is not None:
        parts.append(f"base run {_short_hash(comparison.base.run_sha256)}")
    parts.append(f"generated {escape_markdown(report.get('generated_at', '—'), limit=40)}")
    return " · ".join(parts)


def _short_hash(sha: Any) -> str:
    return escape_markdown(str(sha or "—")[:12], limit=12)
