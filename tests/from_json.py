"""The product's typed entry points, for tests that hold reports, comparisons and histories as JSON.

The renderers, the comparison and the history take records only; reading JSON into them is the
formats' work. A test builds its documents as JSON (to vary them field by field, or to hand over
what no writer would write), so these wrappers read them at the test's edge, as the CLI reads its
files (a value of the wrong type reads as missing), call the code under test itself, and write
what it gives back out through the formats layer, so such a test states its case as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from retrieval_eval.comparison import history as _history
from retrieval_eval.comparison.document import build_document
from retrieval_eval.comparison.result import comparison_from_document
from retrieval_eval.core.comparison import Deltas
from retrieval_eval.core.comparison_document import ComparisonDocument
from retrieval_eval.core.history import History, line_segments
from retrieval_eval.core.report_model import Report
from retrieval_eval.formats.comparison import comparison_from_json, comparison_to_json
from retrieval_eval.formats.history import history_from_json, history_to_json, point_from_json
from retrieval_eval.formats.report import as_report
from retrieval_eval.render import html as _html
from retrieval_eval.render import kinds as _kinds
from retrieval_eval.render import sections as _sections
from retrieval_eval.render import terminal as _terminal
from retrieval_eval.render import text as _text
from retrieval_eval.render.view import View, build_view

AnyReport = Report | Mapping[str, Any]
AnyComparison = ComparisonDocument | Deltas | Mapping[str, Any] | None


def report_of(report: AnyReport) -> Report:
    return as_report(report)


def base_of(report: AnyReport | None) -> Report | None:
    return None if report is None else as_report(report)


def comparison_of(comparison: AnyComparison) -> ComparisonDocument | Deltas | None:
    return comparison_from_json(comparison) if isinstance(comparison, Mapping) else comparison


def comparison_document(comparison: ComparisonDocument | Mapping[str, Any]) -> ComparisonDocument:
    return comparison_from_json(comparison) if isinstance(comparison, Mapping) else comparison


def history_of(history: History | Mapping[str, Any] | None) -> History | None:
    return history_from_json(history) if isinstance(history, Mapping) else history


def render(
    kind: str,
    *,
    report: AnyReport,
    comparison: AnyComparison = None,
    history: History | Mapping[str, Any] | None = None,
    **rest: Any,
) -> str:
    return _kinds.render(
        kind, report=report_of(report), comparison=comparison_of(comparison), history=history_of(history), **rest
    )


def render_history(history: History | Mapping[str, Any], kind: str) -> str:
    typed = history_of(history)
    assert typed is not None
    return _kinds.render_history(typed, kind)


def comparison_text(comparison: ComparisonDocument | Mapping[str, Any]) -> str:
    return _text.comparison_text(comparison_document(comparison))


def render_html(report: AnyReport, comparison: AnyComparison = None, *args: Any, **rest: Any) -> str:
    return _html.render_html(report_of(report), comparison_of(comparison), *args, **rest)


def html_report(
    report: AnyReport, comparison: AnyComparison = None, *, base: AnyReport | None = None, **rest: Any
) -> str:
    return _html.html_report(report_of(report), comparison_of(comparison), base=base_of(base), **rest)


def shown_queries(report: AnyReport, base: AnyReport | None, *args: Any) -> list[str]:
    return _html.shown_queries(report_of(report), base_of(base), *args)


def sections_of(report: AnyReport, comparison: AnyComparison) -> tuple[str, ...]:
    return _sections.sections_of(report_of(report), comparison_of(comparison))


def render_score(report: AnyReport, comparison: AnyComparison = None, **rest: Any) -> str:
    return _terminal.render_score(report_of(report), comparison_of(comparison), **rest)


def bare_view(marker: str) -> View:
    """The view of an empty report: every name a template may read, for tests of the sandbox."""
    return build_view(Report(), None, kind="comment", marker=marker)


def build_comparison(base: AnyReport, head: AnyReport, **options: Any) -> Any:
    """The comparison document of two reports as the JSON object ``compare`` writes."""
    return comparison_to_json(build_document(report_of(base), report_of(head), **options))


def deltas_of(document: Mapping[str, Any]) -> Deltas:
    """What gates read from a comparison's JSON object."""
    return comparison_from_document(comparison_from_json(document))


def point(label: str, date: str | None, report: AnyReport) -> _history.Point:
    return _history.Point(label, date, report_of(report))


def break_reason(older: AnyReport, newer: AnyReport) -> str | None:
    return _history.break_reason(report_of(older), report_of(newer))


def history_metrics(report: AnyReport) -> list[str]:
    return _history.history_metrics(report_of(report))


def build_history(points: Sequence[_history.Point], metrics: Sequence[str]) -> dict[str, Any]:
    """A history's JSON object (``break`` per point)."""
    return history_to_json(_history.history_of(points, metrics))


def segments(points: Sequence[Mapping[str, Any]], metric: str) -> list[list[int]]:
    """The lines drawn through points in their JSON form."""
    return line_segments([point_from_json(p) for p in points], metric)
