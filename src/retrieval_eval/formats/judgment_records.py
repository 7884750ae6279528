"""A judgments line as JSON: checked against the schema into a :class:`Label` (or a
:class:`NoAnswer`), and written back as its canonical line.

The checks read a decoded JSON object, whatever it holds; the label keeps the whole object
(JSON arrays as tuples, as :data:`~retrieval_eval.core.report_model.Json` has them), so a
rewrite gives back every field it did not read, in the canonical order: known fields in the
schema's order, then the others as they were.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..core.errors import InputError
from ..core.field_names import misspelling_of
from ..core.identity import CHUNK_ID_RULE, is_chunk_key, is_text_sha
from ..core.judgments import (
    MAX_RELEVANCE,
    NO_ANSWER,
    QUEUE_PLACEHOLDER,
    SCHEMA_ORDER,
    ExactNumber,
    JudgmentFields,
    JudgmentSet,
    Label,
    NoAnswer,
)
from ..core.report_model import Json

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
# What makes a line a label; a no-answer line names none of them.
_LABEL_FIELDS = ("doc_uri", "chunk_id", "relevance")


def _require_string(record: Mapping[str, Any], name: str, where: tuple[str, int, str | None]) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value:
        source, line, path = where
        missing = name not in record
        problem = (
            f"missing required field {name}{_slip_for(record, name)}"
            if missing
            else f"{name} must be a non-empty string"
        )
        raise InputError(source, line, problem, path=path)
    return value


def _slip_for(record: Mapping[str, Any], name: str) -> str:
    """ ", not relevence" when the line carries a slip of the field it lacks (core/field_names.py)."""
    slips = [key for key in record if misspelling_of(key) == name]
    if slips:
        return f" (the line has {', '.join(map(repr, slips))}: a slip of {name}?)"
    # A no-answer line whose "expect" is misspelled is read as a label, and lacks doc_uri first.
    marks = [key for key, value in record.items() if value == NO_ANSWER and misspelling_of(key) == "expect"]
    if marks:
        return f" (the line has {marks[0]!r}: a slip of expect, which marks a no-answer line?)"
    # So is one whose "expect" value is not the one a no-answer line takes ("no-answer", "none").
    expect = record.get("expect")
    if expect is not None and expect != NO_ANSWER:
        return f' (its expect is {expect!r}: a no-answer line says "expect": "{NO_ANSWER}")'
    return ""


def _check_relevance(value: Any, where: tuple[str, int, str | None]) -> int:
    source, line, path = where
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InputError(source, line, "relevance must be a non-negative integer", path=path)
    if value > MAX_RELEVANCE:
        raise InputError(source, line, f"relevance must be at most {MAX_RELEVANCE}, got {value}", path=path)
    return value


def judgment_from_record(
    record: Mapping[str, Any], line: int, *, source: str = "judgments", path: str | None = None
) -> Label:
    """Check one object against the judgments schema and build a :class:`Label`."""
    query_id, doc_uri, relevance, chunk = check_judgment_record(record, line, source=source, path=path)
    return Label(query_id, doc_uri, relevance, chunk, frozen_record(record), line)


def frozen_record(record: Mapping[str, Any]) -> Mapping[str, Json]:
    """A decoded line as a label keeps it: its arrays as tuples (the record itself when it holds none)."""
    if not holds(record, list):
        return record
    return {key: _frozen(value) for key, value in record.items()}


def _frozen(value: Any) -> Json:
    if isinstance(value, dict):
        return {key: _frozen(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(item) for item in value)
    result: Json = value
    return result


def check_judgment_record(
    record: Mapping[str, Any], line: int, *, source: str = "judgments", path: str | None = None
) -> JudgmentFields:
    """Check one object against the judgments schema: (query_id, doc_uri, relevance, chunk_id).

    A well-formed record whose only non-string value is its relevance (the
    common one) is accepted after a few checks made in C; any other goes
    through the checks one by one, which alone word the refusal (the first
    problem in schema order).
    """
    return common_judgment_fields(record) or _check_in_order(record, line, source, path)


def check_judgment_line(
    record: Mapping[str, Any], line: int, *, source: str = "judgments", path: str | None = None
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
    return NoAnswer(query_id, frozen_record(record), line)


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


def _queue_named(record: Mapping[str, Any]) -> str:
    """Which queue an unfilled line came from: drift's re-judge queue carries a ``rejudge``
    object (core/rejudge.py), holes' label queue does not."""
    if isinstance(record.get("rejudge"), dict):
        return "a re-judge queue line ('retrieval-eval drift --queue')"
    return "a label-queue line ('retrieval-eval holes')"


def _check_in_order(record: Mapping[str, Any], line: int, source: str, path: str | None) -> JudgmentFields:
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
                hint=f"{f'in {path}, ' if path else ''}set relevance (0 = not relevant, the threshold grade or more "
                "= relevant) and labeled_by (e.g. human:your-name) on the line, or remove it",
            )
        raise InputError(source, line, f"missing required field relevance{_slip_for(record, 'relevance')}", path=path)
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
    where = f"check {path}: " if path else ""
    return InputError(
        source,
        None,
        "the file holds no judgment",
        path=path,
        hint=f"{where}a judgments file has one JSON object per line",
    )


def canonical_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """Known fields in schema order, then unknown fields in their original order."""
    ordered = {name: record[name] for name in SCHEMA_ORDER if name in record}
    ordered.update((name, value) for name, value in record.items() if name not in ordered)
    return ordered


def canonical_line(record: Mapping[str, Any]) -> str:
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
        if isinstance(item, dict):  # a decoded or frozen record's objects are dicts
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return False


def _dump_exact(value: Any) -> str:
    """Compact JSON, as json.dumps writes it, with every ExactNumber's own text."""
    if isinstance(value, ExactNumber):
        return value.text
    if isinstance(value, dict):
        items = (json.dumps(key, ensure_ascii=False) + ":" + _dump_exact(item) for key, item in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_dump_exact(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def iter_canonical_lines(judgments: JudgmentSet) -> Iterator[str]:
    for index, label in enumerate(judgments.labels):
        yield from judgments.comments.get(index, ())
        yield canonical_line(label.record)
    yield from judgments.comments.get(len(judgments.labels), ())


def written_lines(judgments: JudgmentSet) -> dict[int, int]:
    """Each label's line in the text :func:`write_judgments` makes, by the line it was read from
    (``Label.line``; the first label read from a line, where a fold kept several)."""
    lines: dict[int, int] = {}
    at = 0
    for index, label in enumerate(judgments.labels):
        at += len(judgments.comments.get(index, ())) + 1
        lines.setdefault(label.line, at)
    return lines


def write_judgments(judgments: JudgmentSet) -> str:
    """The canonical text of a judgments file: one compact object per line, final newline."""
    return "".join(line + "\n" for line in iter_canonical_lines(judgments))
