"""Reading a large run JSONL on every core.

Parsing the run is most of what ``score`` costs: 10,000 queries x 1,000 ids
is 150 MB of JSON. The file is cut into byte ranges of a few megabytes; a
range holds the lines that *start* in it. Worker processes, forked so they
share the code already loaded, take ranges from the end of the file as soon
as ``score`` starts, while this process reads the judgments; this process
then takes ranges from the front until the two meet. Each range comes back
as its heads (never whole rankings), and the ranges are merged in file
order by the same :class:`~.runs.RunCollector` a single reader feeds, so
line numbers, the first error and a query listed twice are exactly what
reading the file from the top finds.

A worker that starts before the judgments are read does not know how deep
each query's head must go (R-precision may need more than max(k)). It keeps
``min_depth`` keys and the line's byte offset; once told the depths, it
reads again the few lines whose query needs more.

Small files, TREC runs, whole rankings (no depth) and systems without
``fork`` are read by one process, as before; :mod:`.forking` says how
many workers may start.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError
from .forking import (
    Claims, MessageReader, fork_worker, readable, reap, send_message, widen_pipe, worker_count, write_all,
)
from .jsonl import BLOCK, BOM
from .runs import DepthOf, Run, RunCollector, parse_run, read_head

RANGE_BYTES = 4 << 20
# Below this size forking and merging cost more than a second core saves.
PARALLEL_FROM = 24 << 20

# One line's head as a range keeps it: (line in range, query_id, head, received, first repeat,
# byte offset, depth the head was cut at).
Entry = tuple[int, str, list[str], int, int | None, int, int]


@dataclass(frozen=True)
class Split:
    """How a run file is shared out: ``workers`` besides this process, ranges of ``range_bytes``."""

    workers: int
    range_bytes: int = RANGE_BYTES
    parallel_from: int = PARALLEL_FROM


def default_split() -> Split:
    """As many workers as :func:`.forking.worker_count` allows, with this module's sizes."""
    return Split(worker_count(), RANGE_BYTES, PARALLEL_FROM)


@dataclass
class RangeResult:
    """What one byte range held: its lines' heads, up to the first refusal."""

    index: int
    lines: int = 0  # every line that starts in the range, blank ones included
    entries: list[Entry] = field(default_factory=list)
    error: tuple[int | None, str] | None = None  # (line counted from the range's start, problem)
    capped: bool = False  # heads cut at min_depth, before the depths were known


# -- lines of a byte range ---------------------------------------------------


def _first_line_start(fd: int, position: int, limit: int) -> int:
    """The first offset at or after ``position`` where a line starts, or ``limit`` if none is before it.

    Looking no further than the range's end keeps a very long line cheap: the
    ranges it covers each read only their own bytes, not the rest of the line.
    """
    if position == 0:
        return 0
    at = position - 1
    while at < limit:
        block = os.pread(fd, min(BLOCK, limit - at), at)
        if not block:
            break
        newline = block.find(b"\n")
        if newline >= 0:
            return min(at + newline + 1, limit)
        at += len(block)
    return limit


def range_lines(fd: int, start: int, end: int, size: int, buffer: bytearray | None = None,
                ) -> Iterator[tuple[int, memoryview]]:
    """(offset, line without its ``\n``) for every line starting in ``[start, end)`` of a ``size``-byte file.

    Lines are views into one reused buffer, read a range at a time: no copy
    of each line is made, and the pages are not faulted in again for every
    range. A view is valid until the next line is asked for.
    """
    if buffer is None:
        buffer = bytearray(end - start + BLOCK)
    line_start = _first_line_start(fd, start, end)
    while line_start < end:
        filled = _fill(fd, buffer, line_start, size)
        view = memoryview(buffer)
        position = 0
        while (newline := buffer.find(b"\n", position, filled)) >= 0:
            yield line_start + position, view[position:newline]
            position = newline + 1
            if line_start + position >= end:
                return
        if filled < len(buffer):  # the end of the file: what is left is its last line, without a line end
            if position < filled:
                yield line_start + position, view[position:filled]
            return
        del view  # a buffer still viewed could not be let go
        if position == 0:  # one line longer than the buffer: read it again into a larger one
            buffer = bytearray(2 * len(buffer))
        line_start += position


def _fill(fd: int, buffer: bytearray, offset: int, size: int) -> int:
    """Read from ``offset`` until ``buffer`` is full or the file ends; how many bytes came.

    A read may return less than asked before the end (some file systems do),
    so the end is told by ``size``, not by a short read.
    """
    wanted = min(len(buffer), max(size - offset, 0))
    filled = 0
    with memoryview(buffer) as view:
        while filled < wanted:
            got = os.preadv(fd, [view[filled:wanted]], offset + filled)
            if not got:  # the file shrank while it was read
                break
            filled += got
    return filled


def _line_at(fd: int, offset: int) -> bytes:
    """The line starting at ``offset``, without its line end."""
    pieces = []
    size = 1 << 16  # most lines fit; a longer one is read on in growing blocks
    while True:
        block = os.pread(fd, size, offset)
        size = min(2 * size, BLOCK)
        newline = block.find(b"\n")
        if newline >= 0 or not block:
            pieces.append(block if newline < 0 else block[:newline])
            return b"".join(pieces)
        pieces.append(block)
        offset += len(block)


_SPACE = frozenset(b" \t\n\r\x0b\x0c")  # what bytes.strip() strips


def _clean(raw: bytes | memoryview, offset: int) -> bytes | memoryview:
    # The same reading as jsonl.iter_lines: a BOM only at the very start, white space stripped.
    if offset == 0 and raw[:len(BOM)] == BOM:
        raw = raw[len(BOM):]
    if raw and (raw[0] in _SPACE or raw[-1] in _SPACE):
        return bytes(raw).strip()
    return raw


def read_range(fd: int, index: int, start: int, end: int, size: int, path: str,
               depth_of: DepthOf, *, capped: bool = False, buffer: bytearray | None = None) -> RangeResult:
    """The heads of the lines starting in ``[start, end)``; a refusal ends the range."""
    result = RangeResult(index, capped=capped)
    entries = result.entries
    line = 0
    for line, (offset, raw) in enumerate(range_lines(fd, start, end, size, buffer), 1):
        raw = _clean(raw, offset)
        if not raw:
            continue
        try:
            query_id, head, received, first_repeat = read_head(raw, line, path, depth_of)
            entries.append((line, query_id, head, received, first_repeat, offset, depth_of(query_id)))
        except InputError as error:  # kept as plain values, which cross a pipe
            result.error = (error.line, error.problem)
            break
    result.lines = line
    return result


def deepen(fd: int, result: RangeResult, path: str, depth_of: DepthOf) -> None:
    """Bring every head to its query's own depth: cut the deeper ones, read again those cut short."""
    entries = result.entries
    for position, entry in enumerate(entries):
        entries[position] = fit(fd, entry, path, depth_of(entry[1]))
    result.capped = False


def fit(fd: int, entry: Entry, path: str, depth: int) -> Entry:
    """The entry with its head ``depth`` keys deep, reading its line again if it was cut shorter."""
    line, query_id, head, received, first_repeat, offset, kept = entry
    if depth == kept:
        return entry
    if depth < kept or len(head) < kept:  # deep enough, or the ranking ran out before ``kept``
        return line, query_id, _cut(head, depth), received, _repeat_within(first_repeat, depth), offset, depth
    raw = _clean(_line_at(fd, offset), offset)
    return (line, *read_head(raw, line, path, lambda _q: depth), offset, depth)


# -- sharing ranges between processes ----------------------------------------


def _read_exactly(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            raise EOFError("the other end closed the pipe")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


@dataclass
class _Worker:
    pid: int
    results_r: int  # the worker's pickled RangeResults, written when it is done
    depths_w: int  # the depths, sent to the worker once the judgments are read


class RangeReader:
    """A run JSONL read by ranges, started before the depths are known; see the module docstring."""

    def __init__(self, path: str, size: int, min_depth: int, split: Split,
                 depth_of: DepthOf | None = None) -> None:
        self.path = path
        self.size = size
        self.min_depth = min_depth
        self.range_bytes = split.range_bytes
        self.count = -(-size // split.range_bytes)
        self.workers: list[_Worker] = []
        self.fd = -1
        self.claims: Claims | None = None
        self._buffer: bytearray | None = None
        self._judged: Any = None  # heads of other queries are dropped once it is known
        self.sha256: str | None = None  # told by the first worker, which hashes the file before it reads
        try:
            self.fd = os.open(path, os.O_RDONLY)
            self.claims = Claims(self.count)
            for number in range(split.workers):
                self.workers.append(self._fork(depth_of, hashes=number == 0))
        except BaseException:  # no worker, pipe or descriptor is left behind
            self.close()
            raise

    # The worker side.

    def _fork(self, depth_of: DepthOf | None, *, hashes: bool) -> _Worker:
        results_r, results_w = os.pipe()
        depths_r, depths_w = os.pipe()
        try:
            widen_pipe(results_w)  # ranges read while this process is busy wait there, not in the worker
            pid = fork_worker(lambda: self._start_work(depth_of, depths_r, results_w, results_r, depths_w, hashes))
        except BaseException:
            os.close(results_r)
            os.close(depths_w)
            raise
        finally:
            os.close(results_w)
            os.close(depths_r)
        return _Worker(pid, results_r, depths_w)

    def _start_work(self, depth_of: DepthOf | None, depths_r: int, results_w: int,
                    results_r: int, depths_w: int, hashes: bool) -> None:
        for fd in [results_r, depths_w, *(w.results_r for w in self.workers), *(w.depths_w for w in self.workers)]:
            os.close(fd)  # the parent's ends: a worker holding one would hide an end of file
        self._work(depth_of, depths_r, results_w, hashes=hashes)

    def _work(self, depth_of: DepthOf | None, depths_r: int, results_w: int, *, hashes: bool) -> None:
        # Hashing on a worker, not on a thread here, keeps it off the core reading the judgments.
        sha256 = self._hash() if hashes else None
        waiting: list[RangeResult] = []  # read before the depths were known
        while (index := self.claims.take(from_back=True)) is not None:
            if depth_of is None and readable(depths_r):
                depth_of = self._receive_depths(depths_r)
                self._send_deepened(waiting, depth_of, results_w)
            if depth_of is None:
                waiting.append(self._read(index, self._capped_depth, capped=True))
            else:  # sent at once, so this process can score its heads while both go on reading
                send_message(results_w, self._read(index, depth_of))
        if waiting:
            self._send_deepened(waiting, depth_of or self._receive_depths(depths_r), results_w)
        if sha256 is not None:
            send_message(results_w, sha256)
        os.close(results_w)

    def _send_deepened(self, waiting: list[RangeResult], depth_of: DepthOf, results_w: int) -> None:
        while waiting:
            result = waiting.pop()
            deepen(self.fd, result, self.path, depth_of)
            send_message(results_w, result)

    def _capped_depth(self, _query_id: str) -> int:
        # Twice max(k): R-precision's depth R seldom goes past it, so few lines are read twice.
        return 2 * self.min_depth

    def _receive_depths(self, depths_r: int) -> DepthOf:
        (size,) = struct.unpack("q", _read_exactly(depths_r, 8))
        deeper: dict[str, int] = pickle.loads(_read_exactly(depths_r, size))
        min_depth = self.min_depth
        return lambda query_id: deeper.get(query_id, min_depth)

    def _read(self, index: int, depth_of: DepthOf, *, capped: bool = False) -> RangeResult:
        start = index * self.range_bytes
        end = min(start + self.range_bytes, self.size)
        if self._buffer is None:  # one per process, reused by every range it reads
            self._buffer = bytearray(self.range_bytes + BLOCK)
        result = read_range(self.fd, index, start, end, self.size, self.path, depth_of, capped=capped,
                            buffer=self._buffer)
        return result if capped else _without_unjudged(result, self._judged)

    # This process's side.

    def _hash(self) -> str:
        """SHA-256 of the bytes the ranges are read from (the open file, not the path again)."""
        digest = hashlib.sha256()
        offset = 0
        while offset < self.size and (block := os.pread(self.fd, min(BLOCK, self.size - offset), offset)):
            digest.update(block)
            offset += len(block)
        return digest.hexdigest()

    def read(self, depth_of: DepthOf, judged: Any, *, deeper: dict[str, int],
             on_head: OnHead | None = None) -> Run:
        """Take the ranges left, gather the workers', merge them in file order.

        ``deeper`` names the queries whose head goes past ``min_depth``; the
        workers learn it here. ``depth_of`` must agree with it. ``on_head``
        is told each query's head as soon as it is final, while the ranges
        are still being read.
        """
        self._judged = judged
        senders = self._send_depths(deeper)
        results: dict[int, RangeResult] = {}
        arriving = [MessageReader(worker.results_r) for worker in self.workers]

        def keep(messages: list[Any]) -> None:
            for message in messages:
                if isinstance(message, str):
                    self.sha256 = message
                elif message.index not in results:
                    results[message.index] = _without_unjudged(message, judged)
                    _announce(message, on_head)

        while (index := self.claims.take(from_back=False)) is not None:
            for reader in arriving:
                keep(reader.arrived())
            result = results[index] = self._read(index, depth_of)
            _announce(result, on_head)
            if result.error is not None:
                self.claims.stop()  # nothing after a refusal matters
                break
        for worker, reader in zip(list(self.workers), arriving):
            delivered = False
            try:
                keep(reader.rest())  # a worker that died sent fewer ranges; _merge reads the others
                delivered = True
            finally:
                self._release(worker, kill=not delivered)
        for sender in senders:  # done by now (each worker read its message); no thread outlives a read
            sender.join()
        return self._merge(results, depth_of, judged)

    def _send_depths(self, deeper: dict[str, int]) -> list[threading.Thread]:
        payload = pickle.dumps(deeper, protocol=pickle.HIGHEST_PROTOCOL)
        message = struct.pack("q", len(payload)) + payload
        senders = []
        for worker in self.workers:
            # A thread, because a worker only reads the message between two ranges. It closes the pipe.
            sender = threading.Thread(target=self._send, args=(worker.depths_w, message), daemon=True)
            worker.depths_w = -1
            sender.start()
            senders.append(sender)
        return senders

    @staticmethod
    def _send(fd: int, message: bytes) -> None:
        with contextlib.suppress(OSError):  # a worker that died is replaced in _merge
            write_all(fd, message)
        with contextlib.suppress(OSError):
            os.close(fd)

    def _merge(self, results: dict[int, RangeResult], depth_of: DepthOf, judged: Any) -> Run:
        run = Run(format="jsonl")
        collector = RunCollector(run, judged, self.path)
        lines_before = 0
        for index in range(self.count):
            result = results.pop(index, None) or self._read(index, depth_of)  # let each go once merged
            for entry in result.entries:
                # Every head is cut at its query's depth already, unless that depth was not told to the worker.
                line, query_id, head, received, first_repeat, _offset, _kept = fit(
                    self.fd, entry, self.path, depth_of(entry[1]))
                collector.add(lines_before + line, query_id, head, received, first_repeat)
            if result.error is not None:
                line, problem = result.error
                raise InputError("run", None if line is None else lines_before + line, problem, path=self.path)
            lines_before += result.lines
        run.with_duplicates.sort()
        run.unjudged.sort()
        run.sha256 = self.sha256 or self._hash()
        return run

    def _release(self, worker: _Worker, *, kill: bool) -> None:
        self.workers.remove(worker)
        for fd in (worker.results_r, worker.depths_w):
            if fd >= 0:
                os.close(fd)
        reap(worker.pid, kill=kill)

    def close(self) -> None:
        """Stop and reap every worker (after an error, or once read). Idempotent: a second
        call closes nothing, since a descriptor's number may be someone else's by then."""
        while self.workers:
            self._release(self.workers[0], kill=True)
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        if self.claims is not None:
            self.claims.close()
            self.claims = None


OnHead = Callable[[str, list[str]], None]


def _announce(result: RangeResult, on_head: OnHead | None) -> None:
    if on_head is not None:
        for entry in result.entries:
            on_head(entry[1], entry[2])


def _without_unjudged(result: RangeResult, judged: Any) -> RangeResult:
    """Let go of the heads of queries that are not judged: only their line and id still count
    (for ``queries``, ``unjudged`` and a query listed twice). Memory then grows with the
    judged queries, as when one process reads."""
    if judged is not None:
        result.entries = [entry if entry[1] in judged else (*entry[:2], [], *entry[3:])
                          for entry in result.entries]
    return result


def _cut(head: list[str], depth: int) -> list[str]:
    return head if len(head) <= depth else head[:depth]


def _repeat_within(first_repeat: int | None, depth: int) -> int | None:
    # Keys before the first repeat are all new, so a head of ``depth`` keys reads that
    # repeat exactly when it sits above ``depth``; one found deeper is none of its business.
    return first_repeat if first_repeat is not None and first_repeat < depth else None


# -- the entry point -----------------------------------------------------------


class RunReading:
    """A run being read: started early (see the module docstring), finished by :meth:`run`."""

    def __init__(self, path: str, run_format: str, min_depth: int | None,
                 split: Split | None = None) -> None:
        self.path = path
        self.run_format = run_format
        self.min_depth = min_depth
        self.ranges: RangeReader | None = None
        split = split if split is not None else default_split()
        if min_depth is not None and _worth_splitting(path, run_format, split):
            try:
                self.ranges = RangeReader(path, os.path.getsize(path), min_depth, split)
            except OSError:  # workers are a speed-up: one process reads it, and words any refusal
                self.ranges = None

    def run(self, *, depth_of: DepthOf, judged: Any, on_head: OnHead | None = None) -> Run:
        """The run, heads cut at ``depth_of``; ``on_head`` hears of heads early when workers read them."""
        if self.ranges is None:
            return parse_run(self.path, depth=depth_of, judged=judged, run_format=self.run_format)
        assert self.min_depth is not None
        # Only judged queries are told; any other one is fitted to its depth while merging.
        deeper = {query: depth for query in judged or () if (depth := depth_of(query)) > self.min_depth}
        try:
            return self.ranges.read(depth_of, judged, deeper=deeper, on_head=on_head)
        finally:
            self.close()

    def close(self) -> None:
        if self.ranges is not None:
            self.ranges.close()
            self.ranges = None


def _worth_splitting(path: str, run_format: str, split: Split) -> bool:
    if split.workers < 1 or not (hasattr(os, "fork") and hasattr(os, "preadv")) or run_format == "trec":
        return False
    try:
        size = os.stat(path).st_size
        is_file = os.path.isfile(path)
    except (OSError, ValueError):
        return False  # the reader in runs.py words the refusal
    if not is_file or size < split.parallel_from:
        return False
    if run_format == "auto":
        from .runs import detect_format

        try:
            return detect_format(path) == "jsonl"
        except InputError:
            return False
    return True

