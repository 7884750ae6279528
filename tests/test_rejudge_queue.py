"""The re-judge queue: the labels a re-chunk broke, as lines a person completes; filled in,
appended and repaired, the re-chunk pull request gets its decided verdict and true delta."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import run_cli
from rechunk_scenarios import make_scenario

BROKEN = 3


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_broken_labels_are_queued_then_re_judged_into_a_decided_verdict(tmp_path: Path) -> None:
    scenario = make_scenario("sentences", "worse")
    files = scenario.write(tmp_path)
    labels = _lines(files.judgments)
    for record in labels[:BROKEN]:
        del record["quote"]  # nothing says which sentence holds the answer: a person must say
    files.judgments.write_text("".join(json.dumps(r) + "\n" for r in labels), encoding="utf-8")
    base = tmp_path / "base.json"
    assert run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
        "-k", "5,10", "--report", str(base),
    ).code == 0  # fmt: skip

    fixed, queue = tmp_path / "judgments.v2.jsonl", tmp_path / "rejudge.jsonl"
    drift = run_cli(
        "drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed),
        "--queue", str(queue),
    )  # fmt: skip
    assert drift.code == 1  # three labels still need a person
    assert f"wrote 9 lines for 3 labels to {queue}" in drift.stdout
    queued = _lines(queue)
    for line, query in zip(queued, [q for q in scenario.queries[:BROKEN] for _ in range(3)]):
        # One line per sentence the paragraph was cut into, with the old text beside the new.
        assert line["query_id"] == query.id and "relevance" not in line
        assert line["chunk_text"] in query.paragraph and line["rejudge"]["chunk_text"] == query.paragraph
        assert line["rejudge"]["status"] == "SPLIT" and line["rejudge"]["from"] == query.base_answer
    assert [line["chunk_id"] for line in queued[:3]] == [
        c.id
        for c in scenario.head_chunks
        if c.doc == scenario.queries[0].doc and c.text in scenario.queries[0].paragraph
    ]

    # Appended unfilled, validate says what the lines are.
    unfilled = tmp_path / "unfilled.jsonl"
    unfilled.write_text(fixed.read_text() + queue.read_text())
    refused = run_cli("validate", "-j", str(unfilled))
    assert refused.code == 2 and "this is a re-judge queue line ('retrieval-eval drift --queue')" in refused.stderr
    assert "label-queue" not in refused.stderr and "holes" not in refused.stderr

    # The person reads each candidate: the sentence that answers is relevant, the others are not.
    answers = {q.id: q.quote for q in scenario.queries}
    for line in queued:
        line["relevance"] = int(answers[line["query_id"]] in line["chunk_text"])
        line["labeled_by"] = "human:re-judge"
    filled = "".join(json.dumps(line) + "\n" for line in queued)
    (tmp_path / "filled.jsonl").write_text(filled)
    assert run_cli("validate", "-j", str(tmp_path / "filled.jsonl")).code == 0
    fixed.write_text(fixed.read_text() + filled)
    repaired = run_cli("drift", "-j", str(fixed), "-c", str(files.head_corpus), "--fix", "--json")
    assert repaired.code == 0, repaired.stdout
    replaced = repaired.json()["fix"]["replaced"]
    assert [(r["query_id"], r["status"]) for r in replaced] == [(q.id, "SPLIT") for q in scenario.queries[:BROKEN]]

    gated = run_cli(
        "score", "-j", str(fixed), "-r", str(files.head_run), "--corpus", str(files.head_corpus), "-k", "5,10",
        "--baseline", str(base), "-g", "recall@5:-0.02", "--json",
    ).json()  # fmt: skip
    assert gated["verdict"]["status"] == scenario.truth.verdict(0.02) == "FAIL"
    (gate,) = gated["verdict"]["gates"]
    assert abs(gate["observed"] - gate["baseline"] - scenario.truth.delta("recall@5")) <= 0.02


def test_the_summary_and_the_comment_point_at_the_queue(tmp_path: Path) -> None:
    scenario = make_scenario("windows", "same")
    files = scenario.write(tmp_path)
    labels = _lines(files.judgments)
    del labels[0]["quote"], labels[0]["chunk_text"]  # only text_sha: the text is gone for drift
    files.judgments.write_text("".join(json.dumps(r) + "\n" for r in labels), encoding="utf-8")
    report = tmp_path / "head.json"
    run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.head_run), "--corpus", str(files.head_corpus),
        "-k", "5,10", "--report", str(report),
    )  # fmt: skip
    for kind in ("summary", "comment"):
        shown = run_cli("render", "--report", str(report), "--format", kind).stdout
        assert "write them as a queue" in shown
        assert f"retrieval-eval drift -j {files.judgments} -c {files.head_corpus} --queue rejudge.jsonl" in shown
