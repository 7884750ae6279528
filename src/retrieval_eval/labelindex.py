"""A judgment set reduced to what scoring, validation and the report read.

Keeping every judgment's whole record costs about a kilobyte per label, so a
set of a million labels would need a gigabyte before the run is even opened.
The score path reads the judgments file once into this index instead. Per
query it keeps each judged key once with its highest grade, the line of its
first label (and the lines of any repeat, which makes the set unsound), the
distinct query texts and strata, and the lines whose provenance is unknown;
for the whole set, the counts the report prints. Validation and scoring read
the index only, so a file streamed here and a parsed :class:`JudgmentSet`
give the same issues and the same numbers.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .fileio import open_binary
from .jsonl import decode_line, expect_object, iter_lines
from .judgments import JudgmentSet, check_judgment_record, common_judgment_fields, no_judgment_error

# A labeled_by value that starts otherwise is reported, and counted as neither.
HUMAN = "human:"
SYNTHETIC = "synthetic:"


def _line_array() -> array[int]:
    return array("L")


@dataclass(eq=False, slots=True)
class QueryIndex:
    """One query's labels.

    ``grades`` maps each judged key to its highest grade, in the order keys
    were first labeled; ``lines`` runs along that order with the line of each
    key's first label. Texts and strata are the distinct non-empty values,
    first seen first.
    """

    grades: dict[str, int] = field(default_factory=dict)
    lines: array[int] = field(default_factory=_line_array)
    labels: int = 0
    texts: tuple[str, ...] = ()
    strata: tuple[str, ...] = ()
    repeats: dict[str, list[int]] | None = None  # key -> every line labeling it, when more than one
    unknown_provenance: list[int] | None = None  # lines whose labeled_by names no known source

    def add(self, key: str, relevance: int, line: int, record: dict[str, Any]) -> None:
        self.labels += 1
        previous = self.grades.get(key)
        if previous is None:
            self.grades[key] = relevance
            self.lines.append(line)
        else:
            self._repeat(key, max(previous, relevance), line)
        text = record.get("query")
        if text and text not in self.texts:
            self.texts += (text,)
        stratum = record.get("stratum")
        if stratum and stratum not in self.strata:
            self.strata += (stratum,)

    def _repeat(self, key: str, grade: int, line: int) -> None:
        # Repeats are rare (they make the set unsound), so finding the first
        # line by the key's position costs nothing in the common case.
        self.grades[key] = grade
        if self.repeats is None:
            self.repeats = {}
        lines = self.repeats.get(key)
        if lines is None:
            lines = self.repeats[key] = [self.lines[list(self.grades).index(key)]]
        lines.append(line)

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
    sha256: str | None = None  # of the file, when the index was read from one

    def add(self, query_id: str, key: str, relevance: int, chunk_id: str | None,
            record: dict[str, Any], line: int) -> None:
        query = self.queries.get(query_id)
        if query is None:
            query = self.queries[query_id] = QueryIndex()
        query.add(key, relevance, line, record)
        self.labels += 1
        if chunk_id:
            self.chunk_ids = True
        self.fingerprints.add(record.get("corpus_fingerprint"))
        provenance = record.get("labeled_by")
        if provenance is not None:
            self._count_provenance(query, provenance, line)

    def _count_provenance(self, query: QueryIndex, provenance: str, line: int) -> None:
        if provenance.startswith(HUMAN):
            self.human_labels += 1
        elif provenance.startswith(SYNTHETIC):
            self.synthetic_labels += 1
        else:
            if query.unknown_provenance is None:
                query.unknown_provenance = []
            query.unknown_provenance.append(line)

    @classmethod
    def from_judgments(cls, judgments: JudgmentSet) -> LabelIndex:
        index = cls()
        for label in judgments.labels:
            index.add(label.query_id, label.key, label.relevance, label.chunk_id, label.record, label.line)
        return index

    def query_ids_per_label(self) -> Iterator[str]:
        """Each label's query id, sorted: what the report's query-set hash is computed over."""
        for query_id in sorted(self.queries):
            for _ in range(self.queries[query_id].labels):
                yield query_id


def as_label_index(judgments: JudgmentSet | LabelIndex) -> LabelIndex:
    return judgments if isinstance(judgments, LabelIndex) else LabelIndex.from_judgments(judgments)


def read_label_index(path: str, *, source: str = "judgments") -> LabelIndex:
    """Stream a judgments file into an index, checking every line as ``parse_judgments`` does.

    Refusals are word for word those of ``parse_judgments``; the file's
    SHA-256 is taken on the way, so it is read once.
    """
    index = LabelIndex()
    digest = hashlib.sha256()
    with open_binary(path) as handle:
        for line, raw in iter_lines(handle, digest):
            if raw.startswith(b"//"):
                continue  # comments are allowed in judgments files
            # Read first on the fast path with numbers unchecked: a record of strings and
            # one in-range integer reads the same whatever the parser. Anything else is
            # read again exactly and checked field by field, for the exact refusal.
            record = decode_line(raw, source, line, path, numbers_matter=False)
            fields = common_judgment_fields(record)
            if fields is None:
                record = expect_object(decode_line(raw, source, line, path), source, line, path)
                fields = check_judgment_record(record, line, source=source, path=path)
            query_id, doc_uri, relevance, chunk_id = fields
            key = chunk_id if chunk_id is not None else doc_uri
            index.add(query_id, key, relevance, chunk_id, record, line)
    if not index.labels:
        raise no_judgment_error(source, path)
    index.sha256 = digest.hexdigest()
    return index
