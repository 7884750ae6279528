"""The command line as a user meets it: help, version, colour, demo, validate with a run, convert."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, fixture_path, run_cli
from retrieval_eval import __version__

DEMO = ROOT / "src" / "retrieval_eval" / "demo"


def test_version_and_help() -> None:
    assert run_cli("--version").stdout == f"retrieval-eval {__version__}\n"
    listing = run_cli("--help").stdout
    for name in ("score", "validate", "convert", "summarize", "demo"):
        assert name in listing
    assert "recall@5:-0.02:significant" in run_cli("score", "--help").stdout


def test_demo_runs_the_whole_pipeline_and_passes() -> None:
    result = run_cli("demo", "--color", "never")
    assert result.code == 0, result.stderr
    assert result.stdout.startswith("retrieval-eval score ")
    for part in ("retrieval-eval score", "metric", "strata", "gates", "verdict  PASS"):
        assert part in result.stdout
    assert "\x1b[" not in result.stdout
    # The floor, the abstention rates and the deliberately easy stratum (the lanes extra is installed here).
    assert "margin over the floor (bm25;" in result.stdout
    assert "  recall@5      0.6944  0.8056  +0.1111" in result.stdout
    assert "abstention_rate         0.0000    1.0000   +1.0000  —  n=2" in result.stdout
    assert "false_abstention_rate   0.0000    0.0000   ±0.0000  —  n=18" in result.stdout
    assert "easy-set  on stratum sync the BM25 floor reaches hit_rate@5 1.000 over 6 queries" in result.stdout


def test_demo_without_the_lanes_extra_says_how_to_get_the_floor_and_still_passes(tmp_path: Path) -> None:
    # A module that refuses to import stands in for bm25s not being installed.
    (tmp_path / "bm25s.py").write_text('raise ImportError("not installed")\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    result = run_cli("demo", "--color", "never", env=env)
    assert result.code == 0, result.stderr
    assert "floor  the bm25 floor was not computed: install retrieval-eval[lanes] for the floor" in result.stdout
    assert "verdict  PASS" in result.stdout and "margin over the floor" not in result.stdout
    assert result.stdout.count("pip install") == 1, result.stdout  # said once, in the floor's line
    assert "the easy-set check was skipped: it needs the same BM25 floor (see the floor's note)" in result.stdout


@pytest.mark.slow  # the whole demo pipeline, with its comparison, three times
def test_demo_out_writes_the_files_and_prints_a_command_that_reproduces_its_output(tmp_path: Path) -> None:
    folder = tmp_path / "my demo"  # a space: the printed command must quote it
    result = run_cli("demo", "--out", "my demo", cwd=tmp_path)
    assert result.code == 0, result.stderr
    for name in ("judgments.jsonl", "run.jsonl", "baseline.json", "corpus.json"):
        assert (folder / name).read_bytes() == (DEMO / name).read_bytes()
    first, blank, rest = result.stdout.partition("\n\n")
    assert first.startswith("retrieval-eval score ") and "<demo>" not in first
    # The printed line, pasted as printed into a shell in the same folder, prints the rest byte for byte.
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    pasted = subprocess.run(["/bin/sh", "-c", first], cwd=tmp_path, env=env, capture_output=True, timeout=120)
    assert pasted.returncode == 0, pasted.stderr
    assert pasted.stdout == rest.encode("utf-8")
    # A second run finds its own files and writes nothing new.
    assert run_cli("demo", "--out", "my demo", cwd=tmp_path).stdout == result.stdout


def test_demo_prints_a_command_without_placeholders() -> None:
    first = run_cli("demo", "--color", "never").stdout.splitlines()[0]
    assert "<demo>" not in first and "'false_abstention_rate:<=0.02'" in first
    for path in ("judgments.jsonl", "run.jsonl", "baseline.json", "corpus.json"):
        assert str(DEMO / path) in first


def test_colour_choices_and_no_color() -> None:
    args = ("score", "-j", str(DEMO / "judgments.jsonl"), "-r", str(DEMO / "run.jsonl"))
    assert "\x1b[32m" in run_cli(*args, "--color", "always").stdout
    assert "\x1b[" not in run_cli(*args).stdout  # not a terminal
    env = {**os.environ, "NO_COLOR": "1"}
    assert "\x1b[" not in run_cli(*args, "--color", "auto", env=env).stdout


def test_validate_with_a_run_catches_silent_zeros(tmp_path: Path) -> None:
    chunk = "c1:" + "b" * 32
    (tmp_path / "run.jsonl").write_text(
        json.dumps({"query_id": "q1", "ranking": [chunk]})
        + "\n"
        + json.dumps({"query_id": "q9", "ranking": [chunk, chunk]})
        + "\n"
    )
    result = run_cli(
        "validate", "-j", fixture_path("basic", "judgments.jsonl"), "-r", str(tmp_path / "run.jsonl"), "--json"
    )
    codes = [(i["code"], i["subject"]) for i in result.json()["issues"]]
    assert ("run-keys-unmatched", "q1") in codes
    assert ("run-query-missing", "q2") in codes
    assert ("run-query-not-judged", "q9") in codes
    assert ("run-repeated-key", "q9") in codes
    assert ("chunk-run-vs-document-labels", "") in codes
    assert result.code == 0  # warnings only


def test_convert_round_trips_runs_and_labels(tmp_path: Path) -> None:
    trec = tmp_path / "run.trec"
    assert (
        run_cli("convert", fixture_path("duplicate-ranking", "run.jsonl"), "--to", "trec-run", "--out", str(trec)).code
        == 0
    )
    back = run_cli("convert", str(trec), "--to", "run-jsonl")
    rankings = {r["query_id"]: r["ranking"] for r in map(json.loads, back.stdout.splitlines())}
    assert rankings == {"q1": ["d1"], "q2": ["d9", "d3"]}
    qrels = tmp_path / "j.qrels"
    assert (
        run_cli("convert", fixture_path("basic", "judgments.jsonl"), "--to", "trec-qrels", "--out", str(qrels)).code
        == 0
    )
    labels = run_cli("convert", str(qrels), "--to", "judgments").stdout.splitlines()
    assert labels[0] == '{"query_id":"q1","doc_uri":"d1","relevance":2}'


def test_summarize_prints_the_interval(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text("[0.8, 1.0, 0.6, 0.9, 0.7]")
    result = run_cli("summarize", str(tmp_path / "s.json"), "--name", "faithfulness")
    assert result.stdout.startswith("faithfulness  0.800000  n=5")
    assert "95% CI [0.603676, 0.996324]" in result.stdout


def test_a_malformed_report_is_refused_naming_the_first_fault_and_escaping_it(tmp_path: Path) -> None:
    report = json.loads((DEMO / "baseline.json").read_text())
    report["per_stratum"] = {"evil\x1b[2J": {"n": "x", "metrics": [1]}}
    report["verdict"] = {"status": "PASS", "gates": [{"expression": 1}], "reasons": "not a list"}
    (tmp_path / "bad.json").write_text(json.dumps(report))
    result = run_cli("render", "--report", str(tmp_path / "bad.json"), "--format", "text")
    assert result.code == 2, result.stderr
    assert "Traceback" not in result.stderr and "\x1b" not in result.stderr
    assert '/bad.json): n must be an integer (at $.per_stratum["evil\\u001b[2J"].n)' in result.stderr


def test_text_output_shows_control_characters_of_a_well_formed_report(tmp_path: Path) -> None:
    report = json.loads((DEMO / "baseline.json").read_text())
    report["per_stratum"] = {"evil\x1b[2J": {"n": 1, "metrics": {}}}
    (tmp_path / "bad.json").write_text(json.dumps(report))
    result = run_cli("render", "--report", str(tmp_path / "bad.json"), "--format", "text")
    assert result.code == 0, result.stderr
    assert "\x1b" not in result.stdout and "evil\\x1b[2J" in result.stdout
