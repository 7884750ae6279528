"""``compare``'s terminal text: the metric rows line up whatever the names (the abstention rates
are longer than the column was), and the rows are followed by what "significant" means, as
``score --baseline`` prints it."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli


def _write(path: Path, rows: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def test_rows_line_up_and_significance_is_explained(tmp_path: Path) -> None:
    labels = [{"query_id": f"q{i}", "doc_uri": f"d{i}", "relevance": 1} for i in range(6)]
    judgments = _write(tmp_path / "j.jsonl", [*labels, {"query_id": "n1", "query": "x", "expect": "no_answer"}])
    runs = {
        "base": [{"query_id": f"q{i}", "ranking": [f"d{i}"]} for i in range(6)],
        "head": [{"query_id": f"q{i}", "ranking": ["x", f"d{i}"]} for i in range(6)],
    }
    reports = []
    for name, rows in runs.items():
        out = tmp_path / f"{name}.json"
        done = run_cli(
            "score", "-j", judgments, "-r", _write(tmp_path / f"{name}.jsonl", rows), "-k", "1", "--out", str(out)
        )
        assert done.code == 0, done.stderr
        reports.append(str(out))
    done = run_cli("compare", "--base", reports[0], "--head", reports[1], "-j", judgments)
    assert done.code == 0, done.stderr
    lines = done.stdout.splitlines()
    note = next(i for i, line in enumerate(lines) if line.startswith("paired bootstrap"))
    rows = lines[1:note]  # the metric rows: after the heading, before the note
    names = {line.split()[0] for line in rows}
    assert {"recall@1", "abstention_rate", "false_abstention_rate"} <= names
    assert len({line.index(" -> ") for line in rows}) == 1, rows  # one column, whatever the name
    # Every query lost its hit at rank 1: recall@1 1.0 -> 0.0 on 6 of 6 queries, by hand.
    assert next(line for line in rows if line.split()[0] == "recall@1").split()[1:4] == ["1.0000", "->", "0.0000"]
    after = lines[note]
    assert after.startswith("paired bootstrap, 10,000 resamples (seed ")
    assert "a Δ marked significant is significant at 5% after Holm's adjustment" in after
