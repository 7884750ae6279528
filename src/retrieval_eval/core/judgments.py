"""Judgments: the relevance labels a team keeps in its repository, and the rules a label obeys.

Reading a file of them is :mod:`retrieval_eval.formats.judgments`; the
canonical text of a set (for rewriting one) is built here.

A line may also mark a query that has no answer in the corpus
(``{"query_id": ..., "query": ..., "expect": "no_answer"}``, no ``doc_uri``,
no ``relevance``): a :class:`NoAnswer`. Such a query is measured on abstaining
(returning nothing), never on ranking.

A judgment keeps the whole object it was read from (``record``), so unknown
fields survive a rewrite; the typed attributes are the ones the engine reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError
from .identity import CHUNK_ID_RULE, is_chunk_key, is_text_sha

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
_OPTIONAL_STRINGS = (
    "query",
    "chunk_text",
    "corpus_fingerprint",
    "labeled_by",
    "labeled_at",
    "stratum",
    "notes",
    "quote",
)
# The labeled_by a label-queue line carries until someone labels it (core/unjudged.py writes it).
QUEUE_PLACEHOLDER = "todo:human:<your name>"
# (query_id, doc_uri, relevance, chunk_id) of a record that passed the schema's checks.
JudgmentFields = tuple[str, str, int, str | None]
# 2**g - 1 must stay a finite double for nDCG's exponential gain.
MAX_RELEVANCE = 1000
# The one expectation a line can state: the corpus holds no answer to the query.
NO_ANSWER = "no_answer"
# What makes a line a label; a no-answer line names none of them.
_LABEL_FIELDS = ("doc_uri", "chunk_id", "relevance")


@dataclass(frozen=True)
class Label:
    query_id: str
    doc_uri: str
    relevance: int
    chunk_id: str | None
    record: dict[str, Any]
    line: int

    @property
    def key(self) -> str:
        """What a run must name to retrieve this label: its chunk, else its document."""
        return self.chunk_id if self.chunk_id is not None else self.doc_uri

    @property
    def query(self) -> str | None:
        return self.record.get("query")

    @property
    def stratum(self) -> str | None:
        return self.record.get("stratum")

    def get(self, name: str) -> Any:
        return self.record.get(name)


@dataclass(frozen=True)
class NoAnswer:
    """A line saying the corpus holds no answer to ``query_id``."""

    query_id: str
    record: dict[str, Any]
    line: int

    @property
    def query(self) -> str | None:
        return self.record.get("query")


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


def _require_string(record: dict[str, Any], name: str, where: tuple[str, int, str | None]) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value:
        source, line, path = where
        missing = name not in record
        problem = f"missing required field {name}" if missing else f"{name} must be a non-empty string"
        raise InputError(source, line, problem, path=path)
    return value


def _check_relevance(value: Any, where: tuple[str, int, str | None]) -> int:
    source, line, path = where
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(source, line, "relevance must be a non-negative integer", path=path)
    if value > MAX_RELEVANCE:
        raise InputError(source, line, f"relevance must be at most {MAX_RELEVANCE}, got {value}", path=path)
    return value


def judgment_from_record(
    record: dict[str, Any], line: int, *, source: str = "judgments", path: str | None = None
) -> Label:
    """Check one object against the judgments schema and build a :class:`Label`."""
    query_id, doc_uri, relevance, chunk = check_judgment_record(record, line, source=source, path=path)
    return Label(query_id, doc_uri, relevance, chunk, record, line)


def check_judgment_record(
    record: dict[str, Any], line: int, *, source: str = "judgments", path: str | None = None
) -> JudgmentFields:
    """Check one object against the judgments schema: (query_id, doc_uri, relevance, chunk_id).

    A well-formed record whose only non-string value is its relevance (the
    common one) is accepted after a few checks made in C; any other goes
    through the checks one by one, which alone word the refusal (the first
    problem in schema order).
    """
    return common_judgment_fields(record) or _check_in_order(record, line, source, path)


def check_judgment_line(
    record: dict[str, Any], line: int, *, source: str = "judgments", path: str | None = None
) -> JudgmentFields | NoAnswer:
    """Check one object of a judgments file: a label, or a no-answer line (``"expect": "no_answer"``).

    Any other ``expect`` is an unknown field of a label, as it was before the field was known.
    """
    if record.get("expect") != NO_ANSWER:
        return check_judgment_record(record, line, source=source, path=path)
    query_id = _require_string(record, "query_id", (source, line, path))
    named = [name for name in _LABEL_FIELDS if name in record]
    if named:
        raise InputError(
            source,
            line,
            f"a no_answer line must not carry {', '.join(named)}: it says the corpus holds no answer "
            "(label chunks on lines of their own)",
            path=path,
        )
    for name in _OPTIONAL_STRINGS:
        if name in record and not isinstance(record[name], str):
            raise InputError(source, line, f"{name} must be a string", path=path)
    return NoAnswer(query_id, record, line)


def common_judgment_fields(record: Any) -> JudgmentFields | None:
    """(query_id, doc_uri, relevance, chunk_id) of a well-formed record whose only
    non-string value is its relevance, else None (the record needs the full checks).

    Any JSON reader that reads strings and 64-bit integers exactly may have
    produced ``record``: nothing else is accepted here.
    """
    if type(record) is not dict:
        return None
    get = record.get
    query_id = get("query_id")
    doc_uri = get("doc_uri")
    relevance = get("relevance")
    if not (
        type(query_id) is str
        and query_id
        and type(doc_uri) is str
        and doc_uri
        and type(relevance) is int
        and 0 <= relevance <= MAX_RELEVANCE
        and [*map(type, record.values())].count(str) == len(record) - 1
        and "expect" not in record  # a no-answer line, or a label that states one: the full checks decide
    ):
        return None
    chunk = get("chunk_id")
    sha = get("text_sha")
    if (chunk is None or is_chunk_key(chunk)) and (sha is None or is_text_sha(sha)):
        return query_id, doc_uri, relevance, chunk
    return None


def _queue_named(record: dict[str, Any]) -> str:
    """Which queue an unfilled line came from: drift's re-judge queue carries a ``rejudge``
    object (core/rejudge.py), holes' label queue does not."""
    if isinstance(record.get("rejudge"), dict):
        return "a re-judge queue line ('retrieval-eval drift --queue')"
    return "a label-queue line ('retrieval-eval holes')"


def _check_in_order(record: dict[str, Any], line: int, source: str, path: str | None) -> JudgmentFields:
    where = (source, line, path)
    query_id = _require_string(record, "query_id", where)
    doc_uri = _require_string(record, "doc_uri", where)
    if "relevance" not in record:
        if record.get("labeled_by") == QUEUE_PLACEHOLDER:
            raise InputError(
                source,
                line,
                f"missing required field relevance: this is {_queue_named(record)} appended before it was labeled",
                path=path,
                hint="set relevance (0 = not relevant, the threshold grade or more = relevant) and "
                "labeled_by (e.g. human:your-name) on the line, or remove it",
            )
        raise InputError(source, line, "missing required field relevance", path=path)
    relevance = _check_relevance(record["relevance"], where)
    chunk = record.get("chunk_id")
    if chunk is not None and not (isinstance(chunk, str) and is_chunk_key(chunk)):
        raise InputError(source, line, CHUNK_ID_RULE, path=path)
    sha = record.get("text_sha")
    if sha is not None and not (isinstance(sha, str) and is_text_sha(sha)):
        raise InputError(source, line, "text_sha must look like t1:<32 hex digits>", path=path)
    for name in _OPTIONAL_STRINGS:
        if name in record and not isinstance(record[name], str):
            raise InputError(source, line, f"{name} must be a string", path=path)
    return query_id, doc_uri, relevance, chunk


def no_judgment_error(source: str, path: str | None) -> InputError:
    return InputError(
        source, None, "the file holds no judgment", path=path, hint="a judgments file has one JSON object per line"
    )


def canonical_record(record: dict[str, Any]) -> dict[str, Any]:
    """Known fields in schema order, then unknown fields in their original order."""
    ordered = {name: record[name] for name in SCHEMA_ORDER if name in record}
    ordered.update((name, value) for name, value in record.items() if name not in ordered)
    return ordered


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


def canonical_line(record: dict[str, Any]) -> str:
    ordered = canonical_record(record)
    if not holds(ordered, ExactNumber):
        return json.dumps(ordered, ensure_ascii=False, separators=(",", ":"))
    return _dump_exact(ordered)


def holds(value: Any, kind: type) -> bool:
    """Whether ``value`` (a JSON value) holds a ``kind`` anywhere inside it."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, kind):
            return True
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _dump_exact(value: Any) -> str:
    """Compact JSON, as json.dumps writes it, with every ExactNumber's own text."""
    if isinstance(value, ExactNumber):
        return value.text
    if isinstance(value, dict):
        items = (json.dumps(key, ensure_ascii=False) + ":" + _dump_exact(item) for key, item in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dump_exact(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def iter_canonical_lines(judgments: JudgmentSet) -> Iterator[str]:
    for index, label in enumerate(judgments.labels):
        yield from judgments.comments.get(index, ())
        yield canonical_line(label.record)
    yield from judgments.comments.get(len(judgments.labels), ())


def write_judgments(judgments: JudgmentSet) -> str:
    """The canonical text of a judgments file: one compact object per line, final newline."""
    return "".join(line + "\n" for line in iter_canonical_lines(judgments))
