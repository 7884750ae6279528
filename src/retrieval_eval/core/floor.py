"""The margin over a floor run: how far the run is above a lexical floor, and how surely.

A retriever is only as good as its margin over a floor (BM25 on the same corpus, say).
Both runs are scored against the same judgments, so every scored query has a value on
both sides and the margins pair query by query:

- ``margin`` = the run's average minus the floor's, for every ranking metric, at the
  reports' precision (12 decimals);
- its 95% interval is the paired bootstrap of :mod:`.significance` (the one ``compare``
  uses: same resamples, seed and percentile rule), over the scored queries, and over
  each stratum's scored queries for the per-stratum rows;
- ``significant`` says the interval excludes 0.

Pure: the floor's scores are computed by the pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from .comparison import difference
from .precision import DECIMALS
from .report_model import Floor, FloorStratum, Margin, Significance
from .scoring import Scores
from .significance import CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED, BlockMap, Bootstrap, paired_bootstrap


def floor_section(
    head: Scores,
    floor: Scores,
    strata: Mapping[str, Sequence[str]],
    *,
    about: Floor,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    map_blocks: BlockMap = map,
) -> Floor:
    """The report's ``floor`` section. ``strata`` maps each stratum to its scored query ids;
    ``about`` says what the floor is (source, method, its run's sha256...): the section is it, completed."""
    names = [name for name in head.metrics if name in floor.metrics]
    ids = sorted(head.per_query)

    def rows(members: Sequence[str], low: Mapping[str, float], high: Mapping[str, float]) -> dict[str, Margin]:
        boots = paired_bootstrap(
            {q: floor.per_query[q] for q in members},
            {q: head.per_query[q] for q in members},
            names,
            resamples=resamples,
            seed=seed,
            map_blocks=map_blocks,
        )
        return {name: _row(low[name], high[name], len(members), boots.get(name)) for name in names}

    # Strata in the report's order (worst first on the primary metric), each over its scored queries.
    per_stratum = {
        name: (sorted(strata[name]), floor.strata[name].metrics, stratum.metrics)
        for name, stratum in head.strata.items()
        if stratum.n > 0 and strata.get(name)
    }
    return replace(
        about,
        queries=len(ids),
        significance=Significance(
            name="paired bootstrap over queries", resamples=resamples, seed=seed, confidence=CONFIDENCE
        ),
        metrics=rows(ids, floor.metrics, head.metrics),
        per_stratum={
            name: FloorStratum(n=len(members), metrics=rows(members, low, high))
            for name, (members, low, high) in per_stratum.items()
        }
        or None,
    )


def _row(floor: float, head: float, n: int, boot: Bootstrap | None) -> Margin:
    low, high = round(floor, DECIMALS), round(head, DECIMALS)
    margin = Margin(floor=low, head=high, margin=difference(low, high), n=n)
    if boot is None:
        return margin
    return replace(margin, ci=(boot.low, boot.high), p_value=boot.p_value, significant=boot.significant)


def unavailable_floor(source: str, reason: str) -> Floor:
    """The section when a floor was asked for but could not be computed (a gate on it is INDETERMINATE)."""
    return Floor(source=source, unavailable=reason)
