"""Unjudged keys: how many the head added, whether judged@k fell, and the label queue.

A key is *unjudged* for a query when no label of that query names it (a key
labeled 0 is judged). Scoring counts them as not relevant (the reported
value) and bounds what labeling them could do (the ``lower`` and ``upper`` of every
metric, see :mod:`.metrics`). This module says what a reviewer should do
about them:

- ``judged_drop``: the head's judged@k fell below the base's, paired over the
  queries scored on both sides, by more than :data:`NOISE_MARGIN`;
- ``new_unjudged``: the unjudged keys in the head's top k that the base's top k
  of the same query did not hold;
- ``label_queue``: one entry per unjudged (query, key) in the top k of the head
  or the base, ordered by how far labeling that key alone could move the mean
  of the primary metric (``move``: its upper bound with only that key counted
  relevant, less its value, over the number of queries scored), then by how far
  the query's primary metric moved between base and head, then by query id and
  rank. Each entry is a judgments line without ``relevance``, with a
  ``labeled_by`` placeholder: a labeler fills in both and appends it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .metrics import BY_NAME, FULL, RankedQuery
from .precision import DECIMALS

# The policy that adds a calibrated judge's labels to the bounds (docs/judge.md). Scoring runs
# as under "bounded"; the pipeline then lets machine labels resolve what the bounds leave open.
MACHINE = "machine"
NOISE_MARGIN = 0.01  # judged@k may fall this much (one key in a hundred) before it is worth a note


def judged_drop(base: float | None, head: float | None) -> float | None:
    """How far judged@k fell (a positive number), when it fell by more than the margin."""
    if base is None or head is None:
        return None
    fall = round(base - head, DECIMALS)
    return fall if fall > NOISE_MARGIN else None


def new_unjudged(
    grades: Mapping[str, Mapping[str, int]], head: Mapping[str, list[str]], base: Mapping[str, list[str]], k: int
) -> int:
    """Unjudged keys in the head's top k that the base's top k did not hold, over queries in both."""
    count = 0
    for query_id, ranking in head.items():
        before = base.get(query_id)
        if before is None:
            continue
        known = grades.get(query_id, {})
        seen = set(before[:k])
        count += sum(1 for key in ranking[:k] if key not in known and key not in seen)
    return count


@dataclass(frozen=True)
class QueueEntry:
    query_id: str
    key: str
    rank: int
    surfaced_by: str  # head, base or both
    move: float
    query_moved: float  # |head - base| of the query's primary metric; 0 without a base

    def order(self) -> tuple[float, float, str, int]:
        return (-self.move, -self.query_moved, self.query_id, self.rank)


RankQuery = Callable[[str, list[str]], RankedQuery]  # (query id, ranking) -> the ranking seen through its labels


def key_moves(query: RankedQuery, metric: str, k: int) -> dict[int, float]:
    """For each unjudged position in the top k: the primary metric's rise if that key alone were relevant."""
    definition = BY_NAME[metric.partition("@")[0]]
    value = definition.compute(query, k)
    moves = {}
    for position, judged in enumerate(query.judged[:k] if k != FULL else query.judged):
        if not judged and definition.bounds is not None:
            moves[position] = max(0.0, definition.bounds(query, k, [position], False)[1] - value)
    return moves


def label_queue(
    head: Mapping[str, list[str]],
    base: Mapping[str, list[str]],
    rank_query: RankQuery,
    *,
    primary: str,
    k: int,
    scored: int,
    moved: Mapping[str, float],
) -> list[QueueEntry]:
    """Every unjudged (query, key) in the top k of either side, in queue order (module docstring)."""
    found: dict[tuple[str, str], QueueEntry] = {}
    for side, rankings in (("head", head), ("base", base)):
        for query_id, ranking in rankings.items():
            query = rank_query(query_id, ranking[:k])
            for position, move in key_moves(query, primary, k).items():
                entry = QueueEntry(
                    query_id,
                    ranking[position],
                    position + 1,
                    side,
                    round(move / max(scored, 1), DECIMALS),
                    abs(moved.get(query_id, 0.0)),
                )
                previous = found.get((query_id, entry.key))
                if previous is None:
                    found[(query_id, entry.key)] = entry
                elif previous.surfaced_by != side:
                    found[(query_id, entry.key)] = QueueEntry(
                        query_id,
                        entry.key,
                        previous.rank,
                        "both",
                        max(previous.move, entry.move),
                        previous.query_moved,
                    )
    return sorted(found.values(), key=QueueEntry.order)
