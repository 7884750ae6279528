"""The deltas as gates read them: one MetricDelta per metric, and what makes them incomparable.

A typed view of the comparison document (built by :mod:`retrieval_eval.comparison`). Gates only
ever see what the document says, so a comparison read back from a file gates the same way as
one just built. It lives in the core because the gates, which are core, read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .power import Design
from .precision import DECIMALS


def difference(base: float | None, head: float | None) -> float | None:
    """head - base at the reports' precision, or None when either is missing."""
    return round(head - base, DECIMALS) if base is not None and head is not None else None


@dataclass(frozen=True)
class MetricDelta:
    metric: str
    base: float | None
    head: float | None
    ci: tuple[float, float] | None = None
    p_value: float | None = None
    significant: bool | None = None
    confounded: str | None = None
    n: int | None = None
    bounds: tuple[float, float] | None = None  # the delta's least and most favourable values (unjudged keys)
    unjudged: int | None = None  # unjudged keys in the metric's top k, both sides, over the paired queries
    sd_diff: float | None = None  # standard deviation of the paired per-query differences
    mde: float | None = None  # the smallest change these queries detect at the comparison's power

    @property
    def delta(self) -> float | None:
        return difference(self.base, self.head)


@dataclass
class Deltas:
    metrics: dict[str, MetricDelta] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # changes of yardstick that confound every delta
    notes: list[str] = field(default_factory=list)
    document: dict[str, Any] | None = None
    design: Design = field(default_factory=Design)  # the power and level each ``mde`` is stated at

    @property
    def comparable(self) -> bool:
        return not self.problems

    def get(self, metric: str) -> MetricDelta | None:
        return self.metrics.get(metric)
