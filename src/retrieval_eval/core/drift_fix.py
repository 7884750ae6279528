"""The repair ``drift --fix`` applies: re-anchor what provably still holds, nothing else.

Pure: a :class:`~retrieval_eval.core.drift.DriftResult` in, a :class:`FixPlan`
(the repaired judgment set and an account of every change) out.

- ``RE_ANCHORABLE`` and ``MERGED`` labels get the ``chunk_id`` drift found
  (and its ``doc_uri`` when the text moved to another document). The label's
  ``text_sha``, ``chunk_text`` and ``quote`` stay as they were: they describe
  what a person read, which the repair does not change. A ``reanchored``
  field records the previous anchor and the rule that moved it.
- ``SPLIT`` and ``ORPHANED`` labels are left untouched: the repair never
  creates ground truth. Once a person has re-judged one (the re-judge queue's
  lines, filled in and appended, name it in ``rejudge.from``), it is dropped:
  the new lines stand in for it.
- When repairs (a re-anchored label, a filled re-judge line) make two labels
  of one query name the same key, they become
  one label with the highest grade; the others' original records are kept
  under ``collapsed_from`` so no provenance is lost, and the collapse is
  reported. Without this, the repaired file would hold duplicate labels and
  every score computed from it would be INDETERMINATE.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from .drift import NEEDS_HUMAN, DriftResult, Finding
from .judgments import JudgmentSet, Label
from .precision import DECIMALS
from .rejudge import superseded
from .report_model import Json


@dataclass(frozen=True)
class Change:
    """One label pointed at a new chunk (or document)."""

    line: int
    query_id: str
    status: str
    rule: str
    old_key: str
    new_key: str
    old_doc: str
    new_doc: str


@dataclass(frozen=True)
class Collapse:
    """Labels of one query that the repair made equal, kept as one."""

    query_id: str
    key: str
    kept_line: int
    absorbed_lines: tuple[int, ...]
    relevance: int


@dataclass(frozen=True)
class Replaced:
    """A broken label that re-judged lines now stand in for."""

    line: int
    query_id: str
    key: str
    status: str


@dataclass(frozen=True)
class FixPlan:
    judgments: JudgmentSet
    changes: tuple[Change, ...]
    collapses: tuple[Collapse, ...]
    needs_human: int
    replaced: tuple[Replaced, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.changes or self.replaced)

    @property
    def labels_after(self) -> int:
        return len(self.judgments.labels)

    @property
    def invalid_ratio_after(self) -> float:
        """Share of the repaired set that still needs a person."""
        if not self.judgments.labels:
            return 0.0
        return round(self.needs_human / self.labels_after, DECIMALS)


def _repaired_record(label: Label, finding: Finding) -> dict[str, Json]:
    record = dict(label.record)
    trail: dict[str, Json] = {"rule": finding.rule}
    if finding.target is not None:
        trail["from"] = label.chunk_id
        record["chunk_id"] = finding.target
    if finding.target_doc is not None and finding.target_doc != label.doc_uri:
        trail["from_doc"] = label.doc_uri
        record["doc_uri"] = finding.target_doc
    record["reanchored"] = trail
    return record


def _relabeled(label: Label, record: Mapping[str, Json]) -> Label:
    """``label`` pointed where its repaired record says: a live chunk of the corpus (an id the
    corpus reader accepted) and, when the text moved, that chunk's document."""
    chunk_id, doc_uri = record.get("chunk_id"), record.get("doc_uri")
    return replace(
        label,
        chunk_id=chunk_id if isinstance(chunk_id, str) else label.chunk_id,
        doc_uri=doc_uri if isinstance(doc_uri, str) else label.doc_uri,
        record=record,
    )


def _repair(label: Label, finding: Finding) -> tuple[Label, Change | None]:
    if not finding.recoverable:
        return label, None
    repaired = _relabeled(label, _repaired_record(label, finding))
    change = Change(
        label.line,
        label.query_id,
        finding.status,
        finding.rule,
        label.key,
        repaired.key,
        label.doc_uri,
        repaired.doc_uri,
    )
    return repaired, change


def _survivor(members: list[int], labels: list[Label], moved: set[int]) -> int:
    """Highest grade; on a tie the label that did not move, then the first in the file."""
    return min(members, key=lambda i: (-labels[i].relevance, i in moved, i))


def _collapse(
    labels: list[Label], originals: tuple[Label, ...], moved: set[int], dropped: Collection[int] = ()
) -> tuple[list[Label | None], list[Collapse]]:
    groups: dict[tuple[str, str], list[int]] = {}
    for i, label in enumerate(labels):
        if i not in dropped:
            groups.setdefault((label.query_id, label.key), []).append(i)
    # A filled re-judge line is the repair's too: it may name a chunk another label of its query
    # was re-anchored to (a window holding the split answer and a neighbour's quote).
    repair = moved | {i for i, label in enumerate(labels) if isinstance(label.record.get("rejudge"), dict)}
    kept: list[Label | None] = list(labels)
    collapses = []
    for (query_id, key), members in groups.items():
        if len(members) < 2 or not repair.intersection(members):
            continue  # duplicates the repair did not cause are validate's to report
        keep = _survivor(members, labels, moved)
        absorbed = [i for i in members if i != keep]
        record = dict(labels[keep].record)
        history = record.get("collapsed_from")
        record["collapsed_from"] = (
            *(history if isinstance(history, (list, tuple)) else ()),
            *(originals[i].record for i in absorbed),
        )
        kept[keep] = replace(labels[keep], record=record)
        for i in absorbed:
            kept[i] = None
        collapses.append(
            Collapse(query_id, key, labels[keep].line, tuple(labels[i].line for i in absorbed), labels[keep].relevance)
        )
    return kept, collapses


def _comments_after(comments: dict[int, tuple[str, ...]], kept: list[Label | None]) -> dict[int, tuple[str, ...]]:
    """Move each comment block to the position it has once absorbed labels are gone."""
    survivors_before = [0]
    for label in kept:
        survivors_before.append(survivors_before[-1] + (label is not None))
    moved: dict[int, list[str]] = {}
    for position, lines in sorted(comments.items()):
        moved.setdefault(survivors_before[position], []).extend(lines)
    return {position: tuple(lines) for position, lines in moved.items()}


def plan_fix(result: DriftResult, comments: dict[int, tuple[str, ...]] | None = None) -> FixPlan:
    """The repaired judgment set for ``result``, and what changed on the way."""
    repaired: list[Label] = []
    changes: list[Change] = []
    for label, finding in result.pairs():
        new, change = _repair(label, finding)
        repaired.append(new)
        if change is not None:
            changes.append(change)
    moved = {i for i, finding in enumerate(result.findings) if finding.recoverable}
    dropped = superseded(result)
    # A broken label its re-judged lines stand in for is gone before labels meet: with a team's
    # slot ids the first piece of a cut paragraph keeps the paragraph's slot, so its filled line
    # names the broken label's very key, and collapsing the two kept the broken one, which was
    # then dropped with the person's new grade inside it.
    kept, collapses = _collapse(repaired, result.labels, moved, dropped)
    replaced = []
    for i in sorted(dropped):
        label = result.labels[i]
        replaced.append(Replaced(label.line, label.query_id, label.key, result.findings[i].status))
        kept[i] = None
    survivors = tuple(label for label in kept if label is not None)
    still_broken = _count_needs_human(result.findings, kept)
    judgments = JudgmentSet(survivors, _comments_after(comments or {}, kept))
    return FixPlan(judgments, tuple(changes), tuple(collapses), still_broken, tuple(replaced))


def _count_needs_human(findings: Iterable[Finding], kept: list[Label | None]) -> int:
    return sum(1 for finding, label in zip(findings, kept) if label is not None and finding.status in NEEDS_HUMAN)
