"""The unjudged-keys block of the summary and the comment: judged@k on both sides, the queue's head.

Shown when judged@k fell against the base by more than the noise margin, or when a
label queue with something in it is given (the action builds one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.comparison_document import ComparisonDocument, MetricRow
from ..core.lenient import number
from ..core.report_model import Report, Unjudged
from ..core.unjudged import judged_drop
from .escape import code_fence, escape_markdown, page_text
from .numbers import fmt

if TYPE_CHECKING:
    from ..formats.queue import QueueExcerpt, QueueLine

QUERY_LIMIT = 80


@dataclass(frozen=True, slots=True)
class QueueRow:
    """One line of the label queue's head, as the table shows it."""

    query_id: str
    query: str
    key: str
    rank: str
    side: str
    move: str


@dataclass(frozen=True, slots=True)
class UnjudgedView:
    """The ``unjudged`` block: judged@k on both sides, and the head of the label queue."""

    k: int
    metric: str
    base: str | None
    head: str
    fell: bool
    new_keys: int | None
    count: int
    policy: str
    queue: tuple[QueueRow, ...]
    queued: int
    command: str | None


def unjudged_view(
    report: Report, comparison: ComparisonDocument | None, queue: QueueExcerpt | None, *, markdown: bool = True
) -> UnjudgedView | None:
    """The block, or None when judged@k did not fall and there is no queue to show. ``markdown``:
    the policy escaped for Markdown, else left for an autoescaping HTML template (the page)."""
    ks = report.cutoffs()
    if not ks:
        return None
    k = ks[0]
    name = f"judged@{k}"
    moved = (comparison.metrics.get(name) if comparison else None) or MetricRow()
    base, head = number(moved.base), number(moved.head)
    head = head if head is not None else report.measured(name)
    fell = comparison is not None and not moved.confounded and judged_drop(base, head) is not None
    extra = report.unjudged or Unjudged()
    policy = report.config.unjudged if report.config is not None else None
    named = policy or "assume-irrelevant"
    rows = tuple(_queue_row(line) for line in queue.top) if queue is not None else ()
    if not fell and not rows:
        return None
    command = queue.command if queue is not None else ""
    fence = code_fence(command) if command else ""
    return UnjudgedView(
        k=k,
        metric=name,
        base=fmt(base) if comparison is not None else None,
        head=fmt(head),
        fell=fell,
        new_keys=extra.new_keys,
        count=(extra.keys or {}).get(str(k)) or 0,
        policy=escape_markdown(named, limit=20) if markdown else page_text(named, 20),
        queue=rows,
        queued=queue.count if queue is not None else 0,
        command=f"{fence}sh\n{command}\n{fence}" if fence else None,
    )


def _queue_row(line: QueueLine) -> QueueRow:
    return QueueRow(
        query_id=escape_markdown(line.query_id, limit=80),
        query=escape_markdown(line.query, limit=QUERY_LIMIT) if line.query else "—",
        key=escape_markdown(line.chunk_id or line.doc_uri, limit=80),  # a chunk key, else a document's
        rank=str(line.rank or "—"),
        side=escape_markdown(line.surfaced_by, limit=10),
        move=f"+{fmt(line.move)}" if line.move is not None else "—",
    )
