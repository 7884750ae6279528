"""Reading reports and comparison documents that may hold anything.

``compare`` and ``render`` read report files that a pull request can change
or another tool wrote, so any field may be missing or of another type. Each
reader here returns the type asked for, or "missing" (an empty mapping or
list, None), and never raises: a malformed field costs a number, not a run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .metrics import primary_metric_at
from .shapes import MAX_MAGNITUDE


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def section(document: Any, name: str) -> Mapping[str, Any]:
    """A part of a document that should be an object; empty when it is anything else."""
    return mapping(mapping(document).get(name))


def items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def number(value: Any) -> float | None:
    """A number within a report's bounds as a float; None for anything else (a bool is not a
    number here). Past the bounds a value is damage, and using it could overflow."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
        return float(value)  # the comparison is exact for an integer of any size, and false for NaN
    return None


def integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def value_of(measurement: Any) -> float | None:
    """The number a measurement (``{"value": ...}``) holds."""
    return number(mapping(measurement).get("value"))


def measured(report: Any, metric: str) -> float | None:
    """The value a report (or one of its strata) gives ``metric``."""
    return value_of(section(report, "metrics").get(metric))


def cutoffs(report: Any) -> list[int]:
    """The cutoffs a report records, ignoring anything that is not a positive whole number."""
    return [k for k in items(section(report, "config").get("k")) if integer(k) is not None and k > 0]


def full_depth(report: Any) -> bool:
    """Whether the report's cutoffs include ``all`` (full-depth ndcg, map and mrr)."""
    return "all" in items(section(report, "config").get("k"))


def unjudged_policy(report: Any) -> str:
    """The policy for unjudged keys a report was scored under; a report that records none assumed irrelevance."""
    policy = section(report, "config").get("unjudged")
    return policy if policy in ("assume-irrelevant", "bounded", "condensed") else "assume-irrelevant"


def primary_metric(report: Any) -> str:
    """The metric a one-number summary uses, as ``ScoreConfig.primary`` (the default cutoffs when the
    report records none; map when its only cutoff is ``all``)."""
    ks = cutoffs(report)
    if not ks and full_depth(report):
        return "map"
    return primary_metric_at(ks)
