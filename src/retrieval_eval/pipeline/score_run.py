"""Scoring a run file as it is read: the score path's reading and scoring, joined."""

from __future__ import annotations

from ..core.labelindex import LabelIndex
from ..core.runs import Run
from ..core.scoring import (
    HeadScorer,
    ScoreConfig,
    Scores,
    depth_for,
    index_judgments,
    score_rankings,
    with_run_findings,
)
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
