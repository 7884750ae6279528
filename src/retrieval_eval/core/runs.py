"""A run as the core reads it: the deduplicated head of each query's ranking.

Reading one from a file (run JSONL or TREC) is :mod:`retrieval_eval.formats.runs`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Run:
    """The part of a run that scoring needs.

    ``rankings`` holds judged queries only (or every query when no judged set
    was given), deduplicated in rank order and cut at the requested depth.
    """

    rankings: dict[str, list[str]] = field(default_factory=dict)
    with_duplicates: list[str] = field(default_factory=list)
    unjudged: list[str] = field(default_factory=list)
    received: dict[str, int] = field(default_factory=dict)
    queries: int = 0
    sha256: str = ""
    format: str = "jsonl"


@dataclass(frozen=True)
class RunRows:
    """A run held in memory as its file would hold it: what the library scores without a file.

    ``ranked`` holds (query_id, ranking) in order, as run JSONL lines do; ``scored`` holds
    (query_id, doc_id, score), as TREC run lines do, and is ordered by trec_eval's rule when
    read. ``by_score`` says which of the two is the run. ``sha256`` names the content (the
    file's bytes when it was read from one).
    """

    ranked: tuple[tuple[str, Sequence[str]], ...] = ()
    scored: tuple[tuple[str, str, float], ...] = ()
    by_score: bool = False
    sha256: str = ""


def dedupe_head(ranking: list[str], depth: int | None) -> tuple[list[str], int | None]:
    """The first ``depth`` distinct keys in rank order, and where the first repeat was skipped.

    Only the part of the ranking read to fill the depth is examined: a repeat
    further down changes no number. The second value is the position (in
    ``ranking``) of the first key seen before, or None when no repeat was
    read. Up to that position every key was new, so a shallower head of
    depth ``d`` holds a repeat exactly when that position is below ``d``.
    """
    head = ranking if depth is None else ranking[:depth]
    if len(set(head)) == len(head):
        return head, None
    seen: set[str] = set()
    kept: list[str] = []
    first_repeat: int | None = None
    for position, key in enumerate(ranking):
        if key in seen:
            if first_repeat is None:
                first_repeat = position
            continue
        seen.add(key)
        kept.append(key)
        if depth is not None and len(kept) == depth:
            break
    return kept, first_repeat
