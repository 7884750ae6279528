"""The label queue file: one judgments line per unjudged (query, key), without relevance."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.rejudge import REJUDGE, RejudgeLine
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
