"""The unjudged-keys block of the summary and the comment: judged@k on both sides, the queue's head.

Shown when judged@k fell against the base by more than the noise margin, or when a
label queue with something in it is given (the action builds one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.comparison_document import ComparisonDocument, MetricRow
from ..core.lenient import integer, number
from ..core.report_model import Report, Unjudged
from ..core.unjudged import judged_drop
from ..formats.lenient import items, mapping
from .escape import code_fence, escape_markdown
from .numbers import fmt

QUERY_LIMIT = 80


def unjudged_view(
    report: Report, comparison: ComparisonDocument | None, queue: Mapping[str, Any] | None
) -> dict[str, Any] | None:
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
    queue = mapping(queue)
    rows = [_queue_row(mapping(line)) for line in items(queue.get("top"))]
    if not fell and not rows:
        return None
    command = queue.get("command")
    fence = code_fence(command) if isinstance(command, str) and command else ""
    return {
        "k": k,
        "metric": name,
        "base": fmt(base) if comparison is not None else None,
        "head": fmt(head),
        "fell": fell,
        "new_keys": extra.new_keys,
        "count": (extra.keys or {}).get(str(k)) or 0,
        "policy": escape_markdown(policy or "assume-irrelevant", limit=20),
        "queue": rows,
        "queued": integer(queue.get("count")) or 0,
        "command": f"{fence}sh\n{command}\n{fence}" if fence else None,
    }


def _queue_row(line: Mapping[str, Any]) -> dict[str, str]:
    query = line.get("query")
    key = line.get("chunk_id") or line.get("doc_uri")
    return {
        "query_id": escape_markdown(line.get("query_id", ""), limit=80),
        "query": escape_markdown(query, limit=QUERY_LIMIT) if query else "—",
        "key": escape_markdown(key or "", limit=80),
        "rank": str(integer(line.get("rank")) or "—"),
        "side": escape_markdown(line.get("surfaced_by", ""), limit=10),
        "move": f"+{fmt(line.get('move'))}" if number(line.get("move")) is not None else "—",
    }
