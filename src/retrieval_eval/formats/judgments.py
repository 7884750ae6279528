"""Reading a judgments JSONL file: one reader, two products.

Every line goes through :func:`iter_judgment_lines`, which checks it as the
schema requires and refuses the file on its first bad line. What is built
from the lines is the caller's choice: the full :class:`JudgmentSet` (every
record kept, for drift, conversion and rewriting) or the compact
:class:`LabelIndex` the score path reads. Both see the same lines, so both
give the same refusals, word for word.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from ..core.judgments import (
    MAX_RELEVANCE,
    JudgmentFields,
    JudgmentSet,
    Label,
    NoAnswer,
    canonical_line,
    check_judgment_line,
    common_judgment_fields,
    holds,
    no_judgment_error,
)
from ..core.labelindex import HUMAN, LabelIndex, QueryIndex
from .fileio import open_binary, reads_once, sha256_file
from .jsonl import BOM, decode_keeping_numbers, decode_line, expect_object, iter_lines, loose_loads
from .qrels import read_beir_qrels, read_trec_qrels

# (line, record, its checked fields or its NoAnswer), or (line, comment text, None) for a ``//`` line.
JudgmentLine = tuple[int, Any, JudgmentFields | NoAnswer | None]


def iter_judgment_lines(
    handle: BinaryIO,
    *,
    source: str = "judgments",
    path: str | None = None,
    digest: Any = None,
    exact_numbers: bool = False,
) -> Iterator[JudgmentLine]:
    """Each label line checked, and each comment line, in file order (``digest`` sees every byte).

    ``exact_numbers``: the records will be written back, so a number no rule reads keeps its
    text (``1e400`` stays ``1e400``), see :class:`~retrieval_eval.core.judgments.ExactNumber`."""
    loads = loose_loads()  # bound once: the per-line frames showed in the profile
    for line, raw in iter_lines(handle, digest, source=source, path=path):
        yield judgment_line(raw, line, loads, source, path, exact_numbers)


def judgment_line(
    raw: bytes, line: int, loads: Callable[[bytes], Any], source: str, path: str | None, exact_numbers: bool = False
) -> JudgmentLine:
    """One line of a judgments file, checked (see :func:`iter_judgment_lines`)."""
    if raw.startswith(b"//"):  # comments are allowed in judgments files
        return line, raw.decode("utf-8", errors="replace"), None
    # Read first on the fast path with numbers unchecked: a record of strings and one
    # in-range integer reads the same whatever the parser. Anything else is read again
    # exactly and checked field by field, for the exact refusal.
    try:
        record = loads(raw)
    except ValueError:
        record = decode_line(raw, source, line, path, numbers_matter=False)
    fields: JudgmentFields | NoAnswer | None = common_judgment_fields(record)
    if fields is None:
        record = expect_object(decode_line(raw, source, line, path), source, line, path)
        fields = check_judgment_line(record, line, source=source, path=path)
        if exact_numbers and holds(record, float):
            record = decode_keeping_numbers(raw, source, line, path)
    return line, record, fields


def parse_judgments(path: str, *, source: str = "judgments") -> JudgmentSet:
    """Read and check a judgments JSONL file, keeping every record and comment."""
    labels: list[Label] = []
    comments: dict[int, list[str]] = {}
    no_answer: list[NoAnswer] = []
    with open_binary(path) as handle:
        for line, item, fields in iter_judgment_lines(handle, source=source, path=path, exact_numbers=True):
            if fields is None:
                comments.setdefault(len(labels), []).append(item)
            elif isinstance(fields, NoAnswer):
                no_answer.append(fields)
                comments.setdefault(len(labels), []).append(canonical_line(item))
            else:
                labels.append(Label(fields[0], fields[1], fields[2], fields[3], item, line))
    if not labels and not no_answer:
        raise no_judgment_error(source, path)
    return JudgmentSet(tuple(labels), {at: tuple(lines) for at, lines in comments.items()}, tuple(no_answer))


def judgments_file_format(path: str) -> str:
    """``jsonl`` when the first non-blank line starts like a JSON object or array (or is a ``//`` comment),
    ``beir`` when it is BEIR's header, else ``trec``."""
    with open_binary(path) as handle:
        # Bounded: a line with no end (/dev/zero) is judged by its first bytes, and the reader
        # chosen then refuses it by its own limits; blank lines are looked through for a while only.
        for _ in range(_PROBE_LINES):
            raw = handle.readline(_PROBE_BYTES)
            if not raw:
                break
            stripped = raw.removeprefix(BOM).strip()
            if stripped:
                if stripped[:1] in (b"{", b"[") or stripped[:2] == b"//":
                    return "jsonl"
                return "beir" if stripped.split(b"\t")[:2] == [b"query-id", b"corpus-id"] else "trec"
    return "jsonl"


_PROBE_LINES, _PROBE_BYTES = 10_000, 1 << 16


@reads_once
def read_label_index(path: str, *, source: str = "judgments") -> LabelIndex:
    """Stream a judgments file into a :class:`LabelIndex`; records are not kept.

    The file's SHA-256 is taken on the way, so it is read once (twice when a
    key is labeled more than once, to name every line of the repeat). TREC and
    BEIR qrels are read as ``load_judgments`` reads them (one reader per format).
    """
    fmt = judgments_file_format(path)
    if fmt != "jsonl":
        read = read_trec_qrels if fmt == "trec" else read_beir_qrels
        qrels = LabelIndex.from_judgments(read(path, source=source))
        qrels.sha256 = sha256_file(path)
        return qrels
    index = LabelIndex()
    digest = hashlib.sha256()
    with open_binary(path) as handle:
        _index_lines(index, iter_lines(handle, digest, source=source, path=path), source, path)
    if not index.queries:
        raise no_judgment_error(source, path)
    index.sha256 = digest.hexdigest()
    index.finish(lambda: _keys_by_line(path, source))
    return index


# The fields of the plainest label, the one most lines of a large file are: a string query id
# and document, a grade, and optionally these strings, nothing else (no chunk, no trail).
_PLAIN_FIELDS = frozenset(("query_id", "doc_uri", "relevance", "query", "stratum", "labeled_by", "corpus_fingerprint"))


def _index_lines(index: LabelIndex, lines: Iterator[tuple[int, bytes]], source: str, path: str | None) -> None:
    """Index every line; the plainest label (:data:`_PLAIN_FIELDS`, labeled by a human or
    not said) on a path written out here, every other line through :func:`judgment_line`
    and :meth:`LabelIndex.add`, which the path must agree with.

    That label is most of a large file, and this loop runs once per line: its check
    (:func:`~retrieval_eval.core.judgments.common_judgment_fields`) and its indexing
    (:meth:`LabelIndex.add`) are written out together, each field read once, and the query
    of the line before is kept at hand (a file's labels come grouped by query). It takes a
    line only when the fields are all there is and each has the type the checks want, so the
    refusals, and anything the general path does, are left to it.
    """
    loads = loose_loads()  # bound once: the per-line frames showed in the profile
    add = index.add
    queries = index.queries
    repeated = index.repeated
    fingerprints = index.fingerprints
    plain = _PLAIN_FIELDS
    labels = human = 0
    last_id: str | None = None
    query = QueryIndex()
    for line, raw in lines:
        # No JSON text starts with "//", so a comment never parses here.
        try:
            record = loads(raw)
        except ValueError:
            record = None
        if type(record) is dict and record.keys() <= plain:
            get = record.get
            query_id = get("query_id")
            doc_uri = get("doc_uri")
            relevance = get("relevance")
            text = get("query")
            stratum = get("stratum")
            provenance = get("labeled_by")
            fingerprint = get("corpus_fingerprint")
            if (
                type(query_id) is str
                and query_id
                and type(doc_uri) is str
                and doc_uri
                and type(relevance) is int  # not a bool, whose type is its own
                and 0 <= relevance <= MAX_RELEVANCE
                and (text is None or type(text) is str)
                and (stratum is None or type(stratum) is str)
                and (fingerprint is None or type(fingerprint) is str)
                and (provenance is None or (type(provenance) is str and provenance.startswith(HUMAN)))
                # every field there is one of these, none of them null
                and len(record)
                == 3 + (text is not None) + (stratum is not None) + (provenance is not None) + (fingerprint is not None)
            ):
                if query_id != last_id:
                    found = queries.get(query_id)
                    if found is None:
                        found = queries[query_id] = QueryIndex()
                    query = found
                    last_id = query_id
                query.labels += 1
                if text and text not in query.texts:
                    query.texts += (text,)
                if stratum and stratum not in query.strata:
                    query.strata += (stratum,)
                grades = query.grades
                previous = grades.get(doc_uri)
                if previous is None:
                    grades[doc_uri] = relevance
                else:
                    if relevance > previous:
                        grades[doc_uri] = relevance
                    repeated.add((query_id, doc_uri))
                labels += 1
                fingerprints.add(fingerprint)
                if provenance is not None:
                    human += 1
                continue
        fields: JudgmentFields | NoAnswer | None = None if record is None else common_judgment_fields(record)
        if fields is None:
            _line, record, fields = judgment_line(raw, line, loads, source, path)
        if type(fields) is tuple:  # a label (a NoAnswer is a class of its own)
            add(fields, record, line)
        elif isinstance(fields, NoAnswer):
            index.add_no_answer(fields)
    index.labels += labels
    index.human_labels += human


def _keys_by_line(path: str, source: str) -> Iterator[tuple[int, str, str]]:
    with open_binary(path) as handle:
        for line, _record, fields in iter_judgment_lines(handle, source=source, path=path):
            if fields is not None and not isinstance(fields, NoAnswer):
                query_id, doc_uri, _relevance, chunk_id = fields
                yield line, query_id, chunk_id if chunk_id is not None else doc_uri
