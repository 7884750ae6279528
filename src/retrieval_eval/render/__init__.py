"""Rendering a report (and its comparison with the base) as Markdown for GitHub, or as text.

One function, :func:`render`, for every kind: ``summary`` (the job summary,
full detail), ``comment`` (the compact pull-request comment) and ``text``
(the terminal rendering, no Markdown).

Markdown is drawn in three steps, each in its own module:

- ``view``: the view a template sees, built from the report and comparison;
  every user string escaped (``escape``), every number formatted
  (``numbers``), table rows in ``tables``;
- ``sandbox``: the Jinja templates (built-in, or a user's over them) that
  draw it, in Jinja's sandbox;
- ``budget``: GitHub's size limits, met by leaving out whole sections in a
  fixed order and saying so.

``marker`` is the hidden line by which the action finds its own comment;
``text`` is the ``text`` kind.

Jinja is imported by ``sandbox`` only, and ``sandbox`` only when Markdown is
drawn: importing this package (for ``escape_markdown`` or ``comment_marker``)
does not load it, and the score path never pays for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import UsageError
from ..core.history import History
from ..core.report_model import Report
from .budget import BUDGETS, COMMENT_LIMIT, SUMMARY_LIMIT, fit
from .compared import Compared, as_document
from .escape import escape_markdown
from .history import HistoryPage, history_text, history_view
from .marker import check_marker, comment_marker
from .text import comparison_text, render_text
from .view import BaselineNote, build_view

if TYPE_CHECKING:
    from ..formats.queue import QueueExcerpt
    from .sandbox import Drawer

KINDS = ("summary", "comment", "text")

__all__ = [
    "BaselineNote",
    "COMMENT_LIMIT",
    "KINDS",
    "SUMMARY_LIMIT",
    "comment_marker",
    "comparison_text",
    "escape_markdown",
    "render",
    "render_history",
]


def render(
    kind: str,
    *,
    report: Report,
    comparison: Compared = None,
    template_dir: str | None = None,
    comment_id: str = "default",
    baseline: BaselineNote | None = None,
    history: History | None = None,
    queue: QueueExcerpt | None = None,
) -> str:
    """Render ``report`` (and its comparison with the base, when given) as ``kind``.

    ``comparison`` is a comparison document (``formats.comparison`` reads one from JSON), or
    the ``Deltas`` an evaluation carries (its document is rendered). ``report`` is a report's
    records (``formats.report.load_report`` or ``report_from_json`` read one).
    ``baseline`` says where the comparison came from, when the caller found it
    (the action); it is drawn by the templates' ``baseline`` block. ``history`` is a history
    (``comparison.history.history_of``), drawn by the summary's ``history`` block. ``queue``: the label queue's excerpt
    (``pipeline.holes.queue_excerpt``), drawn by the ``unjudged`` block.

    Raises UsageError for an unknown kind, a bad comment id or a comment
    template that drops the marker; InputError for a template that fails.
    """
    if kind not in KINDS:
        raise UsageError(f"unknown format {kind!r}; choose one of {', '.join(KINDS)}")
    marker = comment_marker(comment_id)
    document = as_document(comparison)
    if kind == "text":
        return render_text(report, document)
    view = build_view(report, document, kind=kind, marker=marker, baseline=baseline, history=history, queue=queue)
    text = fit(view, _drawer(kind, template_dir), BUDGETS[kind])
    if kind == "comment":
        check_marker(text, marker, template_dir)
    return text


def render_history(history: History, kind: str) -> str:
    """A history document alone: ``text``, or ``summary`` (the job summary's history block)."""
    if kind == "text":
        return history_text(history)
    if kind != "summary":
        raise UsageError(f"unknown format {kind!r}; choose text or summary")
    return _drawer("history", None)(HistoryPage(history_view(history)))


def _drawer(name: str, template_dir: str | None) -> Drawer:
    """The template ``name`` in Jinja's sandbox."""
    # Jinja, about 20 ms of start-up (the least of seven python -X importtime runs), loaded only
    # now that Markdown is drawn: `score` and the text kind import this package and never draw Markdown.
    from .sandbox import template_drawer

    return template_drawer(name, template_dir)
