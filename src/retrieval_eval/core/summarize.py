"""Judged metrics: turn repeated samples of a non-deterministic score into a measurement.

A measurement carries the mean, the sample standard deviation (n - 1) and a
95% Student-t interval on the mean. One sample yields no interval: a single
draw says nothing about the spread. The interval is never clamped to the
metric's range, because raising a negative lower bound would let a
``ci-lower`` gate pass on evidence that is not there.

The t quantile is computed here (regularized incomplete beta by continued
fraction, inverted by bisection) so the package needs no numerical library.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .precision import DECIMALS, MAX_MAGNITUDE
from .report_model import Measurement

CONFIDENCE = 0.95


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):  # converges in O(sqrt(max(a, b))) steps; the bound only stops a runaway
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((a + m2 - 1.0) * (a + m2)),
            -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-16:
            break
    return result


def regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def student_t_cdf(t: float, df: int) -> float:
    tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def student_t_quantile(p: float, df: int) -> float:
    """The t with P(T <= t) = p, for 0.5 <= p < 1, to double precision."""
    low, high = 0.0, 1.0
    while student_t_cdf(high, df) < p:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if middle in (low, high):
            break
        if student_t_cdf(middle, df) < p:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def summarize_samples(samples: Sequence[float]) -> Measurement:
    """A report measurement (value, n, stdev, ci, not deterministic) from raw samples."""
    try:
        values = [float(v) for v in samples]
    except OverflowError:  # an integer past the doubles
        raise ValueError(TOO_LARGE) from None
    if not values:
        raise ValueError("at least one sample is needed")
    if not all(math.isfinite(v) for v in values):
        raise ValueError("samples must be finite numbers")
    if not all(-MAX_MAGNITUDE <= v <= MAX_MAGNITUDE for v in values):
        # A report holds no number past this bound, so it would refuse the measurement when read back.
        raise ValueError(f"samples are too large (each must lie between -{MAX_MAGNITUDE:g} and {MAX_MAGNITUDE:g})")
    n = len(values)
    try:
        mean = math.fsum(values) / n
        if n == 1:
            return Measurement(value=round(mean, DECIMALS), n=n, deterministic=False)
        stdev = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
        half = student_t_quantile(0.5 + CONFIDENCE / 2.0, n - 1) * stdev / math.sqrt(n)
        ci = (round(mean - half, DECIMALS), round(mean + half, DECIMALS))
    except OverflowError:
        raise ValueError(TOO_LARGE) from None
    if not all(map(math.isfinite, ci)):
        raise ValueError(TOO_LARGE)  # the interval's ends overflowed to infinity, silently
    return Measurement(value=round(mean, DECIMALS), n=n, stdev=round(stdev, DECIMALS), ci=ci, deterministic=False)


TOO_LARGE = "samples are too large to summarize (their mean or spread exceeds a double)"
