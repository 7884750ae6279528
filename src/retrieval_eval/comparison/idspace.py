"""Which chunk ids each side speaks: rankings are compared in one id space only.

A re-chunk gives every chunk a new id. The base report's rankings then name
chunks the head's labels no longer name, and scoring them under the head's
judgments counts every hit as a miss. So before anything is rescored, the
comparison asks whether the two sides were chunked alike, and when they were
not, carries the base rankings into the head's ids through the migration the
head's labels record (``drift --fix`` writes each old id in ``reanchored`` and
``collapsed_from``). A hit on labeled text stays a hit at the same rank: the
delta is the change at the level of the labeled text.

That translation is sound only when every label survived the re-chunk by a
sound rule. The head report's drift section says whether it did; when it did
not (labels SPLIT, ORPHANED, or still unrepaired), the deltas are confounded,
with the labels named and the command that lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from ..core.drift import NEEDS_HUMAN
from ..core.labelindex import LabelIndex
from ..core.report_model import CorpusInfo, Report, StaleLabel
from .sides import Sides

# Below this share of the base's hits still naming a head label, the ids are taken to have changed.
OVERLAP_FLOOR = 0.5
STALE_NAMED = 5  # labels named in a reason; the list command shows them all


@dataclass(frozen=True)
class IdSpace:
    """Whether the base rankings speak the head's ids, and if not, what to do about it."""

    changed: bool
    detail: str = ""  # how the change was seen
    blocker: str | None = None  # why the base cannot be carried over soundly, when it cannot
    meaning: str | None = None  # what the change means for the deltas, when not the base's ids being old


def decide_id_space(sides: Sides) -> IdSpace:
    if sides.judgments is not None and not sides.judgments.chunk_ids:
        return IdSpace(False)  # document-level labels: a re-chunk leaves document ids as they were
    detail = _change_seen(sides)
    if detail is not None:
        return IdSpace(
            True, detail, _migration_blocker(sides.head) or _unmoved_blocker(sides) or _reused_blocker(sides)
        )
    outside = _head_outside(sides, sides.base.rankings or {}, sides.judgments) if sides.judgments else None
    if outside is not None:
        return IdSpace(True, outside, HEAD_OUTSIDE_BLOCKER, HEAD_OUTSIDE_MEANING)
    return IdSpace(False)


def without_old_trails(sides: Sides) -> Sides:
    """``sides`` with the head's labels read without their repair trails when both reports were
    scored with the very same judgments file: every trail in it was in the base's labels already,
    so it records a re-chunk older than the base (a label repaired months ago keeps its
    ``reanchored``) and no move between the two sides. Read as one, a team's slot ids (``doc#3``,
    refilled by that older re-chunk) would carry the base's hit on today's ``doc#3`` elsewhere."""
    labels = sides.judgments
    if labels is None or not (labels.moved or labels.carries or labels.unmoved):
        return sides
    base_sha = sides.base.inputs.judgments_sha256 if sides.base.inputs is not None else None
    head_sha = sides.head.inputs.judgments_sha256 if sides.head.inputs is not None else None
    if not base_sha or base_sha != head_sha or _ranks_a_left_chunk(sides.base.rankings or {}, labels):
        return sides
    return Sides(sides.base, sides.head, replace(labels, moved={}, carries={}, unmoved={}, copied=set()))


def _ranks_a_left_chunk(rankings: Mapping[str, tuple[str, ...]], labels: LabelIndex) -> bool:
    """Whether the base ranks a c1 chunk the labels' trails record as left and no label names now.

    A c1 id names one text in one chunking, so a trail older than the base names no key the base
    ranks; one the base ranks is a move between the two sides, recorded before the base was scored
    (a base report scored again, with its old run and corpus, after the labels were repaired in
    place). Such trails are read: unread, every base hit on the old chunks was a miss."""
    left = {key for key in labels.moved if key.startswith("c1:")}
    left.update(key for carries in labels.carries.values() for key in carries if key.startswith("c1:"))
    left.update(key for olds in labels.unmoved.values() for key in olds if key.startswith("c1:"))
    if not left:
        return False
    left.difference_update(key for query in labels.queries.values() for key in query.grades)
    return any(key in left for keys in rankings.values() for key in keys)


def ids_changed(base: Report, head_corpus: CorpusInfo, labels: LabelIndex) -> bool:
    """Whether ``base`` ranks chunks in other ids than a head on ``head_corpus`` with ``labels``
    (before the head is scored: its unjudged keys are only told apart from the base's in one id space)."""
    return _change_seen(Sides(base, Report(corpus=head_corpus), labels)) is not None


def _chunker(report: Report) -> str | None:
    return report.corpus.chunker_fingerprint if report.corpus is not None else None


def _same_corpus(base: Report, head: Report) -> bool:
    """Whether both reports were scored with the very same corpus file (its SHA-256 recorded)."""
    base_sha = base.corpus.sha256 if base.corpus is not None else None
    head_sha = head.corpus.sha256 if head.corpus is not None else None
    return base_sha is not None and base_sha == head_sha


def _change_seen(sides: Sides) -> str | None:
    base_chunker, head_chunker = _chunker(sides.base), _chunker(sides.head)
    if base_chunker is not None and head_chunker is not None and base_chunker != head_chunker:
        return f"the chunker changed ({base_chunker!r} in base, {head_chunker!r} in head), so chunk ids changed"
    if _same_corpus(sides.base, sides.head) and not (
        sides.judgments is not None and _ranks_a_left_chunk(sides.base.rankings or {}, sides.judgments)
    ):
        # Both sides ranked one corpus file, byte for byte: one id space, whatever the labels'
        # trails say. A trail outlives its re-chunk (a label repaired last month still names the
        # slot it left), and a team's slot ids (doc#3) are reused by the next chunking: read here,
        # an old trail would carry the base's hit on today's doc#3 into another chunk. Unless the
        # base ranks a c1 chunk a trail left: its run was made before that re-chunk, whatever
        # corpus it was scored with.
        return None
    # Read in place, not copied: a large base report holds a million ranked keys.
    rankings = sides.base.rankings or {}
    if sides.judgments is None or not rankings:
        return None
    moved = sides.judgments.moved
    # Distinct ids: one old chunk ranked by every query is one chunk the labels moved, not one per query.
    stale = len({key for keys in rankings.values() for key in keys if key in moved}) if moved else 0
    if stale:
        return f"the base rankings name {stale} chunk id(s) that the head's labels record as moved by a re-chunk"
    # A label re-judged on edited text records no move (see labelindex.unmoved_from), yet its old
    # chunk is gone all the same: when the chunker stayed, that may be all that tells the base's
    # ids from the head's, and the base's hit there would otherwise count as a miss.
    unmoved = sides.judgments.unmoved
    gone = len({key for q, keys in rankings.items() for key in keys if key in unmoved.get(q, ())}) if unmoved else 0
    if gone:
        return (
            f"the base rankings name {gone} chunk id(s) whose labels the head re-judged on text that changed "
            "in a re-chunk"
        )
    return _barely_overlapping(sides, rankings, sides.judgments)


def _barely_overlapping(sides: Sides, rankings: Mapping[str, tuple[str, ...]], labels: LabelIndex) -> str | None:
    """The base's own hits, when few of them name a key the head labels: another id space."""
    primary = sides.base.primary_metric()
    own = sides.base.per_query or {}  # only the primary value of each row is read
    hits = [q for q, row in own.items() if row.get(primary, 0) > 0 and q in rankings and q in labels.queries]
    if not hits:
        return None
    named = sum(1 for q in hits if any(key in labels.queries[q].grades for key in rankings[q]))
    if named >= OVERLAP_FLOOR * len(hits):
        return None
    return (
        f"the base found labeled text for {len(hits)} queries, but only {named} of its rankings name "
        "a key the head's labels name: the two sides use different chunk ids"
    )


HEAD_OUTSIDE_MEANING = "so every key the head ranks counts as irrelevant"
HEAD_OUTSIDE_BLOCKER = (
    "labels follow a re-chunk's new ids only once repaired: score the head with --corpus and run "
    "drift --fix (docs/rechunk.md); if the corpus was not re-chunked, the run's ids are not the labels'"
)


def _head_outside(sides: Sides, rankings: Mapping[str, tuple[str, ...]], labels: LabelIndex) -> str | None:
    """The head's rankings, when they name none of the keys the labels or the base's rankings name.

    A re-chunk whose labels were not moved yet (scored without the corpus, before ``drift --fix``)
    leaves the head ranking new ids that no label and no base ranking knows: every key would be
    taken as irrelevant, and a head equal to the base in substance would score 0. A retriever on
    the same corpus ranks some known key somewhere; one that ranks none is not comparable either.
    """
    ranked = {query: keys for query, keys in (sides.head.rankings or {}).items() if keys}
    if not ranked:
        return None
    # Most heads rank a labeled key of their own query at once: the whole look is then one probe.
    if any(key in labels.queries[q].grades for q, keys in ranked.items() if q in labels.queries for key in keys):
        return None
    known = {key for query in labels.queries.values() for key in query.grades}
    if any(key in known for keys in ranked.values() for key in keys):
        return None
    head_keys = {key for keys in ranked.values() for key in keys}
    if any(key in head_keys for keys in rankings.values() for key in keys):
        return None
    return f"the head's rankings ({len(ranked)} queries) name none of the keys the labels or the base's rankings name"


def _migration_blocker(head: Report) -> str | None:
    """Why the head's labels do not carry the base over soundly, or None when every one did."""
    drift = head.judgments.drift if head.judgments is not None else None
    if drift is None:
        return (
            "the head was scored without its corpus, so which labels survived the re-chunk is unknown "
            "(score the head with --corpus, the corpus its run ranks)"
        )
    unrepaired = (drift.re_anchorable or 0) + (drift.merged or 0)
    broken = (drift.split or 0) + (drift.orphaned or 0)
    if not unrepaired and not broken:
        return None
    named = _named(drift.stale or (), unrepaired + broken)
    parts = []
    if broken:
        parts.append(f"{broken} label(s) broke in the re-chunk (SPLIT or ORPHANED: a person must judge them again)")
    if unrepaired:
        repair = drift.repair_command
        how = f"'{repair}'" if repair else "'retrieval-eval drift --fix'"
        parts.append(f"{unrepaired} label(s) still name removed chunks (repair them with {how})")
    listing = drift.list_command
    lists = f"; list them with '{listing}'" if listing else ""
    return "; ".join(parts) + (f": {named}" if named else "") + lists


def _unmoved_blocker(sides: Sides) -> str | None:
    """Why base hits on old chunks re-judged on changed text cannot be carried, or None.

    Such a label's re-judged lines grade chunks of its document but name no place of the old text
    (see :func:`retrieval_eval.core.labelindex.unmoved_from`): carried into every relevant line,
    the base would be credited with chunks at ranks it never gave them; carried nowhere, it would
    lose a hit it had. Only where the base ranked such an old chunk does this matter."""
    labels, rankings = sides.judgments, sides.base.rankings or {}
    if labels is None or not labels.unmoved:
        return None
    found = sorted(
        (line, query_id)
        for query_id, olds in labels.unmoved.items()
        for old, line in olds.items()
        if old in rankings.get(query_id, ())
    )
    if not found:
        return None
    # One old chunk several queries ranked is one chunk; its labels are named one by one.
    chunks = len({old for q, olds in labels.unmoved.items() for old in olds if old in rankings.get(q, ())})
    named = ", ".join(f"{query_id} (line {line})" for line, query_id in found[:STALE_NAMED])
    rest = len(found) - STALE_NAMED
    more = f" and {rest} more label{'s' if rest != 1 else ''}" if rest > 0 else ""
    return (
        f"{chunks} base-ranked chunk(s) had labels re-judged on text that changed (ORPHANED: the queue "
        "offered chunks of the document, and no line says where the old text went), so the base's hits on "
        f"them cannot be carried into the head's ids: {named}{more}; score the base's retriever on the "
        "head's corpus for a comparison"
    )


def _reused_blocker(sides: Sides) -> str | None:
    """Why base hits on a team's own ids that no move accounts for cannot be carried, or None.

    Such an id (``doc#3``) names a slot, which a re-chunk may refill with other text: carried over,
    the translation counts it as an old id that matches no label (see :func:`translate`). Where the
    head's labels grade that very id relevant for the query, the base's rank of it may have been a
    hit on the same text (its document was not re-chunked) or on other text (it was): dropped, the
    base would lose a hit it had, and a worse head could pass; kept, it could be credited with text
    it never ranked. Nothing in the two reports tells which, so the deltas are not decided."""
    labels, rankings = sides.judgments, sides.base.rankings or {}
    if labels is None or not labels.opaque_keys:
        return None
    config = sides.head.config
    threshold = config.threshold if config is not None and config.threshold is not None else 1
    found: list[tuple[str, str]] = []
    for query_id, keys in rankings.items():
        query = labels.queries.get(query_id)
        if query is None:
            continue
        carries = labels.carries.get(query_id, {})
        # A label moved into the id: its text was elsewhere in the base, so the base's hit there
        # was not on it, and counting the id as an old one is sound.
        arrived = {carry.to for moves in carries.values() for carry in moves}
        found.extend(
            (query_id, key)
            for key in keys
            if key in labels.opaque_keys
            and key not in carries
            and key not in arrived
            and query.grades.get(key, 0) >= threshold
        )
    if not found:
        return None
    named = ", ".join(f"{query_id} ({key})" for query_id, key in found[:STALE_NAMED])
    rest = len(found) - STALE_NAMED
    more = f" and {rest} more (query, id) pair{'s' if rest != 1 else ''}" if rest > 0 else ""
    # Distinct ids: one slot every query ranks and labels is one chunk, named once per query.
    ids = len({key for _, key in found})
    return (
        f"{ids} base-ranked chunk id(s) of your own are labeled relevant by the head with no move recorded, "
        "and such an id names a slot a re-chunk may refill with other text, so whether the base's hit there was on "
        f"the labeled text is unknown: {named}{more}; score the base's retriever on the head's corpus for a comparison"
    )


def _named(stale: tuple[StaleLabel, ...], total: int) -> str:
    """The first labels of ``stale`` (the report keeps only its first few), and how many of the
    ``total`` that block the translation are left unnamed. Those that broke come first: no
    command repairs them, a person must judge them again."""
    said = [entry for entry in stale if entry != StaleLabel()]  # an entry that says nothing is not named
    said.sort(key=lambda entry: entry.status not in NEEDS_HUMAN)  # stable: file order within each kind
    shown = [f"{entry.query_id} (line {entry.line}, {entry.status})" for entry in said[:STALE_NAMED]]
    more = max(total, len(stale)) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def base_rankings(report: Report) -> dict[str, list[str]]:
    """The base report's stored rankings (none when it keeps none)."""
    return {q: list(keys) for q, keys in (report.rankings or {}).items()}


# Marks a base key that names an old chunk whose id a head chunk may reuse (see translate).
OLD_ID = "old-id:"


def translate(
    rankings: Mapping[str, list[str]], moved: Mapping[str, str], reused: Collection[str] = ()
) -> dict[str, list[str]]:
    """Each ranking in the head's ids: a moved id becomes the chunk its label moved to.

    Two old chunks merged into one new chunk meet again there: the first rank is
    kept, as a retriever that returned the merged chunk would have ranked it once.
    An id no label moved (text nobody labeled) stays as it was; it names no label.
    Except where ids name slots rather than text (a team's own ``doc#3``): a base key
    in ``reused`` (the head labels' own ids) that no move accounts for may name other
    text in the head, so it is marked as an old id that matches no label.
    """
    translated = {}
    for query_id, keys in rankings.items():
        carried = (moved[key] if key in moved else OLD_ID + key if key in reused else key for key in keys)
        translated[query_id] = list(dict.fromkeys(carried))
    return translated


@dataclass(frozen=True)
class Translation:
    """The base rankings in the head's ids, per query, and what scoring them needs beside."""

    rankings: dict[str, list[str]]
    # Old chunks kept as they were, judged not relevant, as their own labels had them: query -> keys.
    judged: dict[str, set[str]]
    shortened: int  # rankings that came out shorter: old chunks merged into one new chunk


def translate_per_query(
    rankings: Mapping[str, list[str]], labels: LabelIndex, threshold: int, reused: Collection[str] = ()
) -> Translation:
    """Each ranking in the head's ids, through the moves that query's own labels record.

    An old chunk is carried into a new one only where that is faithful to the labeled text: its
    own label's grade is the one the new chunk carries, or both are relevant. A chunk that moved
    into several (a paragraph split into windows, each judged again) is carried into all of them,
    at its rank, in file order. An old chunk whose move is not faithful (a grade-0 neighbour merged
    into a relevant chunk) counts as it did in the base: judged, at its old grade, never a hit.
    An old chunk this query never labeled stays unlabeled, whatever another query's labels say.
    """
    translated: dict[str, list[str]] = {}
    judged: dict[str, set[str]] = {}
    shortened = 0
    for query_id, keys in rankings.items():
        carry = _carrier(labels, query_id, threshold, reused)
        out: list[str] = []
        for key in keys:
            targets, faithful = carry(key)
            out.extend(targets)
            if not faithful:
                judged.setdefault(query_id, set()).update(targets)
        kept = list(dict.fromkeys(out))
        shortened += len(kept) < len(keys)
        translated[query_id] = kept
    return Translation(translated, judged, shortened)


def credited_hits(
    rankings: Mapping[str, Sequence[str]],
    labels: LabelIndex,
    threshold: int,
    ks: Sequence[int],
    reused: Collection[str] = (),
) -> dict[str, dict[int, int]]:
    """Per query and cutoff k: how many of the keys the base ranked in its top k the head's labels
    still call relevant, each old key carried through the moves as :func:`translate_per_query`
    carries it, but counted on its own. Two relevant chunks merged into one relevant chunk are
    two hits here, as they were in the base, where the translated ranking (which keeps the merged
    chunk once) has one: what a merge takes is no label taken (``labels-lowered``)."""
    credited: dict[str, dict[int, int]] = {}
    for query_id, keys in rankings.items():
        carry = _carrier(labels, query_id, threshold, reused)
        query = labels.queries.get(query_id)
        grades = query.grades if query is not None else {}
        hits = [
            faithful and any(grades.get(target, -1) >= threshold for target in targets)
            for targets, faithful in map(carry, keys[: max(ks, default=0)])
        ]
        credited[query_id] = {k: sum(hits[:k]) for k in ks}
    return credited


def credits(labels: LabelIndex, query_id: str, threshold: int) -> Callable[[str], bool]:
    """Whether the head's labels still call one of this query's base keys relevant, the key
    carried through the moves as :func:`credited_hits` carries it."""
    carry = _carrier(labels, query_id, threshold, ())
    query = labels.queries.get(query_id)
    grades = query.grades if query is not None else {}

    def credited(key: str) -> bool:
        targets, faithful = carry(key)
        return faithful and any(grades.get(target, -1) >= threshold for target in targets)

    return credited


def _carrier(
    labels: LabelIndex, query_id: str, threshold: int, reused: Collection[str]
) -> Callable[[str], tuple[list[str], bool]]:
    """One base key of this query in the head's ids: (the keys it becomes, whether its move is
    faithful). A key no move accounts for stays as it is (marked as an old id where the head's
    ids name slots); an unfaithful move leaves the old key, judged at its old grade, never a hit."""
    carries = labels.carries.get(query_id, {})
    query = labels.queries.get(query_id)
    grades = query.grades if query is not None else {}

    def carry(key: str) -> tuple[list[str], bool]:
        moves = carries.get(key)
        if not moves:
            return [OLD_ID + key if key in reused else key], True
        targets = [m.to for m in moves if _faithful(m.grade, grades.get(m.to), threshold)]
        return (targets, True) if targets else ([OLD_ID + key], False)

    return carry


def _faithful(old: int | None, new: int | None, threshold: int) -> bool:
    """Whether the new chunk's grade may stand for the old chunk's own: the same grade, or both
    relevant (the hit is the same; a graded metric credits the new chunk's grade). An old label
    that recorded no grade is taken at its word, as before grades were recorded."""
    if old is None or new is None:
        return old is None and new is not None
    return old == new or (old >= threshold and new >= threshold)


def with_judged(labels: LabelIndex, judged: Mapping[str, Collection[str]]) -> LabelIndex:
    """``labels`` and, for scoring the translated base only, its old chunks judged not relevant.

    They are added at grade 0 (an old grade below the threshold too): no query's relevant count
    or ideal ranking changes; bpref counts them as the judged non-relevant keys they were."""
    if not judged:
        return labels
    queries = dict(labels.queries)
    for query_id, keys in judged.items():
        query = queries.get(query_id)
        if query is not None:
            queries[query_id] = replace(query, grades={**query.grades, **{key: 0 for key in keys}})
    return replace(labels, queries=queries)
