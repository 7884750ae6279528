"""Which labels a removal of documents accounts for (``removal-unexplained``).

Documents that leave the corpus take their labels with them, and a query only they answered
leaves the comparison: no edit of the judgments, so the gates do not hold it against a pull
request. But a removal must not excuse every label taken beside it: a pull request that deletes
any one document could then unlabel whatever its retriever lost, and PASS.

A base report scored against a corpus says where its hits lay (``hit_documents``: each relevant
key's rank and document). Then the answer is exact, for each query the head's judgments no
longer score or credit with fewer hits: a hit whose document the head's corpus no longer holds
left with it; every other hit must still be credited by the head's labels (its key carried
through the moves they record, across a re-chunk as within one). One that is not was taken
beside the removal.

A base report without them (older, or scored without a corpus) is read by counting, which can
let an edit through but never holds a removal alone against a pull request outside a re-chunk:

1. A key the base ranked lost no label to the removal when the corpus still holds it: under its
   own id, or where a repaired label traces it to a live chunk (a move, or a re-judged line on a
   chunk of its document). Each hit the top k lost sat on one of its k keys, and at most the keys
   that left took their labels with them: more hits lost than keys that left is an edit.
2. A repaired line of the query records the old label's grade: a key relevant in the base whose
   repaired line labels a live chunk did not leave. More such keys in a top k than the head's
   labels still credit there is an edit.
3. The base's reciprocal rank says where its first hit was: that key, if it did not leave and the
   head's labels no longer call it relevant, is an edit.

Across a re-chunk every old id is gone from the corpus, and only labeled ones are traced: which
of the others left with a document cannot be told by counting, so none is counted as having
left, and (1) holds any lost hit against the pull request there.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence

from ..core.labelindex import LabelIndex
from ..core.report_model import Report
from ..core.scoring import CONDENSED
from .idspace import credits
from .sides import per_query
from .yardstick import Yardstick


def unexplained_by_removal(
    base_report: Report,
    yardstick: Yardstick,
    taken: Sequence[str],
    lowered: Sequence[str],
    live: Container[str] | None,
    judgments: LabelIndex | None,
    *,
    rechunked: bool,
    head_threshold: int | None,
) -> list[str]:
    """The queries, of those the head's judgments no longer score (``taken``) or credit with fewer
    hits (``lowered``), whose loss the keys that left the corpus cannot account for; all of them
    when the head's corpus is not at hand (``live`` None), since nothing then tells them apart."""
    if live is None:
        return sorted({*taken, *lowered})
    if base_report.hit_documents is not None and judgments is not None and head_threshold is not None:
        return _by_hit_documents(base_report, sorted({*taken, *lowered}), live, judgments, head_threshold)
    own = per_query(base_report) or {}
    rankings = base_report.rankings or {}

    traced = _traced(judgments, live) if judgments is not None else set()
    config = base_report.config
    threshold = config.threshold if config is not None else None
    # Positions read off the base's values are those of its stored ranking, unless scoring
    # condensed it (unjudged keys taken out first); across a re-chunk (1) already holds any loss.
    first_hits = not rechunked and (config is None or config.unjudged != CONDENSED)

    def gone(key: str) -> bool:
        return not rechunked and key not in live and key not in traced

    unexplained = []
    for query in sorted({*taken, *lowered}):
        ranking = rankings.get(query)
        values = own.get(query, {})
        credited = None if query in taken else _credited(yardstick, query)
        left = None if ranking is None else [gone(key) for key in ranking]
        kept = _still_relevant(judgments, live, query, threshold) if judgments is not None else set()
        stayed = None if ranking is None else [key in kept for key in ranking]
        if not _accounted_for(values, credited, left, stayed, whole=query in taken):
            unexplained.append(query)
        elif first_hits and ranking is not None and judgments is not None and head_threshold is not None:
            credited_key = credits(judgments, query, head_threshold)
            if any(not gone(key) and not credited_key(key) for key in _first_hits(values, ranking)):
                unexplained.append(query)
    return unexplained


def lost_hits(base_report: Report, query: str, judgments: LabelIndex, threshold: int) -> list[str]:
    """The documents of the base's recorded hits (``hit_documents``) of this query that the head's
    labels no longer credit, each key carried through the moves they record ("" where the
    document is unknown, and for a rank the base's ranking does not reach)."""
    ranking = (base_report.rankings or {}).get(query, ())
    credited = credits(judgments, query, threshold)
    lost = []
    for rank, document in (base_report.hit_documents or {}).get(query, {}).items():
        at = int(rank) - 1 if rank.isdigit() else -1
        if not 0 <= at < len(ranking):
            lost.append("")
        elif not credited(ranking[at]):
            lost.append(document)
    return lost


def _by_hit_documents(
    base_report: Report, queries: Sequence[str], live: Container[str], judgments: LabelIndex, threshold: int
) -> list[str]:
    """Exactly, from where the base report says its hits lay: a lost hit whose document the head's
    corpus no longer holds left with it; any other was taken beside the removal."""
    return [
        query
        for query in queries
        if any(not document or document in live for document in lost_hits(base_report, query, judgments, threshold))
    ]


def _first_hits(values: Mapping[str, float], ranking: Sequence[str]) -> list[str]:
    """The keys the base's reciprocal ranks place its first hit on (one per cutoff that found one)."""
    keys = []
    for name, value in values.items():
        if name.startswith("mrr@") and value > 0:
            rank = round(1 / value)
            if 1 <= rank <= len(ranking):
                keys.append(ranking[rank - 1])
    return keys


def _traced(judgments: LabelIndex, live: Container[str]) -> set[str]:
    """Old chunk ids the head's repaired labels trace to a chunk ``live`` holds: the text (or, for
    a re-judged line, the document) they came from is still in the corpus."""
    traced = {old for old, new in judgments.moved.items() if new in live}
    for olds in judgments.repairs.values():
        traced.update(old for old, lines in olds.items() if any(on in live for on, _grade in lines))
    return traced


def _still_relevant(judgments: LabelIndex, live: Container[str], query: str, threshold: int | None) -> set[str]:
    """The query's old chunk ids whose own label was relevant (as its repaired line records) and
    whose repaired line labels a chunk ``live`` holds. An old id the corpus holds again is today's
    chunk, judged by the labels naming it (``LabelIndex.forget_returned``), so it is left out."""
    if threshold is None:
        return set()
    return {
        old
        for old, lines in judgments.repairs.get(query, {}).items()
        if old not in live and any(on in live and was is not None and was >= threshold for on, was in lines)
    }


def _credited(yardstick: Yardstick, query: str) -> dict[int, int]:
    """Hits in each top k of the base's ranking under the head's labels."""
    if yardstick.base_hits is not None:  # across a re-chunk: each old key carried on its own
        return dict(yardstick.base_hits.get(query, {}))
    rescored = (yardstick.base_per_query or {}).get(query, {})
    return {_cutoff(name): round(value * _cutoff(name)) for name, value in rescored.items() if _is_precision(name)}


def _accounted_for(
    values: Mapping[str, float],
    credited: Mapping[int, int] | None,
    left: list[bool] | None,
    stayed: list[bool] | None,
    *,
    whole: bool,
) -> bool:
    """Whether the keys that left (``left[i]``: the base's i-th key is gone) can hold every hit lost,
    and no more keys known relevant and still there (``stayed``) lost their credit than the head's
    labels give. ``whole``: the query is no longer scored at all, so a hit anywhere in the kept
    ranking (a metric without a cutoff above 0, such as R-precision) was lost too."""
    for name, value in values.items():
        if _is_precision(name):
            k = _cutoff(name)
            if credited is not None and k not in credited:
                continue  # a cutoff the head's rescoring has no value at: nothing is known lost there
            kept = 0 if credited is None else credited[k]
            lost = round(value * k) - kept
            if lost > 0 and (left is None or lost > sum(left[:k])):
                return False
            if stayed is not None and sum(stayed[:k]) > kept:
                return False
        elif whole and "@" not in name and value > 0 and (left is None or not any(left)):
            return False
    return True


def _is_precision(name: str) -> bool:
    return name.startswith("precision@") and name[len("precision@") :].isdigit()


def _cutoff(name: str) -> int:
    return int(name.rsplit("@", 1)[1])
