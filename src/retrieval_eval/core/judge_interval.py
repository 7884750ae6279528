"""The machine-filled estimate of a metric and its prediction-powered interval.

A metric that is linear in the unjudged keys' relevance (precision@k, a delta of it, any
per-key weighted sum) is ``known + sum(w_h * y_h)`` over the holes ``h``, with ``y_h`` the
true binary relevance nobody labeled. Filling ``y_h`` with the judge's reading is biased
by the judge's leniency. The prediction-powered estimate corrects that bias with the
calibration overlap (pairs labeled by both a human and the judge): per machine reading
``m`` (relevant or not), the share ``p_m`` of those pairs the humans call relevant
replaces the reading. This is the prediction-powered estimator with its rectifier taken
per reading (for a binary prediction, the two coincide up to the rectifier's weighting).

Its variance has two parts: how well the overlap estimates each ``p_m`` (the rectifier's
sampling error, ``W_m^2 p(1-p) / n_m``) and the holes' own chance (``sum w_h^2 p(1-p)``),
since the value to cover is this run's, not an average run's. ``p`` is taken as
``(x + 1) / (n + 2)`` in the variance so that a stratum the overlap agrees on perfectly
still counts as uncertain. Holes without a usable machine label (refused, unreadable,
split) and readings the overlap never saw are counted at their worst in the interval
(anywhere between not relevant and relevant) and at the overlap's relevant share in the
point estimate. The interval never leaves the bounds.

The interval is only as good as the assumption under it: the overlap's pairs must be like
the holes in how the judge errs. :mod:`.judge_calibration` samples them from the human
labels, stratified by grade; the report says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .gates import FAIL, INDETERMINATE, PASS

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Hole:
    weight: float  # how much the metric rises if this key is relevant (signed for a delta)
    reading: bool | None  # the judge's usable binary reading; None: no usable label


@dataclass(frozen=True)
class Filled:
    estimate: float
    low: float
    high: float
    lower_bound: float  # every hole not relevant
    upper_bound: float  # every hole relevant


def _share(pairs: Sequence[tuple[bool, bool]], reading: bool) -> tuple[int, int]:
    """(count, relevant by the humans) among overlap pairs the judge read as ``reading``."""
    humans = [human for machine, human in pairs if machine == reading]
    return len(humans), sum(humans)


def filled_interval(
    known: float, holes: Sequence[Hole], overlap: Sequence[tuple[bool, bool]], *, z: float = Z95
) -> Filled:
    """The estimate and interval of ``known + sum(w_h y_h)`` (module docstring).

    ``overlap``: (judge's reading, human reading) per calibration pair.
    """
    lower = known + sum(min(h.weight, 0.0) for h in holes)
    upper = known + sum(max(h.weight, 0.0) for h in holes)
    estimate, variance, spread_low, spread_high = known, 0.0, 0.0, 0.0
    for reading in (False, True):
        members = [h.weight for h in holes if h.reading is reading]
        count, relevant = _share(overlap, reading)
        if not members:
            continue
        if count == 0:
            spread_low += sum(min(w, 0.0) for w in members)
            spread_high += sum(max(w, 0.0) for w in members)
            continue
        share = relevant / count
        smoothed = (relevant + 1) / (count + 2)
        estimate += share * sum(members)
        variance += smoothed * (1 - smoothed) * (sum(members) ** 2 / count + sum(w * w for w in members))
    unknown = [h.weight for h in holes if h.reading is None]
    spread_low += sum(min(w, 0.0) for w in unknown)
    spread_high += sum(max(w, 0.0) for w in unknown)
    half = z * math.sqrt(variance)
    low, high = max(lower, estimate - half + spread_low), min(upper, estimate + half + spread_high)
    # The point estimate gives the holes nobody could read the overlap's relevant share (the
    # interval already spans them whole): reporting them as not relevant would bias it low.
    base_rate = sum(human for _, human in overlap) / len(overlap) if overlap else 0.5
    unread = sum(h.weight for h in holes if h.reading is None or not _share(overlap, h.reading)[0])
    return Filled(
        estimate=min(max(estimate + base_rate * unread, low), high),
        low=low,
        high=high,
        lower_bound=lower,
        upper_bound=upper,
    )


def resolve(status: str, filled: Filled, threshold: float, *, at_most: bool = False) -> str:
    """A gate's status with machine labels: only an INDETERMINATE one can move, and only when
    the whole interval lies on one side of the threshold."""
    if status != INDETERMINATE:
        return status
    if at_most:
        if filled.high <= threshold:
            return PASS
        return FAIL if filled.low > threshold else INDETERMINATE
    if filled.low >= threshold:
        return PASS
    return FAIL if filled.high < threshold else INDETERMINATE


def bounds_status(filled: Filled, threshold: float) -> str:
    """What the bounds alone say of an "at least" gate: the human labels' verdict."""
    if filled.lower_bound >= threshold:
        return PASS
    return FAIL if filled.upper_bound < threshold else INDETERMINATE
