"""The power arithmetic: quantiles against scipy, effects and sizes by hand."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from retrieval_eval.core.power import (
    NORMAL,
    STUDENT,
    Design,
    Moved,
    detectable_effect,
    normal_quantile,
    proxy_sd,
    queries_needed,
    sample_sd,
    t_cdf,
    t_quantile,
)

PROBABILITIES = [1e-12, 1e-6, 0.001, 0.01, 0.02425, 0.025, 0.1, 0.3, 0.5, 0.5000001, 0.8, 0.9, 0.975, 0.995, 0.9999]
DEGREES = [1, 2, 3, 4.5, 9, 19, 29, 99, 999, 50_000]


@pytest.mark.parametrize("p", PROBABILITIES)
def test_the_normal_quantile_agrees_with_scipy(p: float) -> None:
    assert normal_quantile(p) == pytest.approx(stats.norm.ppf(p), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("df", DEGREES)
def test_the_t_quantile_agrees_with_scipy(df: float) -> None:
    for p in PROBABILITIES[2:]:
        assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-9, abs=1e-9), (p, df)


@pytest.mark.parametrize("df", DEGREES)
def test_the_t_cdf_agrees_with_scipy(df: float) -> None:
    for x in (-40.0, -3.0, -1.0, -1e-7, 0.0, 1e-7, 0.3, 2.0, 12.0):
        # scipy itself is off by about 1e-11 near 0 for one degree of freedom (see the closed forms below).
        assert t_cdf(x, df) == pytest.approx(stats.t.cdf(x, df), abs=1e-10), (x, df)


def test_the_t_cdf_agrees_with_the_closed_forms() -> None:
    for x in (-40.0, -3.0, -1e-7, 0.0, 1e-7, 0.3, 2.0):
        assert t_cdf(x, 1) == pytest.approx(0.5 + math.atan(x) / math.pi, abs=1e-15)  # Cauchy
        assert t_cdf(x, 2) == pytest.approx(0.5 + x / (2 * math.sqrt(2 + x * x)), abs=1e-15)


def test_quantiles_refuse_a_probability_outside_zero_and_one() -> None:
    for p in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ValueError):
            normal_quantile(p)
        with pytest.raises(ValueError):
            t_quantile(p, 5)


def test_the_worked_example_sd_015_change_002_needs_about_440_queries() -> None:
    # By hand: z(0.975) = 1.959964, z(0.8) = 0.841621; (2.801585 * 0.15 / 0.02)^2 = 441.5 -> 442.
    assert queries_needed(0.15, 0.02, Design(method=NORMAL)) == 442
    # t quantiles at 441 degrees of freedom add a little: t(0.975) = 1.965351, t(0.8) = 0.842013.
    assert queries_needed(0.15, 0.02, Design(method=STUDENT)) == 444


def test_the_detectable_effect_by_hand() -> None:
    # 2.801585 * 0.15 / sqrt(120) = 0.038362
    assert detectable_effect(0.15, 120, Design(method=NORMAL)) == pytest.approx(0.0383624, abs=1e-6)
    # with t at 119 degrees of freedom: (1.980100 + 0.844652) * 0.15 / sqrt(120) = 0.038680
    assert detectable_effect(0.15, 120, Design(method=STUDENT)) == pytest.approx(0.0386795, abs=1e-6)
    # 90 % power, 1 % level: (2.575829 + 1.281552) * 0.1 / 10 = 0.038574
    assert detectable_effect(0.1, 100, Design(power=0.9, alpha=0.01, method=NORMAL)) == pytest.approx(
        0.0385738, abs=1e-6
    )


def test_the_planner_and_the_effect_are_inverse() -> None:
    for design in (Design(method=NORMAL), Design(method=STUDENT), Design(power=0.9, alpha=0.01)):
        for sd, change in ((0.15, 0.02), (0.3, 0.05), (0.05, 0.1), (0.2, 0.001)):
            n = queries_needed(sd, change, design)
            assert n is not None
            assert detectable_effect(sd, n, design) <= change  # type: ignore[operator]
            if n > 2:
                assert detectable_effect(sd, n - 1, design) > change  # type: ignore[operator]


def test_edges_say_none_rather_than_guess() -> None:
    assert detectable_effect(0.1, 1) is None  # one query has no spread
    assert detectable_effect(float("nan"), 50) is None
    assert queries_needed(0.1, 0.0) is None  # no set sees a change of 0
    assert queries_needed(0.0, 0.01) == 2  # no spread: the fewest a test can have
    assert detectable_effect(0.0, 10) == 0.0
    assert queries_needed(0.15, -0.02, Design(method=NORMAL)) == 442  # a drop is planned like a gain


def test_a_design_refuses_what_is_not_a_probability() -> None:
    for bad in ({"power": 1.0}, {"power": 0.0}, {"alpha": 0.0}, {"method": "z"}):
        with pytest.raises(ValueError):
            Design(**bad)  # type: ignore[arg-type]


def test_the_proxy_from_one_report() -> None:
    assert proxy_sd(0.2) == pytest.approx(0.2)  # rho 0.5: sqrt(2 * 0.5) = 1
    assert proxy_sd(0.2, 0.0) == pytest.approx(0.2 * math.sqrt(2))
    assert proxy_sd(0.2, 1.0) == 0.0
    with pytest.raises(ValueError):
        proxy_sd(0.2, 1.5)


def test_the_sample_sd_and_the_moves_by_hand() -> None:
    # mean 0; squares 1 + 0 + 1 + 0 = 2; / 3 -> sd sqrt(2/3)
    assert sample_sd([1.0, 0.0, -1.0, 0.0]) == pytest.approx(math.sqrt(2 / 3))
    assert sample_sd([0.3]) is None
    assert Moved.of([0.1, 0.0, -0.2, 0.0, 0.5]) == Moved(improved=2, tied=2, worsened=1)


CASES = [(0.15, 0.02), (0.3, 0.05), (0.2, 0.1), (0.25, 0.15), (0.1, 0.1), (0.4, 0.01)]


@pytest.mark.parametrize("power", [0.8, 0.9])
def test_the_planner_agrees_with_statsmodels(power: float) -> None:
    smp = pytest.importorskip("statsmodels.stats.power")
    for sd, change in CASES:
        # A one-sample z test (ratio=0): the normal planner is its answer rounded up.
        z = smp.NormalIndPower().solve_power(effect_size=change / sd, alpha=0.05, power=power, ratio=0)
        assert queries_needed(sd, change, Design(power=power, method=NORMAL)) == math.ceil(z)
        # The paired t test, solved exactly with the noncentral t: the t planner's sum of
        # quantiles is a close, slightly cautious stand-in, never short, at most one query over.
        t = math.ceil(smp.TTestPower().solve_power(effect_size=change / sd, alpha=0.05, power=power))
        assert t <= queries_needed(sd, change, Design(power=power, method=STUDENT)) <= t + 1  # type: ignore[operator]


def test_a_detectable_change_past_the_metrics_range_says_none() -> None:
    """Two queries whose differences have a standard deviation of 1 (one up 0.7, one down 0.7):
    the default design's (1.95996 + 0.84162) x 1 / sqrt(2) = 1.981, more than any change of a
    metric in [0, 1]; every rendering says the set sees none rather than printing 1.981."""
    from retrieval_eval.core.power import Design, detectable_effect
    from retrieval_eval.core.report_model import Detectable, GateEntry
    from retrieval_eval.formats.plan import plan_row_from_json
    from retrieval_eval.render.detectable import detectable_sentence, detectable_text
    from retrieval_eval.render.plan import _line

    mde = detectable_effect(1.0, 2, Design())
    assert mde is not None and round(mde, 3) == 1.981
    assert detectable_text(mde, 3) == "none (> 1)" and detectable_text(0.25, 3) == "0.250"
    assert detectable_text(1.0, 3) == "1.000"  # a change of the whole range is still a change
    seen = Detectable(mde=mde, n=2, tolerance=0.05, power=0.8, alpha=0.05, direction="drops")
    gate = GateEntry(expression="recall@5:-0.05", status="PASS", detectable=seen)
    sentence = detectable_sentence(gate, "recall@5")
    assert sentence is not None and sentence.startswith("with 2 queries this set detects no drops of recall@5 at all")
    seen = [{"queries": 2, "change": mde}]
    row = plan_row_from_json({"stratum": "tiny", "n": 2, "sd_diff": 0.5, "mde": mde, "needed": [], "detectable": seen})
    assert _line(row).split()[-2:] == ["(>", "1)"] and "1.981" not in _line(row)


def test_the_moves_counted_in_c_are_the_plain_counts() -> None:
    """Moved.of counts with one C comparison per difference; the plain loops decide."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.one_of(st.floats(allow_nan=False), st.sampled_from([0.0, -0.0, 1e-12, -1e-12, 0, 1, -1]))))
    def check(differences: list[float]) -> None:
        plain = Moved(
            sum(1 for d in differences if d > 0),
            sum(1 for d in differences if d == 0),
            sum(1 for d in differences if d < 0),
        )
        assert Moved.of(differences) == plain

    check()


def test_the_base_spread_is_read_only_when_the_differences_do_not_vary() -> None:
    from retrieval_eval.comparison.power import gate_design, power_fields

    design = gate_design(0.8)
    asked: list[int] = []

    def base() -> list[float]:
        asked.append(1)
        return [0.1, 0.5, 0.9]

    varied = power_fields([0.1, -0.1, 0.0], base, design)
    assert asked == [] and varied.mde_source == "paired"
    flat = power_fields([0.0, 0.0, 0.0], base, design)
    assert asked == [1] and flat.mde_source == "base-proxy" and flat.sd_diff == round(proxy_sd(0.4), 12)
