"""The judged@k note blames unjudged keys only when there are some, and names what it blames.

The scenario's truth is known by construction: a run that ranks no key at all (one line, its
ranking empty) has no unjudged key in its top k, and leaves every other judged query out.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

DEMO = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
BLAME = "keys nobody labeled"


def _score_empty_run(tmp_path: Path) -> tuple[str, Path]:
    first = json.loads((DEMO / "judgments.jsonl").read_text(encoding="utf-8").splitlines()[0])["query_id"]
    (tmp_path / "empty.jsonl").write_text(json.dumps({"query_id": first, "ranking": []}) + "\n")
    report = tmp_path / "r.json"
    done = run_cli(
        "score", "-j", str(DEMO / "judgments.jsonl"), "-r", str(tmp_path / "empty.jsonl"),
        "--baseline", str(DEMO / "baseline.json"), "-k", "5,10", "--out", str(report),
    )  # fmt: skip
    return done.stdout + done.stderr, report


def test_a_fall_with_no_unjudged_key_blames_the_missing_queries_not_labeling(tmp_path: Path) -> None:
    said, report = _score_empty_run(tmp_path)
    assert json.loads(report.read_text())["unjudged"]["keys"]["5"] == 0  # nothing ranked, nothing unjudged
    note = next(line for line in said.splitlines() if "judged@5 fell" in line)
    assert BLAME not in note and "retrieval-eval holes" not in note, note
    assert "with no unjudged key in the head's top 5" in note and "leaves out" in note, note


def test_the_comment_and_summary_say_the_same_without_a_dangling_they(tmp_path: Path) -> None:
    _, report = _score_empty_run(tmp_path)
    compare = tmp_path / "c.json"
    made = run_cli("compare", "--base", str(DEMO / "baseline.json"), "--head", str(report), "--out", str(compare))
    assert made.code == 0, made.stderr
    for kind in ("comment", "summary"):
        shown = run_cli("render", "--report", str(report), "--compare", str(compare), "--format", kind)
        assert shown.code == 0, shown.stderr
        warning = next(line for line in shown.stdout.splitlines() if "judged@5 fell" in line)
        assert BLAME not in warning and "They " not in warning, warning
        assert "with no unjudged key in the head's top 5" in warning, warning


def test_one_new_unjudged_key_is_one_key(tmp_path: Path) -> None:
    # Four queries judged at d0..d3; the head ranks an unlabeled key first for q0 alone: judged@1
    # falls from 1 to 0.75 with exactly one key in the head's top 1 that the base did not rank.
    rows = [{"query_id": f"q{i}", "doc_uri": f"d{i}", "relevance": 1} for i in range(4)]
    (tmp_path / "j.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    base = [{"query_id": f"q{i}", "ranking": [f"d{i}"]} for i in range(4)]
    head = [{"query_id": f"q{i}", "ranking": ["new" if i == 0 else f"d{i}", f"d{i}"]} for i in range(4)]
    for name, run in (("base", base), ("head", head)):
        (tmp_path / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in run))
    assert run_cli("score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "base.jsonl"), "-k", "1",
                   "--out", str(tmp_path / "base.json")).code == 0  # fmt: skip
    done = run_cli("score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "head.jsonl"), "-k", "1",
                   "--baseline", str(tmp_path / "base.json"))  # fmt: skip
    note = next(line for line in done.stdout.splitlines() if "judged@1 fell" in line)
    assert "1 key in the head's top 1 is unjudged and was not in the base's" in note, note
