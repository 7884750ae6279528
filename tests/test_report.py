"""The report: schema-valid, reproducible, and carrying what a later comparison needs."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import jsonschema

from helpers import ROOT, fixture_path, run_cli

SCHEMA = json.loads((ROOT / "spec" / "report.schema.json").read_text())
DEMO = ROOT / "src" / "retrieval_eval" / "demo"


def score(*extra: str, env: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    result = run_cli(
        "score",
        "-j",
        str(DEMO / "judgments.jsonl"),
        "-r",
        str(DEMO / "run.jsonl"),
        "-k",
        "5,10",
        "--json",
        *extra,
        env=env,
    )
    assert result.code in (0, 1), result.stderr
    return result.json()


def test_report_is_valid_against_the_schema() -> None:
    jsonschema.validate(score("--now", "2026-01-01T00:00:00Z"), SCHEMA)


def test_report_records_config_inputs_and_per_query_detail() -> None:
    report = score("--threshold", "2", "--gain", "linear")
    assert report["config"] == {"k": [5, 10], "threshold": 2, "gain": "linear", "unjudged": "assume-irrelevant"}
    judgments_bytes = (DEMO / "judgments.jsonl").read_bytes()
    assert report["inputs"]["judgments_sha256"] == hashlib.sha256(judgments_bytes).hexdigest()
    assert report["inputs"]["run_sha256"] == hashlib.sha256((DEMO / "run.jsonl").read_bytes()).hexdigest()
    assert set(report["per_query"]) == set(report["queries"]["scored"])
    assert all(len(ranking) <= 10 for ranking in report["rankings"].values())
    assert report["judgments"]["human_labels"] == report["judgments"]["labels"]


def test_generated_at_is_the_only_moving_part(tmp_path: Path) -> None:
    first = score("--now", "2026-03-01T10:00:00+02:00")
    second = score(env={**os.environ, "SOURCE_DATE_EPOCH": "1772352000"})
    assert first["generated_at"] == "2026-03-01T08:00:00Z"
    assert second["generated_at"] == "2026-03-01T08:00:00Z"
    assert first == second


def test_out_is_written_and_matches_json_output(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "report.json"
    printed = score("--now", "2026-01-01T00:00:00Z", "--out", str(out))
    assert json.loads(out.read_text()) == printed
    assert [p.name for p in out.parent.iterdir()] == ["report.json"]


def test_baseline_with_another_threshold_makes_delta_gates_indeterminate(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    run_cli(
        "score",
        "-j",
        str(DEMO / "judgments.jsonl"),
        "-r",
        str(DEMO / "run.jsonl"),
        "-k",
        "5,10",
        "--threshold",
        "2",
        "--out",
        str(base),
    )
    # Without its rankings the base cannot be scored again under this run's threshold.
    stripped = json.loads(base.read_text())
    del stripped["rankings"]
    base.write_text(json.dumps(stripped))
    result = run_cli(
        "score",
        "-j",
        str(DEMO / "judgments.jsonl"),
        "-r",
        str(DEMO / "run.jsonl"),
        "-k",
        "5,10",
        "--baseline",
        str(base),
        "-g",
        "recall@5:-0.02",
        "--json",
    )
    assert result.code == 1
    gate = result.json()["verdict"]["gates"][0]
    assert gate["status"] == "INDETERMINATE"
    assert "threshold 2" in gate["reason"]


def test_baseline_with_another_threshold_is_rescored_when_it_kept_its_rankings(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    run_cli(
        "score",
        "-j",
        str(DEMO / "judgments.jsonl"),
        "-r",
        str(DEMO / "run.jsonl"),
        "-k",
        "5,10",
        "--threshold",
        "2",
        "--out",
        str(base),
    )
    result = run_cli(
        "score",
        "-j",
        str(DEMO / "judgments.jsonl"),
        "-r",
        str(DEMO / "run.jsonl"),
        "-k",
        "5,10",
        "--baseline",
        str(base),
        "-g",
        "recall@5:-0.02",
        "--json",
    )
    gate = result.json()["verdict"]["gates"][0]
    assert gate["status"] == "PASS", gate
    assert gate["observed"] == gate["baseline"]


def test_judged_samples_are_folded_into_the_report_and_gated(tmp_path: Path) -> None:
    samples = tmp_path / "faithfulness.json"
    samples.write_text(json.dumps({"samples": [0.8, 1.0, 0.6, 0.9, 0.7]}))
    report = score("--judged", f"faithfulness={samples}", "-g", "faithfulness:ci-lower:0.6")
    measurement = report["metrics"]["faithfulness"]
    assert measurement["deterministic"] is False and measurement["n"] == 5
    assert report["verdict"]["gates"][0]["status"] == "PASS"
    jsonschema.validate(report, SCHEMA)


def test_fixture_reports_are_schema_valid() -> None:
    for case in ("basic", "strata", "nothing-scored", "duplicate-ranking"):
        result = run_cli(
            "score",
            "-j",
            fixture_path(case, "judgments.jsonl"),
            "-r",
            fixture_path(case, "run.jsonl"),
            "-k",
            "3",
            "--json",
        )
        jsonschema.validate(result.json(), SCHEMA)


def test_policy_notes_agree_with_one_query_and_with_several(tmp_path: Path) -> None:
    (tmp_path / "j.jsonl").write_text(
        '{"query_id":"q1","doc_uri":"d1","relevance":1}\n{"query_id":"q2","doc_uri":"d2","relevance":1}\n'
        '{"query_id":"q3","doc_uri":"d3","relevance":0}\n'
    )
    (tmp_path / "one.jsonl").write_text('{"query_id":"q1","ranking":["d1","d1"]}\n{"query_id":"x","ranking":[]}\n')
    (tmp_path / "two.jsonl").write_text('{"query_id":"x","ranking":[]}\n{"query_id":"y","ranking":[]}\n')
    reasons = {}
    for name in ("one", "two"):
        result = run_cli("score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / f"{name}.jsonl"), "--json")
        reasons[name] = result.json()["verdict"]["reasons"]
    assert reasons["one"] == [
        "1 query repeated a key in its ranking; only the first occurrence of each was counted",
        "1 query had no label at relevance >= 1 and was left out of the averages",
        "1 judged query was not in the run and scored 0",
        "1 run query had no judgment and was ignored",
    ]
    # Not one query of "two" is judged: the two files name queries apart, said first.
    assert reasons["two"][0].startswith("no query of the run is a query the judgments name (the run's 'x', 'y'; ")
    assert reasons["two"][-2:] == [
        "2 judged queries were not in the run and scored 0",
        "2 run queries had no judgment and were ignored",
    ]


def test_only_a_line_shaped_like_trec_is_named_a_run_or_qrels() -> None:
    """Bytes given as a report are named a run or qrels only when their first line is one:
    random bytes that happen to hold five spaces (/dev/urandom) are not."""
    from retrieval_eval.formats.report import other_input

    assert other_input(b"q1 Q0 d1 1 12.5 bm25\n") == "a run (TREC)"
    assert other_input(b"q1 0 d1 2\n") == "judgments (TREC qrels)"
    assert other_input(b"\x9a\xff a b c d e\n") is None  # not text
    assert other_input(b"q1 Q0 d1 first 12.5 bm25\n") is None  # a rank that is no number
    assert other_input(b"q1 Q0 d1 1 high bm25\n") is None  # a score that is no number
