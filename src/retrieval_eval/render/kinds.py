"""Drawing a report as one of the kinds: ``summary``, ``comment`` or ``text``.

The package's ``__init__`` stays light (escaping, the comment marker, GitHub's limits): the
score command imports ``terminal`` from this package and never draws Markdown, so the view,
the budget and the history pages it would otherwise load at start-up are loaded here only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.errors import UsageError
from .budget import BUDGETS, fit
from .compared import as_document
from .history import HistoryPage, history_text, history_view
from .marker import check_marker, comment_marker
from .text import render_text
from .view import build_view

if TYPE_CHECKING:
    from ..core.history import History
    from ..core.report_model import Report
    from ..formats.queue import QueueExcerpt
    from .compared import Compared
    from .sandbox import Drawer
    from .view import BaselineNote

KINDS = ("summary", "comment", "text")

__all__ = ["KINDS", "render", "render_history"]


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
