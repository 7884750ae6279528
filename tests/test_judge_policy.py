"""``score --unjudged machine``: the bounds on human labels first, then a calibrated judge's labels.

A world built so its truth is known: 60 queries, 10 chunks each in the run's top 10, the
first 4 labeled by people, the other 6 unlabeled (holes) with a hidden grade. The fake judge
(tests/fake_judge.py) answers from that hidden truth with planted noise; the true
precision@10 is computed from the truth, so the gates' right answers are known.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval

from fake_judge import Behaviour, FakeChat, serve
from helpers import run_cli

QUERIES, DEPTH, LABELED = 60, 10, 4


def chunk_id(text: str) -> str:
    return "c1:" + hashlib.md5(text.encode()).hexdigest()  # noqa: S324 (an id)


def world(tmp: Path, seed: int = 4) -> tuple[dict[str, int], float, int]:
    """Files for the world; returns the truth (text -> grade), the true mean precision@10 over
    the scored queries (those with a relevant human label: the others have no positives), and
    how many holes those queries hold."""
    rng = random.Random(seed)
    truth: dict[str, int] = {}
    chunks, labels, run = [], [], []
    precisions = []
    for q in range(QUERIES):
        ranking, grades = [], []
        for n in range(DEPTH):
            text = f"query {q} passage {n} {rng.random():.8f}"
            grade = rng.choice([0, 0, 1, 2, 3])
            truth[text] = grade
            grades.append(grade)
            cid = chunk_id(text)
            ranking.append(cid)
            chunks.append({"chunk_id": cid, "doc_uri": f"doc{q}-{n}", "text": text})
            if n < LABELED:
                labels.append(
                    {"query_id": f"q{q}", "query": f"question {q}", "doc_uri": f"doc{q}-{n}", "chunk_id": cid,
                     "chunk_text": text, "relevance": grade}
                )  # fmt: skip
        run.append({"query_id": f"q{q}", "ranking": ranking})
        if any(grade >= 1 for grade in grades[:LABELED]):
            precisions.append(sum(grade >= 1 for grade in grades) / DEPTH)
    (tmp / "corpus.json").write_text(
        json.dumps({"corpus_fingerprint": "f", "chunker_fingerprint": "f", "chunks": chunks})
    )
    (tmp / "j.jsonl").write_text("".join(json.dumps(line) + "\n" for line in labels))
    (tmp / "run.jsonl").write_text("".join(json.dumps(line) + "\n" for line in run))
    return truth, sum(precisions) / len(precisions), len(precisions) * (DEPTH - LABELED)


def label_holes(tmp: Path, truth: dict[str, int], behaviour: Behaviour, samples: int = 3) -> None:
    holes = run_cli(
        "holes", "-j", str(tmp / "j.jsonl"), "-r", str(tmp / "run.jsonl"), "-k", "10",
        "--corpus", str(tmp / "corpus.json"), "--out", str(tmp / "queue.jsonl"),
    )  # fmt: skip
    assert holes.code == 0, holes.stderr
    with serve(FakeChat(truth, behaviour)) as url:
        judged = run_cli(
            "judge", "--queue", str(tmp / "queue.jsonl"), "-j", str(tmp / "j.jsonl"), "--endpoint", url,
            "--model", "m", "--batch", "10", "--calibration", "200", "--out", str(tmp / "machine.jsonl"),
            "--samples", str(samples),
        )  # fmt: skip
    assert judged.code == 0, judged.stderr


def true_ndcg(tmp: Path, truth: dict[str, int]) -> float:
    """nDCG@10 (trec_eval's linear gains) with every hole at its hidden grade, over the scored queries."""
    chunks = json.loads((tmp / "corpus.json").read_text())["chunks"]
    by_id = {chunk["chunk_id"]: truth[chunk["text"]] for chunk in chunks}
    runs = [json.loads(line) for line in (tmp / "run.jsonl").read_text().splitlines()]
    qrels = {r["query_id"]: {key: by_id[key] for key in r["ranking"]} for r in runs}
    scored = {q for q, r in zip(qrels, runs) if any(by_id[key] >= 1 for key in r["ranking"][:LABELED])}
    run = {r["query_id"]: {key: float(100 - i) for i, key in enumerate(r["ranking"])} for r in runs}
    values = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    return sum(values[q]["ndcg_cut_10"] for q in scored) / len(scored)


def score(tmp: Path, *gates: str, policy: str = "machine") -> tuple[int, dict[str, Any]]:
    args = ["score", "-j", str(tmp / "j.jsonl"), "-r", str(tmp / "run.jsonl"), "-k", "10", "--gain", "linear"]
    args += ["--corpus", str(tmp / "corpus.json"), "--unjudged", policy, "--out", str(tmp / "report.json")]
    if policy == "machine":
        args += ["--machine-labels", str(tmp / "machine.jsonl")]
    for gate in gates:
        args += ["-g", gate]
    result = run_cli(*args)
    assert result.code in (0, 1), result.stderr
    return result.code, json.loads((tmp / "report.json").read_text())


@pytest.mark.slow  # a judge labels the holes, then two scores through the CLI
def test_a_calibrated_judge_resolves_what_the_bounds_leave_open_and_the_human_verdict_stays(tmp_path: Path) -> None:
    truth, true_precision, holes = world(tmp_path)
    label_holes(tmp_path, truth, Behaviour(noise=0.1, leniency=0.1, seed=2))
    passing = round(true_precision - 0.1, 2)
    failing = round(true_precision + 0.2, 2)
    ndcg = true_ndcg(tmp_path, truth)
    _code, bounded = score(tmp_path, policy="bounded")
    middle = (bounded["metrics"]["ndcg@10"]["value"] + bounded["metrics"]["ndcg@10"]["upper"]) / 2
    code, report = score(tmp_path, f"precision@10:{passing}", f"precision@10:{failing}", f"ndcg@10:{middle:.4f}")
    section = report["machine_labels"]
    assert section["calibration"]["status"] == "calibrated" and section["calibration"]["pairs"] >= 50
    assert section["holes"] == holes
    assert 0 < section["machine_labeled"] <= section["holes"]
    assert section["human_labels_verdict"] == "INDETERMINATE"
    first, second, third = section["gates"]
    # The truth lies between the bounds: both precision gates are open on the human labels.
    assert first["human_status"] == second["human_status"] == "INDETERMINATE"
    assert first["bounds"][0] < passing and failing < first["bounds"][1]
    assert first["interval"][0] <= true_precision <= first["interval"][1]
    assert (first["status"], second["status"]) == ("PASS", "FAIL")
    # nDCG does not add up over keys: its interval is drawn, and it holds the true value too
    # (which here lies below the "lower" bound: relevant holes low in the ranking raise the ideal).
    assert third["human_status"] == "INDETERMINATE"
    assert third["interval"][0] <= ndcg <= third["interval"][1]
    assert third["status"] in ("INDETERMINATE", "PASS" if ndcg >= middle else "FAIL")
    statuses = [gate["status"] for gate in report["verdict"]["gates"]]
    assert statuses[:2] == ["PASS", "FAIL"] and report["verdict"]["status"] == "FAIL" and code == 1


def test_a_judge_below_the_floor_is_reported_and_changes_no_gate(tmp_path: Path) -> None:
    truth, true_precision, _ = world(tmp_path, seed=5)
    label_holes(tmp_path, truth, Behaviour(noise=0.95, seed=3), samples=1)
    _code, report = score(tmp_path, f"precision@10:{round(true_precision - 0.1, 2)}")
    section = report["machine_labels"]
    assert section["calibration"]["status"] == "below the kappa floor"
    assert section["gates"][0]["status"] == "INDETERMINATE" and "reported, not used" in section["gates"][0]["note"]
    assert report["verdict"]["status"] == "INDETERMINATE"


def test_without_the_machine_policy_nothing_changes(tmp_path: Path) -> None:
    truth, _, _ = world(tmp_path, seed=6)
    label_holes(tmp_path, truth, Behaviour(noise=0.1, seed=2))
    _code, bounded = score(tmp_path, "precision@10:0.3", policy="bounded")
    assert "machine_labels" not in bounded
    refused = run_cli(
        "score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "run.jsonl"),
        "--machine-labels", str(tmp_path / "machine.jsonl"),
    )  # fmt: skip
    assert refused.code == 2 and "machine labels are read only under unjudged: machine" in refused.stderr
    missing = run_cli(
        "score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "run.jsonl"), "--unjudged", "machine"
    )
    assert missing.code == 2 and "set machine-labels too" in missing.stderr


@pytest.mark.parametrize("edit", ["a changed chunk text", "labels of another judge"])
def test_labels_that_do_not_match_are_not_read(tmp_path: Path, edit: str) -> None:
    truth, true_precision, _ = world(tmp_path, seed=7)
    label_holes(tmp_path, truth, Behaviour(noise=0.1, seed=2))
    lines = [json.loads(line) for line in (tmp_path / "machine.jsonl").read_text().splitlines()]
    for line in lines:
        if line["role"] == "hole":
            if edit == "a changed chunk text":
                line["text_sha256"] = "0" * 64
            else:
                line["model"] = "another"
    (tmp_path / "machine.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    _code, report = score(tmp_path, f"precision@10:{round(true_precision - 0.1, 2)}")
    section = report["machine_labels"]
    if edit == "a changed chunk text":
        assert section["machine_labeled"] == 0 and section["invalidated"] == section["holes"]
        gate = section["gates"][0]
        assert gate["status"] == "INDETERMINATE" and gate["interval"] == gate["bounds"]
    else:
        assert section["calibration"] is None and section["gates"][0]["status"] == "INDETERMINATE"
