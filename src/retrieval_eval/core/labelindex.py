"""A judgment set reduced to what scoring, validation and the report read.

Keeping every judgment's whole record costs about a kilobyte per label, so a
set of a million labels would need a gigabyte before the run is even opened.
The score path reads the judgments file once into this index instead
(``formats.judgments.read_label_index``). Per
query it keeps each key labeled once, with its highest grade (grade 0 too:
a key labeled not relevant is judged, which judged@k, bpref and the bounds
on unjudged keys tell apart from a key never labeled);
the lines of any key labeled twice (which makes the set unsound); the
distinct query texts and strata; and the lines whose provenance is unknown.
For the whole set it keeps the counts the report prints. Validation and scoring read
the index only, so a file streamed here and a parsed :class:`JudgmentSet`
give the same issues and the same numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field

from .field_names import KNOWN_FIELDS, FieldSlips
from .identity import normalize
from .judgments import JudgmentFields, JudgmentSet, Label, NoAnswer
from .report_model import Json

# A labeled_by value that starts otherwise is reported, and counted as neither.
HUMAN = "human:"
SYNTHETIC = "synthetic:"


QRELS_ITERATION = "qrels_iteration"


@dataclass(eq=False, slots=True)
class QueryIndex:
    """One query's labels.

    ``grades`` maps each labeled key to its highest grade, grade 0 included.
    Texts and strata are the distinct non-empty values, first
    seen first. ``repeats`` names every line of each key labeled more than
    once; they are gathered in a second pass, which only an unsound set needs.
    """

    grades: dict[str, int] = field(default_factory=dict)
    labels: int = 0
    texts: tuple[str, ...] = ()
    strata: tuple[str, ...] = ()
    repeats: dict[str, list[int]] | None = None
    # Distinct values of qrels_iteration, which `convert` keeps from a TREC qrels file whose
    # iteration column holds more than one value (subtopics, judgment groups).
    iterations: tuple[str, ...] = ()
    unknown_provenance: list[int] | None = None  # lines whose labeled_by names no known source
    no_answer: bool = False  # a line says the corpus holds no answer to this query

    def add(self, key: str, relevance: int, record: Mapping[str, Json]) -> bool:
        """Count one label; True when its key was labeled before."""
        self.labels += 1
        self.describe(record)
        iteration = record.get(QRELS_ITERATION)
        if iteration is not None and str(iteration) not in self.iterations:
            self.iterations += (str(iteration),)
        previous = self.grades.get(key)
        if previous is None:
            self.grades[key] = relevance
            return False
        if relevance > previous:
            self.grades[key] = relevance
        return True

    def describe(self, record: Mapping[str, Json]) -> None:
        """Keep the query text and stratum a line gives, when new."""
        text = record.get("query")
        if type(text) is str and text and text not in self.texts:
            self.texts += (text,)
        stratum = record.get("stratum")
        if type(stratum) is str and stratum and stratum not in self.strata:
            self.strata += (stratum,)

    @property
    def stratum(self) -> str | None:
        """The query's stratum: the first one its labels name."""
        return self.strata[0] if self.strata else None

    @property
    def text(self) -> str | None:
        return self.texts[0] if self.texts else None


@dataclass(eq=False)
class LabelIndex:
    """Every query's :class:`QueryIndex`, in order of first appearance, and set-wide counts."""

    queries: dict[str, QueryIndex] = field(default_factory=dict)
    labels: int = 0
    human_labels: int = 0
    synthetic_labels: int = 0
    fingerprints: set[str | None] = field(default_factory=set)  # None stands for a label without one
    chunk_ids: bool = False  # whether any label names a chunk
    # Chunk ids of the team's own (not c1): nothing else tells them from a document uri.
    opaque_keys: set[str] = field(default_factory=set)
    sha256: str | None = None  # of the file, when the index was read from one

    repeated: set[tuple[str, str]] = field(default_factory=set)  # (query, key) labeled more than once
    # Old chunk id -> the chunk id a repair moved its label to (``reanchored.from``, and the
    # labels ``collapsed_from`` names): the migration between two chunkings, as the labels record it.
    moved: dict[str, str] = field(default_factory=dict)
    # The same moves per query, each with the grade the old chunk's own label had there (None:
    # not recorded): an old chunk is carried into a new one only where that keeps its relevance.
    carries: dict[str, dict[str, list[Carry]]] = field(default_factory=dict)
    # Relevant re-judged lines of labels whose text changed (ORPHANED, the queue offered chunks of
    # the document): they grade a new chunk but say nothing of where the old text went, so they
    # record no move. Per query: old chunk id -> the first such line.
    unmoved: dict[str, dict[str, int]] = field(default_factory=dict)
    # (query, old chunk) already carried into one copy of its very text: an ORPHANED label whose
    # exact text is now in several places is carried into the first relevant one only.
    copied: set[tuple[str, str]] = field(default_factory=set)
    # (query, key) -> (rejudge.from, grade) of each filled re-judge line there: the queue offers a
    # chunk once for every broken label whose text it holds, so such lines repeat a key on purpose.
    rejudged: dict[tuple[str, str], list[tuple[str, int]]] = field(default_factory=dict)
    # Per query: old chunk id -> (the chunk a repaired line of it labels now, the grade the old
    # label had, None where the line records none), from every move and every re-judged line.
    # What a removal of documents took is told from labels whose text is still there by these.
    repairs: dict[str, dict[str, list[tuple[str, int | None]]]] = field(default_factory=dict)
    # Unknown field names standing for a known one they look like a slip of (core/field_names.py).
    slips: FieldSlips = field(default_factory=FieldSlips)

    def forget_returned(self, live: Container[str]) -> None:
        """Forget the moves out of c1 chunks ``live`` holds (the corpus the labels are scored with).

        A c1 id is content-addressed: a chunk a trail records as left that the corpus holds again
        left and came back (a page put back as it was). It is a live chunk today, graded by the
        labels that name it or by none; carried into the chunk its label moved to, a base's hit
        on it counted where a head's, on the very same key, did not."""

        def left(key: str) -> bool:
            return not (key.startswith("c1:") and key in live)

        self.moved = {old: new for old, new in self.moved.items() if left(old)}
        carries = ((q, {old: to for old, to in olds.items() if left(old)}) for q, olds in self.carries.items())
        self.carries = {q: olds for q, olds in carries if olds}
        unmoved = ((q, {old: line for old, line in olds.items() if left(old)}) for q, olds in self.unmoved.items())
        self.unmoved = {q: olds for q, olds in unmoved if olds}
        self.copied = {(q, old) for q, old in self.copied if left(old)}

    def add(self, fields: JudgmentFields, record: Mapping[str, Json], line: int) -> None:
        """Count one checked label: its fields, the record they came from, its line.

        This runs once per line of the file, so :meth:`QueryIndex.add` and
        :meth:`QueryIndex.describe` are written out here rather than called
        (two calls a line were a tenth of reading the judgments); the two must agree.
        """
        query_id, doc_uri, relevance, chunk_id = fields
        key = chunk_id if chunk_id is not None else doc_uri
        if not KNOWN_FIELDS.issuperset(record):  # one set test a line: most lines hold known fields only
            self.slips.note(record, line)
        query = self.queries.get(query_id)
        if query is None:
            query = self.queries[query_id] = QueryIndex()
        query.labels += 1
        get = record.get
        # The schema holds these to be strings when present (formats/judgment_records.py).
        text = get("query")
        if type(text) is str and text and text not in query.texts:
            query.texts += (text,)
        stratum = get("stratum")
        if type(stratum) is str and stratum and stratum not in query.strata:
            query.strata += (stratum,)
        iteration = get(QRELS_ITERATION)
        if iteration is not None and str(iteration) not in query.iterations:
            query.iterations += (str(iteration),)
        grades = query.grades
        previous = grades.get(key)
        if previous is None:
            grades[key] = relevance
        else:
            if relevance > previous:
                grades[key] = relevance
            self.repeated.add((query_id, key))
        self.labels += 1
        fingerprint = get("corpus_fingerprint")
        self.fingerprints.add(fingerprint if type(fingerprint) is str else None)
        if chunk_id:
            self.chunk_ids = True
            if not chunk_id.startswith("c1:"):
                self.opaque_keys.add(chunk_id)
            self._record_migration(chunk_id, record)
            self._record_carries(query_id, chunk_id, record)
            for trail in (record, *absorbed_records(record)):
                stranded = unmoved_from(trail)
                if stranded is not None:
                    self.unmoved.setdefault(query_id, {}).setdefault(stranded, line)
            rejudge = get("rejudge")
            before = _from(rejudge)
            if before is not None:
                self.rejudged.setdefault((query_id, key), []).append((before, relevance))
                was = _grade(rejudge.get("relevance")) if isinstance(rejudge, dict) else None
                self.repairs.setdefault(query_id, {}).setdefault(before, []).append((chunk_id, was))
        provenance = get("labeled_by")
        if type(provenance) is str:
            if provenance.startswith(HUMAN):  # most labels: counted without a call
                self.human_labels += 1
            else:
                self._count_provenance(query, provenance, line)

    def _record_migration(self, chunk_id: str, record: Mapping[str, Json]) -> None:
        for old in migrated_from(record):
            # A c1 id names its text, so the same id is no move; a team's own id names a slot,
            # which a re-chunk may fill with other text: the repair says the labeled text is here.
            if old != chunk_id or not chunk_id.startswith("c1:"):
                self.moved.setdefault(old, chunk_id)

    def _record_carries(self, query_id: str, chunk_id: str, record: Mapping[str, Json]) -> None:
        copies = {copied_from(trail) for trail in (record, *absorbed_records(record))}
        for old, grade in migrations(record):
            self.repairs.setdefault(query_id, {}).setdefault(old, []).append((chunk_id, grade))
            if old != chunk_id or not chunk_id.startswith("c1:"):
                if old in copies:
                    # Each copy is the whole old text, not a piece of it: carried into every copy,
                    # the base would be credited with copies at ranks it never gave them.
                    if (query_id, old) in self.copied:
                        continue
                    self.copied.add((query_id, old))
                targets = self.carries.setdefault(query_id, {}).setdefault(old, [])
                if all(carry.to != chunk_id for carry in targets):
                    targets.append(Carry(chunk_id, grade))

    def add_no_answer(self, marker: NoAnswer) -> None:
        """A no-answer line: the query is measured on abstaining; it is no label, so counts none."""
        if not KNOWN_FIELDS.issuperset(marker.record):
            self.slips.note(marker.record, marker.line)
        query = self.queries.get(marker.query_id)
        if query is None:
            query = self.queries[marker.query_id] = QueryIndex()
        query.no_answer = True
        query.describe(marker.record)

    def _count_provenance(self, query: QueryIndex, provenance: str, line: int) -> None:
        if provenance.startswith(HUMAN):
            self.human_labels += 1
        elif provenance.startswith(SYNTHETIC):
            self.synthetic_labels += 1
        else:
            if query.unknown_provenance is None:
                query.unknown_provenance = []
            query.unknown_provenance.append(line)

    def finish(self, keys_by_line: Callable[[], Iterable[tuple[int, str, str]]]) -> None:
        """Gather the lines of repeated keys (``keys_by_line`` reads the labels again,
        as (line, query, key), only when there are any)."""
        if self.repeated:
            for line, query_id, key in keys_by_line():
                if (query_id, key) in self.repeated:
                    query = self.queries[query_id]
                    if query.repeats is None:
                        query.repeats = {}
                    query.repeats.setdefault(key, []).append(line)

    @classmethod
    def from_judgments(cls, judgments: JudgmentSet) -> LabelIndex:
        index = cls()
        labels = judgments.labels
        lines: list[Label | NoAnswer] = list(labels)
        if judgments.no_answer:  # in file order, so texts and strata come first-seen first, as when streaming
            lines = sorted([*labels, *judgments.no_answer], key=lambda item: item.line)
        for item in lines:
            if isinstance(item, NoAnswer):
                index.add_no_answer(item)
            else:
                index.add((item.query_id, item.doc_uri, item.relevance, item.chunk_id), item.record, item.line)
        index.finish(lambda: ((label.line, label.query_id, label.key) for label in labels))
        return index

    def query_set_sha256(self) -> str:
        """SHA-256 of the distinct judged query ids, sorted, one per line (no final newline).

        It names the set of queries, so it moves when a query is added or removed and
        stays put when labels are added to a query already there.
        """
        return hashlib.sha256("\n".join(sorted(self.queries)).encode("utf-8")).hexdigest()


def migrated_from(record: Mapping[str, Json]) -> list[str]:
    """The chunk ids a repaired label (and the labels it absorbed) pointed at before the repair,
    and the one a relevant re-judged line stands in for (``rejudge.from``)."""
    olds: list[str] = []
    trail = _from(record.get("reanchored"))
    if trail is not None:
        olds.append(trail)
    before = _from(record.get("rejudge"))
    relevance = record.get("relevance")
    if before is not None and isinstance(relevance, int) and relevance > 0 and unmoved_from(record) is None:
        olds.append(before)
    for other in absorbed_records(record):
        chunk_id = other.get("chunk_id")
        if isinstance(chunk_id, str):
            olds.append(chunk_id)
        olds.extend(migrated_from(other))  # its own trail: a re-judged line folded here names its old chunk
    return olds


def absorbed_records(record: Mapping[str, Json]) -> list[Mapping[str, Json]]:
    """The whole records of the labels ``drift --fix`` folded into this one (``collapsed_from``):
    two re-judged lines of one query on one chunk, each standing in for another old chunk, fold
    into one, and each keeps the move it records."""
    absorbed = record.get("collapsed_from")
    return [other for other in absorbed if isinstance(other, dict)] if isinstance(absorbed, (list, tuple)) else []


def unmoved_from(record: Mapping[str, Json]) -> str | None:
    """The old chunk id a relevant re-judged line names without saying where its text went, or None.

    A ``SPLIT`` label's queue offers the chunks its text now spans, and an ``ORPHANED`` one whose
    exact text lies in other documents offers those places: a relevant line there is where the
    old text went. An ``ORPHANED`` label whose text changed or whose document is gone is offered
    chunks of its document: a relevant line grades that chunk, and names no place of the old text
    (the old text is in none of them)."""
    found = _orphaned_rejudge(record)
    return found[0] if found is not None and not found[1] else None


def copied_from(record: Mapping[str, Json]) -> str | None:
    """The old chunk id a relevant re-judged line of an ``ORPHANED`` label holds the very text of
    (the text is now in several places, each offered), or None."""
    found = _orphaned_rejudge(record)
    return found[0] if found is not None and found[1] else None


def _orphaned_rejudge(record: Mapping[str, Json]) -> tuple[str, bool] | None:
    """(old chunk id, whether the line holds the old text itself) for a relevant re-judged line of
    an ``ORPHANED`` label; None for any other line."""
    before = record.get("rejudge")
    relevance = record.get("relevance")
    if not isinstance(before, dict) or not isinstance(relevance, int) or relevance <= 0:
        return None
    old = _from(before)
    if old is None or before.get("status") != "ORPHANED":
        return None
    was, now = before.get("chunk_text"), record.get("chunk_text")
    return old, isinstance(was, str) and isinstance(now, str) and normalize(was) == normalize(now)


def _from(trail: Json) -> str | None:
    """The ``from`` of a repair's trail (``reanchored``, ``rejudge``), when it names one."""
    if isinstance(trail, dict):
        old = trail.get("from")
        if isinstance(old, str):
            return old
    return None


@dataclass(frozen=True)
class Carry:
    """One move of an old chunk for one query: the new chunk, and the old label's own grade."""

    to: str
    grade: int | None


def migrations(record: Mapping[str, Json]) -> list[tuple[str, int | None]]:
    """What ``migrated_from`` names, each with the grade the old chunk's own label had: a
    re-anchored label kept its grade, an absorbed label says its own, a re-judged line the
    grade its ``rejudge`` trail records."""
    relevance = _grade(record.get("relevance"))
    found: list[tuple[str, int | None]] = []
    trail = _from(record.get("reanchored"))
    if trail is not None:
        found.append((trail, relevance))
    before = record.get("rejudge")
    old = _from(before)
    if (
        old is not None
        and isinstance(before, dict)
        and relevance is not None
        and relevance > 0
        and unmoved_from(record) is None
    ):
        found.append((old, _grade(before.get("relevance"))))
    for other in absorbed_records(record):
        chunk_id = other.get("chunk_id")
        if isinstance(chunk_id, str):
            found.append((chunk_id, _grade(other.get("relevance"))))
        found.extend(migrations(other))
    return found


def _grade(value: Json) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_label_index(judgments: JudgmentSet | LabelIndex) -> LabelIndex:
    return judgments if isinstance(judgments, LabelIndex) else LabelIndex.from_judgments(judgments)
