"""Comparing two reports, as ``compare`` and the library's ``compare`` both do.

One path for both, so the two give the same document: the reports' missing bounds
are computed by a forked worker (when there are workers) while this process draws the
bootstrap, and collected where the comparison first reads them (see
:func:`~retrieval_eval.comparison.document.build_document`). With no workers they are
computed here, at that same point; the answer does not depend on the number of processes.
"""

from __future__ import annotations

from ..comparison.result import compared_document
from ..core.comparison_document import ComparisonDocument
from ..core.labelindex import LabelIndex
from ..core.report_model import Report
from .forking import shared_map
from .score_run import PendingBounds


def compare_documents(
    base: Report,
    head: Report,
    judgments: LabelIndex | None,
    *,
    resamples: int,
    seed: int,
    power: float,
    workers: int = 0,
) -> ComparisonDocument:
    """The comparison document of ``head`` against ``base``.

    ``judgments``: the head's, already checked to be the file the head was scored with;
    with them, a report that left its bounds out has them computed from its rankings.
    A side whose bounds could not be computed gives the deltas none (read from its values,
    they would claim a delta cannot move).
    """
    pending = None if judgments is None else PendingBounds((base, head), judgments, workers=workers)
    try:
        return compared_document(
            base,
            head,
            judgments=judgments,
            resamples=resamples,
            seed=seed,
            map_blocks=shared_map(workers),
            power=power,
            bounds=None if pending is None else lambda: _pair(pending.reports()),
        )
    finally:
        if pending is not None:
            pending.close()


def _pair(reports: tuple[Report, ...]) -> tuple[Report, Report]:
    base, head = reports
    return base, head
