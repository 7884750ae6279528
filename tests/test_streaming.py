"""Memory grows with queries x max(k), never with the length of the run.

These tests are not timed: they count what is kept and what is read, which
no load on the machine can change.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
import tracemalloc
from pathlib import Path

import pytest

from retrieval_eval.formats import jsonl
from retrieval_eval.formats.runs import parse_run

DEPTH = 10


def write_run(path: Path, queries: int, keys: int, *, repeat_every: int = 0) -> None:
    """A run whose rankings are far longer than the depth kept; some repeat a key near the top."""
    with path.open("w", encoding="utf-8") as out:
        for q in range(queries):
            ranking = [f"doc-{q}-{rank:05d}" for rank in range(keys)]
            if repeat_every and q % repeat_every == 0:
                ranking[3] = ranking[1]
            out.write(json.dumps({"query_id": f"q{q}", "ranking": ranking}) + "\n")


def test_only_the_deduplicated_head_of_each_query_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    write_run(path, queries=50, keys=2_000, repeat_every=5)
    run = parse_run(str(path), depth=DEPTH)
    assert len(run.rankings) == 50
    assert all(len(head) == DEPTH for head in run.rankings.values())
    assert all(len(set(head)) == DEPTH for head in run.rankings.values())
    # A repeated key is skipped, and the head reaches one key further to stay DEPTH deep.
    assert run.rankings["q0"][:4] == ["doc-0-00000", "doc-0-00001", "doc-0-00002", "doc-0-00004"]
    assert run.with_duplicates == sorted(f"q{q}" for q in range(0, 50, 5))
    assert run.received["q7"] == 2_000  # every entry was still read and checked


def test_queries_not_judged_keep_nothing(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    write_run(path, queries=20, keys=300)
    run = parse_run(str(path), depth=DEPTH, judged={"q1", "q2"})
    assert sorted(run.rankings) == ["q1", "q2"]
    assert len(run.unjudged) == 18


class RecordingReader(io.BytesIO):
    """A file object that remembers how much each read asked for."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.requests: list[int] = []

    def read(self, size: int | None = -1) -> bytes:
        self.requests.append(-1 if size is None else size)
        return super().read(size)


def test_the_file_is_read_in_bounded_blocks_never_whole(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    write_run(path, queries=200, keys=1_000)
    data = path.read_bytes()
    reader = RecordingReader(data)
    digest = hashlib.sha256()
    lines = list(jsonl.iter_lines(reader, digest))
    assert len(lines) == 200
    assert reader.requests and all(0 < size <= jsonl.BLOCK for size in reader.requests)
    assert len(data) > 2 * jsonl.BLOCK  # so "whole" and "in blocks" differ
    assert digest.hexdigest() == hashlib.sha256(data).hexdigest()


def traced_peak(path: Path) -> int:
    tracemalloc.start()
    try:
        run = parse_run(str(path), depth=DEPTH)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert all(len(head) == DEPTH for head in run.rankings.values())
    return peak


def test_peak_memory_does_not_grow_with_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "READ_AHEAD_FROM", 1 << 40)  # both files on one path, one thread
    short, long = tmp_path / "short.jsonl", tmp_path / "long.jsonl"
    write_run(short, queries=150, keys=1_000)  # about 2.5 MB
    write_run(long, queries=600, keys=1_000)  # about 10 MB
    peak_short, peak_long = traced_peak(short), traced_peak(long)
    # Four times the file: the peak grows by the 450 more heads kept, not by the 7.5 MB read.
    assert peak_long < peak_short + 1_000_000, (peak_short, peak_long)
    assert peak_long < long.stat().st_size / 3, (peak_long, long.stat().st_size)


def test_read_ahead_gives_the_same_lines_and_hash_and_stops_cleanly(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    write_run(path, queries=700, keys=1_000)  # above the read-ahead threshold
    data = path.read_bytes()
    assert len(data) >= jsonl.READ_AHEAD_FROM
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        lines = [raw for _, raw in jsonl.iter_lines(handle, digest)]
    assert lines == data.splitlines()
    assert digest.hexdigest() == hashlib.sha256(data).hexdigest()
    with path.open("rb") as handle:  # a reader that stops early must not leave the thread blocked
        stream = jsonl.iter_lines(handle)
        next(stream)
        stream.close()
    assert not [t for t in threading.enumerate() if t.name == "retrieval-eval-read-ahead"]


def test_trec_repeats_are_reported_only_where_they_are_read(tmp_path: Path) -> None:
    # Depth 2. q1 repeats d1 within its head (scores 9 and 8, both above d2's 7);
    # q2 repeats d1 far below its full head; q3 repeats d5, a document that never
    # reaches the head; q4's head is not full, so every line is read.
    lines = [
        "q1 Q0 d1 1 9 t",
        "q1 Q0 d1 2 8 t",
        "q1 Q0 d2 3 7 t",
        "q2 Q0 d1 1 9 t",
        "q2 Q0 d2 2 8 t",
        "q2 Q0 d3 3 7 t",
        "q2 Q0 d1 4 1 t",
        "q3 Q0 d1 1 9 t",
        "q3 Q0 d2 2 8 t",
        "q3 Q0 d5 3 2 t",
        "q3 Q0 d5 4 1 t",
        "q4 Q0 d1 1 9 t",
        "q4 Q0 d1 2 1 t",
    ]
    path = tmp_path / "run.trec"
    path.write_text("\n".join(lines) + "\n")
    run = parse_run(str(path), depth=2)
    assert run.rankings == {"q1": ["d1", "d2"], "q2": ["d1", "d2"], "q3": ["d1", "d2"], "q4": ["d1"]}
    assert run.with_duplicates == ["q1", "q4"]
