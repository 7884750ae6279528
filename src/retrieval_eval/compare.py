"""Comparing a head report with a base report: what moved, and is it comparable?

Two reports are comparable when they were computed with the same threshold,
the same gain and the same judgments; otherwise a delta mixes a change of the
retriever with a change of the yardstick, and delta gates say INDETERMINATE.
Cutoff lists may differ: ``recall@5`` means the same whatever other cutoffs
were computed beside it, so only a metric missing on one side is a problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MetricDelta:
    metric: str
    base: float | None
    head: float | None
    ci: tuple[float, float] | None = None
    p_value: float | None = None
    significant: bool | None = None

    @property
    def delta(self) -> float | None:
        if self.base is None or self.head is None:
            return None
        return round(self.head - self.base, 12)


@dataclass
class Comparison:
    metrics: dict[str, MetricDelta] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def comparable(self) -> bool:
        return not self.problems

    def get(self, metric: str) -> MetricDelta | None:
        return self.metrics.get(metric)


def _value(report: Mapping[str, Any], metric: str) -> float | None:
    measurement = report.get("metrics", {}).get(metric)
    if isinstance(measurement, Mapping) and isinstance(measurement.get("value"), (int, float)):
        return float(measurement["value"])
    return None


def comparability_problems(base: Mapping[str, Any], head: Mapping[str, Any]) -> list[str]:
    """Differences of yardstick between two reports, each said in words."""
    problems = []
    base_config, head_config = base.get("config") or {}, head.get("config") or {}
    if not base_config:
        problems.append("the baseline report does not record its configuration (threshold, gain)")
    else:
        for name in ("threshold", "gain"):
            if base_config.get(name) != head_config.get(name):
                problems.append(
                    f"the baseline was computed with {name} {base_config.get(name)}, "
                    f"this run with {head_config.get(name)}"
                )
    base_sha = (base.get("inputs") or {}).get("judgments_sha256")
    head_sha = (head.get("inputs") or {}).get("judgments_sha256")
    if base_sha is None:
        problems.append("the baseline report does not record which judgments it used")
    elif base_sha != head_sha:
        problems.append("the judgments changed since the baseline (their sha256 differs)")
    return problems


def compare_reports(base: Mapping[str, Any], head: Mapping[str, Any]) -> Comparison:
    """Per-metric base, head and delta, with the comparability problems found."""
    comparison = Comparison(problems=comparability_problems(base, head))
    names = list(dict.fromkeys([*head.get("metrics", {}), *base.get("metrics", {})]))
    for name in names:
        comparison.metrics[name] = MetricDelta(name, _value(base, name), _value(head, name))
    return comparison
