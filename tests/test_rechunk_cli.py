"""A re-chunk pull request through the CLI, for every chunker and every outcome: the base
report is scored on the old chunks, ``drift --fix`` moves the labels, and the head is gated
against the base report. The verdict and the deltas must be the truth the scenario was built
with (tests/rechunk_scenarios.py), at the level of the labeled text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from rechunk_scenarios import CHUNKERS, OUTCOMES, make_scenario

GATE = "recall@5:-0.02"
TOLERANCE = 0.02


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("chunker", CHUNKERS)
def test_a_rechunk_gets_the_verdict_and_the_delta_of_the_labeled_text(
    tmp_path: Path, chunker: str, outcome: str
) -> None:
    scenario = make_scenario(chunker, outcome)
    files = scenario.write(tmp_path)
    base = tmp_path / "base.json"
    scored = run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
        "-k", "5,10", "--report", str(base), "--json",
    )  # fmt: skip
    assert scored.code == 0, scored.stderr
    fixed_path = tmp_path / "judgments.v2.jsonl"
    fixed = run_cli(
        "drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed_path)
    )
    assert fixed.code == 0, fixed.stdout + fixed.stderr  # every label survived by a sound rule
    head = tmp_path / "head.json"
    gated = run_cli(
        "score", "-j", str(fixed_path), "-r", str(files.head_run), "--corpus", str(files.head_corpus),
        "-k", "5,10", "--baseline", str(base), "-g", GATE, "--report", str(head), "--json",
    )  # fmt: skip
    report = gated.json()
    assert report["verdict"]["status"] == scenario.truth.verdict(0.02), report["verdict"]["reasons"]
    compared = run_cli(
        "compare", "--base", str(base), "--head", str(head), "--judgments", str(fixed_path), "--json"
    )  # fmt: skip
    document = json.loads(compared.stdout)
    assert document["yardstick"] == "translated"
    for metric in ("recall@5", "mrr@10"):
        row = document["metrics"][metric]
        assert row["base"] == pytest.approx(scenario.truth.base[metric], abs=TOLERANCE), metric
        assert row["delta"] == pytest.approx(scenario.truth.delta(metric), abs=TOLERANCE), metric
