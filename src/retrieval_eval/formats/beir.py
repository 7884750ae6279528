"""BEIR datasets in: judgments with query text, and a corpus snapshot of whole documents.

A BEIR directory holds ``corpus.jsonl`` (``_id``, ``title``, ``text``),
``queries.jsonl`` (``_id``, ``text``) and ``qrels/<split>.tsv``. It is a
download from somewhere else, so it is treated as untrusted: every row and
every id is checked before anything is written, and a refused dataset
leaves no file behind. Refused:

- an ``_id`` that appears twice in corpus.jsonl or queries.jsonl;
- a qrels row naming a document or query that does not exist, or repeating
  a (query, document) pair;
- an id that is unsafe: empty, with white space or a control character
  (it would break a qrels line in two), with a path separator or equal to
  ``.``/``..`` (ids end up in file names in many pipelines);
- a split name that is not a plain file name.

BEIR relevance is per document, so the judgments are document-level and the
corpus snapshot has one chunk per document (chunker ``beir/document``).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import InputError, UsageError
from ..core.identity import chunk_id, text_sha
from ..core.judgments import JudgmentSet
from .fileio import atomic_writer, open_binary
from .jsonl import decode_line, expect_object, iter_lines
from .judgment_records import canonical_line, judgment_from_record
from .qrels import read_beir_qrels

CHUNKER = "beir/document"
_SPLIT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def id_problem(value: str) -> str | None:
    """Why ``value`` is not a safe id, or None when it is."""
    if not value:
        return "it is empty"
    if value in (".", ".."):
        return "'.' and '..' name directories"
    if "/" in value or "\\" in value:
        return "it contains a path separator"
    if any(ch.isspace() for ch in value):
        return "it contains white space, which splits a qrels line"
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in value):
        return "it contains a control character"
    return None


def _safe_id(value: Any, field: str, source: str, line: int) -> str:
    if not isinstance(value, str):
        missing = f"missing required field {field}" if value is None else f"{field} must be a string"
        raise InputError(source, line, missing)
    problem = id_problem(value)
    if problem is not None:
        raise InputError(
            source,
            line,
            f"{field} {value!r} is not a safe id: {problem}",
            hint="fix or drop the row in the dataset, then convert again",
        )
    return value


def _text_field(record: dict[str, Any], name: str, source: str, line: int, *, required: bool) -> str:
    value = record.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        problem = f"missing required field {name}" if value is None else f"{name} must be a string"
        raise InputError(source, line, problem)
    return value


def _rows(path: Path, source: str, digest: Any = None) -> Iterator[tuple[int, dict[str, Any]]]:
    with open_binary(path) as handle:
        for line, raw in iter_lines(handle, digest, source=source, path=str(path)):
            yield line, expect_object(decode_line(raw, source, line, str(path)), source, line, str(path))


def iter_documents(path: Path, digest: Any = None) -> Iterator[tuple[int, str, str]]:
    """(line, id, text) per corpus row; the text is the title and the body, a blank line apart."""
    first_line: dict[str, int] = {}
    for line, record in _rows(path, "corpus.jsonl", digest):
        doc_id = _safe_id(record.get("_id"), "_id", "corpus.jsonl", line)
        previous = first_line.setdefault(doc_id, line)
        if previous != line:
            raise InputError("corpus.jsonl", line, f"duplicate _id {doc_id}, already on line {previous}")
        title = _text_field(record, "title", "corpus.jsonl", line, required=False).strip()
        body = _text_field(record, "text", "corpus.jsonl", line, required=True)
        yield line, doc_id, f"{title}\n\n{body}" if title else body


def read_queries(path: Path) -> dict[str, str]:
    queries: dict[str, str] = {}
    lines: dict[str, int] = {}
    for line, record in _rows(path, "queries.jsonl"):
        query_id = _safe_id(record.get("_id"), "_id", "queries.jsonl", line)
        if query_id in queries:
            raise InputError("queries.jsonl", line, f"duplicate _id {query_id}, already on line {lines[query_id]}")
        queries[query_id] = _text_field(record, "text", "queries.jsonl", line, required=True)
        lines[query_id] = line
    return queries


@dataclass(frozen=True)
class BeirDataset:
    """A checked BEIR split: its judgments, and what the corpus snapshot needs."""

    directory: Path
    split: str
    judgments: JudgmentSet
    documents: int
    corpus_sha256: str

    @property
    def corpus_fingerprint(self) -> str:
        return f"beir:{self.corpus_sha256[:16]}"


def _paths(directory: Path, split: str) -> tuple[Path, Path, Path]:
    if not _SPLIT.fullmatch(split):
        raise UsageError(f"--split {split!r} is not a plain name", hint="--split test (or train, dev)")
    paths = (directory / "corpus.jsonl", directory / "queries.jsonl", directory / "qrels" / f"{split}.tsv")
    for path in paths:
        if not path.is_file():
            raise InputError(
                f"cannot read {path}",
                None,
                "no such file",
                hint=f"a BEIR directory holds corpus.jsonl, queries.jsonl and qrels/{split}.tsv",
            )
    return paths


def _labels(qrels_path: Path, split: str, queries: dict[str, str], documents: set[str]) -> JudgmentSet:
    source = f"qrels/{split}.tsv"
    seen: dict[tuple[str, str], int] = {}
    labels = []
    for label in read_beir_qrels(str(qrels_path), source=source).labels:
        query_id = _safe_id(label.query_id, "query-id", source, label.line)
        doc_id = _safe_id(label.doc_uri, "corpus-id", source, label.line)
        if query_id not in queries:
            raise InputError(source, label.line, f"query-id {query_id} is not in queries.jsonl")
        if doc_id not in documents:
            raise InputError(source, label.line, f"corpus-id {doc_id} is not in corpus.jsonl")
        first = seen.setdefault((query_id, doc_id), label.line)
        if first != label.line:
            raise InputError(source, label.line, f"query {query_id} labels {doc_id} again (first on line {first})")
        record = {"query_id": query_id, "query": queries[query_id], "doc_uri": doc_id, "relevance": label.relevance}
        labels.append(judgment_from_record(record, label.line, source=source))
    return JudgmentSet(tuple(labels))


def load_beir(directory: str | Path, split: str = "test") -> BeirDataset:
    """Read and check a BEIR split; refuse it whole on the first problem."""
    root = Path(directory)
    corpus_path, queries_path, qrels_path = _paths(root, split)
    queries = read_queries(queries_path)
    digest = hashlib.sha256()
    documents = {doc_id for _line, doc_id, _text in iter_documents(corpus_path, digest)}
    judgments = _labels(qrels_path, split, queries, documents)
    return BeirDataset(root, split, judgments, len(documents), digest.hexdigest())


def corpus_lines(dataset: BeirDataset) -> Iterator[str]:
    """The corpus snapshot as JSONL: a fingerprint header, then one chunk per document."""
    yield json.dumps(
        {"corpus_fingerprint": dataset.corpus_fingerprint, "chunker_fingerprint": CHUNKER}, separators=(",", ":")
    )
    for _line, doc_id, text in iter_documents(dataset.directory / "corpus.jsonl"):
        sha = text_sha(text)
        record = {
            "chunk_id": chunk_id(doc_id, sha, 0, text, CHUNKER),
            "doc_uri": doc_id,
            "doc_revision": sha,
            "ordinal": 0,
            "text": text,
            "text_sha": sha,
        }
        yield json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def judgment_lines(dataset: BeirDataset) -> list[str]:
    return [canonical_line(label.record) for label in dataset.judgments.labels]


def write_corpus(dataset: BeirDataset, path: str) -> None:
    """Stream the snapshot to ``path`` atomically."""
    with atomic_writer(path) as handle:
        for line in corpus_lines(dataset):
            handle.write(line + "\n")


def convert_beir(
    directory: str, split: str, *, target: str | None, input_path: str | None, corpus_out: str | None
) -> list[str]:
    """``convert --beir``: check the split, write the corpus snapshot if asked, return the judgment lines."""
    if input_path is not None:
        raise UsageError("--beir reads a directory; drop the INPUT argument")
    if target not in (None, "judgments"):
        raise UsageError(
            f"--beir converts to judgments, not {target}", hint="convert the judgments to qrels afterwards with --to"
        )
    dataset = load_beir(directory, split)
    if corpus_out:
        write_corpus(dataset, corpus_out)
    return judgment_lines(dataset)
