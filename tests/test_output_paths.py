"""Where an output goes: devices and FIFOs written through, links followed, other special files
refused, a full device reported, and no temporary file left behind on SIGTERM or SIGHUP.

Device nodes are made in the test's own folder when the tests run as root: writing to the
machine's /dev/full from a test would, on a regression, replace the machine's device.
"""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers import fixture_path, run_cli
from retrieval_eval.core.errors import InputError
from retrieval_eval.formats.fileio import atomic_writer, write_atomic

SRC = str(Path(__file__).resolve().parent.parent / "src")
SCORE = ("score", "-j", fixture_path("strata", "judgments.jsonl"), "-r", fixture_path("strata", "run.jsonl"), "-k", "3")


def device(tmp_path: Path, name: str, minor: int) -> str:
    """A private node of the memory device ``1:minor`` (3 null, 7 full); the machine's own when not root."""
    if os.geteuid() != 0:
        return f"/dev/{name}"
    path = tmp_path / name
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    return str(path)


def env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC}


@pytest.mark.parametrize(
    "argv",
    [
        SCORE,
        ("render", "--report", "{report}"),
        ("compare", "--base", "{report}", "--head", "{report}"),
        ("convert", fixture_path("strata", "run.jsonl"), "--to", "trec-run"),
    ],
    ids=["score", "render", "compare", "convert"],
)
def test_a_full_character_device_is_written_through_and_its_error_reported(
    argv: tuple[str, ...], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    run_cli(*SCORE, "--out", str(report), env=env())
    full = device(tmp_path, "full", 7)
    result = run_cli(*(a.replace("{report}", str(report)) for a in argv), "--out", full, env=env())
    assert result.code == 2, result.stderr
    assert f"cannot write {full}: no space left on the device" in result.stderr
    assert "Traceback" not in result.stderr
    assert stat.S_ISCHR(os.stat(full).st_mode)


def test_drift_fix_into_a_full_device(tmp_path: Path) -> None:
    full = device(tmp_path, "full", 7)
    drift = ("drift", "-j", fixture_path("drift", "judgments.jsonl"), "-c", fixture_path("drift", "corpus.json"))
    result = run_cli(*drift, "--fix", "--out", full, env=env())
    assert result.code == 2 and f"cannot write {full}" in result.stderr, result.stderr
    assert stat.S_ISCHR(os.stat(full).st_mode)


def test_a_null_device_stays_a_device(tmp_path: Path) -> None:
    null = device(tmp_path, "null", 3)
    result = run_cli(*SCORE, "--out", null, env=env())
    assert result.code == 0, result.stderr
    assert stat.S_ISCHR(os.stat(null).st_mode)


def test_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_atomic(fifo, "through the pipe\n")
    reader.join(10)
    assert received == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_stdout_given_as_a_path_is_written_through(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    run_cli(*SCORE, "--out", str(report), env=env())
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")  # what /dev/stdout is, made here so no test touches /dev
    result = run_cli("render", "--report", str(report), "--format", "text", "--out", str(link), env=env())
    assert result.code == 0, result.stderr
    assert "recall@3" in result.stdout
    assert link.is_symlink()


def test_a_link_is_followed_and_its_target_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "real" / "report.json"
    target.parent.mkdir()
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_atomic(link, "new\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.json"]


def test_drift_fix_repairs_the_file_a_link_points_at(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_bytes(Path(fixture_path("drift", "judgments.jsonl")).read_bytes())
    link = tmp_path / "judgments.jsonl"
    link.symlink_to(real)
    before = real.read_bytes()
    result = run_cli("drift", "-j", str(link), "-c", fixture_path("drift", "corpus.json"), "--fix", env=env())
    assert result.code in (0, 1), result.stderr
    assert link.is_symlink()
    assert real.read_bytes() != before  # the repair landed in the real file


def test_a_dangling_link_gets_its_target_created(tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "made.txt")
    write_atomic(link, "made\n")
    assert link.is_symlink() and (tmp_path / "made.txt").read_text() == "made\n"


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        with pytest.raises(InputError, match="is a socket"):
            write_atomic(path, "x")
    finally:
        server.close()
    assert stat.S_ISSOCK(os.stat(path).st_mode)


def test_a_link_to_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "l").symlink_to(tmp_path / "d")
    with pytest.raises(InputError, match="is a directory"):
        write_atomic(tmp_path / "l", "x")
    assert (tmp_path / "l").is_symlink()


@pytest.mark.skipif(os.geteuid() != 0, reason="making a block device node needs root")
def test_a_block_device_is_refused(tmp_path: Path) -> None:
    node = tmp_path / "loop"
    os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(7, 0))  # a private node: /dev itself is never written
    with pytest.raises(InputError, match="is a block device"):
        write_atomic(node, "x")
    assert stat.S_ISBLK(os.stat(node).st_mode)


def test_a_hard_link_to_an_input_is_the_same_file(tmp_path: Path) -> None:
    judgments = tmp_path / "j.jsonl"
    judgments.write_bytes(Path(fixture_path("strata", "judgments.jsonl")).read_bytes())
    os.link(judgments, tmp_path / "alias.jsonl")
    symlink = tmp_path / "sym.jsonl"
    symlink.symlink_to(judgments)
    for out in ("alias.jsonl", "sym.jsonl"):
        result = run_cli(
            "score",
            "-j",
            str(judgments),
            "-r",
            fixture_path("strata", "run.jsonl"),
            "--out",
            str(tmp_path / out),
            env=env(),
        )
        assert result.code == 2 and "is also an input (the judgments file" in result.stderr, result.stderr
    assert judgments.read_bytes() == Path(fixture_path("strata", "judgments.jsonl")).read_bytes()


def test_an_error_in_the_block_leaves_no_temporary_file(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), atomic_writer(tmp_path / "out.json") as handle:
        handle.write("half")
        raise RuntimeError("stop")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
@pytest.mark.parametrize("command", ["score", "drift", "convert", "convert-beir-corpus"])
def test_a_signal_mid_write_removes_the_temporary_file(command: str, signum: int, tmp_path: Path) -> None:
    judgments = tmp_path / "j.jsonl"
    judgments.write_bytes(Path(fixture_path("drift", "judgments.jsonl")).read_bytes())
    if command == "score":
        argv = [*SCORE, "--out", str(tmp_path / "report.json")]
    elif command == "convert":
        argv = ["convert", str(judgments), "--to", "trec-qrels", "--out", str(tmp_path / "q.txt")]
    elif command == "convert-beir-corpus":  # two outputs, one after the other: the corpus, then the labels
        beir = tmp_path / "beir"
        (beir / "qrels").mkdir(parents=True)
        (beir / "corpus.jsonl").write_text('{"_id": "d1", "title": "t", "text": "hello"}\n')
        (beir / "queries.jsonl").write_text('{"_id": "q1", "text": "hello"}\n')
        (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
        argv = [
            "convert",
            "--beir",
            str(beir),
            "--out",
            str(tmp_path / "j2.jsonl"),
            "--corpus-out",
            str(tmp_path / "c.jsonl"),
        ]
    else:
        argv = ["drift", "-j", str(judgments), "-c", fixture_path("drift", "corpus.json"), "--fix"]
    held = tmp_path / "held"
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("held_writer.py")), str(held), *argv],
        env=env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # a pipe nobody reads would be left open (a ResourceWarning)
    )
    deadline = time.monotonic() + 30
    while not held.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert held.exists(), "the writer never reached its hold"
    assert list(tmp_path.glob(".*.tmp")), "no temporary file while writing"
    child.send_signal(signum)
    assert child.wait(30) == -signum  # the signal still ends the process as it would have
    assert list(tmp_path.glob(".*.tmp")) == []
    assert judgments.read_bytes() == Path(fixture_path("drift", "judgments.jsonl")).read_bytes()


def _tiny_tmpfs(path: Path) -> bool:
    path.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(path)], capture_output=True)
    return done.returncode == 0


@pytest.mark.parametrize("command", ["score", "render", "drift"])
def test_a_full_disk_is_refused_with_the_path(command: str, tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    if not _tiny_tmpfs(disk):
        pytest.skip("cannot mount a tmpfs here")
    try:
        report = tmp_path / "r.json"
        run_cli(*SCORE, "--out", str(report), env=env())
        out = disk / "out.json"
        if command == "score":
            argv: tuple[str, ...] = (*SCORE, "--out", str(out))
        elif command == "render":
            argv = ("render", "--report", str(report), "--format", "summary", "--out", str(out))
        else:
            drift = (
                "drift",
                "-j",
                fixture_path("drift", "judgments.jsonl"),
                "-c",
                fixture_path("drift", "corpus.json"),
            )
            argv = (*drift, "--fix", "--out", str(out))
        (disk / "filler").write_bytes(b"\0" * _free(disk))  # not one block left for the output
        result = run_cli(*argv, env=env())
        assert result.code == 2, result.stderr
        assert f"cannot write {out}: no space left on the device" in result.stderr
        assert "Traceback" not in result.stderr
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def _free(path: Path) -> int:
    info = os.statvfs(path)
    return info.f_bavail * info.f_frsize


# The moment between creating the temporary file and the first write: a signal there used to find
# no handler yet. The child sends itself SIGTERM from inside os.open, just after the file exists.
SIGNAL_AT_CREATION = """
import os, signal, sys
from retrieval_eval.formats import fileio

real_open = os.open

def open_then_signal(path, flags, mode=0o777):
    fd = real_open(path, flags, mode)
    if str(path).endswith(".tmp"):
        os.kill(os.getpid(), signal.SIGTERM)
    return fd

fileio.os.open = open_then_signal
with fileio.atomic_writer(sys.argv[1]) as handle:
    handle.write("never kept")
"""


def test_a_signal_as_the_temporary_file_is_created_removes_it(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SIGNAL_AT_CREATION, str(tmp_path / "out.json")],
        env=env(),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert list(tmp_path.iterdir()) == []
