"""A plan of a set's size (``retrieval-eval plan``) as records: what the pilot says each size detects.

Built by :mod:`retrieval_eval.comparison.plan`; written as JSON by :mod:`retrieval_eval.formats.plan`
and drawn as text by :mod:`retrieval_eval.render.plan`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .power import Design


@dataclass(frozen=True)
class PlanRow:
    """One metric over the whole set (``stratum`` None) or one stratum."""

    metric: str
    stratum: str | None
    n: int  # the pilot's queries
    sd_diff: float | None  # the paired differences' standard deviation used
    source: str  # paired, proxy, or the whole set's spread (a stratum without its own membership)
    mde: float | None  # detectable at the pilot's size
    needed: tuple[tuple[float, int | None], ...]  # (change, queries needed)
    detectable: tuple[tuple[int, float | None], ...]  # (queries, detectable change)


@dataclass(frozen=True)
class PlanRecord:
    """Every row, and what they assume."""

    design: Design
    correlation: float | None  # None when the spread came from paired differences
    assumptions: tuple[str, ...]
    rows: tuple[PlanRow, ...]
