"""The two reports as the comparison reads them, and which queries pair up.

A report may lack anything (a pull request can change it, another tool may
have written it); it arrives typed (core/report_model.py), with what it lacks,
or held in a shape of its own, as None.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..core.labelindex import LabelIndex
from ..core.report_model import Config, Report

PerQuery = dict[str, dict[str, float]]  # query id -> metric -> value


@dataclass(frozen=True)
class Sides:
    """Everything the comparison reads, gathered once."""

    base: Report
    head: Report
    judgments: LabelIndex | None  # the head's, when given

    @property
    def base_config(self) -> Config:
        return self.base.config or Config()

    @property
    def head_config(self) -> Config:
        return self.head.config or Config()


def metric_names(sides: Sides) -> list[str]:
    """Every metric either report carries: the head's first, in report order."""
    return list(dict.fromkeys([*(sides.head.metrics or {}), *(sides.base.metrics or {})]))


def deterministic(report: Report, metric: str) -> bool:
    """False for a judged metric (sampled, with its own interval): it has no per-query values to pair."""
    measurement = (report.metrics or {}).get(metric)
    return not (measurement is not None and measurement.deterministic is False)


def per_query(report: Report) -> PerQuery | None:
    """The report's per-query values, or None when it carries none."""
    return as_table(report.per_query)


def as_table(table: Mapping[str, Mapping[str, float]] | None) -> PerQuery | None:
    """A per-query table as floats (a report may hold its values as JSON integers)."""
    if table is None:
        return None
    # A float, as nearly every value is, is kept as it is: only integers are converted.
    return {
        q: {name: value if type(value) is float else float(value) for name, value in row.items()}
        for q, row in table.items()
    }


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
