"""``judge --json``'s calibration: how far the machine judge agrees with the human labels."""

from __future__ import annotations

from typing import Any

from ..core.judge_calibration import Calibration


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
