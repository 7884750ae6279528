"""The judge's pure rules: answers, votes, kappa (statsmodels as oracle), the sample, the interval.

The interval's coverage and the lenient judge's 200 pull requests are simulations whose
truth is known by construction: the hidden relevance of every hole is drawn first.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from retrieval_eval.core.gates import FAIL, INDETERMINATE, PASS
from retrieval_eval.core.judge import (
    INCOMPLETE,
    LABELED,
    REFUSED,
    SPLIT,
    UNPARSEABLE,
    grade_of,
    majority,
    parse_reply,
    vote,
)
from retrieval_eval.core.judge_calibration import (
    BELOW_FLOOR,
    CALIBRATED,
    NOT_CALIBRATED,
    calibrate,
    confusion,
    kappa,
    stratified_sample,
)
from retrieval_eval.core.judge_interval import Filled, Hole, bounds_status, filled_interval, resolve

# -- answers and votes ---------------------------------------------------------------------


def test_a_reply_is_read_line_by_line_and_nothing_is_guessed() -> None:
    assert parse_reply("1: 2\n2: 0\n3: 3", 3) == [2, 0, 3]
    assert parse_reply("[2] 1\nPassage 1 - 3.", 2) == [3, 1]
    assert parse_reply("reasoning...\n##final score: 2", 1) == [2]
    assert parse_reply(" 3 ", 1) == [3]
    # Left out, graded twice differently, or out of the scale: unparseable, never 0.
    assert parse_reply("1: 2", 2) == [2, UNPARSEABLE]
    assert parse_reply("1: 2\n1: 3", 1) == [UNPARSEABLE]
    assert parse_reply("1: 7", 1) == [UNPARSEABLE]
    assert parse_reply("I cannot help with that.", 1) == [UNPARSEABLE]
    assert parse_reply("", 2) == [UNPARSEABLE, UNPARSEABLE]
    assert [grade_of(v) for v in (0, 3, True, 2.0, "2", -1, 4, None)] == [0, 3] + [UNPARSEABLE] * 6


def test_majority_ties_go_to_the_lower_grade() -> None:
    assert majority([2, 2, 3]) == 2
    assert majority([3, 1]) == 1
    assert majority([3, 2, 1, 0]) == 0
    assert majority([3, 3, 1, 1, 2]) == 1


def test_a_vote_is_a_label_only_when_every_sample_is_a_grade_on_one_side() -> None:
    assert vote([2, 3, 2], samples=3, threshold=1) == vote([2, 3, 2], samples=3, threshold=1)
    labeled = vote([2, 3, 2], samples=3, threshold=1)
    assert (labeled.status, labeled.grade, labeled.usable) == (LABELED, 2, True)
    split = vote([0, 2, 2], samples=3, threshold=1)
    assert (split.status, split.grade, split.majority, split.usable) == (SPLIT, None, 2, False)
    assert vote([0, 0, REFUSED], samples=3, threshold=1).status == REFUSED
    assert vote([0, UNPARSEABLE, 0], samples=3, threshold=1).status == UNPARSEABLE
    assert vote([0, 0], samples=3, threshold=1).status == INCOMPLETE
    for bad in ([REFUSED] * 3, [UNPARSEABLE] * 3, [0, REFUSED, 0]):
        assert vote(bad, samples=3, threshold=1).grade is None


# -- kappa against statsmodels --------------------------------------------------------------


def _table(pairs: list[tuple[int, int]], size: int) -> np.ndarray:
    table = np.zeros((size, size))
    for first, second in pairs:
        table[first, second] += 1
    return table


@pytest.mark.parametrize("seed", range(12))
def test_kappa_matches_statsmodels(seed: int) -> None:
    rng = random.Random(seed)
    agree = rng.random()
    pairs = []
    for _ in range(rng.randint(5, 300)):
        human = rng.choice((0, 0, 1, 2, 3))
        pairs.append((human, human if rng.random() < agree else rng.randint(0, 3)))
    table = _table(pairs, 4)
    if (table.sum(axis=0) > 0).sum() < 2 and (table.sum(axis=1) > 0).sum() < 2:
        pytest.skip("a single category: kappa is undefined")
    for weights, wt in ((None, None), ("linear", "linear"), ("quadratic", "quadratic")):
        ours = kappa(pairs, (0, 1, 2, 3), weights)
        theirs = cohens_kappa(table, wt=wt).kappa if wt else cohens_kappa(table).kappa
        assert ours == pytest.approx(theirs, abs=1e-12), weights
    binary = [(int(h >= 1), int(m >= 1)) for h, m in pairs]
    if len({b for pair in binary for b in pair}) == 2:
        assert kappa(binary, (0, 1)) == pytest.approx(cohens_kappa(_table(binary, 2)).kappa, abs=1e-12)


def test_kappa_by_hand_and_when_undefined() -> None:
    # 20 pairs: agree on 8 zeros and 8 ones, 4 disagreements split evenly: po=0.8, pe=0.5.
    pairs = [(0, 0)] * 8 + [(1, 1)] * 8 + [(0, 1)] * 2 + [(1, 0)] * 2
    assert kappa(pairs, (0, 1)) == pytest.approx(0.6)
    assert kappa([(1, 1)] * 5, (0, 1)) is None
    assert kappa([], (0, 1)) is None
    assert confusion([(0, 0), (0, 3), (3, 0), (2, 2)]) == ((1, 0, 0, 1), (0, 0, 0, 0), (0, 0, 1, 0), (1, 0, 0, 0))


def test_calibration_needs_fifty_pairs_and_a_kappa_over_the_floor() -> None:
    perfect = [(g % 4, g % 4) for g in range(60)]
    grades = [g % 4 for g in range(60)]
    assert calibrate(perfect[:49], humans=grades, answered=grades, threshold=1).status == NOT_CALIBRATED
    assert calibrate(perfect, humans=grades, answered=grades, threshold=1).status == CALIBRATED
    # Human 5 counts as 3; a judge that says 3 to everything has no agreement beyond chance.
    assert calibrate([(5, 3)] * 60, humans=[5] * 60, answered=[3] * 60, threshold=1).confusion[3][3] == 60
    lenient = [(g % 4, 3) for g in range(60)]
    result = calibrate(lenient, humans=grades, answered=[3] * 60, threshold=1)
    assert result.status == BELOW_FLOOR and not result.usable and result.asked == 60
    assert (result.zero_rate_human, result.zero_rate_judge) == (0.25, 0.0)


def test_the_sample_is_stratified_by_grade_in_proportion_and_repeatable() -> None:
    items = [(f"k{i}", 0) for i in range(600)] + [(f"j{i}", 2) for i in range(300)] + [("only3", 3)]
    chosen = stratified_sample(items, 90)
    grades = [items[i][1] for i in chosen]
    assert len(chosen) == 90 and grades.count(0) == 60 and grades.count(2) == 30
    assert chosen == stratified_sample(list(items), 90)
    assert stratified_sample(items, 5000) == list(range(len(items)))


# -- the interval: coverage and a lenient judge ---------------------------------------------


def _judge(truth: bool, rng: random.Random, *, sensitivity: float, false_positive: float) -> bool:
    return rng.random() < (sensitivity if truth else false_positive)


def _world(
    rng: random.Random,
    *,
    holes: int,
    overlap: int,
    prevalence: float,
    fp: float,
    sensitivity: float = 0.85,
    overlap_prevalence: float | None = None,
) -> tuple:
    """Holes and a calibration overlap, the judge's errors planted; the overlap's pairs are as often
    relevant as the holes unless ``overlap_prevalence`` says otherwise (labels come from pools of
    earlier retrievers, mostly relevant; holes are what a new one brings, mostly not)."""
    weights = [rng.choice((0.01, 0.02, 0.05)) for _ in range(holes)]
    truths = [rng.random() < prevalence for _ in range(holes)]
    readings = [_judge(t, rng, sensitivity=sensitivity, false_positive=fp) for t in truths]
    share = prevalence if overlap_prevalence is None else overlap_prevalence
    humans = [rng.random() < share for _ in range(overlap)]
    pairs = [(_judge(h, rng, sensitivity=sensitivity, false_positive=fp), h) for h in humans]
    return weights, truths, readings, pairs


# The coverage tests draw 500 times per interval (the product draws 2,000) to fit the suite's time.
DRAWS = 500


def _coverage(rng: random.Random, trials: int, prevalence: Callable[[], float], **world: float) -> float:
    covered = 0
    for _ in range(trials):
        weights, truths, readings, pairs = _world(
            rng, holes=rng.randint(20, 120), overlap=rng.randint(50, 200), prevalence=prevalence(), **world
        )
        known = rng.uniform(0.0, 0.5)
        truth = known + sum(w for w, t in zip(weights, truths) if t)
        filled = filled_interval(known, [Hole(w, r) for w, r in zip(weights, readings)], pairs, draws=DRAWS)
        assert filled.lower_bound <= filled.low <= filled.estimate <= filled.high <= filled.upper_bound
        covered += filled.low <= truth <= filled.high
    return covered / trials


def test_the_interval_covers_the_true_value_at_least_93_in_100_times() -> None:
    rng = random.Random(20240701)
    coverage = _coverage(rng, 300, lambda: rng.uniform(0.1, 0.6), fp=0.3)
    assert coverage >= 0.93, coverage


@pytest.mark.parametrize(("holes", "overlap"), [(0.15, 0.5), (0.1, 0.8), (0.6, 0.3)])
def test_the_interval_covers_the_truth_when_the_holes_are_not_as_often_relevant_as_the_labels(
    holes: float, overlap: float
) -> None:
    # A judge wrong on one pair in five either way. The share of the overlap the humans call
    # relevant among the pairs the judge read relevant is 0.8 at 50% relevant labels, while among
    # 15% relevant holes it is 0.41: taken as the holes' chance, it covered none of 1,500 worlds.
    rng = random.Random(f"{holes}:{overlap}")
    coverage = _coverage(rng, 150, lambda: holes, fp=0.2, sensitivity=0.8, overlap_prevalence=overlap)
    assert coverage >= 0.9, coverage


def test_holes_without_a_usable_label_are_counted_at_their_worst() -> None:
    pairs = [(True, True)] * 30 + [(False, False)] * 30
    filled = filled_interval(0.5, [Hole(0.1, None), Hole(0.2, True)], pairs)
    assert filled.high == pytest.approx(0.8) and filled.low <= 0.7 + 1e-12  # the unread hole at 0 and at 0.1
    signed = filled_interval(0.0, [Hole(-0.1, None)], pairs)
    assert (signed.lower_bound, signed.upper_bound, signed.low, signed.high) == (-0.1, 0.0, -0.1, 0.0)


def test_a_hole_read_relevant_by_a_judge_that_calls_most_keys_relevant_is_likely_not() -> None:
    # By hand, from the point values: the overlap gives sensitivity (18 + 0.5) / 21 = 0.881 and a
    # false-positive rate (18 + 0.5) / 61 = 0.303. The judge read 30 of 100 holes relevant, so
    # the holes' relevant share is (0.30 - 0.303) / (0.881 - 0.303) < 0: none; each hole adds
    # 0.01, so the estimate is the known 0.2. Taken as the holes' chance, the overlap's 18 of 36
    # would have put it near 0.38.
    pairs = [(True, True)] * 18 + [(False, True)] * 2 + [(True, False)] * 18 + [(False, False)] * 42
    holes = [Hole(0.01, True)] * 30 + [Hole(0.01, False)] * 70
    filled = filled_interval(0.2, holes, pairs)
    assert filled.estimate == pytest.approx(0.2)
    assert filled.low == pytest.approx(0.2) and filled.high < 0.2 + 0.3


def test_a_lenient_judge_never_turns_a_true_fail_into_a_pass_over_200_pull_requests() -> None:
    """Each pull request's truth is drawn first; the judge calls 40% of irrelevant holes relevant
    (and 85% of relevant ones: a kappa near 0.45, just over the floor).

    The same judge read naively (its labels as truth) does pass true failures: the check can fail.
    """
    rng = random.Random(7)
    threshold, resolved, naive_false_passes, true_fails = 0.65, 0, 0, 0
    for _ in range(200):
        weights, truths, readings, pairs = _world(rng, holes=60, overlap=80, prevalence=0.3, fp=0.4)
        known = rng.uniform(0.0, 0.35)
        true_value = known + sum(w for w, t in zip(weights, truths) if t)
        filled = filled_interval(known, [Hole(w, r) for w, r in zip(weights, readings)], pairs, draws=DRAWS)
        status = resolve(bounds_status(filled, threshold), filled, threshold)
        naive = known + sum(w for w, r in zip(weights, readings) if r)
        if true_value < threshold:
            true_fails += 1
            assert status != PASS, (true_value, filled)
            naive_false_passes += naive >= threshold and bounds_status(filled, threshold) == INDETERMINATE
        resolved += status != INDETERMINATE
    assert true_fails > 50 and resolved >= 10, (true_fails, resolved)
    assert naive_false_passes > 10, naive_false_passes


def test_resolve_moves_only_an_indeterminate_gate() -> None:
    filled = Filled(estimate=0.79, low=0.76, high=0.82, lower_bound=0.2, upper_bound=0.9)
    assert resolve(FAIL, filled, 0.5) == FAIL
    assert resolve(INDETERMINATE, filled, 0.5) == PASS
    assert resolve(INDETERMINATE, filled, 0.95) == FAIL
    assert resolve(INDETERMINATE, filled, 0.8) == INDETERMINATE
    assert resolve(INDETERMINATE, filled, 0.95, at_most=True) == PASS


@pytest.mark.parametrize(
    "holes",
    [[], [Hole(0.1, None)], [Hole(0.1, True)] * 3, [Hole(-0.05, False), Hole(0.05, True)], [Hole(0.5, True)] * 400],
)
@pytest.mark.parametrize("overlap", [[], [(True, True)], [(True, False)] * 60, [(False, True)] * 60])
def test_any_holes_and_any_overlap_give_an_interval_within_the_bounds(
    holes: list[Hole], overlap: list[tuple[bool, bool]]
) -> None:
    # An empty overlap, a judge always wrong, no hole the judge could read, a weight past 1:
    # an interval still comes, inside the bounds, its estimate inside it, the same every time.
    filled = filled_interval(0.1, holes, overlap, draws=200)
    assert filled.lower_bound <= filled.low <= filled.estimate <= filled.high <= filled.upper_bound
    assert filled == filled_interval(0.1, holes, overlap, draws=200)
