"""What a judge run says on the terminal, and the accounting its JSON writes: the labels and the calibration."""

from __future__ import annotations

from collections import Counter

from ..core.judge import CALIBRATION, HOLE
from ..core.judge_calibration import Calibration
from ..formats.judge import JudgeAccount
from ..pipeline.judge import Outcome
from .terminal import clean


def _statuses(outcome: Outcome, role: str) -> dict[str, int]:
    """How many machine labels of ``role`` ended in each status, by status name."""
    return dict(sorted(Counter(label.vote.status for label in outcome.labels if label.role == role).items()))


def outcome_account(outcome: Outcome, *, without_text: int) -> JudgeAccount:
    """What ``judge --json`` writes (``formats.judge.judge_account_json``), read off the run's outcome:
    an Outcome is the pipeline's record, which formats/ may not import."""
    return JudgeAccount(
        holes=_statuses(outcome, HOLE),
        holes_without_text=without_text,
        calibration_pairs=_statuses(outcome, CALIBRATION),
        calibration=outcome.calibration,
        calls=outcome.calls,
        tokens=outcome.tokens,
        answers_reused=outcome.reused,
        answers_unasked=outcome.unasked,
        requests_failed=outcome.failed,
        labels_invalidated=outcome.invalidated,
        stopped_by_budget=outcome.stopped_by_budget,
        errors=outcome.errors,
    )


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
    holes = ", ".join(f"{count} {status}" for status, count in _statuses(outcome, HOLE).items()) or "none"
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
