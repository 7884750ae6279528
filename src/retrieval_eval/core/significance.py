"""Paired bootstrap over queries: is a move real, or the luck of which queries were asked?

The method, fixed so that the same two reports always give the same bytes:

- the unit resampled is a query. A resample draws ``n`` queries with
  replacement from the ``n`` queries scored on both sides, and the one set of
  draws serves every metric, so the intervals of one comparison describe the
  same hypothetical query sets;
- 10,000 resamples from a fixed seed, drawn with ``random.Random`` (the
  Mersenne Twister, whose stream Python keeps stable across versions), in
  blocks of 250, each from its own generator seeded with ``"{seed}:{block}"``:
  any process can draw any block, so the blocks are drawn through whatever
  ``map`` the caller gives (the builtin by default; the pipeline passes one
  that shares them with forked workers) and the answer is the same on one
  core or many;
- the interval is the percentile interval of the resampled mean deltas, read
  between order statistics by linear interpolation (numpy's default rule);
- the p-value is two-sided: twice the smaller share of resampled means on one
  side of zero, with the (r + 1) / (B + 1) correction, because a finite
  simulation cannot show a probability below 1 / (B + 1), never 0;
- ``significant`` reads the interval alone (it excludes 0); the p-value is
  told beside it and decides nothing.

Reports carry per-query values rounded to 12 decimals, so each delta is an
exact integer number of 1e-12 units. Sums are then exact, whatever their order.

Speed, because a golden set of 10,000 queries means 10^8 draws: every query's
deltas for all metrics are packed into one integer (one 64-bit-wide lane per
metric, plus a lane that counts draws), so one table look-up and one integer
sum per draw serve every metric; draws are made in bulk from random bytes; and
queries whose deltas are all zero are never drawn one by one: how many of the
``n`` draws land on a changed query is itself drawn (a binomial), and only
those draws are made. Where numpy is installed (the ``fast`` extra), the same
words of the same generators are spent the same way by :mod:`.fastdraws`, about
ten times faster: the draws, and so every interval and p-value, are identical.
"""

from __future__ import annotations

import array
import math
import random
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from types import ModuleType
from typing import Protocol

from .binomial import binomial
from .precision import DECIMALS, UNITS

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 20_240_601
CONFIDENCE = 0.95

# Resamples are drawn in blocks, block k from its own generator seeded with "{seed}:{k}",
# so any process can draw any block and the result never depends on how many did.
RESAMPLES_PER_BLOCK = 250
# From this many draws (resamples x changed queries; about 0.2 s) the blocks are
# drawn through the map function given; below it, sharing them would cost more than it saves.
SHARE_FROM = 4_000_000

# Draws come from 16-bit random numbers through a look-up table; beyond this
# many queries a slower, general path is taken.
_TABLE_SIZE = 1 << 16

# Sum of ``count`` uniform draws (with replacement) from a Packer's values.
Drawer = Callable[[random.Random, int], int]
# One block's resampled sums, a tuple of one sum per column for each resample.
Block = list[tuple[int, ...]]


class BlockMap(Protocol):
    """Draws every block: ``map(draw_block, range(blocks))``, in order, whoever computes them."""

    def __call__(self, function: Callable[[int], Block], items: range, /) -> Iterable[Block]: ...


class PairingError(ValueError):
    """The two sides do not hold the same queries, so deltas cannot be paired."""


@dataclass(frozen=True)
class Bootstrap:
    """One metric's paired comparison: the mean delta and how sure we are of its sign."""

    n: int
    delta: float
    low: float
    high: float
    p_value: float

    @property
    def significant(self) -> bool:
        return self.low > 0 or self.high < 0


def check_pairing(base_ids: Sequence[str], head_ids: Sequence[str]) -> list[str]:
    """The shared query ids, sorted; refuse two sides that hold different queries."""
    base_set, head_set = set(base_ids), set(head_ids)
    if base_set != head_set:
        only_base = sorted(base_set - head_set)[:5]
        only_head = sorted(head_set - base_set)[:5]
        raise PairingError(f"cannot pair queries: only in base {only_base}, only in head {only_head}")
    return sorted(base_set)


def to_units(value: float) -> int:
    units: int = round(value * UNITS)
    return units


def percentile(ordered: Sequence[int | float], fraction: float) -> float:
    """The value at ``fraction`` of a sorted sample, interpolating between neighbours."""
    position = fraction * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    weight = position - below
    return ordered[below] + (ordered[above] - ordered[below]) * weight


def two_sided_p(ordered: Sequence[int]) -> float:
    """Twice the smaller tail beyond zero, corrected so a finite simulation never says 0.

    ``ordered``: the resampled sums, sorted (as :func:`summarize` has them for the interval), so
    each tail is counted by bisection instead of a pass over every resample: a comparison of 18
    metrics read its 10,000 sums 36 times, about a third of a small comparison's time."""
    at_or_below = bisect_right(ordered, 0)
    at_or_above = len(ordered) - bisect_left(ordered, 0)
    return min(1.0, 2.0 * (min(at_or_below, at_or_above) + 1) / (len(ordered) + 1))


def summarize(sums: list[int], *, observed: int, n: int, confidence: float = CONFIDENCE) -> Bootstrap:
    """Interval and p-value from the resampled sums (in units) of ``n`` deltas."""
    ordered = sorted(sums)
    tail = (1.0 - confidence) / 2.0
    scale = n * UNITS
    return Bootstrap(
        n=n,
        delta=round(observed / scale, DECIMALS),
        low=round(percentile(ordered, tail) / scale, DECIMALS),
        high=round(percentile(ordered, 1.0 - tail) / scale, DECIMALS),
        p_value=round(two_sided_p(ordered), DECIMALS),
    )


def holm(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm-Bonferroni adjusted p-values of one family of tests, by name.

    The i-th smallest of m p-values is multiplied by m - i + 1 (i from 1), each
    adjusted value is at least the one before it in that order (so the
    ordering is kept), and none exceeds 1. A test is significant at level
    alpha when its adjusted value is at most alpha; the chance of calling any
    true null significant stays at most alpha, whatever the tests' dependence.
    """
    ordered = sorted(p_values, key=lambda name: (p_values[name], name))
    adjusted: dict[str, float] = {}
    running = 0.0
    for rank, name in enumerate(ordered):
        running = max(running, min(1.0, (len(ordered) - rank) * p_values[name]))
        adjusted[name] = round(running, DECIMALS)
    return {name: adjusted[name] for name in p_values}


def paired_bootstrap(
    base: Mapping[str, Mapping[str, float]],
    head: Mapping[str, Mapping[str, float]],
    metrics: Sequence[str],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = CONFIDENCE,
    map_blocks: BlockMap = map,
) -> dict[str, Bootstrap]:
    """Bootstrap every metric's mean delta (head - base) over the paired queries.

    ``base`` and ``head`` map query id -> metric -> value and must hold the
    same query ids (checked: a missing query would silently unpair the sides).
    ``map_blocks`` draws the blocks of resamples (see :class:`BlockMap`).
    """
    found, _ = paired_bootstrap_with_subsets(
        base, head, metrics, {}, resamples=resamples, seed=seed, confidence=confidence, map_blocks=map_blocks
    )
    return found


def paired_bootstrap_with_subsets(
    base: Mapping[str, Mapping[str, float]],
    head: Mapping[str, Mapping[str, float]],
    metrics: Sequence[str],
    subsets: Mapping[str, tuple[str, Collection[str]]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = CONFIDENCE,
    map_blocks: BlockMap = map,
) -> tuple[dict[str, Bootstrap], dict[str, Bootstrap]]:
    """:func:`paired_bootstrap`, and from the very same resamples each subset's mean delta of one metric.

    ``subsets`` maps a name (a stratum) to a metric of ``metrics`` and the
    query ids in it. A resample's subset mean is the sum of the deltas of the
    subset's queries it drew, over the subset's size: the same draws serve
    every metric and every subset. A subset column is non-zero only where its
    metric moved, so adding subsets changes no draw and no metric's answer.
    """
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    query_ids = check_pairing(list(base), list(head))
    if not query_ids:
        return {}, {}
    rows = [(head[q], base[q]) for q in query_ids]
    # to_units, inline: two calls per query and metric add up on 10,000 queries.
    columns = [[round(h[m] * UNITS) - round(b[m] * UNITS) for h, b in rows] for m in metrics]
    parts = []
    for name, (metric, members) in subsets.items():
        if metric not in metrics:
            raise ValueError(f"subset {name!r} reads {metric!r}, which is not bootstrapped")
        inside = set(members).intersection(query_ids)
        whole = columns[metrics.index(metric)]
        parts.append((name, len(inside), [v if q in inside else 0 for q, v in zip(query_ids, whole)]))
    sums = resample_sums(
        [*columns, *(column for _, _, column in parts)], resamples=resamples, seed=seed, map_blocks=map_blocks
    )
    n = len(query_ids)
    found = {
        metric: summarize(sums[i], observed=sum(columns[i]), n=n, confidence=confidence)
        for i, metric in enumerate(metrics)
    }
    by_subset = {
        name: summarize(sums[len(metrics) + i], observed=sum(column), n=size, confidence=confidence)
        for i, (name, size, column) in enumerate(parts)
        if size
    }
    return found, by_subset


def resample_sums(
    columns: Sequence[Sequence[int]],
    *,
    resamples: int,
    seed: int,
    map_blocks: BlockMap = map,
    use_numpy: bool | None = None,
) -> list[list[int]]:
    """For each column, the sums of ``resamples`` resamples of its values, drawn jointly.

    Every column has one value per query; resample ``b`` draws the same query
    indices for every column. ``use_numpy``: None takes numpy where it is
    installed; False keeps to the standard library (the same sums, slower).
    """
    # Metrics often agree query by query (recall and hit rate with one relevant label
    # each): such columns are resampled once, which narrows every packed value.
    distinct = list(dict.fromkeys(tuple(column) for column in columns))
    sums = _joint_sums(distinct, resamples=resamples, seed=seed, map_blocks=map_blocks, use_numpy=use_numpy)
    by_column = dict(zip(distinct, sums))
    return [list(by_column[tuple(column)]) for column in columns]


def _joint_sums(
    columns: Sequence[Sequence[int]], *, resamples: int, seed: int, map_blocks: BlockMap, use_numpy: bool | None
) -> list[list[int]]:
    n = len(columns[0]) if columns else 0
    changed = [i for i, values in enumerate(zip(*columns)) if any(values)]
    if not changed:
        return [[0] * resamples for _ in columns]
    values = [[column[i] for i in changed] for column in columns]
    fast = _numpy_draws() if use_numpy is not False else None
    if fast is not None and fast.fits(values, n):
        # numpy draws about ten times faster: sharing the blocks pays from ten times as many draws.
        shared = map_blocks if resamples * len(changed) >= 10 * SHARE_FROM else map
        sums: list[list[int]] = fast.joint_sums(
            values, n=n, resamples=resamples, seed=seed, block_size=RESAMPLES_PER_BLOCK, map_blocks=shared
        )
        return sums
    packer = Packer.for_columns(values, draws=n)
    draw = _table_drawer(packer) if len(changed) <= _TABLE_SIZE else _general_drawer(packer)

    def block(number: int) -> Block:
        rng = random.Random(f"{seed}:{number}")
        totals = []
        for _ in range(min(RESAMPLES_PER_BLOCK, resamples - number * RESAMPLES_PER_BLOCK)):
            hits = n if len(changed) == n else binomial(rng, n, len(changed) / n)
            totals.append(packer.unpack(draw(rng, hits), hits))
        return totals

    blocks = range(-(-resamples // RESAMPLES_PER_BLOCK))
    drawn = map_blocks(block, blocks) if resamples * len(changed) >= SHARE_FROM else map(block, blocks)
    return [list(per_column) for per_column in zip(*(totals for part in drawn for totals in part))]


def _numpy_draws() -> ModuleType | None:
    """The numpy path, where numpy is installed."""
    try:
        from . import fastdraws  # numpy: the optional fast extra
    except ImportError:
        return None
    return fastdraws


@dataclass(frozen=True)
class Packer:
    """Packs one query's values for every column into one non-negative integer.

    Lane ``c`` holds column ``c``'s value plus ``offset`` (so it is never
    negative); the top lane holds 1, so a sum of packed values counts its
    terms. Lanes are wide enough that no sum of ``draws`` terms overflows.
    """

    values: tuple[int, ...]
    width: int
    offset: int
    columns: int

    @classmethod
    def for_columns(cls, columns: Sequence[Sequence[int]], *, draws: int) -> Packer:
        offset = max((abs(v) for column in columns for v in column), default=0)
        width = (2 * offset).bit_length() + max(draws, 1).bit_length() + 1
        count_lane = 1 << (width * len(columns))
        packed = tuple(
            count_lane + sum((column[i] + offset) << (width * c) for c, column in enumerate(columns))
            for i in range(len(columns[0]))
        )
        return cls(packed, width, offset, len(columns))

    def count(self, total: int) -> int:
        return total >> (self.width * self.columns)

    def unpack(self, total: int, terms: int) -> tuple[int, ...]:
        mask = (1 << self.width) - 1
        return tuple(((total >> (self.width * c)) & mask) - self.offset * terms for c in range(self.columns))


def _table_drawer(packer: Packer) -> Drawer:
    """Draws made in bulk from random bytes, through a look-up table.

    A 16-bit random number ``r`` below the largest multiple of ``m`` maps to
    value ``r % m``; above it, to 0, which adds nothing and counts nothing,
    so it is a rejection (the draw is made again) and every value stays
    exactly equally likely.
    """
    m = len(packer.values)
    limit = _TABLE_SIZE - _TABLE_SIZE % m
    table = [packer.values[r % m] if r < limit else 0 for r in range(_TABLE_SIZE)]
    swap = sys.byteorder == "big"  # random bytes are read as little-endian everywhere

    def draw(rng: random.Random, count: int) -> int:
        total = 0
        while count > 0:
            raw = array.array("H", rng.randbytes(2 * count))
            if swap:
                raw.byteswap()
            part = sum(itemgetter(*raw)(table)) if count > 1 else table[raw[0]]
            count -= packer.count(part)
            total += part
        return total

    return draw


def _general_drawer(packer: Packer) -> Drawer:
    """The same draws for sets too large for the table: one index at a time."""
    values = packer.values
    m = len(values)

    def draw(rng: random.Random, count: int) -> int:
        return sum(values[rng.randrange(m)] for _ in range(count))

    return draw
