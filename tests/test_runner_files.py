"""A runner file that is a pipe: the action waits a bounded time for it, never forever."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import pytest

from retrieval_eval.action.publish import append_within


def test_a_pipe_whose_reader_never_reads_gives_up_at_the_deadline(tmp_path: Path) -> None:
    fifo = tmp_path / "output"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # open, and never read
    try:
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            append_within(str(fifo), b"x" * (1 << 20), 0.5)  # more than a pipe buffers
        assert 0.5 <= time.monotonic() - started < 5
    finally:
        os.close(reader)


def test_a_pipe_with_no_reader_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "output"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as raised:
        append_within(str(fifo), b"verdict=PASS\n", 30)
    assert raised.value.errno == errno.ENXIO


def test_a_regular_file_is_appended_to(tmp_path: Path) -> None:
    target = tmp_path / "output"
    target.write_bytes(b"earlier=1\n")
    append_within(str(target), b"verdict=PASS\n", 30)
    assert target.read_bytes() == b"earlier=1\nverdict=PASS\n"
