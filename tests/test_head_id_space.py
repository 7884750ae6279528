"""A head that ranks none of the keys its labels or the base name was scored in another id space.

By construction: six documents of one chunk each, labeled under chunker v1. The head's run ranks
the very same texts in the same order, re-chunked under v2 (so every chunk id changed), and was
scored without its corpus and before ``drift --fix``: nothing tells the labels' old ids from the
run's new ones. Taking every key as irrelevant, recall fell from 1 to 0, and the gate FAILed a
head equal to the base in substance. The head's rankings share no key with the labels or with the
base's rankings: the deltas compare two id spaces, so the delta gates are INDETERMINATE, and the
reason says how to score the head so that they decide.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli
from retrieval_eval import chunk_id

TEXTS = [f"Answer number {i}: do step {i} first." for i in range(6)]


def key(i: int, chunker: str) -> str:
    return chunk_id(f"help://doc{i}", "r1", 0, TEXTS[i], chunker)


def write(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def gate(tmp_path: Path, head_ranking: list[list[str]]) -> tuple[int, dict[str, object], str]:
    labels = [
        {"query_id": f"q{i}", "doc_uri": f"help://doc{i}", "chunk_id": key(i, "v1"), "relevance": 1} for i in range(6)
    ]
    write(tmp_path / "judgments.jsonl", labels)
    base = [[key(i, "v1")] + [key(j, "v1") for j in range(6) if j != i] for i in range(6)]
    write(tmp_path / "base-run.jsonl", [{"query_id": f"q{i}", "ranking": r} for i, r in enumerate(base)])
    write(tmp_path / "head-run.jsonl", [{"query_id": f"q{i}", "ranking": r} for i, r in enumerate(head_ranking)])
    scored = run_cli(
        "score", "-j", "judgments.jsonl", "-r", "base-run.jsonl", "-k", "3", "--out", "base.json", cwd=tmp_path
    )
    assert scored.code == 0, scored.stderr
    head = run_cli(
        "score", "-j", "judgments.jsonl", "-r", "head-run.jsonl", "-k", "3", "--baseline", "base.json",
        "--gate", "recall@3:-0.05", "--out", "head.json", cwd=tmp_path,
    )  # fmt: skip
    report = json.loads((tmp_path / "head.json").read_text())
    return head.code, report["verdict"], head.stdout + head.stderr


def test_a_re_chunked_head_scored_without_its_corpus_is_indeterminate_not_failed(tmp_path: Path) -> None:
    same_in_new_ids = [[key(i, "v2")] + [key(j, "v2") for j in range(6) if j != i] for i in range(6)]
    code, verdict, printed = gate(tmp_path, same_in_new_ids)
    assert verdict["status"] == "INDETERMINATE" and code == 1, printed
    reasons = " ".join(verdict["reasons"])
    assert "none of the keys" in reasons and "--corpus" in reasons


def test_a_worse_head_in_the_same_ids_still_fails(tmp_path: Path) -> None:
    # Control: the same ids, each answer pushed from rank 1 to rank 6 (below k = 3).
    pushed = [[key(j, "v1") for j in range(6) if j != i] + [key(i, "v1")] for i in range(6)]
    code, verdict, _ = gate(tmp_path, pushed)
    assert verdict["status"] == "FAIL" and code == 1


def test_a_head_that_finds_nothing_but_ranks_known_keys_still_fails(tmp_path: Path) -> None:
    # Control: every query ranks only other queries' answers: known keys, no hit.
    wrong = [[key((i + 1) % 6, "v1"), key((i + 2) % 6, "v1")] for i in range(6)]
    code, verdict, _ = gate(tmp_path, wrong)
    assert verdict["status"] == "FAIL" and code == 1


def test_a_head_with_one_known_key_left_is_compared_as_before(tmp_path: Path) -> None:
    # One query still ranks an old id among new ones: not another id space as a whole, so the
    # comparison is made, and the drop is a FAIL as before (the judged@k note says why it may not be).
    mixed = [[key(i, "v2")] + [key(j, "v2") for j in range(6) if j != i] for i in range(6)]
    mixed[0] = [key(0, "v1")] + mixed[0][1:]
    code, verdict, _ = gate(tmp_path, mixed)
    assert verdict["status"] == "FAIL" and code == 1
