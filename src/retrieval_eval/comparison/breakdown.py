"""The primary metric broken down: per stratum, and the queries that moved most.

Query text and strata come from the head's judgments, when given; without
them strata are the reports' own averages and movers carry ids alone.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from ..core.comparison import difference
from ..core.comparison_document import Mover, Movers, StratumRow, StratumTest
from ..core.labelindex import LabelIndex
from ..core.precision import DECIMALS
from ..core.report_model import Report
from ..core.significance import Bootstrap
from .deltas import adjust_family
from .sides import Pairing, Sides

MOVERS = 10  # listed each way


@dataclass(frozen=True)
class QueryFact:
    """A query's text and stratum, as its labels give them."""

    query: str | None = None
    stratum: str | None = None


NO_FACT = QueryFact()
Facts = Mapping[str, QueryFact]  # query id -> its text and stratum


def query_facts(judgments: LabelIndex | None) -> dict[str, QueryFact]:
    """Query text and stratum per query id (the first each query's labels give), when judgments are given."""
    if judgments is None:
        return {}
    return {query_id: QueryFact(query.text, query.stratum) for query_id, query in judgments.queries.items()}


def stratum_rows(
    sides: Sides,
    pairing: Pairing,
    primary: str,
    facts: Facts,
    *,
    rescored: bool,
    boots: Mapping[str, Bootstrap] | None = None,
) -> dict[str, StratumRow]:
    """Each stratum's primary metric on both sides: paired when membership is known, else as reported.

    Paired strata carry their bootstrap (``boots``, by stratum: see
    ``stratum_members``), with Holm's adjustment over the strata. A rescored
    base has no stratum averages of its own, so without pairing its strata are left out.
    """
    names = _stratum_names(sides)
    paired = bool(facts) and pairing.available
    rows = {}
    for name in names:
        if paired:
            members = [q for q in pairing.ids if facts.get(q, NO_FACT).stratum == name]
            rows[name] = _paired_stratum(pairing, primary, members, (boots or {}).get(name))
        elif not rescored:
            base, head = _stratum_value(sides.base, name, primary), _stratum_value(sides.head, name, primary)
            rows[name] = StratumRow(None, base, head, difference(base, head))
    return adjust_family(rows) if paired else rows


def _stratum_value(report: Report, name: str, metric: str) -> float | None:
    entry = (report.per_stratum or {}).get(name)
    return entry.measured(metric) if entry is not None else None


def _stratum_names(sides: Sides) -> list[str]:
    """Every stratum either side reports, the head's first."""
    return list(dict.fromkeys([*(sides.head.per_stratum or {}), *(sides.base.per_stratum or {})]))


def stratum_members(sides: Sides, pairing: Pairing, primary: str, facts: Facts) -> dict[str, tuple[str, list[str]]]:
    """Each reported stratum's paired queries, to bootstrap its primary metric: empty without membership."""
    if not facts or not pairing.available:
        return {}
    names = _stratum_names(sides)
    by_stratum: dict[str | None, list[str]] = {}
    for q in pairing.ids:
        by_stratum.setdefault(facts.get(q, NO_FACT).stratum, []).append(q)
    return {name: (primary, by_stratum.get(name, [])) for name in names}


def _paired_stratum(pairing: Pairing, primary: str, members: list[str], boot: Bootstrap | None) -> StratumRow:
    assert pairing.base is not None and pairing.head is not None
    if not members:
        return StratumRow(0, None, None, None, StratumTest())
    base = round(math.fsum(pairing.base[q].get(primary, 0.0) for q in members) / len(members), DECIMALS)
    head = round(math.fsum(pairing.head[q].get(primary, 0.0) for q in members) / len(members), DECIMALS)
    test = StratumTest((boot.low, boot.high), boot.p_value, boot.significant) if boot else StratumTest()
    return StratumRow(len(members), base, head, difference(base, head), test)


Move = tuple[float, str, float, float]  # (delta, query id, base, head)


def movers(pairing: Pairing, primary: str, facts: Facts, *, limit: int = MOVERS) -> Movers:
    """The paired queries that moved most on the primary metric, both ways."""
    moves = _moves(pairing, primary)
    drops = sorted((m for m in moves if m[0] < 0), key=lambda m: (m[0], m[1]))
    gains = sorted((m for m in moves if m[0] > 0), key=lambda m: (-m[0], m[1]))
    return Movers(
        metric=primary,
        down=len(drops),
        up=len(gains),
        unchanged=len(pairing.ids) - len(moves),
        drops=tuple(_mover(m, facts) for m in drops[:limit]),
        gains=tuple(_mover(m, facts) for m in gains[:limit]),
    )


def _moves(pairing: Pairing, primary: str) -> list[Move]:
    if not pairing.available:
        return []
    assert pairing.base is not None and pairing.head is not None
    moves = []
    for q in pairing.ids:
        base, head = pairing.base[q].get(primary), pairing.head[q].get(primary)
        delta = difference(base, head)
        if base is not None and head is not None and delta:
            moves.append((delta, q, base, head))
    return moves


def _mover(move: Move, facts: Facts) -> Mover:
    delta, query_id, base, head = move
    fact = facts.get(query_id, NO_FACT)
    return Mover(query_id, fact.query, fact.stratum, base, head, delta)
