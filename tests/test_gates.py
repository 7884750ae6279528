"""Gate grammar, gate evaluation and how the verdict combines them."""

from __future__ import annotations

import pytest

from retrieval_eval.core.comparison import Deltas, MetricDelta
from retrieval_eval.core.errors import UsageError
from retrieval_eval.core.gates import (
    ABSOLUTE,
    CI_LOWER,
    DELTA,
    FAIL,
    INDETERMINATE,
    PASS,
    WORST_STRATUM,
    GateReadings,
    GateResult,
    Gating,
    decide,
    evaluate_gate,
    parse_gate,
    split_gate_list,
)
from retrieval_eval.core.report_model import Measurement

KS = (5, 10)


def test_grammar() -> None:
    assert parse_gate("recall@5:0.7", ks=KS).kind == ABSOLUTE
    assert parse_gate("recall@5:-0.02", ks=KS).kind == DELTA
    assert parse_gate("recall@5:+0.01", ks=KS).threshold == 0.01
    significant = parse_gate("recall@5:-0.02:significant", ks=KS)
    assert significant.kind == DELTA and significant.significant_only
    assert parse_gate("worst-stratum:ndcg@10:0.5", ks=KS).kind == WORST_STRATUM
    assert parse_gate("faithfulness:ci-lower:0.8", ks=KS, judged={"faithfulness"}).kind == CI_LOWER
    assert split_gate_list("recall@5:0.7,\n ndcg@10:0.5\n") == ["recall@5:0.7", "ndcg@10:0.5"]


@pytest.mark.parametrize("text", ["recall@5", "recall@5:0.7:0.1", "bogus@5:0.7", "recall@7:0.5", ":0.5"])
def test_bad_gates_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_gate(text, ks=KS)


def context(**kwargs: object) -> GateReadings:
    base = {"metrics": {"recall@5": 0.7}, "strata": {"a": {"recall@5": 0.9}, "b": {"recall@5": 0.4}}}
    base.update(kwargs)
    return GateReadings(**base)  # type: ignore[arg-type]


def test_absolute_gate_passes_at_the_threshold_exactly() -> None:
    assert evaluate_gate(parse_gate("recall@5:0.7", ks=KS), context()).status == PASS
    assert evaluate_gate(parse_gate("recall@5:0.7000001", ks=KS), context()).status == FAIL


def test_worst_stratum_gate_reads_the_lowest_stratum() -> None:
    result = evaluate_gate(parse_gate("worst-stratum:recall@5:0.5", ks=KS), context())
    assert result.status == FAIL and "stratum b" in result.reason


def test_delta_gate_needs_a_comparable_baseline() -> None:
    gate = parse_gate("recall@5:-0.02", ks=KS)
    assert evaluate_gate(gate, context()).status == INDETERMINATE
    moved = Deltas(metrics={"recall@5": MetricDelta("recall@5", 0.75, 0.7)})
    assert evaluate_gate(gate, context(comparison=moved)).status == FAIL
    held = Deltas(metrics={"recall@5": MetricDelta("recall@5", 0.71, 0.7)})
    assert evaluate_gate(gate, context(comparison=held)).status == PASS
    other = Deltas(metrics=moved.metrics, problems=["the baseline was computed with threshold 2, this run with 1"])
    result = evaluate_gate(gate, context(comparison=other))
    assert result.status == INDETERMINATE and "threshold 2" in result.reason


def test_significant_delta_gate_ignores_noise() -> None:
    gate = parse_gate("recall@5:-0.02:significant", ks=KS)
    noisy = Deltas(metrics={"recall@5": MetricDelta("recall@5", 0.75, 0.7, significant=False)})
    real = Deltas(metrics={"recall@5": MetricDelta("recall@5", 0.75, 0.7, significant=True)})
    assert evaluate_gate(gate, context(comparison=noisy)).status == PASS
    assert evaluate_gate(gate, context(comparison=real)).status == FAIL


def test_ci_lower_gate() -> None:
    gate = parse_gate("faithfulness:ci-lower:0.8", ks=KS, judged={"faithfulness"})
    # The judged measurements are the request's (its gating slice), not the run's readings.
    assert (
        evaluate_gate(gate, context(), Gating(judged={"faithfulness": Measurement(n=2, ci=(0.81, 0.9))})).status == PASS
    )
    assert (
        evaluate_gate(gate, context(), Gating(judged={"faithfulness": Measurement(n=2, ci=(0.79, 0.9))})).status == FAIL
    )
    assert evaluate_gate(gate, context(), Gating(judged={"faithfulness": Measurement(n=1)})).status == INDETERMINATE


def test_verdict_order_fail_over_indeterminate_over_pass() -> None:
    passing = GateResult("a", PASS, "a ok")
    failing = GateResult("b", FAIL, "b failed")
    unknown = GateResult("c", INDETERMINATE, "c unknown")
    assert decide([], [], [passing]).status == PASS
    assert decide([], [], [passing, unknown]).status == INDETERMINATE
    assert decide([], [], [unknown, failing]).status == FAIL
    assert decide(["unsound"], [], [passing]).status == INDETERMINATE
    verdict = decide(["unsound"], ["a note"], [passing, failing])
    assert verdict.status == FAIL
    assert verdict.reasons == ["unsound", "b failed", "a note"]


def test_a_run_that_matches_no_label_is_decided_by_no_gate() -> None:
    """Every metric of such a run is 0 whatever the retriever did: neither a failing nor a
    passing gate may decide, and the reason comes first."""
    failing = GateResult("recall@5:-0.02:significant", FAIL, "recall@5 fell, significant")
    passing = GateResult("recall@5:0.0", PASS, "recall@5 at or above 0")
    why = "no key of the run is a chunk id, but the labels name chunks (chunk_id), so no key can match"
    for gates in ([failing], [passing], [passing, failing], []):
        verdict = decide([], ["a note"], gates, unmatched=[why])
        assert verdict.status == INDETERMINATE
        assert verdict.reasons[0] == why
        # No gate reads FAIL or PASS under it: the verdict stays the worst of its gates.
        assert [gate.status for gate in verdict.gates] == [INDETERMINATE] * len(gates)
        assert [gate.expression for gate in verdict.gates] == [gate.expression for gate in gates]
        for before, after in zip(gates, verdict.gates):
            assert after.reason == (
                f"{before.expression}: not decided, no key of the run can match a label "
                f"({before.reason.removeprefix(before.expression + ': ')})"
            )


def test_a_gate_that_asks_for_a_rise_says_whether_it_got_it() -> None:
    # "+0.01": must rise at least 0.01. A rise of 0 fails it: "beyond +0.01" would read as a rise
    # past the target; a rise of 0.05 passes it: "within +0.01" would read as a cap on the rise.
    gate = parse_gate("recall@5:+0.01", ks=KS)
    flat = evaluate_gate(gate, context(comparison=Deltas(metrics={"recall@5": MetricDelta("recall@5", 0.7, 0.7)})))
    assert flat.status == FAIL
    assert flat.reason == "recall@5:+0.01: recall@5 moved +0.0000 (from 0.7 to 0.7), short of the +0.01 it must rise"
    rose = evaluate_gate(gate, context(comparison=Deltas(metrics={"recall@5": MetricDelta("recall@5", 0.7, 0.75)})))
    assert rose.status == PASS
    assert rose.reason == "recall@5:+0.01: recall@5 moved +0.0500 (from 0.7 to 0.75), at least the +0.01 it must rise"
    # A gate on drops keeps its words.
    drop = parse_gate("recall@5:-0.02", ks=KS)
    fell = evaluate_gate(drop, context(comparison=Deltas(metrics={"recall@5": MetricDelta("recall@5", 0.75, 0.7)})))
    assert fell.reason == "recall@5:-0.02: recall@5 moved -0.0500 (from 0.75 to 0.7), beyond -0.02"


# -- numbers no metric can reach, numbers read first, a gate given twice ----------------------


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("recall@5:1.5", "recall@5 lies between 0 and 1, so a threshold of 1.5 is never met"),
        ("recall@5:80", "recall@5 lies between 0 and 1, so a threshold of 80 is never met"),
        ("recall@5:<=2", "recall@5 lies between 0 and 1, so a threshold of 2 is always met"),
        ("worst-stratum:ndcg@10:1.01", "ndcg@10 lies between 0 and 1, so a threshold of 1.01 is never met"),
        ("abstention_rate:90", "abstention_rate lies between 0 and 1, so a threshold of 90 is never met"),
        ("recall@5:1.0001", "so a threshold of 1.0001 is never met"),
        ("recall@5:-5", "a change of -5 is past what recall@5 can move"),
        ("recall@5:+1.5:significant", "a change of +1.5 is past what recall@5 can move"),
        ("floor:recall@10:+2", "a margin over the floor of +2 is past what recall@10 can move"),
    ],
)
def test_a_number_no_metric_can_reach_is_refused(expression: str, says: str) -> None:
    with pytest.raises(UsageError) as refused:
        parse_gate(expression, ks=KS)
    assert says in str(refused.value)


def test_a_percentage_is_told_as_the_fraction_it_meant() -> None:
    with pytest.raises(UsageError) as refused:
        parse_gate("recall@5:80", ks=KS)
    assert refused.value.hint == "thresholds are fractions: 0.8 for 80%"
    with pytest.raises(UsageError) as refused:
        parse_gate("recall@5:-5", ks=KS)
    assert refused.value.hint == "thresholds are fractions: -0.05 for -5%"


@pytest.mark.parametrize("expression", ["recall@5:1", "recall@5:1.0", "recall@5:<=0", "recall@5:-0", "recall@5:+1"])
def test_the_ends_of_the_range_a_value_may_miss_are_gates(expression: str) -> None:
    assert parse_gate(expression, ks=KS).threshold in (0.0, 1.0)


@pytest.mark.parametrize(
    ("expression", "said"),
    [
        ("recall@5:0", "at least 0 is always met"),
        ("recall@5:0.0000000000001", "at least 0 is always met"),  # 0 at the 12 decimals gates read
        ("worst-stratum:recall@5:0", "at least 0 is always met"),
        ("recall@5:<=1", "at most 1 is always met"),
        ("false_abstention_rate:<=1.0", "at most 1 is always met"),
        ("recall@5:-1", "a change of -1 is the largest drop"),
        ("recall@5:-1:significant", "a change of -1 is the largest drop"),
        ("floor:recall@5:-1", "a margin of -1 over the floor"),
    ],
)
def test_a_gate_every_value_meets_is_refused(expression: str, said: str) -> None:
    # It could only ever say PASS: recall@5:0, written for "no drop", reads "at least 0".
    with pytest.raises(UsageError) as refused:
        parse_gate(expression, ks=KS)
    assert said in str(refused.value)
    assert "always met" in str(refused.value)


def test_at_least_0_points_to_the_delta_gate_for_no_drop() -> None:
    with pytest.raises(UsageError) as refused:
        parse_gate("recall@5:0", ks=KS)
    assert "recall@5:-0" in (refused.value.hint or "")


def test_a_typo_in_the_number_is_named_before_the_cutoff() -> None:
    # recall@3 is not scored (-k 5,10), but the fault the user made is the letter O.
    with pytest.raises(UsageError) as refused:
        parse_gate("recall@3:O.5", ks=KS)
    assert "'O.5' is not a plain decimal number" in str(refused.value)


@pytest.mark.parametrize(
    "pair",
    [("recall@5:0.5", "recall@5:0.5"), ("recall@5:0.5", "recall@5:0.50"), ("P@5:0.5", "precision@5:0.5")],
)
def test_a_gate_given_twice_is_refused(pair: tuple[str, str]) -> None:
    with pytest.raises(UsageError) as refused:
        Gating(gates=pair).parse(ks=KS)
    assert "is given twice" in str(refused.value)


def test_gates_alike_but_not_the_same_are_both_kept() -> None:
    gates = Gating(gates=("recall@5:0.5", "recall@5:-0.5", "recall@5:<=0.5", "recall@10:0.5")).parse(ks=KS)
    assert len(gates) == 4


def test_a_percentage_is_named_before_the_cutoff() -> None:
    # recall@3 is not scored (-k 5,10), but 80 is the slip to name first, with its fraction.
    with pytest.raises(UsageError) as refused:
        parse_gate("recall@3:80", ks=KS)
    assert "so a threshold of 80 is never met" in str(refused.value)


def test_at_least_0_on_a_rate_where_less_is_better_points_to_at_most_0() -> None:
    # false_abstention_rate:-0 would PASS a rate rising from 0 to 0.3: the hint must not offer it.
    with pytest.raises(UsageError) as refused:
        parse_gate("false_abstention_rate:0", ks=KS)
    assert refused.value.hint == "for a rate that must stay 0 write false_abstention_rate:<=0 (at most 0)"


@pytest.mark.parametrize("expression", ["recal@5:0", "bogus:<=1", "recall@5x:-1"])
def test_an_unknown_metric_is_named_before_its_number_is_called_always_met(expression: str) -> None:
    with pytest.raises(UsageError) as refused:
        parse_gate(expression, ks=KS)
    assert "unknown metric" in str(refused.value)
    assert "always met" not in str(refused.value)


@pytest.mark.parametrize(
    ("expression", "said", "hint"),
    [
        ("recall@5:-0.05:signifcant", "'signifcant' is no gate suffix", "recall@5:-0.05:significant"),
        ("recall@5:+0.01:Significant", "'Significant' is no gate suffix", "recall@5:+0.01:significant"),
        ("recall@5:-0.05:", "ends in ':'", "recall@5:-0.05"),
        ("worst-stratum:recall@5:0.6:significant", "with no suffix", "worst-stratum:recall@5:0.6"),
    ],
)
def test_a_suffix_slip_is_named_with_the_gate_meant(expression: str, said: str, hint: str) -> None:
    with pytest.raises(UsageError) as refused:
        parse_gate(expression, ks=KS)
    assert said in str(refused.value)
    assert refused.value.hint == hint


def test_a_ci_lower_gate_with_a_suffix_is_told_it_takes_none() -> None:
    with pytest.raises(UsageError) as refused:
        parse_gate("faithfulness:ci-lower:0.8:significant", ks=KS, judged={"faithfulness"})
    assert "a ci-lower gate is NAME:ci-lower:THRESHOLD, with no suffix" in str(refused.value)
    assert refused.value.hint == "faithfulness:ci-lower:0.8"
