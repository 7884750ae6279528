"""Label drift in the action's annotations: one sentence saying how many labels no longer
point at the corpus, why (the corpus or chunker changed), and the command that repairs
what can be repaired.

Drift itself, the fingerprint check and the max-drift gate belong to the shared pipeline;
the summary and comment draw them through the templates' ``drift`` block. This module only
words the annotation, from the report.
"""

from __future__ import annotations

from ..core.report_model import Drift, Report
from .publish import Annotation


def drift_of(report: Report) -> Drift:
    judgments = report.judgments
    return (judgments.drift if judgments is not None else None) or Drift()


def invalid_ratio(report: Report) -> float | None:
    return drift_of(report).invalid_ratio


def drift_message(report: Report) -> str | None:
    """The one sentence an annotation carries, or None when there is nothing to say."""
    ratio = invalid_ratio(report)
    changes = list(drift_of(report).changes or ())
    if ratio is None or (ratio == 0 and not changes):
        return None
    why = f" ({'; '.join(changes)})" if changes else ""
    if ratio == 0:
        return f"The corpus changed{why}, and every label still points at it."
    command = drift_of(report).repair_command or "retrieval-eval drift --fix"
    return (
        f"Label drift: {ratio:.1%} of the labels no longer point at the corpus{why}. "
        f"Re-anchor the recoverable ones with: {command}"
    )


def drift_annotation(report: Report) -> Annotation | None:
    message = drift_message(report)
    if message is None:
        return None
    kind = "warning" if invalid_ratio(report) else "notice"
    return Annotation(kind, "retrieval-eval: label drift", message)
