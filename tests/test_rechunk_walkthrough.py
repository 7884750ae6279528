"""docs/rechunk.md, run as written on the files it ships (examples/rechunk/).

The files are the test suite's re-chunk scenario (tests/rechunk_scenarios.py), written by
scripts/rechunk_example.py: a test holds them to it, and every command of the page runs here in
a copy of the folder, its printed lines held to the page's. The two labels with no quote are
re-judged as a person would, by the text the scenario knows answers them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import run_cli
from rechunk_scenarios import make_scenario

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "rechunk.md").read_text(encoding="utf-8")


def test_the_shipped_files_are_the_scenarios() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "rechunk_example.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _in(folder: Path, *args: str) -> tuple[int, str]:
    done = run_cli(*args, cwd=folder)
    return done.code, done.stdout + done.stderr


def test_the_walkthrough_runs_as_the_page_says(tmp_path: Path) -> None:
    work = tmp_path / "rechunk"
    shutil.copytree(ROOT / "examples" / "rechunk", work)
    code, _ = _in(work, "score", "-j", "judgments.jsonl", "-r", "run.v1.jsonl", "--corpus", "corpus.v1.json",
                  "-k", "5,10", "--out", "base.json")  # fmt: skip
    assert code == 0
    # 1. Where did the labeled text go?
    code, said = _in(work, "drift", "-j", "judgments.jsonl", "-c", "corpus.v2.json")
    for line in ("MERGED               34  recoverable", "SPLIT                 2  needs a human",
                 "invalid ratio 1 (36 of 36 labels): 34 recoverable with --fix, 2 need a human"):  # fmt: skip
        assert line in said and line in DOC, line
    # 2. Repair what provably survived, queue the rest.
    code, said = _in(work, "drift", "-j", "judgments.jsonl", "-c", "corpus.v2.json", "--fix",
                     "--out", "judgments.v2.jsonl", "--queue", "rejudge.jsonl")  # fmt: skip
    for line in ("wrote 36 labels to judgments.v2.jsonl", "wrote 6 lines for 2 labels to rejudge.jsonl"):
        assert line in said and line in DOC, line
    # 3. Re-judge: a sentence that holds the answer is relevant, the others are not.
    answers = {q.id: q.quote for q in make_scenario("sentences", "worse").queries[:2]}
    queue = [json.loads(line) for line in (work / "rejudge.jsonl").read_text(encoding="utf-8").splitlines()]
    for line in queue:
        line["relevance"] = int(answers[line["query_id"]] in line["chunk_text"])
        line["labeled_by"] = "human:walkthrough"
    assert sorted(line["relevance"] for line in queue) == [0, 0, 0, 0, 1, 1]  # one sentence answers each
    with (work / "judgments.v2.jsonl").open("a", encoding="utf-8") as judgments:
        judgments.write("".join(json.dumps(line) + "\n" for line in queue))
    code, said = _in(work, "drift", "-j", "judgments.v2.jsonl", "-c", "corpus.v2.json", "--fix")
    for line in ("wrote 40 labels to judgments.v2.jsonl (2 broken labels dropped: re-judged lines stand in for them)",
                 "after the fix 0 of 40 labels need a human (invalid ratio 0)"):  # fmt: skip
        assert line in said and line in DOC, line
    # 4. Gate against the base branch.
    code, said = _in(work, "score", "-j", "judgments.v2.jsonl", "-r", "run.v2.jsonl", "--corpus", "corpus.v2.json",
                     "-k", "5,10", "--baseline", "base.json", "-g", "recall@5:-0.02", "--out", "head.json")  # fmt: skip
    gate = "FAIL          recall@5:-0.02  recall@5 moved -0.1667 (from 0.6667 to 0.5), beyond -0.02"
    assert code == 1 and gate in said and gate in DOC
    code, said = _in(work, "compare", "--base", "base.json", "--head", "head.json", "-j", "judgments.v2.jsonl")
    for line in ("compared with base (translated yardstick, 36 paired queries)",
                 "recall@5        0.6667 -> 0.5000    -0.1667  [-0.3056, -0.0556]    significant"):  # fmt: skip
        assert line in said and line in DOC, line
