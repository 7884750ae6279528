"""The machine-labels block of the summary: what the human labels alone say, the share of
unjudged keys a judge labeled, its calibration, and each gate with and without machine labels.

Shown only when the report has a ``machine_labels`` section (the ``machine`` policy): without
a judge nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.lenient import number
from ..core.report_model import Calibration, MachineGate, MachineLabels, Report
from .escape import escape_markdown, page_text
from .numbers import fmt


@dataclass(frozen=True, slots=True)
class MachineGateLine:
    """A gate with and without machine labels."""

    expression: str
    human_status: str
    status: str
    bounds: str
    estimate: str
    interval: str
    note: str


@dataclass(frozen=True, slots=True)
class MachineView:
    """The ``machine_labels`` block: what the human labels alone say, the judge's share and calibration."""

    human_verdict: str
    holes: int
    labeled: int
    share: str
    invalidated: int
    calibration: str
    pairs: int
    kappa: str
    kappa_graded: str
    zero_human: str
    zero_judge: str
    gates: tuple[MachineGateLine, ...]


def _share(value: Any) -> str:
    figure = number(value)
    return "—" if figure is None else f"{figure:.0%}"


def _pair(pair: tuple[float, ...] | None) -> str:
    return f"[{fmt(pair[0])}, {fmt(pair[1])}]" if pair is not None and len(pair) == 2 else "—"


Text = Callable[[str | None, int], str]


def _text(value: str | None, limit: int) -> str:
    return escape_markdown("" if value is None else value, limit=limit)


def _plain(value: str | None, limit: int) -> str:
    # For an autoescaping HTML template: no Markdown backslashes, cut to the same lengths, and
    # hidden characters (a reordering mark in a report read back) shown as the page shows them.
    return page_text("" if value is None else value, limit)


def _gate_row(gate: MachineGate, text: Text) -> MachineGateLine:
    return MachineGateLine(
        expression=text(gate.expression, 80),
        human_status=text(gate.human_status, 20),
        status=text(gate.status, 20),
        bounds=_pair(gate.bounds),
        estimate=fmt(gate.estimate),
        interval=_pair(gate.interval),
        note=text(gate.note, 120),
    )


def machine_view(report: Report, *, markdown: bool = True) -> MachineView | None:
    """The block's data; ``markdown``: user strings escaped for Markdown, else left for an
    autoescaping HTML template (the page shows the block too)."""
    machine = report.machine_labels
    if machine is None or machine == MachineLabels():
        return None
    text: Text = _text if markdown else _plain
    calibration = machine.calibration
    given = calibration is not None and calibration != Calibration()
    calibration = calibration or Calibration()
    return MachineView(
        human_verdict=text(machine.human_labels_verdict, 20),
        holes=machine.holes or 0,
        labeled=machine.machine_labeled or 0,
        share=_share(machine.machine_labeled_share),
        invalidated=machine.invalidated or 0,
        calibration=text(calibration.status or "none", 40) if given else "none",
        pairs=calibration.pairs or 0,
        kappa=fmt(calibration.kappa_binary),
        kappa_graded=fmt(calibration.kappa_graded),
        zero_human=_share(calibration.zero_rate_human),
        zero_judge=_share(calibration.zero_rate_judge),
        gates=tuple(_gate_row(gate, text) for gate in machine.gates or ()),
    )
