"""What a judge run says on the terminal, and its JSON: the accounting and the calibration."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..core.judge import CALIBRATION, HOLE
from ..core.judge_calibration import Calibration
from ..pipeline.judge import Outcome
from .terminal import clean


def calibration_json(calibration: Calibration | None) -> dict[str, Any] | None:
    if calibration is None:
        return None
    return {
        "status": calibration.status,
        "asked": calibration.asked,
        "labeled": calibration.labeled,
        "kappa_binary": calibration.kappa_binary,
        "kappa_graded": calibration.kappa_graded,
        "confusion": [list(row) for row in calibration.confusion],
        "zero_rate_human": calibration.zero_rate_human,
        "zero_rate_judge": calibration.zero_rate_judge,
        "floor": calibration.floor,
        "usable_by_gates": calibration.usable,
    }


def outcome_json(outcome: Outcome, *, without_text: int) -> dict[str, Any]:
    holes = Counter(label.vote.status for label in outcome.labels if label.role == HOLE)
    checked = Counter(label.vote.status for label in outcome.labels if label.role == CALIBRATION)
    return {
        "holes": dict(sorted(holes.items())),
        "holes_without_text": without_text,
        "calibration_pairs": dict(sorted(checked.items())),
        "calibration": calibration_json(outcome.calibration),
        "calls": outcome.calls,
        "tokens": outcome.tokens,
        "answers_reused": outcome.reused,
        "answers_unasked": outcome.unasked,
        "requests_failed": outcome.failed,
        "labels_invalidated": outcome.invalidated,
        "stopped_by_budget": outcome.stopped_by_budget,
        "errors": list(outcome.errors),
    }


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _kappa(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def calibration_text(calibration: Calibration | None) -> list[str]:
    if calibration is None:
        return ["calibration: none (give --judgments with query and chunk texts): machine labels cannot gate"]
    lines = [
        f"calibration: {calibration.status}: {calibration.labeled} of {calibration.asked} human-labeled pairs "
        f"labeled by the judge (at least 50 needed)",
        f"  kappa binary {_kappa(calibration.kappa_binary)} (floor {calibration.floor:g}), "
        f"graded (quadratic) {_kappa(calibration.kappa_graded)}",
        f"  grade 0: humans {_rate(calibration.zero_rate_human)}, judge {_rate(calibration.zero_rate_judge)}",
        "  confusion (rows: human grade 0-3, columns: judge grade 0-3):",
    ]
    lines += ["    " + " ".join(f"{count:5d}" for count in row) for row in calibration.confusion]
    if not calibration.usable:
        lines.append("  these machine labels are reported only: no gate reads them")
    return lines


def outcome_text(outcome: Outcome, *, without_text: int) -> str:
    data = outcome_json(outcome, without_text=without_text)
    holes = ", ".join(f"{count} {status}" for status, count in data["holes"].items()) or "none"
    lines = [f"holes: {holes}"]
    if without_text:
        lines.append(f"  {without_text} queue line(s) have no query or chunk text (run holes with --corpus)")
    lines += calibration_text(outcome.calibration)
    lines.append(
        f"calls {outcome.calls}, tokens {outcome.tokens}, answers reused {outcome.reused}, "
        f"invalidated by a changed chunk text {outcome.invalidated}"
    )
    if outcome.stopped_by_budget:
        lines.append(f"budget reached: {outcome.unasked} answer(s) not asked; run again (with more budget) to go on")
    if outcome.failed:
        lines.append(f"{outcome.failed} request(s) got no answer ({'; '.join(outcome.errors)}); run again to retry")
    return "\n".join(clean(line) for line in lines) + "\n"
