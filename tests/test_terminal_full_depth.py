"""``-k all`` in the terminal: the whole-ranking ndcg, mrr and map get a column of their own.

They are computed under their plain names; the table showed cutoff columns only, so with
``-k all`` alone their rows were blank, and beside a cutoff they were never shown. One query,
two relevant keys at ranks 2 and 5, values by hand:

- @2: precision 1/2, recall 1/2, mrr 1/2, AP (1/2) / 2 = 0.25,
  nDCG (1/log2 3) / (1 + 1/log2 3) = 0.3869;
- whole ranking: mrr 1/2, AP (1/2 + 2/5) / 2 = 0.45,
  nDCG (1/log2 3 + 1/log2 6) / (1 + 1/log2 3) = 0.6241.
"""

from __future__ import annotations

from pathlib import Path

from helpers import run_cli


def _table(tmp_path: Path, ks: str) -> list[str]:
    (tmp_path / "j.jsonl").write_text(
        '{"query_id":"q1","doc_uri":"d1","relevance":1}\n{"query_id":"q1","doc_uri":"d2","relevance":1}\n'
    )
    (tmp_path / "r.jsonl").write_text('{"query_id":"q1","ranking":["x","d1","y","z","d2"]}\n')
    done = run_cli("score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "r.jsonl"), "-k", ks)
    assert done.code == 0, done.stderr
    return done.stdout.splitlines()


def _row(lines: list[str], name: str) -> list[str]:
    return next(line.split() for line in lines if line.split()[:1] == [name])


def test_a_cutoff_and_all_show_both_columns(tmp_path: Path) -> None:
    lines = _table(tmp_path, "2,all")
    assert "k=2,all" in lines[0]
    assert _row(lines, "metric") == ["metric", "@2", "all"]
    assert _row(lines, "ndcg") == ["ndcg", "0.3869", "0.6241"]
    assert _row(lines, "mrr") == ["mrr", "0.5000", "0.5000"]
    assert _row(lines, "map") == ["map", "0.2500", "0.4500"]
    # No whole-ranking version of a set-based metric: the cell says so, it is not left blank.
    assert _row(lines, "precision") == ["precision", "0.5000", "·"]
    assert _row(lines, "recall") == ["recall", "0.5000", "·"]
    # R-precision (R = 2: one of the top 2 relevant, 0.5) has no cutoff: said so, below the grid.
    assert _row(lines, "r_precision") == ["r_precision", "0.5000", "(no", "cutoff)"]
    assert lines.index(next(line for line in lines if line.startswith("r_precision"))) > lines.index(
        next(line for line in lines if line.startswith("judged"))
    )


def test_all_alone_shows_the_whole_ranking_values(tmp_path: Path) -> None:
    lines = _table(tmp_path, "all")
    assert "k=all" in lines[0]
    assert _row(lines, "ndcg") == ["ndcg", "0.6241"]
    assert _row(lines, "map") == ["map", "0.4500"]
    assert _row(lines, "precision") == ["precision", "·"]
