"""What the HTML report reads besides the reports: labels and query text, and chunk text.

Only the queries the page shows are kept, so a judgments file or corpus of
any size costs the memory of those queries. The judgments file must be the
one the head report was scored with (its SHA-256 is checked), or its labels
would describe another yardstick than the numbers beside them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from ..core.errors import InputError
from ..core.judgments import NoAnswer
from ..core.labelindex import LabelIndex
from ..formats.corpus import read_corpus
from ..formats.fileio import open_binary, reads_once
from ..formats.jsonl import decode_line, expect_object, iter_lines
from ..formats.judgment_records import check_judgment_line
from ..formats.judgments import judgments_file_format, read_label_index
from ..formats.kinds import says_what_it_is


@dataclass
class PageLabels:
    """One query's labels as the page shows them: every key labeled, grade 0 included."""

    text: str | None = None
    stratum: str | None = None
    grades: dict[str, int] = field(default_factory=dict)  # key -> highest grade given


@reads_once  # the format is told from the first lines, then the file is read: a pipe is copied first
@says_what_it_is("judgments")
def read_labels_for_page(
    path: str, wanted: Collection[str], *, expected_sha256: str | None = None
) -> dict[str, PageLabels]:
    """The labels of the ``wanted`` queries from a judgments file in any format ``score`` reads:
    JSONL line by line, keeping those queries only (:func:`read_page_labels`); TREC or BEIR
    qrels through the reader ``score`` uses, whole (they hold no text or stratum)."""
    if judgments_file_format(path) == "jsonl":
        return read_page_labels(path, wanted, expected_sha256=expected_sha256)
    index = read_label_index(path)
    if expected_sha256 and index.sha256 != expected_sha256:
        raise _not_the_scored_file(path)
    return index_page_labels(index, wanted)


def read_page_labels(
    path: str, wanted: Collection[str], *, expected_sha256: str | None = None
) -> dict[str, PageLabels]:
    """The labels of the ``wanted`` queries, every line checked as ``score`` checks it.

    With ``expected_sha256`` a line that plainly names another query is not decoded: the file
    is then either the one the report was scored from (every line of which ``score`` checked)
    or refused at the end for its hash. A line is skipped only when it holds ``"query_id"``
    once and no backslash at all; any other line is decoded and checked, as ``score`` reads it.
    """
    digest = hashlib.sha256()
    found: dict[str, PageLabels] = {}
    others = _named_elsewhere({query.encode("utf-8") for query in wanted}) if expected_sha256 else None
    with open_binary(path) as handle:
        for line, raw in iter_lines(handle, digest, source="judgments", path=path):
            if raw.startswith(b"//") or (others is not None and others(raw)):
                continue  # judgments files may hold comment lines
            record = expect_object(decode_line(raw, "judgments", line, path), "judgments", line, path)
            fields = check_judgment_line(record, line, path=path)
            query_id = fields.query_id if isinstance(fields, NoAnswer) else fields[0]
            if query_id not in wanted:
                continue
            labels = found.setdefault(query_id, PageLabels())
            if not isinstance(fields, NoAnswer):  # a no-answer line labels no key
                _query, doc_uri, relevance, chunk_id = fields
                key = chunk_id if chunk_id is not None else doc_uri
                labels.grades[key] = max(relevance, labels.grades.get(key, 0))
            labels.text = labels.text or _text(record.get("query"))
            labels.stratum = labels.stratum or _text(record.get("stratum"))
    if expected_sha256 and digest.hexdigest() != expected_sha256:
        raise _not_the_scored_file(path)
    return found


def _not_the_scored_file(path: str) -> InputError:
    return InputError(
        "judgments",
        None,
        "this is not the judgments file the report was scored with "
        "(its sha256 differs from the report's inputs.judgments_sha256)",
        path=path,
        hint=f"{path} has changed or is another file: pass the one the head report was scored with",
    )


def index_page_labels(index: LabelIndex, wanted: Collection[str]) -> dict[str, PageLabels]:
    """What :func:`read_page_labels` reads from the file ``index`` was read from, taken from the
    index instead: each key's highest grade, and the first query text and stratum, are what the
    index keeps per query (core/labelindex.py), in the same order of first appearance."""
    return {
        query_id: PageLabels(text=query.text, stratum=query.stratum, grades=dict(query.grades))
        for query_id, query in index.queries.items()
        if query_id in wanted
    }


_QUERY_ID = re.compile(rb'"query_id"\s*:\s*"([^"\\]*)"')


def _named_elsewhere(wanted: set[bytes]) -> Callable[[bytes], bool]:
    """Whether a raw line plainly names a query that is not wanted.

    Only a line without a backslash is judged by its bytes: there, a string cannot hold a
    quote, so the one ``"query_id"`` of a line that ``score`` checked is its top-level key
    (an escaped key, ``"query\\u005fid"``, could hide the real one behind a nested one).
    """

    def other(raw: bytes) -> bool:
        if b"\\" in raw or raw.count(b'"query_id"') != 1:
            return False
        match = _QUERY_ID.search(raw)
        return match is not None and match.group(1) not in wanted

    return other


def read_chunk_texts(path: str, keys: Iterable[str]) -> dict[str, str]:
    """The text of each key found in the corpus: a chunk's own, or a document's first chunk's."""
    corpus = read_corpus(path)
    texts: dict[str, str] = {}
    for key in keys:
        index = corpus.position.get(key)
        if index is None:
            chunks = corpus.chunks_of(key)
            index = chunks[0] if chunks else None
        text = None if index is None else corpus.texts[index]
        if text:
            texts[key] = text
    return texts


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
