"""Labels whose document is gone: the report counts them, and the summary and the comment name
what clears them instead of a re-judge queue that cannot hold them.

By construction: a corpus of three documents is re-chunked; one document is deleted (its label
can be judged against no live chunk), one is edited (its label is ORPHANED and the queue offers
its document's chunks), one is unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import run_cli
from retrieval_eval import chunk_id

DOCS = {
    "help://returns": "Items can be returned within 30 days.",
    "help://legacy": "Fax us your receipt.",
    "help://shipping": "Orders ship within two days.",
}
EDITED = {**DOCS, "help://shipping": "Orders ship within three working days."}


def corpus(texts: dict[str, str], chunker: str) -> dict[str, Any]:
    chunks = [
        {
            "doc_uri": uri,
            "doc_revision": "r1",
            "ordinal": 0,
            "text": text,
            "chunk_id": chunk_id(uri, "r1", 0, text, chunker),
        }
        for uri, text in texts.items()
    ]
    return {"corpus_fingerprint": "help/1", "chunker_fingerprint": chunker, "chunks": chunks}


def scenario(tmp_path: Path, *, edited: bool) -> dict[str, Any]:
    """Score a run over the re-chunked corpus and render its summary and comment."""
    old = corpus(DOCS, "paragraph/v1")
    live = {uri: text for uri, text in (EDITED if edited else DOCS).items() if uri != "help://legacy"}
    new = corpus(live, "paragraph/v2")
    (tmp_path / "corpus.json").write_text(json.dumps(new))
    queries = {"help://returns": "q1", "help://legacy": "q2", "help://shipping": "q3"}
    labels = [
        {
            "query_id": queries[c["doc_uri"]],
            "doc_uri": c["doc_uri"],
            "chunk_id": c["chunk_id"],
            "chunk_text": c["text"],
            "relevance": 1,
        }
        for c in old["chunks"]
    ]
    (tmp_path / "judgments.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels))
    ids = [c["chunk_id"] for c in new["chunks"]]
    (tmp_path / "run.jsonl").write_text(
        "".join(json.dumps({"query_id": q, "ranking": ids}) + "\n" for q in ("q1", "q2", "q3"))
    )
    inputs = ("-j", "judgments.jsonl", "-r", "run.jsonl", "--corpus", "corpus.json")
    scored = run_cli("score", *inputs, "-k", "3", "--out", "report.json", cwd=tmp_path)
    assert scored.code in (0, 1), scored.stderr
    drawn = {}
    for kind in ("summary", "comment"):
        done = run_cli("render", "--report", "report.json", "--format", kind, cwd=tmp_path)
        assert done.code == 0, done.stderr
        drawn[kind] = done.stdout
    return {"drift": json.loads((tmp_path / "report.json").read_text())["judgments"]["drift"], **drawn}


def test_a_label_whose_document_is_gone_is_counted_and_not_sent_to_the_queue(tmp_path: Path) -> None:
    found = scenario(tmp_path, edited=False)
    # q1 and q3 re-anchor (the same text under the new chunker); q2's document is gone.
    assert found["drift"]["orphaned"] == 1 and found["drift"]["stranded"] == 1
    for kind in ("summary", "comment"):
        text = found[kind]
        assert "--queue rejudge.jsonl" not in text, kind  # a queue would hold no line
        assert "1 label names a document that is gone" in text, kind
        assert "delete it from the judgments, or label the query again" in text, kind


def test_a_queue_is_offered_for_the_labels_it_can_hold_and_the_rest_are_named(tmp_path: Path) -> None:
    found = scenario(tmp_path, edited=True)
    # q3's text was edited: ORPHANED, and the queue offers its document's chunk; q2's is gone.
    assert found["drift"]["orphaned"] == 2 and found["drift"]["stranded"] == 1
    for kind in ("summary", "comment"):
        text = found[kind]
        assert "--queue rejudge.jsonl" in text, kind
        assert "1 label names a document that is gone" in text, kind


def test_a_report_without_the_count_reads_as_before(tmp_path: Path) -> None:
    # Reports written before the count existed: the queue command shows whenever labels broke.
    found = scenario(tmp_path, edited=False)
    report = json.loads((tmp_path / "report.json").read_text())
    del report["judgments"]["drift"]["stranded"]
    (tmp_path / "old.json").write_text(json.dumps(report))
    done = run_cli("render", "--report", "old.json", "--format", "summary", cwd=tmp_path)
    assert done.code == 0 and "--queue rejudge.jsonl" in done.stdout
    assert "names a document that is gone" not in done.stdout
    assert found["drift"]["stranded"] == 1
