"""``judge --json``: what a judge run did, and its calibration (how far the machine judge agrees
with the human labels)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.judge_calibration import Calibration


@dataclass(frozen=True, slots=True)
class JudgeAccount:
    """A judge run's accounting, as ``judge --json`` writes it (``render.judge`` builds it from
    the run's outcome, a pipeline record this module may not import)."""

    holes: Mapping[str, int]  # machine labels of the unjudged keys, by status
    holes_without_text: int  # queue lines with no query or chunk text: not asked
    calibration_pairs: Mapping[str, int]  # machine labels of the human-labeled pairs, by status
    calibration: Calibration | None
    calls: int
    tokens: int
    answers_reused: int
    answers_unasked: int
    requests_failed: int
    labels_invalidated: int
    stopped_by_budget: bool
    errors: tuple[str, ...]


def judge_account_json(account: JudgeAccount) -> dict[str, Any]:
    return {
        "holes": dict(account.holes),
        "holes_without_text": account.holes_without_text,
        "calibration_pairs": dict(account.calibration_pairs),
        "calibration": calibration_json(account.calibration),
        "calls": account.calls,
        "tokens": account.tokens,
        "answers_reused": account.answers_reused,
        "answers_unasked": account.answers_unasked,
        "requests_failed": account.requests_failed,
        "labels_invalidated": account.labels_invalidated,
        "stopped_by_budget": account.stopped_by_budget,
        "errors": list(account.errors),
    }


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
