"""The label queue file: one judgments line per unjudged (query, key), without relevance."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.judgments import QUEUE_PLACEHOLDER as PLACEHOLDER
from ..core.rejudge import REJUDGE, RejudgeLine
from ..core.unjudged import QueueEntry
from .fileio import write_atomic


def queue_text(lines: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)


def write_queue(path: str | os.PathLike[str], lines: Iterable[Mapping[str, Any]]) -> None:
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


def queue_line(
    entry: QueueEntry, *, query_text: str | None, document: str | None, chunk_text: str | None, is_chunk: bool
) -> dict[str, Any]:
    """The judgments line a labeler completes: ``relevance`` missing, ``labeled_by`` a placeholder.

    A chunk key names its chunk; its document is the corpus's when one was given,
    else the key itself (a line needs a doc_uri; the chunk id is what scoring reads).
    """
    line: dict[str, Any] = {"query_id": entry.query_id}
    if query_text:
        line["query"] = query_text
    if is_chunk:
        line["doc_uri"] = document or entry.key
        line["chunk_id"] = entry.key
    else:
        line["doc_uri"] = entry.key
    line["rank"] = entry.rank
    line["surfaced_by"] = entry.surfaced_by
    line["move"] = entry.move
    if chunk_text is not None:
        line["chunk_text"] = chunk_text
    line["labeled_by"] = PLACEHOLDER
    return line
