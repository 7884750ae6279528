"""A run read by ranges on several processes says exactly what one reader says.

Every test compares the range reader with ``parse_run`` reading the file from
the top: the same heads, counts, findings and hash, or the same refusal word
for word. Ranges are made tiny so that lines, repeats and errors fall on
every side of a range boundary.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval_eval.core.errors import InputError
from retrieval_eval.core.runs import Run
from retrieval_eval.formats.runs import parse_run
from retrieval_eval.pipeline import run_ranges
from retrieval_eval.pipeline.run_ranges import RunReading, Split, fit, range_lines, read_range

MIN_DEPTH = 2
# q1 and q3 need heads deeper than the workers keep before they are told.
DEEPER = {"q1": 7, "q3": 5}


def depth_of(query_id: str) -> int:
    return DEEPER.get(query_id, MIN_DEPTH)


def serial(path: Path, judged: Any) -> Run | str:
    try:
        return parse_run(str(path), depth=depth_of, judged=judged, run_format="jsonl")
    except InputError as error:
        return f"{error.message} | {error.hint}"


def by_ranges(path: Path, judged: Any, *, workers: int, range_bytes: int, pause: float = 0.0) -> Run | str:
    reading = RunReading(str(path), "jsonl", MIN_DEPTH, Split(workers, range_bytes, parallel_from=0))
    try:
        assert reading.ranges is not None, "the file should have been split"
        if pause:
            time.sleep(pause)  # the workers read every range before they know the depths
        return reading.run(depth_of=depth_of, judged=judged)
    except InputError as error:
        return f"{error.message} | {error.hint}"
    finally:
        reading.close()


def same(a: Run | str, b: Run | str) -> None:
    if isinstance(a, str) or isinstance(b, str):
        assert a == b
        return
    assert list(a.rankings.items()) == list(b.rankings.items())
    assert a.received == b.received
    assert a.with_duplicates == b.with_duplicates
    assert a.unjudged == b.unjudged
    assert (a.queries, a.sha256, a.format) == (b.queries, b.sha256, b.format)


def line_for(query: int, ranking: list[Any]) -> str:
    return json.dumps({"query_id": f"q{query}", "ranking": ranking})


def sample_run(path: Path, queries: int = 12, keys: int = 9) -> None:
    lines = []
    for q in range(queries):
        ranking = [f"d{q}-{r}" for r in range(keys)]
        if q % 3 == 0:
            ranking[2] = ranking[0]  # a repeat inside every head
        if q % 4 == 1:
            ranking[6] = ranking[1]  # a repeat only deep heads read
        lines.append(line_for(q, ranking))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("range_bytes", [1, 17, 64, 150, 4096])
@pytest.mark.parametrize("workers", [1, 2])
def test_same_run_as_one_reader(tmp_path: Path, workers: int, range_bytes: int) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path)
    judged = {f"q{q}" for q in range(12) if q != 5}
    expected = serial(path, judged)
    assert not isinstance(expected, str) and expected.with_duplicates
    same(by_ranges(path, judged, workers=workers, range_bytes=range_bytes), expected)


def test_heads_kept_before_the_depths_were_known_are_deepened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path)
    judged = {f"q{q}" for q in range(12)}
    told_r, told_w = os.pipe()
    real_send_fitted = run_ranges._send_fitted

    def spy(run_file: Any, waiting: list[Any], *args: Any) -> None:
        os.write(told_w, b"x" * len(waiting))  # in the worker: ranges read before the depths came
        real_send_fitted(run_file, waiting, *args)

    monkeypatch.setattr(run_ranges, "_send_fitted", spy)
    result = by_ranges(path, judged, workers=2, range_bytes=40, pause=0.5)
    os.close(told_w)
    fitted = os.read(told_r, 1 << 16)
    os.close(told_r)
    assert fitted, "the workers should have read ranges before they were told the depths"
    assert not isinstance(result, str)
    assert len(result.rankings["q1"]) == 7 and len(result.rankings["q0"]) == MIN_DEPTH
    assert "q1" in result.with_duplicates  # its repeat sits at rank 7, inside its deeper head
    assert "q5" not in result.with_duplicates  # the same repeat lies below a head of 2
    same(result, serial(path, judged))


def test_fitting_a_head_cuts_it_or_reads_its_line_again(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path, queries=4)
    fd = os.open(path, os.O_RDONLY)
    try:
        size = path.stat().st_size
        result = read_range(fd, 0, 0, size, size, str(path), lambda _q: 3)
        heads = {
            entry.query_id: fit(fd, entry, size, str(path), depth_of(entry.query_id)).head for entry in result.entries
        }
    finally:
        os.close(fd)
    assert heads["q1"] == [f"d1-{r}" for r in (0, 1, 2, 3, 4, 5, 7)]  # read again: 7 > 3 kept; d1-1 repeats
    assert heads["q0"] == ["d0-0", "d0-1"]  # cut: it needed only 2
    assert heads["q3"] == ["d3-0", "d3-1", "d3-3", "d3-4", "d3-5"]  # read again past its repeat of d3-0


@pytest.mark.parametrize("bad_line", [3, 7, 12])
@pytest.mark.parametrize("range_bytes", [1, 50, 300])
def test_the_first_refusal_in_file_order_wins(tmp_path: Path, bad_line: int, range_bytes: int) -> None:
    lines = [line_for(q, [f"d{q}-{r}" for r in range(4)]) for q in range(14)]
    lines[bad_line - 1] = '{"query_id": "qx", "ranking": ["a", 3]}'
    lines[12] = '{"query_id": "q2", "ranking": ["a"]}'  # a query listed twice, on line 13
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = serial(path, None)
    assert isinstance(expected, str) and f"run:{min(bad_line, 13)}:" in expected
    for workers in (1, 2):
        assert by_ranges(path, None, workers=workers, range_bytes=range_bytes) == expected


def test_a_worker_that_dies_has_its_ranges_read_again(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path, queries=30)
    reading = RunReading(str(path), "jsonl", MIN_DEPTH, Split(1, 64, parallel_from=0))
    try:
        assert reading.ranges is not None
        os.kill(reading.ranges.workers[0].pid, signal.SIGKILL)
        same(reading.run(depth_of=depth_of, judged=None), serial(path, None))
    finally:
        reading.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # reaped: no worker is left behind


def test_closing_before_reading_stops_the_workers(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path, queries=30)
    reading = RunReading(str(path), "jsonl", MIN_DEPTH, Split(2, 16, parallel_from=0))
    assert reading.ranges is not None and len(reading.ranges.workers) == 2
    reading.close()  # as when the judgments are refused: the workers wait for depths never sent
    reading.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize("prefix, line_end", [(b"", b"\n"), (b"\xef\xbb\xbf", b"\r\n")])
def test_bom_crlf_blank_lines_and_a_last_line_without_its_end(tmp_path: Path, prefix: bytes, line_end: bytes) -> None:
    lines = [line_for(q, [f"d{q}-{r}" for r in range(5)]).encode() for q in range(8)]
    lines.insert(3, b"   ")
    lines.insert(5, b"")
    path = tmp_path / "run.jsonl"
    path.write_bytes(prefix + line_end.join(lines))
    for range_bytes in (1, 33, 90):
        same(by_ranges(path, None, workers=2, range_bytes=range_bytes), serial(path, None))


def test_range_lines_gives_each_line_to_the_range_it_starts_in(tmp_path: Path) -> None:
    data = b"ab\n\ncdef\ng\n"
    path = tmp_path / "lines"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        for size in range(1, len(data) + 1):
            for buffer_size in (1, 2, 5, 64):  # lines longer than the buffer make it grow
                pieces = [
                    (offset, bytes(line))
                    for start in range(0, len(data), size)
                    for offset, line in range_lines(
                        fd, start, min(start + size, len(data)), len(data), bytearray(buffer_size)
                    )
                ]
                assert pieces == [(0, b"ab"), (3, b""), (4, b"cdef"), (9, b"g")]
    finally:
        os.close(fd)


def test_small_files_trec_runs_and_no_workers_read_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path)
    assert RunReading(str(path), "auto", MIN_DEPTH, Split(1)).ranges is None  # below parallel_from
    assert RunReading(str(path), "trec", MIN_DEPTH, Split(1, parallel_from=0)).ranges is None
    assert RunReading(str(path), "auto", None, Split(1, parallel_from=0)).ranges is None  # whole rankings
    assert RunReading(str(tmp_path / "missing"), "auto", MIN_DEPTH, Split(1, parallel_from=0)).ranges is None
    # A library call that says nothing about workers reads in one process, however large the run.
    monkeypatch.setattr(run_ranges, "PARALLEL_FROM", 0)
    assert RunReading(str(path), "jsonl", MIN_DEPTH).ranges is None
    assert run_ranges.split_for(2).workers == 2


rankings = st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h"]), max_size=9)
run_lines = st.lists(
    st.one_of(
        st.tuples(st.integers(0, 9), rankings).map(lambda item: line_for(*item)),
        st.sampled_from(["", "  ", '{"query_id": "q1", "ranking": [""]}', "not json", '{"query_id": 4}']),
    ),
    max_size=14,
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=run_lines, range_bytes=st.integers(1, 120), workers=st.integers(1, 2), final_newline=st.booleans())
def test_any_run_reads_the_same_by_ranges(
    tmp_path: Path, lines: list[str], range_bytes: int, workers: int, final_newline: bool
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(lines) + ("\n" if final_newline else ""), encoding="utf-8")
    if path.stat().st_size == 0:
        return
    judged = {"q1", "q2", "q3", "q4", "q7"}
    same(by_ranges(path, judged, workers=workers, range_bytes=range_bytes), serial(path, judged))


def test_the_score_pipeline_gives_the_same_report_split_or_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from retrieval_eval.core.gates import Gating
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.pipeline.evaluate import run_pipeline
    from retrieval_eval.pipeline.request import EvaluationRequest

    demo = Path(run_ranges.__file__).parents[1] / "demo"
    request = EvaluationRequest(
        str(demo / "judgments.jsonl"),
        str(demo / "run.jsonl"),
        ScoreConfig(k=(1, 3)),
        gating=Gating(gates=["recall@3:0.1", "worst-stratum:recall@3:0.1"]),
    )
    one_process = run_pipeline(request, workers=0).report
    monkeypatch.setattr(run_ranges, "PARALLEL_FROM", 0)
    monkeypatch.setattr(run_ranges, "RANGE_BYTES", 97)
    started = []
    real_init = run_ranges.RangeReader.__init__

    def counting_init(self: Any, *args: Any) -> None:
        started.append(args)
        real_init(self, *args)

    monkeypatch.setattr(run_ranges.RangeReader, "__init__", counting_init)
    assert run_pipeline(request, workers=2).report == one_process
    assert started, "the run should have been read by ranges"

    # Refused judgments: the workers already reading the run are stopped, none is left behind.
    bad = tmp_path / "judgments.jsonl"
    bad.write_text('{"query_id": "q1"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="judgments:1"):
        run_pipeline(EvaluationRequest(str(bad), str(demo / "run.jsonl")), workers=2)
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


@pytest.mark.parametrize(
    "bad",
    [
        b'{"query_id": "q9", "ranking": ["\xff"]}',
        b'{"query_id": "q9", "ranking": NaN}',
        b'{"query_id": "", "ranking": ["a"]}',
        b"[1, 2]",
    ],
)
def test_refusals_read_from_a_shared_buffer_are_worded_as_from_the_file(tmp_path: Path, bad: bytes) -> None:
    lines = [line_for(q, [f"d{q}-{r}" for r in range(4)]).encode() for q in range(6)]
    lines.insert(4, bad)
    path = tmp_path / "run.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    expected = serial(path, None)
    assert isinstance(expected, str) and expected.startswith("run:5:")
    for range_bytes in (1, 60, 4096):
        assert by_ranges(path, None, workers=1, range_bytes=range_bytes) == expected


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else -1


def test_a_fork_that_fails_leaves_nothing_behind_and_one_process_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path, queries=30)
    real_fork = run_ranges.fork_worker
    calls = []

    def second_fork_fails(body: Any) -> int:
        calls.append(1)
        if len(calls) == 2:
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real_fork(body)

    monkeypatch.setattr(run_ranges, "fork_worker", second_fork_fails)
    before = open_fds()
    reading = RunReading(str(path), "jsonl", MIN_DEPTH, Split(2, 64, parallel_from=0))
    assert reading.ranges is None  # fell back to one process
    assert open_fds() == before
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # the worker forked first was stopped and reaped
    same(reading.run(depth_of=depth_of, judged=None), serial(path, None))


def test_heads_of_unjudged_queries_are_let_go_as_ranges_arrive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path, queries=40)
    judged = {"q1", "q7"}
    kept: dict[str, list[str]] = {}
    real_merge = run_ranges.RangeReader._merge

    def spy(self: Any, results: dict[int, Any], *args: Any) -> Run:
        for result in results.values():
            kept.update({entry[1]: entry[2] for entry in result.entries})
        return real_merge(self, results, *args)

    monkeypatch.setattr(run_ranges.RangeReader, "_merge", spy)
    same(by_ranges(path, judged, workers=1, range_bytes=50, pause=0.2), serial(path, judged))
    assert kept["q1"] and kept["q7"]
    assert all(head == [] for query, head in kept.items() if query not in judged)


def test_descriptors_above_1024_and_an_ignored_sigchld_are_fine(tmp_path: Path) -> None:
    import resource

    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < 1200:
        pytest.skip("the open-file limit is too low to reach descriptor 1024")
    path = tmp_path / "run.jsonl"
    sample_run(path, queries=30)
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    try:
        same(by_ranges(path, None, workers=2, range_bytes=64), serial(path, None))
    finally:
        signal.signal(signal.SIGCHLD, previous)
        for fd in held:
            os.close(fd)


def test_closing_twice_closes_no_descriptor_someone_else_now_holds(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path, queries=30)
    reader = run_ranges.RangeReader(str(path), path.stat().st_size, MIN_DEPTH, Split(1, 64, parallel_from=0))
    reader.close()
    mine = [os.open(os.devnull, os.O_RDONLY) for _ in range(4)]  # likely the numbers just freed
    reader.close()
    for fd in mine:
        os.fstat(fd)  # still open
        os.close(fd)


def test_the_hash_is_of_the_file_read_even_if_the_path_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    sample_run(path, queries=30)
    original = hashlib.sha256(path.read_bytes()).hexdigest()
    reading = RunReading(str(path), "jsonl", MIN_DEPTH, Split(1, 64, parallel_from=0))
    try:
        assert reading.ranges is not None
        os.kill(reading.ranges.workers[0].pid, signal.SIGKILL)  # the worker that hashes: this process must
        replacement = tmp_path / "new.jsonl"
        sample_run(replacement, queries=3)
        os.replace(replacement, path)
        assert reading.run(depth_of=depth_of, judged=None).sha256 == original
    finally:
        reading.close()


def test_a_head_scored_early_counts_only_for_that_very_list() -> None:
    from retrieval_eval.core.labelindex import LabelIndex
    from retrieval_eval.core.scoring import HeadScorer, ScoreConfig, index_judgments, score_rankings
    from retrieval_eval.formats.judgments import parse_judgments

    demo = Path(run_ranges.__file__).parents[1] / "demo"
    index = LabelIndex.from_judgments(parse_judgments(str(demo / "judgments.jsonl")))
    config = ScoreConfig(k=(1, 3))
    indexed = index_judgments(index, config)
    query = next(q for q, labels in indexed.items() if labels.n_relevant)
    relevant = [key for key, grade in indexed[query].grades.items() if grade][:3]
    rankings = {q: [] for q in indexed}
    rankings[query] = list(relevant)
    expected = score_rankings(index, rankings, config, indexed=indexed)

    scorer = HeadScorer(index, indexed, config)
    scorer.score_head(query, ["nothing-relevant"])  # a head later replaced by another list
    assert score_rankings(index, rankings, config, indexed=indexed, scorer=scorer).metrics == expected.metrics

    scorer = HeadScorer(index, indexed, config)
    scorer.score_head(query, rankings[query])  # the very list: its early values are taken
    again = score_rankings(index, rankings, config, indexed=indexed, scorer=scorer)
    assert again.metrics == expected.metrics and again.per_query == expected.per_query


def test_an_unknown_run_format_is_refused_however_large_the_run(tmp_path: Path) -> None:
    from retrieval_eval.core.errors import UsageError

    path = tmp_path / "run.jsonl"
    sample_run(path)
    with pytest.raises(UsageError, match="unknown run format 'csv'"):
        RunReading(str(path), "csv", MIN_DEPTH, Split(1, 64, parallel_from=0))


def test_scoring_refuses_a_reading_of_another_run(tmp_path: Path) -> None:
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.formats.judgments import read_label_index
    from retrieval_eval.pipeline.score_run import score_run_file

    demo = Path(run_ranges.__file__).parents[1] / "demo"
    other = tmp_path / "run.jsonl"
    sample_run(other)
    reading = RunReading(str(other), "auto", 3)
    with pytest.raises(ValueError, match="not of"):
        score_run_file(
            read_label_index(str(demo / "judgments.jsonl")),
            str(demo / "run.jsonl"),
            ScoreConfig(k=(3,)),
            reading=reading,
        )
    reading.close()
