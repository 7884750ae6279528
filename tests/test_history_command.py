"""``history --json``: the points as data, as every reporting command gives them."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli


def _report(tmp_path: Path, name: str, misses: int) -> str:
    labels = [{"query_id": f"q{i}", "doc_uri": f"d{i}", "relevance": 1} for i in range(4)]
    (tmp_path / "j.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels))
    run = [{"query_id": f"q{i}", "ranking": ["x" if i < misses else f"d{i}"]} for i in range(4)]
    (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in run))
    out = tmp_path / f"{name}.json"
    done = run_cli(
        "score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / f"{name}.jsonl"), "-k", "1", "--out", str(out)
    )
    assert done.code == 0, done.stderr
    return str(out)


def test_history_json_holds_each_reports_own_values(tmp_path: Path) -> None:
    paths = [_report(tmp_path, "a", 0), _report(tmp_path, "b", 2)]
    done = run_cli("history", *paths, "--metric", "recall@1", "--json")
    assert done.code == 0, done.stderr
    history = done.json()
    assert history["metrics"] == ["recall@1"]
    # 4 of 4 found, then 2 of 4: by hand.
    assert [p["values"]["recall@1"] for p in history["points"]] == [1.0, 0.5]
    assert [p["label"] for p in history["points"]] == ["a.json", "b.json"]
    assert [p["break"] for p in history["points"]] == [None, None]


def test_history_json_to_a_file(tmp_path: Path) -> None:
    paths = [_report(tmp_path, "a", 0), _report(tmp_path, "b", 1)]
    out = tmp_path / "history.json"
    assert run_cli("history", *paths, "--json", "--out", str(out)).code == 0
    assert [p["values"]["recall@1"] for p in json.loads(out.read_text())["points"]] == [1.0, 0.75]
