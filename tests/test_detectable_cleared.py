"""A delta gate that PASSes with its whole 95% interval on the allowed side was seen to hold.

"This set detects drops of 0.46 or more" is the right caveat for a PASS whose interval reaches
past the tolerance: the queries could not tell a breach from noise. It is the wrong one for a
large, significant gain, and ``--require-detectable`` turned that gain INDETERMINATE. Truth by
construction: eight queries, each one's only relevant key at rank 2 in the base (recall@1 0);
the head puts it at rank 1 for the first few (+1 each) and leaves the rest (0 each).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import run_cli

N = 8


def _write(path: Path, rows: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def _gate(tmp_path: Path, gains: int, gate: str, *extra: str) -> dict[str, Any]:
    labels = [{"query_id": f"q{i}", "doc_uri": f"d{i}", "relevance": 1} for i in range(N)]
    judgments = _write(tmp_path / "j.jsonl", labels)
    base_run = _write(tmp_path / "base.jsonl", [{"query_id": f"q{i}", "ranking": ["x", f"d{i}"]} for i in range(N)])
    base = tmp_path / "base.json"
    assert run_cli("score", "-j", judgments, "-r", base_run, "-k", "1", "--out", str(base)).code == 0
    head = [{"query_id": f"q{i}", "ranking": [f"d{i}"] if i < gains else ["x", f"d{i}"]} for i in range(N)]
    done = run_cli(
        "score", "-j", judgments, "-r", _write(tmp_path / "head.jsonl", head), "-k", "1",
        "--baseline", str(base), "-g", gate, "--json", *extra,
    )  # fmt: skip
    found: dict[str, Any] = done.json()["verdict"]["gates"][0]
    return found


def test_a_significant_gain_passes_without_the_caveat(tmp_path: Path) -> None:
    # Six of eight gain 1: mean +0.75, every resample's mean at least +0.25 or so, far above -0.02;
    # the differences' sd 0.463 detects only 0.46 or more at 8 queries.
    gate = _gate(tmp_path, 6, "recall@1:-0.02")
    assert gate["status"] == "PASS", gate
    assert "this set detects" not in gate["reason"]
    assert "lies at or above -0.02" in gate["reason"]
    assert gate["detectable"]["mde"] > 0.02  # not seen, as before: the interval decides it


def test_require_detectable_keeps_a_significant_gain_a_pass(tmp_path: Path) -> None:
    assert _gate(tmp_path, 6, "recall@1:-0.02", "--require-detectable")["status"] == "PASS"


def test_a_pass_whose_interval_reaches_past_its_threshold_keeps_its_caveat(tmp_path: Path) -> None:
    # Four of eight gain 1: mean +0.5 passes "+0.4", but resamples drawing mostly the unchanged
    # four reach far below 0.4, so the interval does not clear it and the set cannot see it.
    gate = _gate(tmp_path, 4, "recall@1:+0.4")
    assert gate["status"] == "PASS", gate
    assert "this set detects gains of recall@1" in gate["reason"] and "lies at or above" not in gate["reason"]
    assert _gate(tmp_path, 4, "recall@1:+0.4", "--require-detectable")["status"] == "INDETERMINATE"
