"""The re-judge queue: every label a re-chunk broke, as lines a person completes.

Pure: a :class:`~retrieval_eval.core.drift.DriftResult` and the corpus in, judgments
lines out. A ``SPLIT`` or ``ORPHANED`` label gets one line per candidate chunk (the
chunks its text now spans, the places its text went, or else the live chunks of its
document), in the shape of the label queue (``holes``): a judgments line without
``relevance``, ``labeled_by`` a placeholder, the candidate's text beside it, and a
``rejudge`` object with what the person judged before (line, status, old chunk id,
old grade, old text). Filled in and appended to the judgments, the lines are labels
like any other; ``drift --fix`` then drops the broken label they replace (see
:func:`superseded`), and the comparison reads ``rejudge.from`` of the relevant ones
as the move from the old chunk.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .corpus import Corpus
from .drift import NEEDS_HUMAN, DriftResult, Finding
from .judgments import QUEUE_PLACEHOLDER, Label

# Candidates offered for an orphaned label when nothing says where its text went: the document's first chunks.
DOCUMENT_CANDIDATES = 20
REJUDGE = "rejudge"


def candidates(label: Label, finding: Finding, corpus: Corpus) -> list[str]:
    """The live chunks a person should read for ``label``, in reading order."""
    if finding.covering:
        return list(finding.covering)
    if finding.candidates:
        return list(finding.candidates)
    return [corpus.ids[i] for i in corpus.chunks_of(label.doc_uri)][:DOCUMENT_CANDIDATES]


def queue_lines(result: DriftResult, corpus: Corpus) -> list[dict[str, Any]]:
    """One line per (broken label, candidate chunk), labels in file order."""
    lines: list[dict[str, Any]] = []
    for label, finding in result.pairs():
        if finding.status in NEEDS_HUMAN:
            lines.extend(_lines_for(label, finding, corpus))
    return lines


def _lines_for(label: Label, finding: Finding, corpus: Corpus) -> Iterable[dict[str, Any]]:
    before = _before(label, finding)
    for key in candidates(label, finding, corpus):
        position = corpus.position[key]
        line: dict[str, Any] = {"query_id": label.query_id}
        if label.query:
            line["query"] = label.query
        line["doc_uri"] = corpus.docs[position]
        line["chunk_id"] = key
        text = corpus.texts[position]
        if text is not None:
            line["chunk_text"] = text
        line["labeled_by"] = QUEUE_PLACEHOLDER
        line[REJUDGE] = before
        yield line


def _before(label: Label, finding: Finding) -> dict[str, Any]:
    before: dict[str, Any] = {
        "line": label.line,
        "status": finding.status,
        "from": label.key,
        "relevance": label.relevance,
    }
    for name in ("chunk_text", "quote"):
        value = label.get(name)
        if isinstance(value, str):
            before[name] = value
    return before


def replaced_by(label: Label) -> tuple[str, str] | None:
    """(query, old key) a filled re-judge line stands in for, or None for any other label."""
    before = label.get(REJUDGE)
    if isinstance(before, dict) and isinstance(before.get("from"), str):
        return label.query_id, before["from"]
    return None


def superseded(result: DriftResult) -> set[int]:
    """Indices of broken labels that re-judged lines of the same query now stand in for.

    Only a line that is not broken itself stands in: a line naming itself in ``rejudge.from``,
    or two broken lines naming each other, would otherwise drop both and leave no label.
    """
    replaced = {
        pair
        for label, finding in result.pairs()
        if finding.status not in NEEDS_HUMAN and (pair := replaced_by(label)) is not None
    }
    return {
        finding.index
        for label, finding in result.pairs()
        if finding.status in NEEDS_HUMAN and (label.query_id, label.key) in replaced
    }
