"""What the HTML report reads besides the reports: labels and query text, and chunk text.

Only the queries the page shows are kept, so a judgments file or corpus of
any size costs the memory of those queries. The judgments file must be the
one the head report was scored with (its SHA-256 is checked), or its labels
would describe another yardstick than the numbers beside them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from ..core.errors import InputError
from ..core.judgments import NoAnswer, check_judgment_line
from ..formats.corpus import read_corpus
from ..formats.fileio import open_binary
from ..formats.jsonl import decode_line, expect_object, iter_lines


@dataclass
class QueryLabels:
    """One query's labels as the page shows them: every key labeled, grade 0 included."""

    text: str | None = None
    stratum: str | None = None
    grades: dict[str, int] = field(default_factory=dict)  # key -> highest grade given


def read_query_labels(
    path: str, wanted: Collection[str], *, expected_sha256: str | None = None
) -> dict[str, QueryLabels]:
    """The labels of the ``wanted`` queries, every line checked as ``score`` checks it."""
    digest = hashlib.sha256()
    found: dict[str, QueryLabels] = {}
    with open_binary(path) as handle:
        for line, raw in iter_lines(handle, digest, source="judgments", path=path):
            if raw.startswith(b"//"):
                continue  # judgments files may hold comment lines
            record = expect_object(decode_line(raw, "judgments", line, path), "judgments", line, path)
            fields = check_judgment_line(record, line, path=path)
            query_id = fields.query_id if isinstance(fields, NoAnswer) else fields[0]
            if query_id not in wanted:
                continue
            labels = found.setdefault(query_id, QueryLabels())
            if not isinstance(fields, NoAnswer):  # a no-answer line labels no key
                _query, doc_uri, relevance, chunk_id = fields
                key = chunk_id if chunk_id is not None else doc_uri
                labels.grades[key] = max(relevance, labels.grades.get(key, 0))
            labels.text = labels.text or _text(record.get("query"))
            labels.stratum = labels.stratum or _text(record.get("stratum"))
    if expected_sha256 and digest.hexdigest() != expected_sha256:
        raise InputError(
            "judgments",
            None,
            "this is not the judgments file the report was scored with "
            "(its sha256 differs from the report's inputs.judgments_sha256)",
            path=path,
            hint=f"{path} has changed or is another file: pass the one the head report was scored with",
        )
    return found


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
