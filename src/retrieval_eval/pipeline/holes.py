"""The unjudged keys of one evaluation: what the base adds, the label queue, the judged@k note.

The rules are in :mod:`retrieval_eval.core.unjudged`; this puts the evaluation's parts
together: the head's kept rankings and labels, the base report's rankings (read leniently:
a pull request may have changed it), the corpus for chunk text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..comparison.idspace import ids_changed, translate
from ..core.comparison import Deltas
from ..core.identity import is_chunk_id
from ..core.labelindex import LabelIndex
from ..core.metrics import BY_NAME, FULL, gain_function
from ..core.report_model import CorpusInfo, Report
from ..core.scoring import BOUNDED, QueryLabels, Scores, gain_table, rank_query
from ..core.unjudged import judged_drop, label_queue, new_unjudged
from ..formats.queue import QueueExcerpt, QueueLine, queue_line

if TYPE_CHECKING:
    from ..core.corpus import Corpus
    from ..core.metrics import RankedQuery

EXCERPT = 5  # queue lines the summary and the comment show


def base_rankings(baseline: Report | None, index: LabelIndex | None = None) -> dict[str, list[str]]:
    """The base report's rankings, in the head's chunk ids
    (through the moves ``index``'s labels record: after a re-chunk the base names old ids)."""
    if index is None or not index.moved:
        return _stored(baseline)
    return translate(_stored(baseline), index.moved, index.opaque_keys)


def comparable_base(baseline: Report | None, index: LabelIndex, corpus: CorpusInfo) -> Report | None:
    """The base report when its keys can be set beside the head's, else None.

    After a re-chunk only the labeled keys of the base can be carried over; its other keys
    name old chunks, so "new in the head's top k" and "in the base's top k" would mean nothing.
    """
    if baseline is None or ids_changed(baseline, corpus, index):
        return None
    return baseline


def _stored(baseline: Report | None) -> dict[str, list[str]]:
    rankings = baseline.rankings if baseline is not None else None
    return {q: list(keys) for q, keys in (rankings or {}).items()}


def base_moves(baseline: Report | None, scores: Scores) -> dict[str, float]:
    """How far each query's primary metric moved from the base report to this run."""
    primary = scores.config.primary
    base = (baseline.per_query if baseline is not None else None) or {}
    moved = {}
    for query_id, row in scores.per_query.items():
        before = base.get(query_id, {}).get(primary)
        if before is not None and primary in row:
            moved[query_id] = row[primary] - before
    return moved


def primary_cutoff(scores: Scores) -> int:
    return scores.config.k[0] if scores.config.k else FULL


def build_queue(
    index: LabelIndex,
    indexed: Mapping[str, QueryLabels],
    scores: Scores,
    baseline: Report | None,
    corpus: Corpus | None,
) -> list[QueueLine]:
    """Every unjudged (query, key) in the top k of the head or the base, as queue lines, most useful first."""
    config = scores.config
    gain_of = gain_table(config.gain, index)
    flip = gain_function(config.gain)(config.threshold)
    base = {q: r for q, r in base_rankings(baseline, index).items() if q in scores.per_query}

    def ranked(query_id: str, ranking: list[str]) -> RankedQuery:
        return rank_query(indexed[query_id], ranking, gain_of, config.threshold, flip)

    entries = label_queue(
        scores.rankings,
        base,
        ranked,
        primary=config.primary,
        k=primary_cutoff(scores),
        scored=len(scores.per_query),
        moved=base_moves(baseline, scores),
    )
    lines = []
    # A team's own chunk ids do not look like chunk ids: a key the labels name as a chunk is one.
    chunk_keys = index.opaque_keys
    for entry in entries:
        query = index.queries.get(entry.query_id)
        position = corpus.position.get(entry.key) if corpus is not None else None
        lines.append(
            queue_line(
                entry,
                query_text=query.text if query is not None else None,
                document=corpus.docs[position] if corpus is not None and position is not None else None,
                chunk_text=corpus.texts[position] if corpus is not None and position is not None else None,
                is_chunk=is_chunk_id(entry.key) or position is not None or entry.key in chunk_keys,
            )
        )
    return lines


def queue_length(
    index: LabelIndex,
    indexed: Mapping[str, QueryLabels],
    scores: Scores,
    baseline: Report | None,
) -> int:
    """How many lines :func:`build_queue` would write, without ranking or writing any.

    The same (query, key) pairs: an unjudged key in the top k of the head's or the base's
    ranking of a scored query, each pair once, none when the primary metric has no bounds.
    """
    if BY_NAME[scores.config.primary.partition("@")[0]].bounds is None:
        return 0
    k = primary_cutoff(scores)
    base = {q: r for q, r in base_rankings(baseline, index).items() if q in scores.per_query}
    pairs: dict[str, set[str]] = {}
    for rankings in (scores.rankings, base):
        for query_id, ranking in rankings.items():
            grade = indexed[query_id].grades.get
            pairs.setdefault(query_id, set()).update(key for key in ranking[:k] if grade(key, -1) < 0)
    return sum(len(keys) for keys in pairs.values())


def new_unjudged_keys(
    indexed: Mapping[str, QueryLabels],
    scores: Scores,
    baseline: Report | None,
    index: LabelIndex | None = None,
) -> int | None:
    """What the report's ``unjudged`` section adds to the counts: the new keys against the base
    (None without a base to set the head's keys beside)."""
    if baseline is None:
        return None
    grades = {q: labels.grades for q, labels in indexed.items()}
    base = base_rankings(baseline, index)
    return new_unjudged(grades, scores.rankings, base, primary_cutoff(scores))


def queue_excerpt(queue: Sequence[QueueLine], command: str, count: int | None = None) -> QueueExcerpt:
    """What the summary and the comment show of the queue: its length, its first lines, the command for all.

    ``count``: the queue's length when it was counted but not built (``queue`` is then empty).
    """
    return QueueExcerpt(len(queue) if count is None else count, tuple(queue[:EXCERPT]), command)


BOUNDED_ADVICE = "score with --unjudged bounded"  # the command line's words; the action names its input


def judged_drop_note(
    comparison: Deltas | None, scores: Scores, new_keys: int | None, bounded_advice: str = BOUNDED_ADVICE
) -> str | None:
    """The note a reviewer needs when judged@k fell: part of any drop may be unlabeled keys.
    ``bounded_advice``: how the user of this adapter asks for the bounded policy."""
    if comparison is None or not scores.config.k or scores.config.condensed:
        return None
    k = scores.config.k[0]
    moved = comparison.get(f"judged@{k}")
    if moved is None or moved.confounded:
        return None
    fall = judged_drop(moved.base, moved.head)
    if fall is None:
        return None
    fell = f"judged@{k} fell from {moved.base:.4f} to {moved.head:.4f}"  # as every table writes it
    if not scores.unjudged_keys.get(str(k)):
        # judged@k is taken over the keys a ranking has: with none unjudged, only queries the run
        # ranks nothing for (each scores 0) can pull it down. Nobody's labeling is missing.
        return (
            f"{fell} with no unjudged key in the head's top {k}: queries the run leaves out or ranks "
            f"nothing for score judged@{k} 0 (see the missing queries)"
        )
    if new_keys is not None:
        keys = f"1 key in the head's top {k} is" if new_keys == 1 else f"{new_keys} keys in the head's top {k} are"
        fell += f"; {keys} unjudged and {'was' if new_keys == 1 else 'were'} not in the base's"
    if scores.config.unjudged_policy == BOUNDED:  # the gates already read both bounds: advise only the labeling
        return f"{fell}: the gates read the bounds over their labelings; label them (retrieval-eval holes)"
    return (
        f"{fell}: unjudged keys count as not relevant, so part of any drop may be keys nobody labeled; "
        f"label them first (retrieval-eval holes) or {bounded_advice}"
    )
