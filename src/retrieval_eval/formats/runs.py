"""Runs: what a retriever returned, as ranked keys per query.

Two formats are read: run JSONL (``{"query_id": ..., "ranking": [...]}`` per
line) and TREC run files (``qid Q0 doc rank score tag``). Both are streamed:
only the deduplicated head of each judged query's ranking is kept, so memory
grows with queries x depth, never with the length of the file.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO

from ..core.errors import InputError, UsageError
from ..core.field_names import slip_hint
from ..core.runs import Run, RunRows, dedupe_head
from .fileio import open_binary, reads_once
from .jsonl import (
    BOM,
    decode_exactly,
    decode_line,
    expect_object,
    iter_lines,
    iter_raw_lines,
    orjson_installed,
    scan_deferring_escapes,
)
from .run_heads import fast_head

RUN_FORMATS = ("auto", "jsonl", "trec")
RUN_FIELDS = frozenset(("query_id", "ranking"))  # what a run line is read by: a slip of one is told


def _first_bad_entry(ranking: list[Any]) -> int:
    for index, key in enumerate(ranking):
        if type(key) is not str or not key:
            return index
    return -1


def _entries_are_keys(ranking: list[Any]) -> bool:
    """Whether every entry is a non-empty string: two passes in C, no Python-level loop."""
    try:
        "".join(ranking)  # refuses any entry that is not a string
    except TypeError:
        return False
    return all(ranking)  # every entry is a string by now, so truth means non-empty


def check_run_record(record: dict[str, Any], line: int, path: str | None) -> tuple[str, list[str]]:
    """Return (query_id, ranking) after checking both as the run format requires."""
    query_id = record.get("query_id")
    if "query_id" not in record and "ranking" not in record:
        # {"q1": ["d3", "d1"], ...}: rankings by query in one object, the library's shape, not a run line.
        found = ", ".join(repr(key) for key in list(record)[:3]) + (", ..." if len(record) > 3 else "")
        raise InputError(
            "run",
            line,
            f'not a run line: a run has one object per query, {{"query_id": "q1", "ranking": ["key", ...]}} '
            f"(this one has {found or 'no field'})",
            path=path,
        )
    if type(query_id) is not str or not query_id:
        problem = (
            "query_id must be a non-empty string"
            if "query_id" in record
            else "missing required field query_id" + slip_hint(record, "query_id", RUN_FIELDS)
        )
        raise InputError("run", line, problem, path=path)
    ranking = record.get("ranking")
    if type(ranking) is not list:
        problem = (
            "missing required field ranking" + slip_hint(record, "ranking", RUN_FIELDS)
            if "ranking" not in record
            else "ranking must be an array"
        )
        raise InputError("run", line, problem, path=path)
    if ranking and not _entries_are_keys(ranking):
        index = _first_bad_entry(ranking)
        raise InputError("run", line, f"ranking[{index}] must be a non-empty string", path=path)
    return query_id, ranking


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _plain_run_record(raw: bytes | memoryview) -> tuple[str, list[str]] | None:
    """Without orjson: (query_id, ranking) of a common line, checked, or None for the other readings.

    The line is scanned once; the ranking's entries are checked by one join, whose
    result also says whether any string can hold a lone surrogate (none is ASCII), so
    the search of the line for a ``\\u`` escape is made only for a line with non-ASCII text.
    """
    scanned = scan_deferring_escapes(raw)
    if scanned is None:
        return None
    value, text = scanned
    if type(value) is not dict:
        return None
    query_id = value.get("query_id")
    ranking = value.get("ranking")
    if type(query_id) is not str or not query_id or type(ranking) is not list:
        return None
    rest = [v for k, v in value.items() if k != "ranking"]
    if not all(type(v) in _SCALARS for v in rest):
        return None
    try:
        joined = "".join(ranking)  # refuses any entry that is not a string
    except TypeError:
        return None
    if not all(ranking):
        return None
    others = "".join([*value, *(v for v in rest if type(v) is str)])  # the keys and the other strings
    if not (joined.isascii() and others.isascii()) and "\\u" in text:
        return None  # a surrogate may hide in an escape: json.loads and the checks decide
    return query_id, ranking


def read_run_record(raw: bytes | memoryview, line: int, path: str | None) -> tuple[str, list[str]]:
    """(query_id, ranking) of one run line, read on the fast path when that cannot change the outcome.

    The fast reading is kept for a record whose only container is a ranking
    of strings (the common line). Anything else, and any line the checks
    refuse, is read again by json, so the refusal is the one json would lead to.
    """
    if not orjson_installed():
        plain = _plain_run_record(raw)
        if plain is not None:
            return plain
    value = decode_line(raw, "run", line, path, numbers_matter=False)
    if type(value) is dict and all(type(v) in _SCALARS for k, v in value.items() if k != "ranking"):
        try:
            return check_run_record(value, line, path)
        except InputError:
            pass
    value = expect_object(decode_exactly(raw, "run", line, path), "run", line, path)
    return check_run_record(value, line, path)


class QueriesSeen:
    """The line each query of a run was first seen on; a query seen again is refused."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.first_line: dict[str, int] = {}

    def see(self, query_id: str, line: int) -> None:
        previous = self.first_line.setdefault(query_id, line)
        if previous != line:
            raise InputError(
                "run",
                line,
                f"duplicate entry for query {query_id}, already on line {previous}",
                path=self.path,
            )


def iter_run_jsonl(
    handle: BinaryIO, *, path: str | None = None, digest: Any = None
) -> Iterator[tuple[int, str, list[str]]]:
    """Yield (line, query_id, ranking), refusing a query that appears twice."""
    seen = QueriesSeen(path)
    for line, raw in iter_lines(handle, digest, source="run", path=path):
        query_id, ranking = read_run_record(raw, line, path)
        seen.see(query_id, line)
        yield line, query_id, ranking


# The numbers trec_eval reads in full (strtod in the C locale, decimal forms): a sign,
# ASCII digits with an optional fraction, an optional exponent. Python's float() reads
# more ("1_000", other scripts' digits), which trec_eval would read differently.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _parse_score(text: str, line: int, path: str | None) -> float:
    """A TREC score: a finite decimal number; inf and nan, which strtod also reads, are refused."""
    value = float(text) if _DECIMAL.fullmatch(text) else math.nan
    if not math.isfinite(value):
        raise InputError("run", line, f"score must be a finite number, got {text!r}", path=path)
    return value


def iter_trec_run(
    handle: BinaryIO, *, path: str | None = None, digest: Any = None
) -> Iterator[tuple[int, str, str, float]]:
    """Yield (line, query_id, doc_id, score) for each line of a TREC run file.

    As in trec_eval, fields after the run tag are ignored; the first six are checked.
    """
    for line, raw in iter_lines(handle, digest, source="run", path=path):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("run", line, "not valid UTF-8", path=path) from None
        fields = text.split()
        if len(fields) < 6:
            raise InputError(
                "run",
                line,
                f"expected 6 columns (query Q0 doc rank score tag), got {len(fields)}",
                path=path,
            )
        yield line, fields[0], fields[2], _parse_score(fields[4], line, path)


def no_ranking_error(path: str | None, *, held: bool = False) -> InputError:
    """A run with no line (a retriever that failed, or wrote elsewhere): refused wherever a run is
    read, since scored it would give every metric 0 and, without a gate, a PASS."""
    return InputError(
        "run",
        None,
        "the run holds no ranking" if held else "the file holds no ranking",
        path=path,
        hint=f"check {path}: a run has one line per query, "
        '{"query_id": "q1", "ranking": ["key", ...]} or TREC\'s "q1 Q0 key rank score tag"',
    )


def check_run_format(run_format: str) -> None:
    if run_format not in RUN_FORMATS:
        raise UsageError(f"unknown run format {run_format!r}; use one of {', '.join(RUN_FORMATS)}")


def detect_format(path: str) -> str:
    """``jsonl`` when the first non-blank line starts like JSON (``{``, ``[`` or ``"``), else ``trec``."""
    with open_binary(path) as handle:
        for raw in iter_raw_lines(handle, source="run", path=path):
            stripped = raw.removeprefix(BOM).strip()
            if stripped:
                return "jsonl" if stripped[:1] in (b"{", b"[", b'"') else "trec"
    return "jsonl"


DepthOf = Callable[[str], int]


def read_head(
    raw: bytes | memoryview, line: int, path: str | None, depth_of: DepthOf | None
) -> tuple[str, list[str], int, int | None]:
    """(query_id, head, entries received, first repeat) of one run line, checked."""
    if depth_of is not None:
        found = fast_head(raw, depth_of)
        if found is not None:
            return found
    query_id, ranking = read_run_record(raw, line, path)
    head, first_repeat = dedupe_head(ranking, depth_of(query_id) if depth_of else None)
    return query_id, head, len(ranking), first_repeat


class RunCollector:
    """Builds a :class:`Run` from run lines given in file order.

    The score path's readers, one process or several, end here, so the
    judged/unjudged split is decided in one place; a query listed twice is
    refused by :class:`QueriesSeen`, as every run JSONL reader does.
    """

    def __init__(self, run: Run, judged: Any, path: str | None) -> None:
        self.run = run
        self.judged = judged
        self.seen = QueriesSeen(path)

    def add(self, line: int, query_id: str, head: list[str], received: int, first_repeat: int | None) -> None:
        self.seen.see(query_id, line)
        run = self.run
        run.queries += 1
        if self.judged is not None and query_id not in self.judged:
            run.unjudged.append(query_id)
            return
        run.rankings[query_id] = head
        run.received[query_id] = received
        if first_repeat is not None:
            run.with_duplicates.append(query_id)


def _collect_jsonl(handle: BinaryIO, run: Run, depth_of: DepthOf | None, judged: Any, path: str, digest: Any) -> None:
    collector = RunCollector(run, judged, path)
    for line, raw in iter_lines(handle, digest, source="run", path=path):
        collector.add(line, *read_head(raw, line, path, depth_of))


def _rank_order(item: tuple[str, float]) -> tuple[float, str]:
    # trec_eval's order: score descending, ties broken by document id descending.
    return item[1], item[0]


def _prune(scores: dict[str, float], depth: int) -> dict[str, float]:
    best = sorted(scores.items(), key=_rank_order, reverse=True)[:depth]
    return dict(best)


class _TrecPool:
    """One query's best-scored documents while a TREC run is read, bounded in size.

    ``best`` holds each document's best score; ``runner_up`` the best of its
    other lines, for documents listed more than once. Both are cut back to the
    ``depth`` best documents when they grow past twice that: a document cut
    then can never climb back above the documents kept.
    """

    def __init__(self, depth: int | None) -> None:
        self.depth = depth
        self.best: dict[str, float] = {}
        self.runner_up: dict[str, float] = {}

    def add(self, doc_id: str, score: float) -> None:
        previous = self.best.get(doc_id)
        if previous is not None:
            self.runner_up[doc_id] = max(min(previous, score), self.runner_up.get(doc_id, -math.inf))
            if previous >= score:
                return
        self.best[doc_id] = score
        if self.depth is not None and len(self.best) > 2 * self.depth + 16:
            self.best = _prune(self.best, self.depth)
            self.runner_up = {d: s for d, s in self.runner_up.items() if d in self.best}

    def head(self) -> list[str]:
        ordered = sorted(self.best.items(), key=_rank_order, reverse=True)
        return [doc for doc, _ in ordered[: self.depth]]

    def repeated_in_head(self, head: list[str]) -> bool:
        """Whether a repeated line falls where reading in rank order fills the head.

        The same question the JSONL reader answers: a repeat ranked below the
        last document of a full head is never read, so it changes nothing.
        """
        if not self.runner_up:
            return False
        if self.depth is None or len(head) < self.depth:
            return True
        last = (self.best[head[-1]], head[-1])
        return any((score, doc) >= last for doc, score in self.runner_up.items())


def _collect_trec(handle: BinaryIO, run: Run, depth_of: DepthOf | None, judged: Any, path: str, digest: Any) -> None:
    collect_scored(
        ((q, d, s) for _line, q, d, s in iter_trec_run(handle, path=path, digest=digest)), run, depth_of, judged
    )


def collect_scored(rows: Iterable[tuple[str, str, float]], run: Run, depth_of: DepthOf | None, judged: Any) -> None:
    """Fill ``run`` from (query_id, doc_id, score) rows, as trec_eval orders them (see _TrecPool)."""
    pools: dict[str, _TrecPool] = {}
    unjudged: set[str] = set()
    for query_id, doc_id, score in rows:
        if judged is not None and query_id not in judged:
            unjudged.add(query_id)
            continue
        pool = pools.get(query_id)
        if pool is None:
            pool = pools[query_id] = _TrecPool(depth_of(query_id) if depth_of else None)
            run.received[query_id] = 0
        run.received[query_id] += 1
        pool.add(doc_id, score)
    for query_id, pool in pools.items():
        run.rankings[query_id] = pool.head()
        if pool.repeated_in_head(run.rankings[query_id]):
            run.with_duplicates.append(query_id)
    run.with_duplicates.sort()
    run.unjudged = sorted(unjudged)
    run.queries = len(pools) + len(unjudged)


def run_from_rows(rows: RunRows, *, depth: int | DepthOf | None = None, judged: Any = None) -> Run:
    """The run held in ``rows``, read exactly as :func:`parse_run` reads the file that holds them."""
    depth_of: DepthOf | None = (lambda _q: depth) if isinstance(depth, int) else depth
    run = Run(format="trec" if rows.by_score else "jsonl", sha256=rows.sha256)
    if rows.by_score:
        collect_scored(rows.scored, run, depth_of, judged)
    else:
        collector = RunCollector(run, judged, None)
        for line, (query_id, ranking) in enumerate(rows.ranked, 1):
            head, first_repeat = dedupe_head(list(ranking), depth_of(query_id) if depth_of else None)
            collector.add(line, query_id, head, len(ranking), first_repeat)
    run.with_duplicates.sort()
    run.unjudged.sort()
    return run


@reads_once
def parse_run(
    path: str,
    *,
    depth: int | DepthOf | None = None,
    judged: Any = None,
    run_format: str = "auto",
) -> Run:
    """Read a run file, keeping the deduplicated head of each (judged) query.

    ``depth`` is a number or a function of the query id; ``judged`` is a
    container of query ids worth keeping (others are only counted).
    """
    check_run_format(run_format)
    fmt = detect_format(path) if run_format == "auto" else run_format
    depth_of: DepthOf | None = (lambda _q: depth) if isinstance(depth, int) else depth
    run = Run(format=fmt)
    digest = hashlib.sha256()
    collect = _collect_jsonl if fmt == "jsonl" else _collect_trec
    with open_binary(path) as handle:
        collect(handle, run, depth_of, judged, path, digest)
    run.with_duplicates.sort()
    run.unjudged.sort()
    run.sha256 = digest.hexdigest()
    return run
