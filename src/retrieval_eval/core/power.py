"""What a set of queries can detect: the minimum detectable effect, and the queries a change needs.

A comparison is paired over queries: each query gives one difference (head - base) of a
metric, and the gate's test asks whether their mean is 0. With ``n`` queries whose
differences have standard deviation ``sd``, a two-sided test at level ``alpha`` detects
a true change ``d`` with probability ``power`` when

    d = (q(1 - alpha/2) + q(power)) * sd / sqrt(n)

where ``q`` is the standard normal quantile (the normal approximation), or the quantile
of Student's t with n - 1 degrees of freedom (the refinement for small sets, which also
accounts for ``sd`` being estimated). This ``d`` is the minimum detectable effect
(MDE). Read backwards, the queries needed for a change ``d`` are the smallest ``n`` whose
MDE is at most ``d``: the normal formula ``((z_a + z_b) * sd / d)^2`` gives a start, and
``n`` is raised until the t quantiles at ``n - 1`` agree (the effect only shrinks as ``n`` grows).

Without a second run there are no differences yet, only one report's per-query values.
Their standard deviation ``sd`` stands in through ``sd_diff = sqrt(2 * (1 - rho)) * sd``,
the standard deviation of a difference of two runs with equal spread whose per-query
values correlate ``rho``. Two versions of one retriever share the queries' difficulty, so
``rho`` is high in practice; the default ``rho = 0.5`` (``sd_diff = sd``) is a cautious
value below what such pairs show, so the estimate leans towards needing more queries.
``rho = 0`` (``sqrt(2) * sd``) is the bound for unrelated runs.

Pure: the quantiles are computed here from the standard library's ``math`` alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from .summarize import regularized_beta  # the one incomplete beta (judged metrics' t intervals use it too)

DEFAULT_POWER = 0.8
DEFAULT_ALPHA = 0.05  # the gate's test: a two-sided 95% interval (core.significance.CONFIDENCE)
DEFAULT_CORRELATION = 0.5  # assumed between two runs' per-query values when only one report exists
NORMAL, STUDENT = "normal", "t"
MAX_QUERIES = 10**9  # the planner's answer is capped here (a change too small to see in practice)

ASSUMPTIONS = {
    NORMAL: "paired per-query differences, two-sided test at level alpha, normal quantiles: "
    "n = ((z(1 - alpha/2) + z(power)) * sd_diff / d)^2, as the gate's percentile bootstrap behaves",
    STUDENT: "paired per-query differences, two-sided test at level alpha, quantiles of Student's t with n - 1 "
    "degrees of freedom: the normal formula refined for small sets (more cautious than the gate's bootstrap)",
}
NO_SPREAD = "a row whose pilot values do not vary has no spread to plan from: it shows —"
PROXY_ASSUMPTION = (
    "no paired run yet: the differences' standard deviation is taken as sqrt(2 * (1 - rho)) times the pilot's "
    "per-query standard deviation, rho = {rho} the assumed correlation of two runs' per-query values "
    "(0.5: the pilot's own spread; 0: the bound for unrelated runs)"
)


# -- quantiles --------------------------------------------------------------------------------


def normal_quantile(p: float) -> float:
    """The standard normal quantile: Acklam's rational approximation, then one Halley step on erfc.

    The approximation is good to about 1e-9; the Halley step, which uses the exact CDF
    through ``math.erfc``, brings it to the limits of double precision.
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"a probability strictly between 0 and 1 is needed, got {p}")
    x = _acklam(p)
    error = 0.5 * math.erfc(-x / math.sqrt(2.0)) - p
    step = error * math.sqrt(2.0 * math.pi) * math.exp(x * x / 2.0)
    return x - step / (1.0 + x * step / 2.0)


_A = (
    -3.969683028665376e01,
    2.209460984245205e02,
    -2.759285104469687e02,
    1.383577518672690e02,
    -3.066479806614716e01,
    2.506628277459239e00,
)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01, -1.328068155288572e01)
_C = (
    -7.784894002430293e-03,
    -3.223964580411365e-01,
    -2.400758277161838e00,
    -2.549732539343734e00,
    4.374664141464968e00,
    2.938163982698783e00,
)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_LOW = 0.02425


def _acklam(p: float) -> float:
    if p < _LOW or p > 1.0 - _LOW:
        q = math.sqrt(-2.0 * math.log(min(p, 1.0 - p)))
        x = _poly(_C, q) / (_poly(_D, q) * q + 1.0)
        return x if p < _LOW else -x
    q = p - 0.5
    r = q * q
    return _poly(_A, r) * q / (_poly(_B, r) * r + 1.0)


def _poly(coefficients: Sequence[float], x: float) -> float:
    total = 0.0
    for c in coefficients:
        total = total * x + c
    return total


def t_cdf(x: float, df: float) -> float:
    """P(T <= x) for Student's t with ``df`` degrees of freedom, through the incomplete beta function."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if x * x < df:  # near the centre the tail is near 1/2: measure the middle part instead, without cancelling
        middle = 0.5 * regularized_beta(0.5, df / 2.0, x * x / (df + x * x))
        return 0.5 + middle if x > 0 else 0.5 - middle
    tail = 0.5 * regularized_beta(df / 2.0, 0.5, df / (df + x * x))
    return 1.0 - tail if x > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The quantile of Student's t: Newton's method on :func:`t_cdf` from the normal quantile, kept in a bracket."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a probability strictly between 0 and 1 is needed, got {p}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if p == 0.5:
        return 0.0
    low, high = 0.0, max(1.0, normal_quantile(p))
    while t_cdf(high, df) < p:  # heavy tails: the bracket grows until it holds the answer
        low, high = high, high * 2.0
    x = min(max(normal_quantile(p), low), high)
    for _ in range(200):
        error = t_cdf(x, df) - p
        if abs(error) < 1e-15:
            break
        low, high = (low, x) if error > 0 else (x, high)
        step = x - error / _t_density(x, df)
        x = step if low < step < high else (low + high) / 2.0
        if high - low < 1e-15 * max(1.0, x):
            break
    return x


def _t_density(x: float, df: float) -> float:
    log = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log - (df + 1) / 2 * math.log1p(x * x / df))


# -- effects and sizes ------------------------------------------------------------------------


@dataclass(frozen=True)
class Design:
    """The test a set is planned for: its level, the power wanted, and which quantiles."""

    power: float = DEFAULT_POWER
    alpha: float = DEFAULT_ALPHA
    method: str = NORMAL  # as the gate's percentile bootstrap behaves (docs/compare.md); STUDENT is more cautious

    def __post_init__(self) -> None:
        if not 0.0 < self.power < 1.0:
            raise ValueError(f"power must be between 0 and 1 (e.g. 0.8), got {self.power}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must be between 0 and 1 (e.g. 0.05), got {self.alpha}")
        if self.method not in (NORMAL, STUDENT):
            raise ValueError(f"method must be {NORMAL} or {STUDENT}, got {self.method!r}")

    def multiplier(self, n: int) -> float:
        """q(1 - alpha/2) + q(power) for a set of ``n`` queries."""
        if self.method == NORMAL or n > 100_000:  # t and normal agree to 1e-5 there
            return normal_quantile(1.0 - self.alpha / 2.0) + normal_quantile(self.power)
        return t_quantile(1.0 - self.alpha / 2.0, n - 1) + t_quantile(self.power, n - 1)


SPREAD_LEVEL = 0.9
MIN_SPREAD_PILOT = 6
SPREAD_TOO_LOOSE = (
    "from a pilot of {n} queries the spread is barely measured (its 90% interval is 0.65x to 2.37x the "
    "pilot's at 5 queries and wider below, so the queries needed 0.42x to 5.6x or more): plan from a larger pilot"
)
SPREAD_ASSUMPTION = (
    "from a pilot of {n} queries the spread is itself uncertain: its {level:.0%} interval runs from "
    "{low:.2f}x to {high:.2f}x the pilot's (chi-square, for roughly normal differences), so the queries "
    "needed may be {low2:.2f}x to {high2:.2f}x the figures above; a stratum of fewer queries is less "
    "certain still"
)


def spread_interval(n: int, level: float = SPREAD_LEVEL) -> tuple[float, float] | None:
    """The ``level`` interval of a standard deviation measured on ``n`` values, as factors of it:
    ``sqrt((n-1) / chi2)`` at the chi-square's upper and lower quantiles with ``n - 1`` degrees of
    freedom (Wilson and Hilferty's cube-root approximation of those quantiles, within 1% from 5
    degrees of freedom on). None below 6 values (see ``SPREAD_TOO_LOOSE``)."""
    if n < MIN_SPREAD_PILOT:
        return None
    df = n - 1
    tail = (1 - level) / 2

    def chi2(p: float) -> float:
        z = normal_quantile(p)
        return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3

    return math.sqrt(df / chi2(1 - tail)), math.sqrt(df / chi2(tail))


def detectable_effect(sd: float, n: int, design: Design = Design()) -> float | None:
    """The smallest true change that ``n`` queries detect with the design's power (None below 2 queries)."""
    if n < 2 or not math.isfinite(sd) or sd < 0:
        return None
    return design.multiplier(n) * sd / math.sqrt(n)


def queries_needed(sd: float, change: float, design: Design = Design()) -> int | None:
    """The fewest queries whose detectable effect is at most ``change`` (None for a change of 0).

    At least 2: one query has no spread to test with. Capped at :data:`MAX_QUERIES`.
    """
    change = abs(change)
    if change == 0 or not math.isfinite(sd) or sd < 0:
        return None
    z = normal_quantile(1.0 - design.alpha / 2.0) + normal_quantile(design.power)
    n = max(2, min(MAX_QUERIES, math.ceil((z * sd / change) ** 2)))

    def enough(size: int) -> bool:
        return (detectable_effect(sd, size, design) or 0.0) <= change

    if enough(n):  # the normal answer; with t quantiles, which only add, it is the answer too
        return n
    # The detectable effect shrinks as n grows: double until it is enough, then halve the gap.
    low, high = n, min(MAX_QUERIES, 2 * n)
    while not enough(high) and high < MAX_QUERIES:
        low, high = high, min(MAX_QUERIES, 2 * high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


def proxy_sd(sd: float, correlation: float = DEFAULT_CORRELATION) -> float:
    """The paired differences' sd from one report's per-query sd (the module's note)."""
    if not -1.0 <= correlation <= 1.0:
        raise ValueError(f"the correlation must be between -1 and 1, got {correlation}")
    return math.sqrt(2.0 * (1.0 - correlation)) * sd


def sample_sd(values: Sequence[float]) -> float | None:
    """The sample standard deviation (n - 1 in the denominator); None below 2 values."""
    if len(values) < 2:
        return None
    mean = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1))


@dataclass(frozen=True)
class Moved:
    """How many paired queries improved, tied and worsened: the effect beside the p-value."""

    improved: int
    tied: int
    worsened: int

    @classmethod
    def of(cls, differences: Sequence[float]) -> Moved:
        # Counted in C, one comparison per difference and count.
        return cls(
            sum(map((0.0).__lt__, differences)),
            sum(map((0.0).__eq__, differences)),
            sum(map((0.0).__gt__, differences)),
        )
