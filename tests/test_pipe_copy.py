"""A run read from a pipe is copied once to a private temporary file (every reader then opens
the copy); a SIGTERM while that copy is being written leaves nothing behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

LABEL = b'{"query_id": "q1", "doc_uri": "d1", "relevance": 1}\n'
LINE = b'{"query_id": "q1", "ranking": ["d1", "d2"]}\n'


def copies(tmp: Path) -> list[Path]:
    return [p for p in tmp.iterdir() if p.name.startswith("retrieval-eval-")]


def test_sigterm_during_a_pipe_copy_removes_the_copy(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    (tmp_path / "j.jsonl").write_bytes(LABEL)
    env = {**os.environ, "TMPDIR": str(scratch)}
    with subprocess.Popen(
        [sys.executable, "-m", "retrieval_eval", "score", "-j", "j.jsonl", "-r", "/dev/stdin"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
        env=env,
    ) as child:
        assert child.stdin is not None
        try:
            deadline = time.monotonic() + 60
            while not copies(scratch):  # the pipe stays open, so the copy is still being written
                assert time.monotonic() < deadline, "no copy of the pipe was started"
                assert child.poll() is None, "the command ended before its pipe did"
                child.stdin.write(LINE * 1000)
                child.stdin.flush()
                time.sleep(0.05)
            child.send_signal(signal.SIGTERM)
            child.wait(timeout=60)
        finally:
            child.kill()
    assert child.returncode == -signal.SIGTERM
    assert copies(scratch) == []


def test_a_finished_pipe_copy_is_removed(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    (tmp_path / "j.jsonl").write_bytes(LABEL)
    done = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", "score", "-j", "j.jsonl", "-r", "/dev/stdin", "-k", "1"],
        input=LINE,
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(scratch)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert b"1 of 1 queries scored" in done.stdout  # the piped line was read, once
    assert copies(scratch) == []
