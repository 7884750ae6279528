"""What the paired queries can detect, and how the queries moved: beside every delta.

For each metric (and each paired stratum) the comparison states the standard deviation
of the paired per-query differences (``sd_diff``), the minimum detectable effect at the
design's power and the gate's level (``mde``, see :mod:`retrieval_eval.core.power`), where
that spread came from (``mde_source``: ``paired``, or ``base-proxy`` when the differences
do not vary and the base's spread stands in), and
how many queries improved, tied and worsened (``moved``): on a large set a tiny change is
significant, and the share of queries that moved says how much it matters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from itertools import repeat
from operator import sub

from ..core.comparison_document import MetricRow, PowerDesign, RowPower, StratumRow
from ..core.power import DEFAULT_CORRELATION, Design, Moved, detectable_effect, proxy_sd, sample_sd
from ..core.precision import DECIMALS
from ..core.significance import CONFIDENCE
from .sides import Pairing

# The gate reads a two-sided 95% percentile interval; its percentile bootstrap behaves
# as the z test with the sample's spread, so the normal quantiles describe it (the
# power simulation in the tests measures this).
GATE_METHOD = "normal"
PAIRED, BASE_PROXY = "paired", "base-proxy"


def gate_design(power: float) -> Design:
    """The design of the gate's own test at ``power``."""
    return Design(power=power, alpha=round(1.0 - CONFIDENCE, DECIMALS), method=GATE_METHOD)


def design_section(design: Design) -> PowerDesign:
    """How ``mde`` was computed, for the document."""
    return PowerDesign(
        power=design.power,
        alpha=design.alpha,
        method=design.method,
        formula="mde = (q(1 - alpha/2) + q(power)) * sd_diff / sqrt(n), q the standard normal quantile",
        sd_diff="sample standard deviation (n - 1) of the paired per-query differences, head - base",
        base_proxy="where the differences do not vary: sqrt(2 * (1 - rho)) times the base's per-query "
        f"standard deviation, rho = {DEFAULT_CORRELATION}",
    )


def add_power(rows: Mapping[str, MetricRow], pairing: Pairing, design: Design) -> dict[str, MetricRow]:
    """Every metric row with ``sd_diff``, ``mde``, ``mde_source`` and ``moved`` (None each where confounded)."""
    found = {}
    for metric, row in rows.items():
        if row.confounded:
            found[metric] = replace(row, power=power_fields(None, None, design))
            continue
        ids = pairing.ids
        power = power_fields(_differences(pairing, metric, ids), partial(_base, pairing, metric, ids), design)
        found[metric] = replace(row, power=power)
    return found


def add_stratum_power(
    rows: Mapping[str, StratumRow],
    pairing: Pairing,
    primary: str,
    members: Mapping[str, Sequence[str]],
    design: Design,
) -> dict[str, StratumRow]:
    """The same fields for each paired stratum (``members``: stratum -> its paired query ids)."""
    found = dict(rows)
    for name, row in rows.items():
        if name in members and row.n is not None:
            ids = members[name]
            power = power_fields(_differences(pairing, primary, ids), partial(_base, pairing, primary, ids), design)
            found[name] = replace(row, power=power)
    return found


def power_fields(
    differences: Sequence[float] | None, base: Callable[[], Sequence[float] | None] | None, design: Design
) -> RowPower:
    """``sd_diff``, ``mde``, ``mde_source`` and ``moved`` of one row; None each where there is nothing to pair.

    Differences that do not vary (every query moved alike, or none moved: a change that did
    not touch retrieval) say nothing about how the next change will spread. The base's own
    per-query spread then stands in, through the proxy of one report (``base-proxy``).
    ``base`` gives the base's values, read only then.
    """
    if not differences:
        return RowPower()
    sd, source = sample_sd(differences), PAIRED
    values = base() if not sd and base is not None else None
    if values:
        spread = sample_sd(values)
        sd, source = (proxy_sd(spread), BASE_PROXY) if spread else (None, PAIRED)
    mde = None if sd is None else detectable_effect(sd, len(differences), design)
    return RowPower(
        sd_diff=None if sd is None else round(sd, DECIMALS),
        mde=None if mde is None else round(mde, DECIMALS),
        mde_source=None if mde is None else source,
        moved=Moved.of(differences),
    )


def _base(pairing: Pairing, metric: str, ids: Sequence[str]) -> list[float] | None:
    """The base's values over ``ids``: the spread the proxy reads when the differences have none."""
    if not pairing.available or pairing.base is None or not ids:
        return None
    values = [pairing.base[q].get(metric) for q in ids]
    return [v for v in values if v is not None] if all(v is not None for v in values) else None


def _differences(pairing: Pairing, metric: str, ids: Sequence[str]) -> list[float] | None:
    """head - base per paired query, at the reports' precision; None when a query lacks the metric."""
    if not pairing.available or not ids:
        return None
    assert pairing.base is not None and pairing.head is not None
    names = repeat(metric)
    # Made in C, a dict.get per query and side: 16 rows of 10,000 queries each on M.
    before = list(map(dict.get, map(pairing.base.__getitem__, ids), names))
    after = list(map(dict.get, map(pairing.head.__getitem__, ids), names))
    if None in before or None in after:
        return None
    return list(map(round, map(sub, after, before), repeat(DECIMALS)))  # core.comparison.difference
