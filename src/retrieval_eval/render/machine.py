"""The machine-labels block of the summary: what the human labels alone say, the share of
unjudged keys a judge labeled, its calibration, and each gate with and without machine labels.

Shown only when the report has a ``machine_labels`` section (the ``machine`` policy): without
a judge nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.lenient import integer, items, mapping, number, section
from .escape import escape_markdown
from .numbers import fmt


def _share(value: Any) -> str:
    figure = number(value)
    return "—" if figure is None else f"{figure:.0%}"


def _pair(value: Any) -> str:
    pair = items(value)
    return f"[{fmt(pair[0])}, {fmt(pair[1])}]" if len(pair) == 2 else "—"


def _gate_row(gate: Mapping[str, Any]) -> dict[str, str]:
    return {
        "expression": escape_markdown(gate.get("expression", ""), limit=80),
        "human_status": escape_markdown(gate.get("human_status", ""), limit=20),
        "status": escape_markdown(gate.get("status", ""), limit=20),
        "bounds": _pair(gate.get("bounds")),
        "estimate": fmt(gate.get("estimate")),
        "interval": _pair(gate.get("interval")),
        "note": escape_markdown(gate.get("note", ""), limit=120),
    }


def machine_view(report: Mapping[str, Any]) -> dict[str, Any] | None:
    machine = section(report, "machine_labels")
    if not machine:
        return None
    calibration = mapping(machine.get("calibration"))
    return {
        "human_verdict": escape_markdown(machine.get("human_labels_verdict", ""), limit=20),
        "holes": integer(machine.get("holes")) or 0,
        "labeled": integer(machine.get("machine_labeled")) or 0,
        "share": _share(machine.get("machine_labeled_share")),
        "invalidated": integer(machine.get("invalidated")) or 0,
        "calibration": escape_markdown(calibration.get("status", "none"), limit=40) if calibration else "none",
        "pairs": integer(calibration.get("pairs")) or 0,
        "kappa": fmt(calibration.get("kappa_binary")),
        "kappa_graded": fmt(calibration.get("kappa_graded")),
        "zero_human": _share(calibration.get("zero_rate_human")),
        "zero_judge": _share(calibration.get("zero_rate_judge")),
        "gates": [_gate_row(mapping(gate)) for gate in items(machine.get("gates"))],
    }
