"""A base report scored again with its old run after the labels were repaired in place.

``drift --fix`` rewrites the judgments file where it is; a base report scored from that very file
afterwards (its old run on its old corpus) records the same judgments SHA-256 as the head's. The
labels' trails then record the move between the two sides, not an older one: with c1 ids the base
ranks the old chunks the trails name. The cases and their truth are those of
tests/test_rechunk_bruteforce.py (built at the level of the text, never from the code): the head
that keeps every answer where the base had it must never FAIL, the one that pushes a query's
answers below k must never PASS. Unread, the trails left every base hit a miss (a base of 0), and
the worse head passed in 9 of 12 seeds. The same base run scored with the head's very corpus file
(the base branch's corpus re-chunked, its retriever not run again) is no more one id space with
the head than its run is: it ranks the old chunks, and the trails carry them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_rechunk_bruteforce import GATE, K, cli_run, make_case, run_case


def _verdict(tmp: Path, name: str, base: Path) -> tuple[str, str]:
    code, out = cli_run("score", "-j", str(tmp / "judgments.jsonl"), "-r", str(tmp / f"{name}.run.jsonl"),
                        "--corpus", str(tmp / "head.corpus.json"), "-k", f"{K},10", "--baseline", str(base),
                        "-g", GATE, "--json")  # fmt: skip
    verdict = json.loads(out)["verdict"]
    return verdict["status"], " | ".join(verdict["reasons"] + [g["reason"] for g in verdict["gates"]])


@pytest.mark.parametrize("corpus", ["base.corpus.json", "head.corpus.json"])
@pytest.mark.parametrize("seed", range(6))  # one of each change
def test_a_base_scored_again_with_the_repaired_labels_never_passes_a_worse_head(
    tmp_path: Path, seed: int, corpus: str
) -> None:
    case = make_case(seed)
    run_case(case, tmp_path)  # writes the base run and corpus, the repaired judgments, both heads' runs
    rescored = tmp_path / "rescored.json"
    code, out = cli_run("score", "-j", str(tmp_path / "judgments.jsonl"), "-r", str(tmp_path / "base.run.jsonl"),
                        "--corpus", str(tmp_path / corpus), "-k", f"{K},10",
                        "--report", str(rescored))  # fmt: skip
    # With the head's corpus the base's own verdict is INDETERMINATE (its run ranks no chunk of it);
    # its report is written all the same, and a committed report is read whatever its verdict.
    assert code in (0, 1) and rescored.exists(), out
    base = json.loads(rescored.read_text())
    judgments, same_run = str(tmp_path / "judgments.jsonl"), str(tmp_path / "same.run.jsonl")
    _, head = cli_run("score", "-j", judgments, "-r", same_run, "--json")
    head_sha = json.loads(head)["inputs"]["judgments_sha256"]
    assert base["inputs"]["judgments_sha256"] == head_sha  # the very same file on both sides
    same, worse = _verdict(tmp_path, "same", rescored), _verdict(tmp_path, "worse", rescored)
    assert worse[0] != "PASS", (case, worse[1])
    assert same[0] != "FAIL", (case, same[1])
