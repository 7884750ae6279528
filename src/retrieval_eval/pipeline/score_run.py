"""Scoring a run file as it is read: the score path's reading and scoring, joined."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import replace

from ..core.labelindex import LabelIndex
from ..core.report_model import Report
from ..core.runs import Run
from ..core.scoring import (
    BOUNDS,
    HeadScorer,
    QueryLabels,
    QueryRowBounds,
    ScoreConfig,
    Scores,
    depth_for,
    index_judgments,
    per_query_bounds,
    score_rankings,
    with_run_findings,
)
from .forking import MessageReader, fork_writer, may_fork, reap, send_message
from .run_ranges import RunReading


def score_run_file(
    index: LabelIndex,
    run_path: str,
    config: ScoreConfig,
    *,
    run_format: str = "auto",
    reading: RunReading | None = None,
) -> tuple[Scores, Run]:
    """Stream a run file, keeping only what scoring needs, and score it.

    ``reading`` is the reading of this very run when it was started before
    the judgments were read (see :mod:`.run_ranges`); by default it starts
    here, in this process alone. Either way it is finished, and its workers
    stopped, here.
    """
    if reading is not None and (reading.path, reading.run_format) != (run_path, run_format):
        raise ValueError(
            f"the reading given is of {reading.path} ({reading.run_format}), not of {run_path} ({run_format})"
        )
    indexed = index_judgments(index, config)
    reading = reading if reading is not None else RunReading(run_path, run_format, config.read_depth)
    scorer = HeadScorer(index, indexed, config)
    run = reading.run(
        depth_of=lambda q: depth_for(indexed.get(q), config), judged=indexed, on_head=scorer.score_head
    )  # which stops the workers, whatever happens
    scores = score_rankings(index, run.rankings, config, indexed=indexed, scorer=scorer)
    return with_run_findings(scores, run), run


def with_base_bounds(base: Report, index: LabelIndex, *, cache: IndexCache | None = None) -> Report:
    """The base report (or a head, read by ``compare``) with its per-query bounds, computed
    here when it did not compute them, and saying so in ``computed``.

    A report says in ``computed`` whether it computed its bounds; one that did not
    (nothing read them when it was scored) carries no ``per_query_lower`` and
    ``per_query_upper``, and a comparison would read each of its bounds as its value. When
    the base was scored with these very judgments (its ``judgments_sha256`` is the head's),
    its stored rankings scored again under its own configuration give exactly the bounds it
    would have written, so they are computed. Under other judgments the comparison scores
    the base rankings again under the head's, bounds included, and reads none from the
    base; a report from before ``computed`` existed is left as it is.

    ``cache`` lets two reports scored alike share the judgments indexed for scoring.
    """
    scoring = bounds_to_compute(base, index)
    if scoring is None:
        return base
    return with_bounds(base, *report_bounds(base, index, scoring, cache=cache))


def bounds_to_compute(report: Report, index: LabelIndex) -> ScoreConfig | None:
    """The configuration to compute a report's missing bounds under, or None when it has
    them, cannot have them here (other judgments, no rankings) or predates ``computed``."""
    computed = report.computed
    if computed is None or BOUNDS in computed:
        return None
    recorded = report.inputs.judgments_sha256 if report.inputs is not None else None
    if not recorded or recorded != index.sha256 or report.rankings is None:
        return None
    from ..comparison.rescore import score_config  # what reads a report's configuration

    return score_config(report)


Bounds = tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]  # per-query lower, upper


class IndexCache:
    """What reports scored alike on one set of judgments share: the judgments indexed for
    scoring, and each (query, kept ranking)'s bounds already computed (see
    :func:`per_query_bounds`). One cache serves one index: the bounds it keeps read its labels."""

    def __init__(self) -> None:
        self.indexed: dict[tuple[object, ...], dict[str, QueryLabels]] = {}
        self.known: dict[ScoreConfig, dict[tuple[str, tuple[str, ...]], QueryRowBounds | None]] = {}


def report_bounds(
    report: Report, index: LabelIndex, scoring: ScoreConfig, *, cache: IndexCache | None = None
) -> Bounds:
    """A report's per-query lower and upper bounds, from its stored rankings (see :func:`with_base_bounds`)."""
    rankings = report.rankings or {}
    stored = {q: list(keys) for q, keys in rankings.items()}
    config = replace(scoring, bounds=True)
    if cache is None:
        return per_query_bounds(index, stored, config)
    key = (config.gain, config.threshold, config.max_k)  # what index_judgments reads of the configuration
    indexed = cache.indexed.get(key)
    if indexed is None:
        indexed = cache.indexed[key] = index_judgments(index, config)
    return per_query_bounds(index, stored, config, indexed=indexed, known=cache.known.setdefault(config, {}))


def with_bounds(report: Report, lower: dict[str, dict[str, float]], upper: dict[str, dict[str, float]]) -> Report:
    """The report with these per-query bounds, saying in ``computed`` that it holds them."""
    return replace(report, computed=(*(report.computed or ()), BOUNDS), per_query_lower=lower, per_query_upper=upper)


class PendingBounds:
    """Reports' missing bounds, computed by a forked worker while this process goes on.

    ``compare`` starts it once the judgments are read and collects it (:meth:`reports`)
    only where the bounds are read, after the bootstrap; the pipeline starts it for the
    base while the head is scored. The costs then share the machine's cores. Whatever the
    worker does not deliver (it could not be forked, or died) is computed here, so the
    reports are the same in any case: the worker runs the very function this process would.
    """

    def __init__(self, reports: Sequence[Report], index: LabelIndex, *, workers: int) -> None:
        self._reports = tuple(reports)
        self._index = index
        self._todo = {
            side: config
            for side, report in enumerate(self._reports)
            if (config := bounds_to_compute(report, index)) is not None
        }
        self._child: tuple[int, MessageReader] | None = None
        self._done: tuple[Report, ...] | None = None
        if self._todo and workers > 0 and may_fork():
            self._child = self._fork()

    def _fork(self) -> tuple[int, MessageReader]:
        def serve(read_end: int, write_end: int) -> None:
            # Nothing but its own pipe stays open here: a pipe another worker (the run's
            # reader) waits to see closed must not be held open by this one.
            os.closerange(3, write_end)
            os.closerange(write_end + 1, _FD_LIMIT)
            send_message(write_end, self._computed())
            os.close(write_end)

        return fork_writer(serve)

    def _computed(self, sides: Collection[int] | None = None) -> dict[int, Bounds]:
        cache = IndexCache()
        return {
            side: report_bounds(self._reports[side], self._index, config, cache=cache)
            for side, config in self._todo.items()
            if sides is None or side in sides
        }

    def reports(self) -> tuple[Report, ...]:
        """The reports, in the order given, each with its bounds when it lacked them and they
        could be computed (waited for, or computed, once: a second call gives the same tuple)."""
        if self._done is not None:
            return self._done
        found: dict[int, Bounds] = {}
        if self._child is not None:
            pid, reader = self._child
            try:
                for message in reader.rest():
                    found.update(message)
            finally:
                self.close()
        missing = [side for side in self._todo if side not in found]
        if missing:
            found.update(self._computed(missing))
        self._done = tuple(
            with_bounds(report, *found[side]) if side in found else report for side, report in enumerate(self._reports)
        )
        return self._done

    def close(self) -> None:
        """Stop the worker, if any is left (idempotent)."""
        if self._child is not None:
            pid, reader = self._child
            self._child = None
            reap(pid, kill=True)
            os.close(reader.fd)


_FD_LIMIT = 1 << 20  # above any descriptor this process holds (close_range stops at the highest open one)
