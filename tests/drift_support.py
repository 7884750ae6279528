"""Building corpora and labels for the drift tests: documents as lists of chunk texts."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from retrieval_eval.core.identity import chunk_id, text_sha
from retrieval_eval.core.judgments import JudgmentSet
from retrieval_eval.formats.corpus import Corpus, corpus_from_records
from retrieval_eval.formats.judgment_records import judgment_from_record

OLD = "paragraph/v1"
NEW = "paragraph/v2"
Docs = Mapping[str, list[str]]


def chunk_record(doc: str, ordinal: int, text: str, *, chunker: str = NEW, revision: str = "r2") -> dict[str, Any]:
    return {
        "chunk_id": chunk_id(doc, revision, ordinal, text, chunker),
        "doc_uri": doc,
        "doc_revision": revision,
        "ordinal": ordinal,
        "text": text,
        "text_sha": text_sha(text),
    }


def chunk_records(docs: Docs, *, chunker: str = NEW, revision: str = "r2") -> list[dict[str, Any]]:
    return [
        chunk_record(doc, ordinal, text, chunker=chunker, revision=revision)
        for doc, texts in docs.items()
        for ordinal, text in enumerate(texts)
    ]


def corpus(docs: Docs, **kwargs: Any) -> Corpus:
    return corpus_from_records(chunk_records(docs, **kwargs), corpus_fingerprint="v2", chunker_fingerprint=NEW)


def cid(doc: str, ordinal: int, text: str, *, chunker: str = NEW, revision: str = "r2") -> str:
    return chunk_id(doc, revision, ordinal, text, chunker)


def label(
    query_id: str, doc: str, text: str, *, ordinal: int = 0, relevance: int = 1, with_text: bool = True, **extra: Any
) -> dict[str, Any]:
    """A label made on the old chunking: its chunk id is stale once the corpus is re-chunked."""
    record: dict[str, Any] = {
        "query_id": query_id,
        "query": f"query {query_id}",
        "doc_uri": doc,
        "chunk_id": chunk_id(doc, "r1", ordinal, text, OLD),
        "text_sha": text_sha(text),
    }
    if with_text:
        record["chunk_text"] = text
    record.update({"relevance": relevance, "labeled_by": "human:test", **extra})
    return record


def judgments(records: Iterable[Mapping[str, Any]]) -> JudgmentSet:
    return JudgmentSet(tuple(judgment_from_record(dict(r), line) for line, r in enumerate(records, 1)))


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any] | str]) -> Path:
    """One object per line; a str is written as is (a ``//`` comment line)."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def write_snapshot(path: Path, docs: Docs, **kwargs: Any) -> Path:
    snapshot = {"corpus_fingerprint": "v2", "chunker_fingerprint": NEW, "chunks": chunk_records(docs, **kwargs)}
    path.write_text(json.dumps(snapshot, indent=2), encoding="utf-8")
    return path
