"""Scoring a run file as it is read: the score path's reading and scoring, joined."""

from __future__ import annotations

from dataclasses import replace

from ..core.labelindex import LabelIndex
from ..core.report_model import Report
from ..core.runs import Run
from ..core.scoring import (
    BOUNDS,
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


def with_base_bounds(base: Report, index: LabelIndex) -> Report:
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
    """
    computed = base.computed
    if computed is None or BOUNDS in computed:
        return base
    recorded = base.inputs.judgments_sha256 if base.inputs is not None else None
    rankings = base.rankings
    if not recorded or recorded != index.sha256 or rankings is None:
        return base
    from ..comparison.rescore import score_config  # what reads a report's configuration

    scoring = score_config(base)
    if scoring is None:
        return base
    stored = {q: list(keys) for q, keys in rankings.items()}
    scores = score_rankings(index, stored, replace(scoring, bounds=True))
    return replace(
        base,
        computed=(*computed, BOUNDS),
        per_query_lower={q: row for q, row in scores.per_query_lower.items() if q in stored},
        per_query_upper={q: row for q, row in scores.per_query_upper.items() if q in stored},
    )
