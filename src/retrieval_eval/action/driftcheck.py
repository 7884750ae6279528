"""Label drift in the action: say when the chunker or corpus changed, how many labels
no longer point at the corpus, the command that repairs what can be repaired,
and, with ``max-drift``, fail when too many went stale.

The drift itself is computed by the shared pipeline (``score --corpus``); this
module only reads the report and adds the action's gate and messages.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.gates import FAIL, PASS, SEVERITY, GateResult, Verdict
from ..core.precision import DECIMALS
from .publish import Annotation, code_fence

if TYPE_CHECKING:
    from ..pipeline.evaluate import Evaluation


def drift_of(report: Mapping[str, Any]) -> Mapping[str, Any] | None:
    drift = (report.get("judgments") or {}).get("drift")
    return drift if isinstance(drift, Mapping) else None


def invalid_ratio(report: Mapping[str, Any]) -> float | None:
    ratio = (drift_of(report) or {}).get("invalid_ratio")
    return float(ratio) if isinstance(ratio, (int, float)) and not isinstance(ratio, bool) else None


def fingerprint_changes(report: Mapping[str, Any], base: Mapping[str, Any] | None) -> list[str]:
    """How the corpus moved away from what the labels (and the base branch) were made against."""
    corpus = report.get("corpus") or {}
    changes = []
    labeled = (report.get("judgments") or {}).get("fingerprint")
    if labeled and corpus.get("fingerprint") and labeled != corpus["fingerprint"]:
        changes.append(
            f"the judgments were labeled against corpus {labeled}, the corpus is now {corpus['fingerprint']}"
        )
    base_corpus = (base or {}).get("corpus") or {}
    for key, what in (("fingerprint", "corpus"), ("chunker_fingerprint", "chunker")):
        before, now = base_corpus.get(key), corpus.get(key)
        if before and now and before != now:
            changes.append(f"the {what} changed since the base branch ({before} there, {now} here)")
    return changes


def fix_command(judgments: str, corpus: str) -> str:
    return f"retrieval-eval drift -j {shlex.quote(judgments)} -c {shlex.quote(corpus)} --fix"


def apply_max_drift(evaluation: Evaluation, max_drift: float | None) -> Evaluation:
    """Add the ``max-drift`` gate to the verdict: stale labels beyond the tolerance are a FAIL."""
    ratio = invalid_ratio(evaluation.report)
    if max_drift is None or ratio is None:
        return evaluation
    result = drift_gate(ratio, max_drift)
    old = evaluation.verdict
    status = result.status if SEVERITY[result.status] > SEVERITY[old.status] else old.status
    reasons = [result.reason, *old.reasons] if result.status == FAIL else list(old.reasons)
    verdict = Verdict(status, reasons, [*old.gates, result])
    report = {**evaluation.report, "verdict": verdict.as_dict()}
    return dataclasses.replace(evaluation, report=report, verdict=verdict)


def drift_gate(ratio: float, max_drift: float) -> GateResult:
    expression = f"max-drift:{max_drift:g}"
    what = f"{ratio:.1%} of the labels no longer point at the corpus"
    if round(ratio, DECIMALS) > round(max_drift, DECIMALS):
        return GateResult(expression, FAIL, f"{expression}: {what}, above {max_drift:.1%}", ratio)
    return GateResult(expression, PASS, f"{expression}: {what}, within {max_drift:.1%}", ratio)


def drift_message(report: Mapping[str, Any], changes: list[str], command: str) -> str | None:
    """The one sentence an annotation carries, or None when there is nothing to say."""
    ratio = invalid_ratio(report)
    if ratio is None or (ratio == 0 and not changes):
        return None
    why = f" ({'; '.join(changes)})" if changes else ""
    if ratio == 0:
        return f"The corpus changed{why}, and every label still points at it."
    return (
        f"Label drift: {ratio:.1%} of the labels no longer point at the corpus{why}. "
        f"Re-anchor the recoverable ones with: {command}"
    )


def drift_annotation(report: Mapping[str, Any], changes: list[str], command: str) -> Annotation | None:
    message = drift_message(report, changes, command)
    if message is None:
        return None
    kind = "warning" if invalid_ratio(report) else "notice"
    return Annotation(kind, "retrieval-eval: label drift", message)


def drift_markdown(report: Mapping[str, Any], changes: list[str], command: str) -> str:
    """What the summary adds to the rendered drift section: why, and the command to run."""
    from ..render import escape_markdown

    ratio = invalid_ratio(report)
    if ratio is None or (ratio == 0 and not changes):
        return ""
    lines = [f"\n> Corpus: {escape_markdown(change, limit=500)}\n" for change in changes]
    if ratio:
        fence = code_fence(command)
        lines.append(
            f"\nTo re-anchor the labels that can be (the others need a person):\n\n{fence}sh\n{command}\n{fence}\n"
        )
    return "".join(lines)
