"""The two reports as the comparison reads them, and which queries pair up.

A report may hold anything (a pull request can change it, another tool may
have written it), so fields are read through ``lenient``: what is not in our
shape reads as missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.labelindex import LabelIndex
from ..core.lenient import number, section
from ..core.shapes import MAX_MAGNITUDE

PerQuery = dict[str, dict[str, float]]  # query id -> metric -> value


@dataclass(frozen=True)
class Sides:
    """Everything the comparison reads, gathered once."""

    base: Mapping[str, Any]
    head: Mapping[str, Any]
    judgments: LabelIndex | None  # the head's, when given

    @property
    def base_config(self) -> Mapping[str, Any]:
        return section(self.base, "config")

    @property
    def head_config(self) -> Mapping[str, Any]:
        return section(self.head, "config")


def metric_names(sides: Sides) -> list[str]:
    """Every metric either report carries: the head's first, in report order."""
    return [str(name) for name in dict.fromkeys([*section(sides.head, "metrics"), *section(sides.base, "metrics")])]


def deterministic(report: Mapping[str, Any], metric: str) -> bool:
    """False for a judged metric (sampled, with its own interval): it has no per-query values to pair."""
    measurement = section(report, "metrics").get(metric)
    return not (isinstance(measurement, Mapping) and measurement.get("deterministic") is False)


def per_query(report: Mapping[str, Any]) -> PerQuery | None:
    """The report's per-query values, or None when it carries none (or not in our shape)."""
    table = report.get("per_query")
    if not isinstance(table, Mapping):
        return None
    if not all(isinstance(row, Mapping) for row in table.values()):
        return None
    return {str(q): _numbers(row) for q, row in table.items()}


def _numbers(row: Mapping[str, Any]) -> dict[str, float]:
    found: dict[str, float] = {}
    for name, value in row.items():
        # A float, as nearly every value is, is its own number when within bounds (NaN is not).
        if type(value) is float:
            if -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
                found[name] = value
        elif (parsed := number(value)) is not None:
            found[name] = parsed
    return found


@dataclass(frozen=True)
class Pairing:
    """Which queries enter the paired deltas: those scored on both sides."""

    base: PerQuery | None
    head: PerQuery | None
    ids: list[str]
    added: list[str]
    removed: list[str]

    @property
    def available(self) -> bool:
        return self.base is not None and self.head is not None and bool(self.ids)


def pair_queries(base: PerQuery | None, head: PerQuery | None) -> Pairing:
    if base is None or head is None:
        return Pairing(base, head, [], [], [])
    ids = sorted(set(base) & set(head))
    return Pairing(base, head, ids, sorted(set(head) - set(base)), sorted(set(base) - set(head)))
