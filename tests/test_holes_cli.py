"""``retrieval-eval holes`` writes the label queue; an unfilled queue line appended to the judgments is explained."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli
from test_unjudged_scenario import base_run, head_run, judgments, write


def test_holes_writes_one_judgments_line_per_unjudged_key_then_validate_explains_an_unfilled_one(
    tmp_path: Path,
) -> None:
    labels = write(tmp_path / "judgments.jsonl", judgments())
    base_path = write(tmp_path / "base-run.jsonl", base_run())
    head = write(tmp_path / "head-run.jsonl", head_run())
    assert run_cli("score", "-j", labels, "-r", base_path, "--out", str(tmp_path / "base.json")).code == 0
    result = run_cli(
        "holes", "-j", labels, "-r", head, "--baseline", str(tmp_path / "base.json"), "--out", str(tmp_path / "q.jsonl")
    )
    assert result.code == 0, result.stderr
    assert result.stderr == f"60 unjudged key(s) written to {tmp_path / 'q.jsonl'}\n"
    lines = [json.loads(line) for line in (tmp_path / "q.jsonl").read_text().splitlines()]
    assert len(lines) == 60 and all("relevance" not in line for line in lines)
    assert {line["surfaced_by"] for line in lines} == {"head"}
    # Appended unfilled, the line is refused with what to do about it.
    with open(labels, "a") as handle:
        handle.write(json.dumps(lines[0]) + "\n")
    refused = run_cli("validate", "-j", labels)
    assert refused.code == 2
    assert ":201: missing required field relevance: this is a label-queue line ('retrieval-eval holes')" in (
        refused.stderr
    )
    assert f"in {labels}, set relevance (0 = not relevant" in refused.stderr  # the file is named
