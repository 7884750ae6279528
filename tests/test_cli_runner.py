"""The tests' CLI runner (a child forked from tests/cli_zygote.py) answers as a fresh interpreter does.

Most tests run the CLI through helpers.run_cli; if the forked child behaved differently from
``python -m retrieval_eval``, those tests would witness the wrong thing. Each case here runs both
ways and compares exit code, standard output and standard error byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT, fixture_path, run_entry_point

EXAMPLE = ROOT / "examples" / "first-eval-set"
CASES = {
    "version": ["--version"],
    "score": ["score", "-j", "judgments.jsonl", "-r", "run.jsonl", "-k", "1,3", "-g", "recall@3:0.8"],
    "gate-fails": ["score", "-j", "judgments.jsonl", "-r", "run.jsonl", "-k", "1,3", "-g", "mrr@3:0.9"],
    "bad-input": ["score", "-j", "run.jsonl", "-r", "run.jsonl"],
    "usage": ["score", "--no-such-flag"],
    "json-to-dev-stdout": [
        "score",
        "-j",
        "judgments.jsonl",
        "-r",
        "run.jsonl",
        "--out",
        "/dev/stdout",
        "--now",
        "2026-01-01T00:00:00Z",
    ],
    "unicode-error": ["validate", "-j", fixture_path("basic", "judgments.jsonl"), "-r", "nowhere-\u00e9.jsonl"],
}


EXIT = {
    "version": 0,
    "score": 0,
    "gate-fails": 1,
    "bad-input": 2,
    "usage": 2,
    "json-to-dev-stdout": 0,
    "unicode-error": 2,
}


@pytest.mark.parametrize("name", CASES)
def test_the_forked_child_answers_as_a_fresh_interpreter(name: str) -> None:
    argv = CASES[name]
    env = dict(os.environ)
    forked = run_entry_point(argv, cwd=EXAMPLE, env=env)
    fresh = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", *argv],
        capture_output=True,
        text=True,
        cwd=EXAMPLE,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert forked.returncode == EXIT[name]


def test_a_python_variable_in_the_environment_gets_a_fresh_interpreter(tmp_path: Path) -> None:
    # PYTHONIOENCODING changes how the interpreter starts: the runner must not reuse its server.
    env = {**os.environ, "PYTHONIOENCODING": "ascii:backslashreplace"}
    done = run_entry_point(["validate", "-j", str(tmp_path / "missing.jsonl")], env=env)
    assert done.args[:3] == [sys.executable, "-m", "retrieval_eval"]  # a new interpreter ran it
    assert done.returncode == 2 and "missing.jsonl" in done.stderr
