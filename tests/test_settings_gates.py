"""Gates checked with the other settings: a refused ``k`` does not make every gate at another
cutoff look wrong against the default cutoffs, which the user never gave."""

from __future__ import annotations

from pathlib import Path

from helpers import run_cli


def _files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "j.jsonl").write_text('{"query_id":"q1","doc_uri":"d1","relevance":1}\n')
    (tmp_path / "r.jsonl").write_text('{"query_id":"q1","ranking":["d1"]}\n')
    return str(tmp_path / "j.jsonl"), str(tmp_path / "r.jsonl")


def test_a_refused_k_leaves_the_gates_their_own_faults(tmp_path: Path) -> None:
    judgments, run = _files(tmp_path)
    done = run_cli("score", "-j", judgments, "-r", run, "-k", "5,x", "-g", "recall@5:0.8", "-g", "recall@5:80")
    assert done.code == 2
    assert "-k: '5,x' must be positive whole numbers" in done.stderr
    assert "not computed at the cutoffs given" not in done.stderr  # -k 10 was never given
    assert "gate 'recall@5:80': recall@5 lies between 0 and 1, so a threshold of 80 is never met" in done.stderr


def test_with_k_given_a_gate_at_another_cutoff_is_still_refused(tmp_path: Path) -> None:
    judgments, run = _files(tmp_path)
    done = run_cli("score", "-j", judgments, "-r", run, "-k", "10", "-g", "recall@5:0.8")
    assert done.code == 2 and "recall@5 is not computed at the cutoffs given (-k 10)" in done.stderr
