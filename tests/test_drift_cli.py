"""The drift command around the engine: writing, dry runs, --out, usage, progress."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from drift_support import cid, label, write_jsonl, write_snapshot
from helpers import run_cli
from retrieval_eval.cli import cli
from retrieval_eval.commands._progress import ProgressBar
from retrieval_eval.formats import fileio

ANNUAL = "Annual plans may be refunded within 30 days of renewal."
MONTHLY = "Monthly plans are non-refundable after the billing date."


@pytest.fixture
def case(tmp_path: Path) -> tuple[Path, Path]:
    judgments = write_jsonl(tmp_path / "judgments.jsonl", [label("q1", "d", ANNUAL), label("q2", "d", MONTHLY)])
    return judgments, write_snapshot(tmp_path / "corpus.json", {"d": [f"{ANNUAL} {MONTHLY}"]})


def test_fix_replaces_the_file_by_rename_and_leaves_no_temporary(case: tuple[Path, Path]) -> None:
    judgments, corpus = case
    before = os.stat(judgments).st_ino
    assert run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--fix").code == 0
    assert os.stat(judgments).st_ino != before
    assert sorted(p.name for p in judgments.parent.iterdir()) == ["corpus.json", "judgments.jsonl"]


def test_a_failed_write_leaves_the_original_untouched(case: tuple[Path, Path], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    judgments, corpus = case
    original = judgments.read_bytes()

    def refuse(*_args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(fileio.os, "replace", refuse)
    result = CliRunner().invoke(cli, ["drift", "-j", str(judgments), "-c", str(corpus), "--fix"])
    assert result.exit_code == 2
    assert f"error  cannot write {judgments}: disk full" in result.stderr
    assert judgments.read_bytes() == original
    assert sorted(p.name for p in judgments.parent.iterdir()) == ["corpus.json", "judgments.jsonl"]


def test_dry_run_shows_the_changes_and_writes_nothing(case: tuple[Path, Path]) -> None:
    judgments, corpus = case
    # One query labeling both paragraphs: once merged they are one chunk, so one label.
    write_jsonl(judgments, [label("q1", "d", ANNUAL), label("q1", "d", MONTHLY)])
    original = judgments.read_bytes()
    result = run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--fix", "--dry-run")
    assert result.code == 0
    assert "would re-anchor" in result.stdout and "would collapse" in result.stdout
    assert "dry run: nothing written" in result.stdout
    assert judgments.read_bytes() == original


def test_out_writes_elsewhere_and_keeps_the_input(case: tuple[Path, Path], tmp_path: Path) -> None:
    judgments, corpus = case
    original = judgments.read_bytes()
    out = tmp_path / "fixed" / "judgments.jsonl"
    result = run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--fix", "--out", str(out), "--json")
    assert result.json()["fix"]["written"] == str(out)
    assert judgments.read_bytes() == original
    assert run_cli("validate", "-j", str(out)).code == 0


def test_text_output_of_a_fix_reports_changes_collapse_and_after(case: tuple[Path, Path]) -> None:
    judgments, corpus = case
    out = run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--fix").stdout
    assert "re-anchored\n  line 1  q1" in out
    assert f"-> {cid('d', 0, f'{ANNUAL} {MONTHLY}')}  [chunk_text_contained]" in out
    assert f"wrote 2 labels to {judgments}" in out
    assert "after the fix 0 of 2 labels need a human" in out


def test_nothing_to_fix_leaves_the_file_alone(tmp_path: Path) -> None:
    record = label("q1", "d", ANNUAL) | {"chunk_id": cid("d", 0, ANNUAL)}
    judgments = write_jsonl(tmp_path / "judgments.jsonl", [record])
    corpus = write_snapshot(tmp_path / "corpus.json", {"d": [ANNUAL]})
    original = judgments.read_bytes()
    result = run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--fix")
    assert result.code == 0 and "nothing to fix" in result.stdout
    assert judgments.read_bytes() == original


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dry-run"], "--dry-run only makes sense with --fix"),
        (["--out", "x.jsonl"], "--out only makes sense with --fix"),
        (["--max-invalid-ratio", "1.5"], "--max-invalid-ratio 1.5 must be between 0 and 1"),
    ],
)
def test_usage_errors_exit_2(case: tuple[Path, Path], args: list[str], message: str) -> None:
    judgments, corpus = case
    result = run_cli("drift", "-j", str(judgments), "-c", str(corpus), *args)
    assert result.code == 2 and f"error  {message}" in result.stderr


def test_a_malformed_judgments_file_writes_nothing(case: tuple[Path, Path]) -> None:
    judgments, corpus = case
    judgments.write_text(judgments.read_text() + "{broken\n")
    original = judgments.read_bytes()
    result = run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--fix")
    assert result.code == 2 and "error  judgments:3: not valid JSON" in result.stderr
    assert judgments.read_bytes() == original


def test_jsonl_corpus_fingerprints_by_flag(case: tuple[Path, Path], tmp_path: Path) -> None:
    judgments, _ = case
    from drift_support import chunk_records

    corpus = write_jsonl(tmp_path / "corpus.jsonl", chunk_records({"d": [ANNUAL, MONTHLY]}))
    result = run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--corpus-fingerprint", "v7", "--json")
    assert result.json()["corpus"]["fingerprint"] == "v7"


def test_no_progress_bar_when_stderr_is_not_a_terminal(case: tuple[Path, Path]) -> None:
    judgments, corpus = case
    assert run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--json").stderr == ""


def test_progress_bar_draws_and_clears_its_line() -> None:
    stream = io.StringIO()
    with ProgressBar("checking labels", stream=stream, enabled=True) as bar:
        bar(5, 10)  # too early to draw: short runs stay quiet
        bar(10, 10)  # the end is always drawn
    text = stream.getvalue()
    assert text.startswith("\rchecking labels  [") and "100%" in text and text.endswith("\r\x1b[K")
    silent = io.StringIO()
    ProgressBar("x", stream=silent, enabled=False)(10, 10)
    assert silent.getvalue() == ""
