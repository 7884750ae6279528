"""Judgments: the relevance labels a team keeps in its repository, and the rules a label obeys.

Reading a file of them is :mod:`retrieval_eval.formats.judgments`; the
canonical text of a set (for rewriting one) is built here.

A line may also mark a query that has no answer in the corpus
(``{"query_id": ..., "query": ..., "expect": "no_answer"}``, no ``doc_uri``,
no ``relevance``): a :class:`NoAnswer`. Such a query is measured on abstaining
(returning nothing), never on ranking.

A judgment keeps the whole object it was read from (``record``, JSON arrays as tuples), so
unknown fields survive a rewrite; the typed attributes are the ones the engine reads. Checking
a line against the schema and writing the canonical line are the formats' business
(formats/judgment_records.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .report_model import Json

# The schema's property order: the canonical writer emits known fields in it.
SCHEMA_ORDER = (
    "query_id",
    "query",
    "expect",
    "doc_uri",
    "chunk_id",
    "text_sha",
    "chunk_text",
    "relevance",
    "corpus_fingerprint",
    "labeled_by",
    "labeled_at",
    "stratum",
    "notes",
)
# The labeled_by a label-queue line carries until someone labels it (core/unjudged.py writes it).
QUEUE_PLACEHOLDER = "todo:human:<your name>"
# (query_id, doc_uri, relevance, chunk_id) of a record that passed the schema's checks.
JudgmentFields = tuple[str, str, int, str | None]
# 2**g - 1 must stay a finite double for nDCG's exponential gain.
MAX_RELEVANCE = 1000
# The one expectation a line can state: the corpus holds no answer to the query.
NO_ANSWER = "no_answer"


@dataclass(frozen=True)
class Label:
    query_id: str
    doc_uri: str
    relevance: int
    chunk_id: str | None
    record: Mapping[str, Json]  # the whole line as read, unknown fields included
    line: int

    @property
    def key(self) -> str:
        """What a run must name to retrieve this label: its chunk, else its document."""
        return self.chunk_id if self.chunk_id is not None else self.doc_uri

    @property
    def query(self) -> str | None:
        return text_field(self.record, "query")

    @property
    def stratum(self) -> str | None:
        return text_field(self.record, "stratum")

    def get(self, name: str) -> Json:
        return self.record.get(name)


@dataclass(frozen=True)
class NoAnswer:
    """A line saying the corpus holds no answer to ``query_id``."""

    query_id: str
    record: Mapping[str, Json]
    line: int

    @property
    def query(self) -> str | None:
        return text_field(self.record, "query")


@dataclass(frozen=True)
class JudgmentSet:
    """Labels in file order, with the other lines remembered by position.

    ``comments`` maps the number of labels that precede a line that is not a
    label (a ``//`` comment, or a no-answer line in canonical form) to those
    lines at that point, so a rewrite puts each back where it was;
    ``no_answer`` holds the no-answer lines as read.
    """

    labels: tuple[Label, ...]
    comments: dict[int, tuple[str, ...]] = field(default_factory=dict)
    no_answer: tuple[NoAnswer, ...] = ()

    def by_query(self) -> dict[str, list[Label]]:
        grouped: dict[str, list[Label]] = {}
        for label in self.labels:
            grouped.setdefault(label.query_id, []).append(label)
        return grouped

    def query_ids(self) -> list[str]:
        return sorted({label.query_id for label in self.labels})


class ExactNumber(float):
    """A number in a field we do not interpret, kept as it was written.

    A rewrite (``drift --fix``, ``convert``) must give back what it did not read: ``1e400``
    is no float (it would come back as ``Infinity``, which no JSON reader takes) and
    ``1e-400`` would come back as ``0.0``. The value compares as the float it is; the text
    is what is written.
    """

    text: str

    def __new__(cls, text: str) -> ExactNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number


def text_field(record: Mapping[str, Json], name: str) -> str | None:
    """A field the schema holds to be a string, or None when the line has none."""
    value = record.get(name)
    return value if isinstance(value, str) else None
