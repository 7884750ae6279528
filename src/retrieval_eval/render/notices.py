"""Notices said once: the reasons and the eval-set note, without what the floor section already says.

When the lanes extra is missing, one cause reaches a report three times: the floor's
``unavailable`` text, the same sentence among the verdict's reasons, and the easy-set
check's ``skipped`` note (it runs the same BM25 floor). Every rendering shows the floor
section, so there the install line is said; the reasons leave the repeat out and the
eval-set note points at it. The report itself keeps all three: a reader of the JSON looks
up one section at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.report_model import Report


@dataclass(frozen=True)
class Notices:
    reasons: tuple[str, ...]  # the verdict's reasons a rendering lists (raw, not escaped)
    skipped: str | None  # why the easy-set check was skipped (raw), or None

    def beyond_gates(self, report: Report) -> tuple[str, ...]:
        """The reasons a gate's own row does not already give (where gates are shown beside them)."""
        gates = report.verdict.gates if report.verdict is not None else None
        said = {gate.reason for gate in gates or ()}
        return tuple(reason for reason in self.reasons if reason not in said)


def _cause(text: str) -> str:
    """What follows the subject of a notice: ``the X was not computed: <cause>`` -> ``<cause>``."""
    return text.partition(": ")[2]


def notices(report: Report) -> Notices:
    floor_text = (report.floor.unavailable if report.floor is not None else None) or None
    said = report.verdict.reasons if report.verdict is not None else None
    reasons = tuple(reason for reason in said or () if reason != floor_text)
    skipped = report.sensitivity.skipped if report.sensitivity is not None else None
    if not skipped:
        return Notices(reasons, None)
    if floor_text and _cause(skipped) and _cause(skipped) == _cause(floor_text):
        subject = skipped.partition(": ")[0]
        skipped = f"{subject}: it needs the same BM25 floor (see the floor's note)"
    return Notices(reasons, skipped)
