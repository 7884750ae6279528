"""The comparison and history layers take typed reports and give typed records; many tests hold
reports and documents as the JSON a file would (dicts). These read them in and write the result
out through the formats layer, as the CLI does, so such a test states its case as JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from retrieval_eval.comparison import history
from retrieval_eval.comparison.document import build_document
from retrieval_eval.comparison.result import comparison_from_document
from retrieval_eval.core.comparison import Deltas
from retrieval_eval.core.history import line_segments
from retrieval_eval.core.report_model import Report
from retrieval_eval.formats.comparison import comparison_from_json, comparison_to_json
from retrieval_eval.formats.history import history_to_json, point_from_json
from retrieval_eval.formats.report import as_report


def typed(report: Report | Mapping[str, Any]) -> Report:
    """A report held as JSON read as a report handed over in memory is (formats.report.as_report)."""
    return as_report(report)


def build_comparison(base: Report | Mapping[str, Any], head: Report | Mapping[str, Any], **options: Any) -> Any:
    """The comparison document of two reports as the JSON object ``compare`` writes."""
    return comparison_to_json(build_document(typed(base), typed(head), **options))


def deltas_of(document: Mapping[str, Any]) -> Deltas:
    """What gates read from a comparison's JSON object."""
    return comparison_from_document(comparison_from_json(document))


def point(label: str, date: str | None, report: Report | Mapping[str, Any]) -> history.Point:
    return history.Point(label, date, typed(report))


def break_reason(older: Report | Mapping[str, Any], newer: Report | Mapping[str, Any]) -> str | None:
    return history.break_reason(typed(older), typed(newer))


def history_metrics(report: Report | Mapping[str, Any]) -> list[str]:
    return history.history_metrics(typed(report))


def build_history(points: Sequence[history.Point], metrics: Sequence[str]) -> dict[str, Any]:
    """A history's JSON object (``break`` per point)."""
    return history_to_json(history.history_of(points, metrics))


def segments(points: Sequence[Mapping[str, Any]], metric: str) -> list[list[int]]:
    """The lines drawn through points in their JSON form."""
    return line_segments([point_from_json(p) for p in points], metric)
