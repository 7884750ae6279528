"""The judge command's process: its answers are read when it exits, whatever it left behind.

A command may start a process that keeps its stdout open (a server, a `sleep &` in a shell
script). Reading stdout to its end would then wait for that process, up to the whole timeout
and past it; the command's answers are what it wrote before it exited, and what it started
dies with it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from retrieval_eval.pipeline import judge_clients
from retrieval_eval.pipeline.judge_clients import _run_capped

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process sessions are POSIX")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A killed child of the shell is reaped by init; until then it is a zombie, which is gone too.
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ", 1)[1].startswith("Z")


def _wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def test_a_command_that_leaves_a_process_holding_stdout_is_read_when_it_exits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(judge_clients, "EXIT_GRACE", 0.3)  # the grace's length is not what is tested
    pidfile = tmp_path / "pid"
    script = f"sleep 300 & echo $! > {pidfile}; echo answer-line"
    started = time.monotonic()
    output = _run_capped(["sh", "-c", script], b"", timeout=120)
    took = time.monotonic() - started
    assert output.failure is None and output.returncode == 0
    assert output.stdout == b"answer-line\n"
    assert took < 120 / 4, f"waited {took:.1f}s for a process the command left behind"
    assert took < 2 * 0.3 + 10
    assert _wait_gone(int(pidfile.read_text())), "the process the command started outlived it"


def test_a_command_past_its_deadline_is_killed_with_what_it_started(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    script = f"sleep 300 & echo $! > {pidfile}; echo partial; wait"
    started = time.monotonic()
    output = _run_capped(["sh", "-c", script], b"", timeout=1.5)
    took = time.monotonic() - started
    assert output.failure == "the judge command ran past 1.5s"
    assert output.stdout == b""  # nothing half-written is read as answers
    assert took < 1.5 + 10
    assert _wait_gone(int(pidfile.read_text()))


def test_a_quick_command_gives_all_of_its_output_and_its_exit_status() -> None:
    lines = b"".join(b'{"id": "r%d"}\n' % i for i in range(20_000))  # several pipe buffers
    output = _run_capped(["sh", "-c", "cat; exit 3"], lines, timeout=60)
    assert output.failure is None and output.returncode == 3
    assert output.stdout == lines


def test_a_stopped_run_ends_the_command_it_started(tmp_path: Path) -> None:
    # The command runs in a session of its own (so a kill reaches what it started), which a
    # SIGTERM to the run (a cancelled CI job) does not reach: it was left running, judging on.
    import signal
    import subprocess
    import sys

    pidfile = tmp_path / "pid"
    code = (
        "from retrieval_eval.pipeline.judge_clients import _run_capped\n"
        f"_run_capped(['sh', '-c', 'sleep 300 & echo $! > {pidfile}; wait'], b'', timeout=600)\n"
    )
    run = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGTERM)
    assert run.wait(30) == 128 + signal.SIGTERM
    assert _wait_gone(int(pidfile.read_text())), "the judge command outlived the stopped run"


def test_a_run_stopped_midway_keeps_the_answers_of_the_rounds_that_ended(tmp_path: Path) -> None:
    # One request a round; the judge answers the first round, then hangs in the second. Stopped
    # there (a cancelled CI job), the run wrote nothing: the first round's answers, paid for,
    # were lost. Now it writes what it has, and the next run asks only for the rest.
    import json
    import signal
    import subprocess
    import sys

    calls, hung = tmp_path / "calls", tmp_path / "hung"
    judge = tmp_path / "judge.py"
    judge.write_text(
        "import json, pathlib, sys, time\n"
        f"calls = pathlib.Path({str(calls)!r})\n"
        "n = int(calls.read_text()) if calls.exists() else 0\n"
        "calls.write_text(str(n + 1))\n"
        "requests = [json.loads(line) for line in sys.stdin]\n"
        f"if n: pathlib.Path({str(hung)!r}).write_text('x'); time.sleep(300)\n"
        "for r in requests: print(json.dumps({'id': r['id'], 'answers': [2] * len(r['passages'])}))\n"
    )
    queue = tmp_path / "queue.jsonl"
    queue.write_text(
        "".join(
            json.dumps({"query_id": "q1", "query": "a question", "doc_uri": f"d{i}", "chunk_text": f"passage {i}"})
            + "\n"
            for i in range(2)
        )
    )
    out = tmp_path / "machine.jsonl"
    argv = ["judge", "--queue", str(queue), "--out", str(out), "--command", f"{sys.executable} {judge}"]
    argv += ["--samples", "1", "--batch", "1", "--concurrency", "1"]
    said = tmp_path / "stderr"
    with said.open("wb") as stderr:
        run = subprocess.Popen(
            [sys.executable, "-m", "retrieval_eval", *argv], stdout=subprocess.DEVNULL, stderr=stderr
        )
    deadline = time.monotonic() + 60
    while not hung.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    run.send_signal(signal.SIGTERM)
    assert run.wait(30) == 128 + signal.SIGTERM, said.read_text()
    labels = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(label["doc_uri"], label["status"]) for label in labels if label["status"] == "labeled"] == [
        ("d0", "labeled")
    ]
