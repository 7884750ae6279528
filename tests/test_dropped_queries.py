"""A pull request that drops a query from the judgments is named, not hidden by the rescoring.

When the judgments change, the base rankings are scored again under the head's judgments, so
both sides pair over the queries those judgments score. A query the base report scored that the
head's judgments no longer count (its labels deleted, or re-graded to 0) was then on neither
side: ``queries.removed`` was empty and no finding named it, while every absolute figure of the
head moved (a failing query deleted raises them). Truth by construction: three queries, the base
run finds q1 and q2 and misses q3; the head's judgments drop q3, or grade its label 0.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli

LABELS = {"q1": "d1", "q2": "d2", "q3": "d3"}
RUN = [
    {"query_id": "q1", "ranking": ["d1"]},
    {"query_id": "q2", "ranking": ["d2"]},
    {"query_id": "q3", "ranking": ["x"]},
]


def _write(path: Path, rows: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def _compare(tmp_path: Path, head_grades: dict[str, int]) -> dict[str, object]:
    base_j = _write(tmp_path / "base.jsonl", [{"query_id": q, "doc_uri": d, "relevance": 1} for q, d in LABELS.items()])
    head_j = _write(
        tmp_path / "head.jsonl",
        [{"query_id": q, "doc_uri": LABELS[q], "relevance": grade} for q, grade in head_grades.items()],
    )
    run = _write(tmp_path / "run.jsonl", RUN)
    reports = []
    for name, judgments in (("base", base_j), ("head", head_j)):
        out = tmp_path / f"{name}.json"
        done = run_cli("score", "-j", judgments, "-r", run, "-k", "1", "--out", str(out))
        assert done.code in (0, 1), done.stderr
        reports.append(str(out))
    done = run_cli("compare", "--base", reports[0], "--head", reports[1], "-j", head_j, "--json")
    assert done.code == 0, done.stderr
    document: dict[str, object] = json.loads(done.stdout)
    return document


def _finding(document: dict[str, object], code: str) -> dict[str, str] | None:
    findings = document["comparability"]
    assert isinstance(findings, list)
    return next((f for f in findings if f["code"] == code), None)


def test_a_query_deleted_from_the_judgments_is_named(tmp_path: Path) -> None:
    document = _compare(tmp_path, {"q1": 1, "q2": 1})
    assert document["yardstick"] == "rescored"
    assert document["queries"] == {"paired": 2, "added": [], "removed": ["q3"]}
    dropped = _finding(document, "queries-dropped")
    assert dropped is not None and "(q3)" in dropped["detail"]
    assert _finding(document, "queries-removed") is None  # told once, as what it is
    # The deltas pair q1 and q2 only: recall@1 1.0 on both sides (the base's own report: 2/3).
    metrics = document["metrics"]
    assert isinstance(metrics, dict)
    assert (metrics["recall@1"]["base"], metrics["recall@1"]["head"]) == (1.0, 1.0)


def test_a_query_whose_label_is_graded_0_is_named_too(tmp_path: Path) -> None:
    document = _compare(tmp_path, {"q1": 1, "q2": 1, "q3": 0})
    assert document["queries"] == {"paired": 2, "added": [], "removed": ["q3"]}
    dropped = _finding(document, "queries-dropped")
    assert dropped is not None and "(q3)" in dropped["detail"]


def test_the_same_judgments_drop_nothing(tmp_path: Path) -> None:
    document = _compare(tmp_path, {"q1": 1, "q2": 1, "q3": 1})
    assert document["yardstick"] == "same"
    assert document["queries"] == {"paired": 3, "added": [], "removed": []}
    assert _finding(document, "queries-dropped") is None


def _gate_reason(tmp_path: Path, head_grades: dict[str, int], gate: str = "recall@1:-0.6") -> tuple[str, str]:
    """score --baseline with a delta gate: the gate's status and reason."""
    base_j = _write(tmp_path / "base.jsonl", [{"query_id": q, "doc_uri": d, "relevance": 1} for q, d in LABELS.items()])
    head_j = _write(
        tmp_path / "head.jsonl",
        [{"query_id": q, "doc_uri": LABELS[q], "relevance": grade} for q, grade in head_grades.items()],
    )
    base_run = _write(tmp_path / "run.jsonl", RUN)
    # The head run loses q2's hit too: on the queries both sides score, recall@1 falls 1.0 -> 0.5.
    head_run = _write(tmp_path / "head-run.jsonl", [RUN[0], {"query_id": "q2", "ranking": ["x"]}, RUN[2]])
    base = tmp_path / "base.json"
    assert run_cli("score", "-j", base_j, "-r", base_run, "-k", "1", "--out", str(base)).code in (0, 1)
    done = run_cli("score", "-j", head_j, "-r", head_run, "-k", "1", "--baseline", str(base), "-g", gate, "--json")
    (gate,) = done.json()["verdict"]["gates"]
    return gate["status"], gate["reason"]


def test_a_delta_gate_over_dropped_queries_is_not_decided_and_says_which(tmp_path: Path) -> None:
    # The head deletes q3's labels: the gate reads q1 and q2 only. Within its tolerance there, it
    # cannot PASS: a retriever that broke q3 would pass by deleting q3's labels.
    status, reason = _gate_reason(tmp_path, {"q1": 1, "q2": 1})
    assert status == "INDETERMINATE"
    assert "recall@1 moved -0.5000 (from 1 to 0.5) over the 2 queries scored on both sides" in reason
    assert "1 the base scored is not compared (q3)" in reason
    assert "not decided: the head's judgments no longer score it, so the delta cannot say" in reason


def test_a_delta_gate_that_fails_over_the_rest_still_fails(tmp_path: Path) -> None:
    # What the queries both sides score show is real: a drop beyond the tolerance there is a FAIL.
    status, reason = _gate_reason(tmp_path, {"q1": 1, "q2": 1}, gate="recall@1:-0.1")
    assert status == "FAIL"
    assert "1 the base scored is not compared (q3)" in reason


def test_a_delta_gate_over_every_query_says_nothing_more(tmp_path: Path) -> None:
    status, reason = _gate_reason(tmp_path, {"q1": 1, "q2": 1, "q3": 1})
    assert "not compared" not in reason and "scored on both sides" not in reason


def test_the_comment_warns_of_dropped_queries_beside_a_passing_verdict(tmp_path: Path) -> None:
    # The comment shows only failing gates' reasons, and its limits are folded away: the drop is
    # said in a warning under the headline, where a reviewer reads the PASS.
    document = _compare(tmp_path, {"q1": 1, "q2": 1})
    comparison = tmp_path / "comparison.json"
    comparison.write_text(json.dumps(document))
    head = str(tmp_path / "head.json")
    done = run_cli("render", "--report", head, "--compare", str(comparison), "--format", "comment")
    assert done.code == 0, done.stderr
    warning = done.stdout.split("> [!WARNING]\n", 1)[1].split("\n", 1)[0]
    assert warning.startswith("> 1 query is no longer scored under the head's judgments \\(q3\\)")


def test_unlabelling_only_the_keys_the_head_lost_is_not_decided(tmp_path: Path) -> None:
    # Every query keeps a relevant label, so none is dropped: the head's judgments only remove
    # the label on the key the head's run lost (q2's d2, found by the base). Rescored, the base
    # falls with the label and the delta is 0; the base's own precision@1 on q2 was 1.
    base_j = _write(tmp_path / "base.jsonl", [{"query_id": q, "doc_uri": d, "relevance": 1} for q, d in LABELS.items()])
    rows = [{"query_id": q, "doc_uri": d, "relevance": 1} for q, d in LABELS.items() if q != "q2"]
    head_j = _write(tmp_path / "head.jsonl", [*rows, {"query_id": "q2", "doc_uri": "other", "relevance": 1}])
    base_run = _write(tmp_path / "run.jsonl", RUN)
    head_run = _write(tmp_path / "head-run.jsonl", [RUN[0], {"query_id": "q2", "ranking": ["x"]}, RUN[2]])
    base = tmp_path / "base.json"
    assert run_cli("score", "-j", base_j, "-r", base_run, "-k", "1", "--out", str(base)).code in (0, 1)
    honest = run_cli(
        "score", "-j", base_j, "-r", head_run, "-k", "1", "--baseline", str(base), "-g", "recall@1:-0.1", "--json"
    )
    assert honest.json()["verdict"]["status"] == "FAIL"  # with the base's labels: a drop on q2
    done = run_cli(
        "score", "-j", head_j, "-r", head_run, "-k", "1", "--baseline", str(base), "-g", "recall@1:-0.1", "--json"
    )
    (gate,) = done.json()["verdict"]["gates"]
    assert gate["status"] == "INDETERMINATE", gate
    assert "removed or lowered labels on keys the base ranked in a top k, in 1 query (q2)" in gate["reason"]


def test_a_label_edit_under_the_same_ranking_kept_to_other_depths_hides_nothing(tmp_path: Path) -> None:
    # The same run scored with -k 1 (base) and -k 1,3 (head) keeps heads of other lengths; the
    # label edit then lowers both sides alike, so the gate is decided, not set aside.
    base_j = _write(tmp_path / "base.jsonl", [{"query_id": q, "doc_uri": d, "relevance": 1} for q, d in LABELS.items()])
    rows = [{"query_id": q, "doc_uri": d, "relevance": int(q != "q2")} for q, d in LABELS.items()]
    head_j = _write(tmp_path / "head.jsonl", [*rows, {"query_id": "q2", "doc_uri": "other", "relevance": 1}])
    ranked = [{"query_id": row["query_id"], "ranking": [*row["ranking"], "y", "z"]} for row in RUN]
    run = _write(tmp_path / "run.jsonl", ranked)
    base = tmp_path / "base.json"
    assert run_cli("score", "-j", base_j, "-r", run, "-k", "1", "--out", str(base)).code in (0, 1)
    done = run_cli(
        "score", "-j", head_j, "-r", run, "-k", "1,3", "--baseline", str(base), "-g", "recall@1:-0.1", "--json"
    )
    (gate,) = done.json()["verdict"]["gates"]
    assert gate["status"] == "PASS", gate


def test_a_base_report_from_another_evaluation_set_is_said_to_share_no_query(tmp_path: Path) -> None:
    # The base report holds recall@1 (1.0), over queries the head's judgments do not have: the gate
    # said "the baseline report has no recall@1", which sent the user looking for a missing metric.
    base_j = _write(tmp_path / "base-j.jsonl", [{"query_id": "x1", "doc_uri": "d1", "relevance": 1}])
    base_r = _write(tmp_path / "base-r.jsonl", [{"query_id": "x1", "ranking": ["d1"]}])
    base = tmp_path / "base.json"
    assert run_cli("score", "-j", base_j, "-r", base_r, "-k", "1", "--report", str(base)).code == 0
    head_j = _write(tmp_path / "j.jsonl", [{"query_id": "q1", "doc_uri": "d1", "relevance": 1}])
    head_r = _write(tmp_path / "r.jsonl", [{"query_id": "q1", "ranking": ["d1"]}])
    done = run_cli("score", "-j", head_j, "-r", head_r, "-k", "1", "--baseline", str(base), "-g", "recall@1:-0.02")
    assert done.code == 1, done.stdout + done.stderr
    assert "INDETERMINATE recall@1:-0.02" in done.stdout and "share no scored query" in done.stdout, done.stdout
    assert "has no recall@1" not in done.stdout, done.stdout
