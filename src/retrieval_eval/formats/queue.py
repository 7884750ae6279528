"""The label queue file: one judgments line per unjudged (query, key), without relevance.

Three kinds of line are written here, and only here, as JSON: a :class:`QueueLine` (what
``holes`` and the action write), an :class:`UnsettledLine` (a line of a queue the judge read and
did not settle, for a person) and a re-judge line (``drift --queue``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.judgments import QUEUE_PLACEHOLDER as PLACEHOLDER
from ..core.rejudge import REJUDGE, RejudgeLine
from ..core.report_model import Json
from ..core.unjudged import QueueEntry
from .fileio import write_atomic


@dataclass(frozen=True, slots=True, kw_only=True)
class QueueLine:
    """The judgments line a labeler completes: ``relevance`` missing, ``labeled_by`` a placeholder;
    where the key ranked, which side surfaced it, and how far labeling it alone moves the metric."""

    query_id: str
    query: str | None = None
    doc_uri: str
    chunk_id: str | None = None
    rank: int
    surfaced_by: str  # head, base or both
    move: float
    chunk_text: str | None = None
    labeled_by: str


@dataclass(frozen=True, slots=True)
class UnsettledLine:
    """A line of a queue the judge read and could not settle: the line as it was read (any
    field a tool added kept as written), and why (``judge_status``)."""

    record: Mapping[str, Json]
    judge_status: str


@dataclass(frozen=True, slots=True)
class QueueExcerpt:
    """What the summary and the comment show of the queue: its length, its first lines, the command for all."""

    count: int
    top: tuple[QueueLine, ...]
    command: str


Line = QueueLine | UnsettledLine | RejudgeLine


def queue_line(
    entry: QueueEntry, *, query_text: str | None, document: str | None, chunk_text: str | None, is_chunk: bool
) -> QueueLine:
    """The judgments line a labeler completes: ``relevance`` missing, ``labeled_by`` a placeholder.

    A chunk key names its chunk; its document is the corpus's when one was given,
    else the key itself (a line needs a doc_uri; the chunk id is what scoring reads).
    """
    return QueueLine(
        query_id=entry.query_id,
        query=query_text or None,
        doc_uri=(document or entry.key) if is_chunk else entry.key,
        chunk_id=entry.key if is_chunk else None,
        rank=entry.rank,
        surfaced_by=entry.surfaced_by,
        move=entry.move,
        chunk_text=chunk_text,
        labeled_by=PLACEHOLDER,
    )


def queue_line_to_json(line: Line) -> dict[str, Any]:
    """The JSON object of one line, keys in the order they have always been written."""
    if isinstance(line, RejudgeLine):
        return rejudge_line_to_json(line)
    if isinstance(line, UnsettledLine):
        return {**line.record, "judge_status": line.judge_status}
    data: dict[str, Any] = {"query_id": line.query_id}
    if line.query:
        data["query"] = line.query
    data["doc_uri"] = line.doc_uri
    if line.chunk_id is not None:
        data["chunk_id"] = line.chunk_id
    data["rank"] = line.rank
    data["surfaced_by"] = line.surfaced_by
    data["move"] = line.move
    if line.chunk_text is not None:
        data["chunk_text"] = line.chunk_text
    data["labeled_by"] = line.labeled_by
    return data


def queue_text(lines: Iterable[Line]) -> str:
    return "".join(
        json.dumps(queue_line_to_json(line), ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines
    )


def write_queue(path: str | os.PathLike[str], lines: Iterable[Line]) -> None:
    write_atomic(path, queue_text(lines))


def rejudge_line_to_json(line: RejudgeLine) -> dict[str, Any]:
    """A re-judge line as the judgments line it is: ``relevance`` left out, ``rejudge`` what came before."""
    data: dict[str, Any] = {"query_id": line.query_id}
    if line.query:
        data["query"] = line.query
    data["doc_uri"] = line.doc_uri
    data["chunk_id"] = line.chunk_id
    if line.chunk_text is not None:
        data["chunk_text"] = line.chunk_text
    if line.stratum is not None:
        data["stratum"] = line.stratum
    data["labeled_by"] = line.labeled_by
    before = line.before
    trail: dict[str, Any] = {"line": before.line, "status": before.status, "from": before.from_key}
    trail["relevance"] = before.relevance
    if before.chunk_text is not None:
        trail["chunk_text"] = before.chunk_text
    if before.quote is not None:
        trail["quote"] = before.quote
    data[REJUDGE] = trail
    return data
