"""What the terminal output and the Markdown tables both read off a report and its comparison.

A module apart from ``tables``: the tables' line classes are drawn by Markdown and HTML only,
and ``score``, which prints the terminal output, never builds one (about 4 ms of start-up
for their dataclasses, ``python -X importtime``).
"""

from __future__ import annotations

from ..core.comparison_document import MetricRow, StratumRow
from ..core.report_model import GateEntry, Report


def report_gates(report: Report) -> tuple[GateEntry, ...]:
    """The verdict's gates, none when the report has no verdict or lists none."""
    return (report.verdict.gates if report.verdict is not None else None) or ()


def adjusted_mark(compared: MetricRow | StratumRow) -> bool:
    """Significant after Holm's adjustment; a comparison made before it gives its own test."""
    if compared.holm is not None:
        return compared.holm.significant_adjusted is True
    if isinstance(compared, StratumRow):
        return compared.test is not None and compared.test.significant is True
    return compared.significant is True
