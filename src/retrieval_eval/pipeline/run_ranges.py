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
each query's head must go (R-precision may need more than max(k)). Until it
is told, it keeps ``2 x min_depth`` keys and the line's byte offset; then it
cuts those heads to their depth and reads again the few lines whose query
needs more.

Small files, TREC runs, whole rankings (no depth) and a reading given no
workers are read by one process; the pipeline says how many workers may
start (:func:`.forking.worker_count`).
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Callable, Collection, Container, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from ..core.errors import InputError
from ..core.runs import Run, RunRows
from ..formats.jsonl import BLOCK, clean_line
from ..formats.runs import (
    DepthOf,
    RunCollector,
    check_run_format,
    detect_format,
    parse_run,
    read_head,
    run_from_rows,
)
from .forking import (
    Claims,
    MessageReader,
    fork_worker,
    readable,
    reap,
    send_message,
    widen_pipe,
)

RANGE_BYTES = 4 << 20
# Below this size forking and merging cost more than a second core saves.
PARALLEL_FROM = 24 << 20

# Told of each query's head as soon as it is final: (query_id, head).
OnHead = Callable[[str, list[str]], None]


class Entry(NamedTuple):
    """One run line as a range keeps it."""

    line: int  # counted from the range's first line
    query_id: str
    head: list[str]
    received: int  # entries in the line's ranking
    first_repeat: int | None  # see runs.dedupe_head
    offset: int  # of the line in the file, to read it again
    cut_at: int  # the depth the head was cut at


@dataclass(frozen=True)
class Split:
    """How a run file is shared out: ``workers`` besides this process, ranges of ``range_bytes``."""

    workers: int
    range_bytes: int = RANGE_BYTES
    parallel_from: int = PARALLEL_FROM


def split_for(workers: int) -> Split:
    """``workers`` besides this process, with this module's sizes (read when called, so a test may change them)."""
    return Split(workers, RANGE_BYTES, PARALLEL_FROM)


@dataclass
class RangeResult:
    """What one byte range held: its lines, up to the first refusal."""

    index: int
    lines: int = 0  # every line that starts in the range, blank ones included
    entries: list[Entry] = field(default_factory=list)
    error: tuple[int | None, str] | None = None  # (line counted from the range's start, problem)


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


def range_lines(
    fd: int,
    start: int,
    end: int,
    size: int,
    buffer: bytearray | None = None,
) -> Iterator[tuple[int, memoryview]]:
    """(offset, line without its ``\\n``) for every line starting in ``[start, end)`` of a ``size``-byte file.

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


def read_range(
    fd: int, index: int, start: int, end: int, size: int, path: str, depth_of: DepthOf, buffer: bytearray | None = None
) -> RangeResult:
    """The heads of the lines starting in ``[start, end)``; a refusal ends the range."""
    result = RangeResult(index)
    entries = result.entries
    line = 0
    for line, (offset, raw) in enumerate(range_lines(fd, start, end, size, buffer), 1):
        cleaned = clean_line(raw, offset == 0)
        if not cleaned:
            continue
        try:
            query_id, head, received, first_repeat = read_head(cleaned, line, path, depth_of)
        except InputError as error:  # kept as plain values, which cross a pipe
            result.error = (error.line, error.problem)
            break
        entries.append(Entry(line, query_id, head, received, first_repeat, offset, depth_of(query_id)))
    result.lines = line
    return result


def fit(fd: int, entry: Entry, size: int, path: str, depth: int) -> Entry:
    """The entry with its head ``depth`` keys deep, reading its line again if it was cut shorter."""
    if depth == entry.cut_at:
        return entry
    if depth < entry.cut_at or len(entry.head) < entry.cut_at:  # deep enough, or the ranking ran out
        return entry._replace(
            head=entry.head[:depth], first_repeat=_repeat_within(entry.first_repeat, depth), cut_at=depth
        )
    _, raw = next(range_lines(fd, entry.offset, entry.offset + 1, size, bytearray(1 << 16)))
    query_id, head, received, first_repeat = read_head(
        clean_line(raw, entry.offset == 0), entry.line, path, lambda _query: depth
    )
    return Entry(entry.line, query_id, head, received, first_repeat, entry.offset, depth)


def _repeat_within(first_repeat: int | None, depth: int) -> int | None:
    # Keys before the first repeat are all new, so a head of ``depth`` keys reads that
    # repeat exactly when it sits above ``depth``; one found deeper is none of its business.
    return first_repeat if first_repeat is not None and first_repeat < depth else None


def _without_unjudged(result: RangeResult, judged: Container[str] | None) -> RangeResult:
    """Let go of the heads of queries that are not judged: only their line and id still count
    (for ``queries``, ``unjudged`` and a query listed twice). Memory then grows with the
    judged queries, as when one process reads."""
    if judged is not None:
        result.entries = [entry if entry.query_id in judged else entry._replace(head=[]) for entry in result.entries]
    return result


# -- the file, as every process reads it ---------------------------------------


class _RunFile:
    """The open run file cut into ranges: what this process and its workers share."""

    def __init__(self, path: str, size: int, range_bytes: int) -> None:
        self.path = path
        self.size = size
        self.range_bytes = range_bytes
        self.count = -(-size // range_bytes)
        self.fd = os.open(path, os.O_RDONLY)
        self._buffer: bytearray | None = None

    def read(self, index: int, depth_of: DepthOf) -> RangeResult:
        start = index * self.range_bytes
        end = min(start + self.range_bytes, self.size)
        if self._buffer is None:  # one per process, reused by every range it reads
            self._buffer = bytearray(self.range_bytes + BLOCK)
        return read_range(self.fd, index, start, end, self.size, self.path, depth_of, self._buffer)

    def fit(self, entry: Entry, depth: int) -> Entry:
        return fit(self.fd, entry, self.size, self.path, depth)

    def sha256(self) -> str:
        """SHA-256 of the bytes the ranges are read from (the open file, not the path again)."""
        digest = hashlib.sha256()
        offset = 0
        while offset < self.size and (block := os.pread(self.fd, min(BLOCK, self.size - offset), offset)):
            digest.update(block)
            offset += len(block)
        return digest.hexdigest()

    def close(self) -> None:
        """Idempotent: a second call closes nothing (the number may be someone else's by then)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


# -- a worker's side ---------------------------------------------------------------


def _work(
    run_file: _RunFile, claims: Claims, min_depth: int, depths: MessageReader, results_w: int, *, hashes: bool
) -> None:
    """Read ranges from the back until none is left, sending each as soon as its heads are final."""
    # Hashing on a worker, not on a thread of the main process, keeps it off the core reading the judgments.
    sha256 = run_file.sha256() if hashes else None
    depth_of: DepthOf | None = None
    waiting: list[RangeResult] = []  # read before the depths were known, heads 2 x min_depth deep

    def capped(_query_id: str) -> int:
        return 2 * min_depth  # R seldom goes past twice max(k), so few lines are read twice

    while (index := claims.take(from_back=True)) is not None:
        if depth_of is None and readable(depths.fd):
            depth_of = _told_depths(depths, min_depth)
            _send_fitted(run_file, waiting, depth_of, results_w)
        if depth_of is None:
            waiting.append(run_file.read(index, capped))
        else:
            send_message(results_w, run_file.read(index, depth_of))
    if waiting:
        _send_fitted(run_file, waiting, depth_of or _told_depths(depths, min_depth), results_w)
    if sha256 is not None:
        send_message(results_w, sha256)
    os.close(results_w)


def _told_depths(depths: MessageReader, min_depth: int) -> DepthOf:
    """Wait for the one message the main process sends: the queries whose head goes past min_depth."""
    (deeper,) = depths.rest()
    return lambda query_id: deeper.get(query_id, min_depth)


def _send_fitted(run_file: _RunFile, waiting: list[RangeResult], depth_of: DepthOf, results_w: int) -> None:
    while waiting:
        result = waiting.pop()
        result.entries = [run_file.fit(entry, depth_of(entry.query_id)) for entry in result.entries]
        send_message(results_w, result)


@dataclass
class _Worker:
    pid: int
    results_r: int  # the worker's ranges, each sent as soon as it is read
    depths_w: int  # the depths, sent once the judgments are read; -1 once handed to the sending thread


# -- this process's side ---------------------------------------------------------


class RangeReader:
    """A run JSONL read by ranges, started before the depths are known; see the module docstring."""

    def __init__(self, path: str, size: int, min_depth: int, split: Split) -> None:
        self.min_depth = min_depth
        self.workers: list[_Worker] = []
        self.sha256: str | None = None  # told by the first worker, which hashes the file before it reads
        self.file = _RunFile(path, size, split.range_bytes)
        try:
            self.claims = Claims(self.file.count)
        except BaseException:
            self.file.close()
            raise
        try:
            for number in range(max(0, min(split.workers, self.file.count - 1))):
                self.workers.append(self._fork(hashes=number == 0))
        except BaseException:  # no worker, pipe or descriptor is left behind
            self.close()
            raise

    def _fork(self, *, hashes: bool) -> _Worker:
        results_r, results_w = os.pipe()
        depths_r, depths_w = os.pipe()
        siblings = [fd for worker in self.workers for fd in (worker.results_r, worker.depths_w)]

        def start() -> None:
            for fd in [results_r, depths_w, *siblings]:
                os.close(fd)  # the main process's ends: a worker holding one would hide an end of file
            _work(self.file, self.claims, self.min_depth, MessageReader(depths_r), results_w, hashes=hashes)

        try:
            widen_pipe(results_w)  # ranges read while this process is busy wait there, not in the worker
            pid = fork_worker(start)
        except BaseException:
            os.close(results_r)
            os.close(depths_w)
            raise
        finally:
            os.close(results_w)
            os.close(depths_r)
        return _Worker(pid, results_r, depths_w)

    def read(
        self, depth_of: DepthOf, judged: Container[str] | None, *, deeper: dict[str, int], on_head: OnHead | None = None
    ) -> Run:
        """Take the ranges left, gather the workers', merge them in file order.

        ``deeper`` names the queries whose head goes past ``min_depth``; the
        workers learn it here. ``depth_of`` must agree with it. ``on_head``
        is told each judged query's head as soon as it is final, while the
        ranges are still being read.
        """
        senders = self._send_depths(deeper)
        results: dict[int, RangeResult] = {}
        arriving = [MessageReader(worker.results_r) for worker in self.workers]

        def keep(result: RangeResult) -> None:
            if result.index not in results:
                results[result.index] = _without_unjudged(result, judged)
                _announce(result, on_head)

        while (index := self.claims.take(from_back=False)) is not None:
            for reader in arriving:
                self._keep_messages(reader.arrived(), keep)
            result = self.file.read(index, depth_of)
            keep(result)
            if result.error is not None:
                self.claims.stop()  # nothing after a refusal matters
                break
        for worker, reader in zip(list(self.workers), arriving):
            delivered = False
            try:
                self._keep_messages(reader.rest(), keep)  # a worker that died sent fewer ranges
                delivered = True
            finally:
                self._release(worker, kill=not delivered)
        for sender in senders:  # each has written its message or met a closed pipe by now
            sender.join()
        return self._merge(results, depth_of, judged)

    def _keep_messages(self, messages: list[RangeResult | str], keep: Callable[[RangeResult], None]) -> None:
        for message in messages:
            if isinstance(message, str):
                self.sha256 = message
            else:
                keep(message)

    def _send_depths(self, deeper: dict[str, int]) -> list[threading.Thread]:
        senders = []
        for worker in self.workers:
            # A thread, because a worker only reads the message between two ranges. It closes the pipe.
            sender = threading.Thread(target=_send_then_close, args=(worker.depths_w, deeper), daemon=True)
            worker.depths_w = -1
            sender.start()
            senders.append(sender)
        return senders

    def _merge(self, results: dict[int, RangeResult], depth_of: DepthOf, judged: Container[str] | None) -> Run:
        """One run from the ranges in file order; a range no worker delivered is read here."""
        run = Run(format="jsonl")
        collector = RunCollector(run, judged, self.file.path)
        lines_before = 0
        for index in range(self.file.count):
            result = results.pop(index, None) or _without_unjudged(self.file.read(index, depth_of), judged)
            for entry in result.entries:
                try:  # a head is cut at its depth already, unless that depth was not told to the worker
                    entry = self.file.fit(entry, depth_of(entry.query_id))
                except InputError as error:  # only if the file changed while it was read
                    raise self._refusal(lines_before, error.line, error.problem) from None
                collector.add(lines_before + entry.line, entry.query_id, entry.head, entry.received, entry.first_repeat)
            if result.error is not None:
                raise self._refusal(lines_before, *result.error)
            lines_before += result.lines
        run.with_duplicates.sort()
        run.unjudged.sort()
        run.sha256 = self.sha256 or self.file.sha256()
        return run

    def _refusal(self, lines_before: int, line: int | None, problem: str) -> InputError:
        return InputError("run", None if line is None else lines_before + line, problem, path=self.file.path)

    def _release(self, worker: _Worker, *, kill: bool) -> None:
        self.workers.remove(worker)
        for fd in (worker.results_r, worker.depths_w):
            if fd >= 0:
                os.close(fd)
        reap(worker.pid, kill=kill)

    def close(self) -> None:
        """Stop and reap every worker (after an error, or once read); idempotent."""
        while self.workers:
            self._release(self.workers[0], kill=True)
        self.file.close()
        self.claims.close()


def _send_then_close(fd: int, deeper: dict[str, int]) -> None:
    try:
        send_message(fd, deeper)
    except OSError:  # the worker is gone; the ranges it took are read by the main process
        pass
    finally:
        os.close(fd)


def _announce(result: RangeResult, on_head: OnHead | None) -> None:
    if on_head is not None:
        for entry in result.entries:
            on_head(entry.query_id, entry.head)


# -- the entry point -----------------------------------------------------------


class RunReading:
    """A run being read: started early (see the module docstring), finished by :meth:`run`."""

    def __init__(
        self, path: str, run_format: str, min_depth: int | None, split: Split | None = None, rows: RunRows | None = None
    ) -> None:
        """``split`` says how many workers may help; none by default (a library call runs in one process).
        ``rows``: the run held in memory (``path`` then only names it), read in this process."""
        check_run_format(run_format)
        self.path = path
        self.run_format = run_format
        self.min_depth = min_depth
        self.rows = rows
        self.ranges: RangeReader | None = None
        split = split if split is not None else split_for(0)
        size = _splittable_size(path, run_format, split) if min_depth is not None and rows is None else None
        if size is not None and min_depth is not None:
            try:
                self.ranges = RangeReader(path, size, min_depth, split)
            except OSError:  # workers only save time: read in this process, where parse_run words any refusal
                self.ranges = None

    def run(self, *, depth_of: DepthOf | None, judged: Collection[str] | None, on_head: OnHead | None = None) -> Run:
        """The run, heads cut at ``depth_of`` (whole rankings for None); ``on_head`` hears of judged
        heads early when ranges are read."""
        if self.rows is not None:
            return run_from_rows(self.rows, depth=depth_of, judged=judged)
        if self.ranges is None:
            return parse_run(self.path, depth=depth_of, judged=judged, run_format=self.run_format)
        assert depth_of is not None  # ranges are read only for a depth (see __init__)
        assert self.min_depth is not None
        # Only judged queries are told; any other one is fitted to its depth while merging.
        deeper = {query: depth for query in judged or {} if (depth := depth_of(query)) > self.min_depth}
        try:
            return self.ranges.read(depth_of, judged, deeper=deeper, on_head=on_head)
        finally:
            self.close()

    def close(self) -> None:
        """Stop any worker still reading; idempotent."""
        if self.ranges is not None:
            self.ranges.close()
            self.ranges = None


def _splittable_size(path: str, run_format: str, split: Split) -> int | None:
    """The size of a run worth reading by ranges, else None (one process reads it)."""
    if split.workers < 1 or not hasattr(os, "preadv") or run_format == "trec":
        return None
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return None  # the reader in runs.py words the refusal
    if not stat.S_ISREG(status.st_mode) or status.st_size < split.parallel_from:
        return None
    if run_format == "auto":
        try:
            if detect_format(path) != "jsonl":
                return None
        except InputError:
            return None
    return status.st_size
