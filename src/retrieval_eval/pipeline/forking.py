"""Forked workers: how many may help, how a child starts and leaves, how they share out work.

Reading a large run (:mod:`.run_ranges`) and drawing the bootstrap
(:mod:`.significance`) use the spare cores. Workers are forked, so they start
with everything already loaded, and whatever they do not deliver is done here
instead: the answer never depends on how many processes computed it, and a
worker that dies (killed, out of memory) costs time, never a result.

Nothing here starts a worker unless asked: the pipeline decides how many
(:func:`worker_count`, from the cores and an override the entry layer reads
from ``RETRIEVAL_EVAL_WORKERS``), and a library call runs in one process.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import select
import signal
import struct
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

if sys.platform != "win32":  # POSIX only: Windows never forks workers (may_fork), so never locks or widens a pipe
    import fcntl

MAX_WORKERS = 3
# The most workers an override may ask for.
MAX_OVERRIDE = 16
# The environment variable the entry layer reads for an override (this module reads no environment).
WORKERS_VARIABLE = "RETRIEVAL_EVAL_WORKERS"


def workers_override(environ: Mapping[str, str]) -> int | None:
    """The worker count an environment asks for in ``RETRIEVAL_EVAL_WORKERS``: a whole
    number (at most 16), else None (no override; anything else is ignored). The entry
    layer passes its environment; this module reads none."""
    text = environ.get(WORKERS_VARIABLE, "").strip()
    if text.isascii() and text.isdigit():
        return min(int(text), MAX_OVERRIDE)
    return None


def may_fork() -> bool:
    """Whether workers may be forked now: on Linux only, and only while no other thread is
    alive (a child forked beside a running thread may inherit a lock that thread holds)."""
    return sys.platform == "linux" and threading.active_count() == 1


def worker_count(override: int | None = None) -> int:
    """How many processes may work beside this one: none where forking is unsafe
    (:func:`may_fork`); else ``override`` when given; else one per spare core, at most three."""
    if not may_fork():
        return 0
    if override is not None:
        return override
    return max(0, min(MAX_WORKERS, len(os.sched_getaffinity(0)) - 1))


def fork_worker(body: Callable[[], None]) -> int:
    """Fork a child that runs ``body`` and leaves; return its pid.

    The child never returns into the caller's code: it ends with ``os._exit``,
    so no buffer is flushed twice and no clean-up of the parent's runs in it.
    Ctrl-C is held back across the fork, so it cannot reach the child before
    the child is ready for it.
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # a child interrupted just dies
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
                body()
                code = 0
            finally:
                os._exit(code)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    return pid


def reap(pid: int, *, kill: bool = False) -> None:
    """Wait for a worker to end (killing it first if asked), even if it was reaped already."""
    if kill:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):  # SIGCHLD ignored, or reaped by someone else
        os.waitpid(pid, 0)


def readable(fd: int) -> bool:
    """Whether reading ``fd`` would not wait (poll, not select: any fd number works)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


class Claims:
    """Which of ``count`` numbered pieces of work are left, shared with forked workers.

    This process takes pieces from the front, workers from the back, so the
    two sides work at opposite ends and meet somewhere between.
    Two counters in shared memory, guarded by a record lock (``lockf``) on an
    anonymous file: the kernel releases it when its holder dies, even by
    SIGKILL, so a killed worker can never leave the others waiting.
    """

    def __init__(self, count: int) -> None:
        self._shared = mmap.mmap(-1, 16)
        struct.pack_into("qq", self._shared, 0, 0, count)
        self._lock_fd = _anonymous_file()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[tuple[int, int]]:
        fcntl.lockf(self._lock_fd, fcntl.LOCK_EX)
        try:
            yield struct.unpack_from("qq", self._shared)
        finally:
            fcntl.lockf(self._lock_fd, fcntl.LOCK_UN)

    def take(self, *, from_back: bool) -> int | None:
        with self._locked() as (front, back):
            if front >= back:
                return None
            index = back - 1 if from_back else front
            struct.pack_into("qq", self._shared, 0, front + (not from_back), back - from_back)
            return index

    def stop(self) -> None:
        """Leave nothing more to take."""
        with self._locked() as (_front, back):
            struct.pack_into("qq", self._shared, 0, back, back)

    def close(self) -> None:
        """Idempotent: a second call touches no file descriptor (its number may be someone else's by then)."""
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1
            self._shared.close()


def _anonymous_file() -> int:
    """A file descriptor on a file no one else can open, gone when the last process closes it."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("retrieval-eval-claims")
    with tempfile.TemporaryFile() as handle:  # where memfd is missing (macOS)
        return os.dup(handle.fileno())


# -- messages between processes -------------------------------------------------------

_LENGTH = struct.Struct("<I")


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def send_message(fd: int, message: object) -> None:
    """Pickle ``message`` onto a pipe, framed by its length so it can be read without waiting."""
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    write_all(fd, _LENGTH.pack(len(payload)) + payload)


def widen_pipe(fd: int, size: int = 1 << 20) -> None:
    """Let a pipe hold more before its writer waits (Linux); elsewhere, leave it be."""
    if sys.platform == "win32":
        return
    with contextlib.suppress(AttributeError, OSError):  # F_SETPIPE_SZ is Linux only
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)


class MessageReader:
    """The messages arriving on one pipe, taken as they come.

    Only whole messages are returned: one cut short by a writer that died is
    dropped, and none of those before it.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.ended = False
        self._pending = bytearray()

    def arrived(self) -> list[Any]:
        """Whatever has arrived by now, without waiting."""
        messages: list[Any] = []
        while not self.ended and readable(self.fd):
            messages += self._read_some()
        return messages

    def rest(self) -> list[Any]:
        """Everything until the writer closes its end."""
        messages: list[Any] = []
        while not self.ended:
            messages += self._read_some()
        return messages

    def _read_some(self) -> list[Any]:
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            self.ended = True
            return []
        self._pending += chunk
        messages = []
        position = 0
        while len(self._pending) - position >= _LENGTH.size:
            (size,) = _LENGTH.unpack_from(self._pending, position)
            end = position + _LENGTH.size + size
            if end > len(self._pending):
                break
            messages.append(pickle.loads(self._pending[position + _LENGTH.size : end]))
            position = end
        del self._pending[:position]
        return messages


# -- numbered pieces of work, computed wherever there is a free core ------------------


def map_shared(work: Callable[[int], Any], count: int, *, workers: int) -> list[Any]:
    """``[work(0), ..., work(count - 1)]``, computed by this process and forked workers together.

    Workers take pieces from the back and send each result as it is done;
    this process takes pieces from the front. A piece a worker did not
    deliver (it died) is computed here. The answer is the same list whatever
    the number of processes, provided ``work(i)`` depends on ``i`` alone.
    """
    if workers < 1 or count < 2 or not hasattr(os, "fork"):  # workers may be asked for explicitly
        return [work(i) for i in range(count)]
    claims = Claims(count)
    children: list[tuple[int, MessageReader]] = []
    results: dict[int, Any] = {}
    try:
        for _ in range(min(workers, count - 1)):
            children.append(_fork_mapper(work, claims, children))
        while (index := claims.take(from_back=False)) is not None:
            results[index] = work(index)
        for _pid, reader in children:
            for message in reader.rest():
                results.update(message)
    finally:
        for pid, reader in children:
            reap(pid, kill=True)  # done by now, unless this process is failing
            os.close(reader.fd)
        claims.close()
    return [results[i] if i in results else work(i) for i in range(count)]


def fork_writer(serve: Callable[[int, int], None]) -> tuple[int, MessageReader]:
    """A forked worker that sends its messages through a pipe: ``serve(read_end, write_end)``
    runs in the child; the parent keeps only the reading end (its pid and a reader on it)."""
    read_end, write_end = os.pipe()
    widen_pipe(write_end)
    try:
        pid = fork_worker(lambda: serve(read_end, write_end))
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return pid, MessageReader(read_end)


def _fork_mapper(
    work: Callable[[int], Any], claims: Claims, siblings: list[tuple[int, MessageReader]]
) -> tuple[int, MessageReader]:
    def serve(read_end: int, write_end: int) -> None:
        for fd in [read_end, *(reader.fd for _, reader in siblings)]:
            os.close(fd)  # ends a sibling's reader must see closed
        while (index := claims.take(from_back=True)) is not None:
            send_message(write_end, {index: work(index)})
        os.close(write_end)

    return fork_writer(serve)


MapFunction = Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]


def shared_map(workers: int) -> MapFunction:
    """A ``map`` that shares its items with up to ``workers`` forked workers (see :func:`map_shared`).

    Whether forking is safe is asked again at each call: a thread started
    since the workers were counted keeps that call in this process.
    """

    def mapped(function: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        return map_shared(lambda i: function(items[i]), len(items), workers=workers if may_fork() else 0)

    return mapped
