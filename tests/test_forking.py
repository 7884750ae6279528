"""The shared-out work: every piece is taken once, by one side, whatever the timing."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from retrieval_eval.pipeline.forking import Claims, fork_worker, map_shared, shared_map, worker_count, workers_override


def test_each_piece_is_taken_exactly_once_from_both_ends() -> None:
    claims = Claims(200)
    read_end, write_end = os.pipe()

    def take_from_back() -> None:
        taken = []
        while (index := claims.take(from_back=True)) is not None:
            taken.append(index)
        os.write(write_end, ",".join(map(str, taken)).encode())

    pid = fork_worker(take_from_back)
    os.close(write_end)
    front = []
    while (index := claims.take(from_back=False)) is not None:
        front.append(index)
    back_text = b""
    while chunk := os.read(read_end, 65536):
        back_text += chunk
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    back = [int(i) for i in back_text.decode().split(",") if i]
    assert status == 0
    assert sorted(front + back) == list(range(200))
    assert front == sorted(front) and back == sorted(back, reverse=True)
    assert not front or not back or max(front) < min(back)  # the two sides never cross
    claims.close()
    claims.close()  # idempotent


def test_a_worker_killed_while_holding_the_claims_lock_leaves_no_one_waiting() -> None:
    claims = Claims(10)
    ready_r, ready_w = os.pipe()

    def hold_the_lock_forever() -> None:
        with claims._locked():
            os.write(ready_w, b"x")
            time.sleep(60)

    pid = fork_worker(hold_the_lock_forever)
    os.read(ready_r, 1)  # the worker holds the lock now
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert claims.take(from_back=False) == 0  # the kernel let the lock go with its holder
    claims.close()
    for fd in (ready_r, ready_w):
        os.close(fd)


def test_stop_leaves_nothing() -> None:
    claims = Claims(5)
    assert claims.take(from_back=False) == 0
    assert claims.take(from_back=True) == 4
    claims.stop()
    assert claims.take(from_back=False) is None and claims.take(from_back=True) is None
    claims.close()


@pytest.mark.parametrize("setting, expected", [("0", 0), ("3", 3), (" 2 ", 2), ("99", 16)])
def test_the_worker_count_can_be_set(setting: str, expected: int) -> None:
    assert worker_count(workers_override({"RETRIEVAL_EVAL_WORKERS": setting})) == expected


@pytest.mark.parametrize("cores, expected", [(1, 0), (2, 1), (4, 3), (64, 3)])
def test_by_default_one_worker_per_spare_core_at_most_three(
    monkeypatch: pytest.MonkeyPatch, cores: int, expected: int
) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False)
    assert worker_count(workers_override({})) == expected


@pytest.mark.parametrize("setting", ["abc", "-1", "2.5", ""])
def test_a_setting_that_is_not_a_whole_number_is_ignored(monkeypatch: pytest.MonkeyPatch, setting: str) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert worker_count(workers_override({"RETRIEVAL_EVAL_WORKERS": setting})) == 1


def test_no_worker_beside_another_thread_or_off_linux(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1, 2}, raising=False)
    assert worker_count(2) == 2
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert worker_count(2) == 0 and worker_count() == 0
    finally:
        release.set()
        other.join()
    monkeypatch.setattr(sys, "platform", "darwin")
    assert worker_count(2) == 0 and worker_count() == 0


def test_a_shared_map_keeps_to_this_process_while_another_thread_runs() -> None:
    parent = os.getpid()
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert shared_map(2)(lambda item: (item, os.getpid() == parent), "abc") == [
            ("a", True),
            ("b", True),
            ("c", True),
        ]
    finally:
        release.set()
        other.join()


@pytest.mark.parametrize("workers", [0, 1, 2])
def test_map_shared_gives_the_list_in_order_whoever_computed_it(workers: int) -> None:
    assert map_shared(lambda i: (i, i * i, os.getpid() > 0), 37, workers=workers) == [
        (i, i * i, True) for i in range(37)
    ]


def test_map_shared_computes_here_what_a_dead_worker_never_sent() -> None:
    parent = os.getpid()

    def work(i: int) -> int:
        if os.getpid() != parent:
            os._exit(3)  # every worker dies on its first piece
        return i

    assert map_shared(work, 10, workers=2) == list(range(10))
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)
