"""A standing differential test: random small judgment sets, runs and settings, every number
and verdict against a witness from outside the code under test.

- every metric equals pytrec_eval's (trec_eval) or ir_measures' where the definitions
  coincide (nDCG with linear gain; mrr@k is trec_eval's recip_rank on the run cut at k);
- every mean bound equals the brute-force minimum and maximum over every labeling of the
  unjudged keys in the top k, each labeling scored by pytrec_eval;
- every gate's status equals a reference decision written from README's definitions (an
  absolute gate passes at or above its threshold; a bounded one passes when it passes at
  both bounds, fails when it fails at both, and is otherwise INDETERMINATE; a delta gate
  compares head less base);
- compare's deltas equal head less base, the base scored by pytrec_eval under the head's
  configuration (rescored, when the base was scored with another gain).

The means are over the queries README calls scored (a label at or above the threshold),
a scored query the run does not answer counting 0. Hypothesis draws the cases; the number
of examples keeps the whole file within about 20 seconds.
"""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import retrieval_eval

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

KEYS = [f"d{i}" for i in range(8)]
QUERIES = ("q1", "q2", "q3")
CUTOFFS = (1, 3, 5)
TOLERANCE = 1e-9
# Our name at a cutoff -> trec_eval's measure and the key it reports under.
AT_CUTOFF = {"precision": "P", "recall": "recall", "ndcg": "ndcg_cut", "map": "map_cut", "hit_rate": "success"}
WHOLE = {"ndcg": "ndcg", "map": "map", "mrr": "recip_rank", "bpref": "bpref", "r_precision": "Rprec"}
GATED = ("precision@3", "recall@3", "ndcg@3", "map@3", "hit_rate@1", "mrr@5")
EXAMPLES = 20  # each example scores and compares twice: about 5 s for the file on two cores


def trec_run(rankings: dict[str, list[str]], depth: int | None = None) -> dict[str, dict[str, float]]:
    return {q: {d: float(len(r) - i) for i, d in enumerate(r[:depth])} for q, r in rankings.items() if r[:depth]}


def trec_values(
    qrels: dict[str, dict[str, int]], rankings: dict[str, list[str]], threshold: int
) -> dict[str, dict[str, float]]:
    """Per query, our metric names -> trec_eval's values (queries the run answers)."""
    measures = {f"{name}.{','.join(map(str, CUTOFFS))}" for name in AT_CUTOFF.values()} | set(WHOLE.values())
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=threshold)
    values: dict[str, dict[str, float]] = {}
    for query, row in evaluator.evaluate(trec_run(rankings)).items():
        ours = {f"{name}@{k}": row[f"{trec}_{k}"] for name, trec in AT_CUTOFF.items() for k in CUTOFFS}
        ours.update({name: row[trec] for name, trec in WHOLE.items()})
        values[query] = ours
    for k in CUTOFFS:  # mrr@k: reciprocal rank of the run cut at k
        rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}, relevance_level=threshold)
        for query, row in rr.evaluate(trec_run(rankings, k)).items():
            values[query][f"mrr@{k}"] = row["recip_rank"]
    judged = [ir_measures.Judged @ k for k in CUTOFFS]
    for metric in ir_measures.iter_calc(judged, qrels, trec_run(rankings)):
        if metric.query_id in values:  # ir_measures also lists the queries the run does not answer
            values[metric.query_id][f"judged@{metric.measure.params['cutoff']}"] = metric.value
    return values


def scored_queries(qrels: dict[str, dict[str, int]], threshold: int) -> list[str]:
    return sorted(q for q, labels in qrels.items() if any(g >= threshold for g in labels.values()))


def oracle_means(
    qrels: dict[str, dict[str, int]], rankings: dict[str, list[str]], threshold: int
) -> dict[str, float] | None:
    """README's mean: over the scored queries, an unanswered one counting 0; None when none is scored."""
    scored = scored_queries(qrels, threshold)
    if not scored:
        return None
    values = trec_values(qrels, rankings, threshold)
    names = [f"{m}@{k}" for m in [*AT_CUTOFF, "mrr"] for k in CUTOFFS]
    return {m: math.fsum(values.get(q, {}).get(m, 0.0) for q in scored) / len(scored) for m in names}


def labelings(
    qrels: dict[str, dict[str, int]], rankings: dict[str, list[str]], k: int, threshold: int
) -> list[dict[str, dict[str, int]]]:
    slots = [(q, d) for q, r in rankings.items() for d in r[:k] if d not in qrels.get(q, {})]
    result = []
    for grades in itertools.product((0, threshold), repeat=len(slots)):
        labeled = {q: dict(labels) for q, labels in qrels.items()}
        for (q, d), grade in zip(slots, grades):
            labeled[q][d] = grade
        result.append(labeled)
    return result


def reference_bounded(value_range: tuple[float, float], threshold: float) -> str:
    low, high = (round(v, 12) for v in value_range)
    if low >= threshold:
        return "PASS"
    return "FAIL" if high < threshold else "INDETERMINATE"


def near(value: float, threshold: float) -> bool:
    """Too close to the threshold for a reference computed in other floating-point steps."""
    return abs(value - threshold) < 1e-7


judgments = st.fixed_dictionaries(
    {q: st.dictionaries(st.sampled_from(KEYS), st.integers(0, 3), min_size=1, max_size=5) for q in QUERIES}
)
runs = st.fixed_dictionaries({q: st.lists(st.sampled_from(KEYS), unique=True, max_size=6) for q in QUERIES})
cases = st.fixed_dictionaries(
    {
        "qrels": judgments,
        "head": runs,
        "base": runs,
        "threshold": st.integers(1, 2),
        # 0 is left out: "at least 0" is always met, and refused as a gate (tests/test_gates.py).
        "gate_at": st.sampled_from([0.05, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0]),
        "delta_at": st.sampled_from([-0.3, -0.1, 0.0, 0.1]),
    }
)
budget = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@budget
@given(cases)
def test_every_metric_equals_trec_eval_and_ir_measures(case: dict) -> None:  # type: ignore[type-arg]
    qrels, head, threshold = case["qrels"], case["head"], case["threshold"]
    ours = retrieval_eval.evaluate(qrels, head, k="1,3,5,all", gain="linear", threshold=threshold)
    theirs = trec_values(qrels, head, threshold)
    assert sorted(ours.per_query) == scored_queries(qrels, threshold)
    for query, values in ours.per_query.items():
        expected = theirs.get(query)
        if expected is None:  # judged, scored, not answered: 0 on every metric
            assert all(v == 0 for v in values.values()), (query, values)
            continue
        for name, value in values.items():
            assert value == pytest.approx(expected[name], abs=TOLERANCE), (query, name)


@budget
@given(cases)
def test_every_gate_and_bound_equals_its_reference(case: dict) -> None:  # type: ignore[type-arg]
    qrels, head, threshold, at = case["qrels"], case["head"], case["threshold"], case["gate_at"]
    means = oracle_means(qrels, head, threshold)
    if means is None:
        event("nothing scored")
        return  # nothing scored: the verdict is INDETERMINATE whatever the gates (tests/test_gates.py)
    gates = [f"{metric}:{at}" for metric in GATED]
    plain = retrieval_eval.evaluate(qrels, head, k=CUTOFFS, gain="linear", threshold=threshold, gates=gates)
    for result in plain.to_dict()["verdict"]["gates"]:
        metric = result["expression"].rpartition(":")[0]
        if not near(means[metric], at):
            assert result["status"] == ("PASS" if round(means[metric], 12) >= at else "FAIL"), result
    unjudged = sum(1 for q, r in head.items() for d in r[:5] if d not in qrels[q])
    if unjudged > 6:
        event("bounded gates not enumerated (over 6 unjudged keys)")
        return  # 2^6 labelings at most
    event(f"bounded gates against {2**unjudged} labelings")
    bounded = retrieval_eval.evaluate(
        qrels, head, k=CUTOFFS, gain="linear", threshold=threshold, gates=gates, unjudged="bounded"
    )
    report = bounded.to_dict()
    for result in report["verdict"]["gates"]:
        metric = result["expression"].rpartition(":")[0]
        k = int(metric.partition("@")[2])
        each = [oracle_means(labeled, head, threshold) for labeled in labelings(qrels, head, k, threshold)]
        values = [m[metric] for m in each if m is not None]
        low, high = min(values), max(values)
        row = report["metrics"][metric]
        assert row.get("lower", row["value"]) == pytest.approx(low, abs=TOLERANCE), metric
        assert row.get("upper", row["value"]) == pytest.approx(high, abs=TOLERANCE), metric
        if not (near(low, at) or near(high, at)):
            assert result["status"] == reference_bounded((low, high), at), (result, low, high)


@pytest.mark.slow  # two comparisons per case, each with its paired bootstrap
@budget
@given(cases)
def test_compare_deltas_are_head_less_the_base_scored_the_documented_way(case: dict) -> None:  # type: ignore[type-arg]
    qrels, head, base, threshold = case["qrels"], case["head"], case["base"], case["threshold"]
    head_means, base_means = oracle_means(qrels, head, threshold), oracle_means(qrels, base, threshold)
    if head_means is None or base_means is None:
        event("nothing scored")
        return
    event("deltas compared")
    at = case["delta_at"]
    gates = [f"{metric}:{at:+}" for metric in GATED]
    for base_gain in ("linear", "exponential"):  # the same yardstick, then one the base is rescored from
        base_report = retrieval_eval.evaluate(qrels, base, k=CUTOFFS, gain=base_gain, threshold=threshold)
        compared = retrieval_eval.evaluate(
            qrels, head, k=CUTOFFS, gain="linear", threshold=threshold, gates=gates, baseline=base_report
        )
        comparison = compared.baseline_comparison
        assert comparison is not None
        for metric in GATED:
            moved = comparison.metrics[metric]
            expected = head_means[metric] - base_means[metric]
            assert moved.confounded is None and moved.delta == pytest.approx(expected, abs=TOLERANCE), metric
        for result in compared.to_dict()["verdict"]["gates"]:
            metric = result["expression"].rpartition(":")[0]
            delta = head_means[metric] - base_means[metric]
            if not near(delta, at):
                assert result["status"] == ("PASS" if delta >= at else "FAIL"), (result, delta)
