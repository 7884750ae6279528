"""The label queue's lines as typed records (formats/queue.py): each written as the JSON line the
queue file has always held (keys in their order, written out by hand below), read back by the
judge's reader to the same fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from retrieval_eval.core.errors import InputError
from retrieval_eval.core.unjudged import QueueEntry
from retrieval_eval.formats.machine_labels import read_queue
from retrieval_eval.formats.queue import (
    QueueExcerpt,
    QueueLine,
    UnsettledLine,
    queue_line,
    queue_line_to_json,
    queue_text,
    write_queue,
)
from retrieval_eval.pipeline.holes import EXCERPT, queue_excerpt

ENTRY = QueueEntry("q1", "c1:" + "0" * 32, rank=2, surfaced_by="head", move=0.125, query_moved=0.0)


CHUNK = "c1:" + "0" * 32
PLACEHOLDER = "todo:human:<your name>"
TAIL = {"rank": 2, "surfaced_by": "head", "move": 0.125}


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            {"query_text": "what is x", "document": "doc://a", "chunk_text": "x is y", "is_chunk": True},
            {"query_id": "q1", "query": "what is x", "doc_uri": "doc://a", "chunk_id": CHUNK, **TAIL}
            | {"chunk_text": "x is y", "labeled_by": PLACEHOLDER},
        ),
        (  # a chunk without a corpus: its document is the key itself
            {"query_text": None, "document": None, "chunk_text": None, "is_chunk": True},
            {"query_id": "q1", "doc_uri": CHUNK, "chunk_id": CHUNK, **TAIL, "labeled_by": PLACEHOLDER},
        ),
        (  # an empty query text is left out; an empty chunk text is the chunk's text
            {"query_text": "", "document": None, "chunk_text": "", "is_chunk": False},
            {"query_id": "q1", "doc_uri": CHUNK, **TAIL, "chunk_text": "", "labeled_by": PLACEHOLDER},
        ),
        (
            {"query_text": "what is x", "document": "doc://ignored", "chunk_text": None, "is_chunk": False},
            {"query_id": "q1", "query": "what is x", "doc_uri": CHUNK, **TAIL, "labeled_by": PLACEHOLDER},
        ),
    ],
)
def test_a_queue_line_is_written_key_for_key(options: dict, expected: dict) -> None:  # type: ignore[type-arg]
    written = queue_line_to_json(queue_line(ENTRY, **options))
    assert json.dumps(written) == json.dumps(expected)  # same keys, same order, same values


def test_the_fields_are_those_of_the_entry() -> None:
    typed = queue_line(ENTRY, query_text="q", document="doc://a", chunk_text="t", is_chunk=True)
    assert typed == QueueLine(
        query_id="q1",
        query="q",
        doc_uri="doc://a",
        chunk_id="c1:" + "0" * 32,
        rank=2,
        surfaced_by="head",
        move=0.125,
        chunk_text="t",
        labeled_by="todo:human:<your name>",
    )


def test_the_queue_file_reads_back_to_the_same_lines(tmp_path: Path) -> None:
    lines = [
        queue_line(ENTRY, query_text="q", document="doc://a", chunk_text="t", is_chunk=True),
        QueueLine(query_id="q2", doc_uri="doc://b", rank=1, surfaced_by="base", move=0.0, labeled_by="todo"),
    ]
    path = tmp_path / "queue.jsonl"
    write_queue(path, lines)
    assert path.read_text(encoding="utf-8") == queue_text(lines)
    items = read_queue(str(path))
    assert [(i.query_id, i.doc_uri, i.chunk_id, i.query, i.chunk_text) for i in items] == [
        ("q1", "doc://a", "c1:" + "0" * 32, "q", "t"),
        ("q2", "doc://b", None, None, None),
    ]
    assert [item.record for item in items] == [queue_line_to_json(line) for line in lines]


def test_a_broken_queue_file_is_refused_naming_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "queue.jsonl"
    path.write_text('{"query_id": "q1", "doc_uri": "d", "rank": 1}\n{"query_id": 5}\n')
    with pytest.raises(InputError, match="^queue:2: ") as raised:
        read_queue(str(path))
    assert raised.value.path == str(path)


def test_an_unsettled_line_keeps_the_line_as_read_and_says_why() -> None:
    record = {"zeta": [1, 2], "query_id": "q1", "doc_uri": "d", "extra": {"k": None}}
    written = queue_line_to_json(UnsettledLine(record, "SPLIT"))
    assert list(written) == ["zeta", "query_id", "doc_uri", "extra", "judge_status"]
    assert written == {**record, "judge_status": "SPLIT"}


def test_the_excerpt_is_the_first_lines_the_count_and_the_command() -> None:
    lines = [
        QueueLine(query_id=f"q{i}", doc_uri="d", rank=1, surfaced_by="head", move=0.0, labeled_by="todo")
        for i in range(EXCERPT + 2)
    ]
    excerpt = queue_excerpt(lines, "retrieval-eval holes ...")
    assert excerpt == QueueExcerpt(EXCERPT + 2, tuple(lines[:EXCERPT]), "retrieval-eval holes ...")
    assert queue_excerpt([], "c", count=40).count == 40  # counted, not built
