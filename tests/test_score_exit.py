"""``score`` run as a process leaves without tearing down what it made (entry._leave_now):
the same output, report, exit code and exit functions as the interpreter's own exit."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from helpers import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "first-eval-set"
NOW = "2026-01-01T00:00:00Z"


def fresh(code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    """A fresh interpreter that runs ``code`` and then the console entry point on ``argv``."""
    script = textwrap.dedent(code) + "\nimport sys\nsys.argv = ['retrieval-eval', *sys.argv[1:]]\n"
    script += "from retrieval_eval.entry import main\nmain()\n"
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def score_args(report: Path, *more: str) -> list[str]:
    judgments, run = str(EXAMPLE / "judgments.jsonl"), str(EXAMPLE / "run.jsonl")
    return ["score", "-j", judgments, "-r", run, "-k", "5", "--now", NOW, "--report", str(report), *more]


# What only the interpreter's own exit does (threading's shutdown, before the exit functions):
# its line says whether that ran, or the process left at once.
TEARDOWN = """
import os, threading
threading._register_atexit(lambda: os.write(2, b"torn down\\n"))
"""


def test_score_says_and_writes_what_the_interpreter_exit_would(tmp_path: Path) -> None:
    quick = fresh(TEARDOWN, *score_args(tmp_path / "quick.json", "--json"))
    plain = run_cli(*score_args(tmp_path / "plain.json", "--json"))  # forked, then the interpreter's own exit path
    assert "torn down" not in quick.stderr  # nothing was torn down: the process left at once
    assert (quick.returncode, quick.stdout, quick.stderr) == (plain.code, plain.stdout, plain.stderr)
    assert quick.stdout.endswith("}\n") and len(quick.stdout) > 1000  # the whole buffered report was flushed
    assert (tmp_path / "quick.json").read_bytes() == (tmp_path / "plain.json").read_bytes()


def test_a_refused_input_still_exits_2_with_its_message(tmp_path: Path) -> None:
    bad = tmp_path / "run.jsonl"
    bad.write_text('{"query_id": "q1", "ranking": ["d1", ""]}\n', encoding="utf-8")
    args = ["score", "-j", str(EXAMPLE / "judgments.jsonl"), "-r", str(bad), "--now", NOW]
    quick = fresh(TEARDOWN, *args)
    plain = run_cli(*args)
    assert quick.returncode == plain.code == 2
    assert "run:1: ranking[1] must be a non-empty string" in quick.stderr and "Traceback" not in quick.stderr
    assert quick.stderr.replace("torn down\n", "") == plain.stderr
    assert "torn down" not in quick.stderr


def test_exit_functions_run_and_a_running_thread_is_waited_for(tmp_path: Path) -> None:
    ran, waited = tmp_path / "ran", tmp_path / "waited"
    setup = f"""
    import atexit, threading, time
    atexit.register(lambda: open({str(ran)!r}, "w").write("ran"))
    def late():  # still running when score ends, whatever the machine's speed: it waits for that
        while threading.main_thread().is_alive():
            time.sleep(0.01)
        open({str(waited)!r}, "w").write("waited")
    threading.Thread(target=late).start()
    """
    done = fresh(textwrap.dedent(setup) + TEARDOWN, *score_args(tmp_path / "report.json"))
    assert done.returncode == 0, done.stderr
    assert waited.read_text() == "waited" and ran.read_text() == "ran"
    assert "torn down" in done.stderr  # a thread still running: the interpreter's own exit, which waits

    alone = fresh(
        f"import atexit\natexit.register(lambda: open({str(ran)!r}, 'w').write('again'))\n" + TEARDOWN,
        *score_args(tmp_path / "report.json"),
    )
    assert alone.returncode == 0 and ran.read_text() == "again" and "torn down" not in alone.stderr


def test_other_commands_and_a_caller_passing_argv_exit_as_before(tmp_path: Path) -> None:
    other = fresh(TEARDOWN, "validate", "-j", str(EXAMPLE / "judgments.jsonl"))
    assert "torn down" in other.stderr
    script = TEARDOWN + "from retrieval_eval.entry import main\nmain(" + repr(score_args(tmp_path / "r.json")) + ")\n"
    passed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert passed.returncode == 0 and "torn down" in passed.stderr
