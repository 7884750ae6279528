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
from dataclasses import dataclass

from .corpus import Corpus
from .drift import NEEDS_HUMAN, DriftResult, Finding
from .judgments import QUEUE_PLACEHOLDER, Label

# Candidates offered for an orphaned label when nothing says where its text went: the document's first chunks.
DOCUMENT_CANDIDATES = 20
REJUDGE = "rejudge"


@dataclass(frozen=True)
class Before:
    """What the person judged before: the broken label's line, status, key and grade, and its text."""

    line: int
    status: str
    from_key: str
    relevance: int
    chunk_text: str | None = None
    quote: str | None = None


@dataclass(frozen=True)
class RejudgeLine:
    """A judgments line without ``relevance``: one candidate chunk of one broken label."""

    query_id: str
    query: str | None
    doc_uri: str
    chunk_id: str
    chunk_text: str | None
    before: Before
    labeled_by: str = QUEUE_PLACEHOLDER
    # The broken label's stratum: a query whose only label broke would leave its stratum otherwise.
    stratum: str | None = None


def candidates(label: Label, finding: Finding, corpus: Corpus) -> list[str]:
    """The live chunks a person should read for ``label``, in reading order."""
    if finding.covering:
        return list(finding.covering)
    if finding.candidates:
        return list(finding.candidates)
    return [corpus.ids[i] for i in corpus.chunks_of(label.doc_uri)][:DOCUMENT_CANDIDATES]


def stranded(result: DriftResult, corpus: Corpus) -> list[Label]:
    """The broken labels (SPLIT, ORPHANED) no re-judge queue can hold, in file order: no live chunk
    to judge them against, their document is gone. Only deleting them or labeling their query
    again clears them."""
    return [
        label
        for label, finding in result.pairs()
        if finding.status in NEEDS_HUMAN and not candidates(label, finding, corpus)
    ]


def queue_lines(result: DriftResult, corpus: Corpus) -> list[RejudgeLine]:
    """One line per (broken label, candidate chunk), labels in file order."""
    lines: list[RejudgeLine] = []
    for label, finding in result.pairs():
        if finding.status in NEEDS_HUMAN:
            lines.extend(_lines_for(label, finding, corpus))
    return lines


def _lines_for(label: Label, finding: Finding, corpus: Corpus) -> Iterable[RejudgeLine]:
    before = _before(label, finding)
    for key in candidates(label, finding, corpus):
        position = corpus.position[key]
        yield RejudgeLine(
            label.query_id,
            label.query,
            corpus.docs[position],
            key,
            corpus.texts[position],
            before,
            stratum=label.stratum,
        )


def _before(label: Label, finding: Finding) -> Before:
    text, quote = label.get("chunk_text"), label.get("quote")
    return Before(
        label.line,
        finding.status,
        label.key,
        label.relevance,
        text if isinstance(text, str) else None,
        quote if isinstance(quote, str) else None,
    )


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
