"""What every rendering says, decided once: which sections a report has, and what the drift
section means. The summary, the comment, the terminal and the HTML page each draw these
facts in their own markup (escaped there), so a section cannot be present in one and
missing from another, nor say something else there.

Strings here are raw (not escaped): each rendering escapes them for its own medium.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.comparison_document import ComparisonDocument, Movers
from ..core.report_model import Drift, Floor, MachineLabels, Report
from .compared import Compared, as_document
from .escape import show_hidden
from .notices import notices
from .unjudged import unjudged_view

NO_GATES = "no gates"  # said beside a verdict no gate checked, so a bare PASS is not read as a checked one
RECOVERABLE = ("re_anchorable", "merged")  # what `drift --fix` re-anchors (core/drift_fix.py)
NEEDS_PERSON = ("split", "orphaned")  # what it leaves to a person
COUNTED = ("valid", "re_anchorable", "merged", "split", "orphaned")
BROKEN_FIRST = ("orphaned", "re_anchorable", "merged", "split")  # the sentence's order: the lost labels first


@dataclass(frozen=True)
class DriftFacts:
    """The report's label-drift section, read once."""

    ratio: float  # of the labels that no longer point at the live corpus
    counts: tuple[tuple[str, int], ...]  # (status, labels), in COUNTED order, those the report gives
    recoverable: int  # labels `drift --fix` can re-anchor
    needs_person: int
    changes: tuple[str, ...]  # how the corpus moved, one sentence each
    repair_command: str | None  # offered only when something can be re-anchored

    @property
    def stale(self) -> bool:
        return self.ratio > 0

    def sentence(self, tick: str = "`") -> str:
        """The drift in one sentence, and what to do next; no advice to run a fix that fixes nothing.
        ``tick`` marks a command: a backtick in Markdown, nothing where there is no markup."""
        if not self.stale:
            return "Every label still points at the live corpus."
        known = dict(self.counts)
        broken = [f"{known[name]} {name.replace('_', '-')}" for name in BROKEN_FIRST if known.get(name)]
        detail = f" ({', '.join(broken)})" if broken else ""
        head = (
            f"Label drift: {self.ratio:.1%} of the labels no longer point at the live corpus{detail}. "
            "Numbers computed from stale labels understate the retriever"
        )
        if self.recoverable and self.repair_command:
            return f"{head}; run {tick}retrieval-eval drift{tick} and review {tick}drift --fix{tick}."
        if self.recoverable:
            return f"{head}; {tick}retrieval-eval drift --fix{tick} re-anchors {self.recoverable} of them."
        lister = f"{tick}retrieval-eval drift{tick}"
        return f"{head}; none can be re-anchored automatically: {lister} lists the labels a person must redo."


def drift_of(report: Report) -> Drift:
    """The report's ``judgments.drift``; empty when the labels were not checked against a corpus."""
    judgments = report.judgments
    return (judgments.drift if judgments is not None else None) or Drift()


def drift_facts(report: Report) -> DriftFacts | None:
    """None when the labels were not checked against a corpus (or the section is unreadable)."""
    drift = drift_of(report)
    ratio = drift.invalid_ratio
    if ratio is None:
        return None
    found = ((name, getattr(drift, name)) for name in COUNTED)
    counts = tuple((name, count) for name, count in found if count is not None)
    known = dict(counts)
    recoverable = sum(known.get(name, 0) for name in RECOVERABLE)
    # A report without per-status counts: the ratio alone cannot say nothing is recoverable.
    unknown = not any(name in known for name in (*RECOVERABLE, *NEEDS_PERSON))
    command = drift.repair_command
    offered = bool(command) and ratio > 0 and (recoverable > 0 or unknown)
    return DriftFacts(
        ratio=ratio,
        counts=counts,
        recoverable=recoverable,
        needs_person=sum(known.get(name, 0) for name in NEEDS_PERSON),
        changes=tuple(drift.changes or ()),
        # A bidi override in a path would make the command read otherwise than it runs: shown, not kept.
        repair_command=show_hidden(command) if offered and command else None,
    )


def floor_shown(report: Report) -> bool:
    """A floor was asked for: the report has a floor section that says anything."""
    return report.floor is not None and report.floor != Floor()


def sections_of(report: Report, compared: Compared) -> tuple[str, ...]:
    """The sections a full rendering of ``report`` (and ``compared``) must show, in order.

    The summary, the terminal and the HTML page each show every one of them; the tests
    hold each rendering to this list.
    """
    comparison = as_document(compared)
    gates = report.verdict.gates if report.verdict is not None else None
    warnings = report.sensitivity.warnings if report.sensitivity is not None else None
    moved = (comparison.movers if comparison else None) or Movers()
    present = {
        "verdict": True,
        "metrics": bool(report.metrics),
        "drift": drift_facts(report) is not None,
        "unjudged": _judged_fell(report, comparison),
        "floor": floor_shown(report),
        "eval_set": bool(warnings) or bool(notices(report).skipped),
        "gates": bool(gates),
        "machine_labels": report.machine_labels is not None and report.machine_labels != MachineLabels(),
        "strata": bool(report.per_stratum),
        "movers": bool(moved.drops or moved.gains),
        "reasons": bool(notices(report).beyond_gates(report)),
        "comparability": bool(comparison and comparison.findings),
    }
    return tuple(name for name, shown in present.items() if shown)


def _judged_fell(report: Report, comparison: ComparisonDocument | None) -> bool:
    """judged@k fell against the base: the summary's unjudged-keys warning, the page's too."""
    view = unjudged_view(report, comparison, None)
    return view is not None and view.fell
