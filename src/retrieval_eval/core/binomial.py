"""Binomial draws from a uniform source, written out so every Python draws the same numbers.

Shared by the bootstrap's two paths (:mod:`.significance`, pure Python, and :mod:`.fastdraws`,
numpy), which must spend the generator's words identically.
"""

from __future__ import annotations

import math
from typing import Protocol


class Uniform(Protocol):
    """A source of uniform floats in [0, 1): ``random.Random``, or the same words read by numpy."""

    def random(self) -> float: ...


def binomial(rng: Uniform, trials: int, p: float) -> int:
    """How many of ``trials`` independent draws succeed, each with probability ``p``.

    Written out (rather than ``random.binomialvariate``, Python 3.12+) so every
    supported Python draws the same numbers from the same seed.
    """
    if p >= 1.0:
        return trials
    if p <= 0.0:
        return 0
    if p > 0.5:
        return trials - binomial(rng, trials, 1.0 - p)
    if trials * p < 10:
        return _binomial_inversion(rng, trials, p)
    return _binomial_btrs(rng, trials, p)


def _binomial_inversion(rng: Uniform, trials: int, p: float) -> int:
    """Walk the distribution from 0 until a uniform is used up (cheap for small means)."""
    q = 1.0 - p
    ratio = p / q
    factor = (trials + 1) * ratio
    mass = q**trials
    u = rng.random()
    k = 0
    while u > mass and k < trials:
        u -= mass
        k += 1
        mass *= factor / k - ratio
    return k


def _binomial_btrs(rng: Uniform, trials: int, p: float) -> int:
    """Hörmann's transformed rejection with squeeze, for means of 10 and more."""
    q = 1.0 - p
    spread = math.sqrt(trials * p * q)
    b = 1.15 + 2.53 * spread
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = trials * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spread
    log_odds = math.log(p / q)
    mode = math.floor((trials + 1) * p)
    h = math.lgamma(mode + 1) + math.lgamma(trials - mode + 1)
    while True:
        u = rng.random() - 0.5
        v = rng.random()
        us = 0.5 - abs(u)
        k = math.floor((2 * a / us + b) * u + c) if us > 0 else -1
        if k < 0 or k > trials:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        if v <= h - math.lgamma(k + 1) - math.lgamma(trials - k + 1) + (k - mode) * log_odds:
            return k
