"""Bounded gates read both bounds, each the true extreme over labelings, and say which they compared.

Each scenario's truth is known by construction: the labelings are few enough to list in
the comments, and the brute force in test_bounds_property.py checks the bounds in general.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from retrieval_eval.core.gates import Gating
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.pipeline.evaluate import Evaluation, run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest


def run_gates(
    tmp: Path,
    labels: list[dict],
    run: list[dict],
    gates: tuple[str, ...],
    **config: object,  # type: ignore[type-arg]
) -> Evaluation:
    judgments = tmp / "judgments.jsonl"
    judgments.write_text("".join(json.dumps(line) + "\n" for line in labels))
    run_path = tmp / "run.jsonl"
    run_path.write_text("".join(json.dumps(line) + "\n" for line in run))
    request = EvaluationRequest(
        judgments_path=str(judgments),
        run_path=str(run_path),
        scoring=ScoreConfig(unjudged_policy="bounded", **config),  # type: ignore[arg-type]
        gating=Gating(gates),
    )
    return run_pipeline(request)


def label(query: str, key: str, grade: int) -> dict:  # type: ignore[type-arg]
    return {"query_id": query, "query": f"question {query}", "doc_uri": key, "relevance": grade}


def statuses(evaluation: Evaluation) -> dict[str, str]:
    return {gate.expression: gate.status for gate in evaluation.verdict.gates}


def test_a_relevant_label_that_lowers_ndcg_and_ap_keeps_their_gates_open(tmp_path: Path) -> None:
    # a relevant at rank 1, x unjudged at rank 3: nDCG@3 1.0, or 0.92 with x relevant; AP@3 1.0 or 0.83.
    labels = [label("q", "a", 1), label("q", "b", 0)]
    evaluation = run_gates(
        tmp_path, labels, [{"query_id": "q", "ranking": ["a", "b", "x"]}], ("ndcg@3:0.95", "map@3:0.9"), k=(3,)
    )
    assert statuses(evaluation) == {"ndcg@3:0.95": "INDETERMINATE", "map@3:0.9": "INDETERMINATE"}
    assert evaluation.report["metrics"]["map@3"]["lower"] == round((1 + 2 / 3) / 2, 12)


def test_a_query_a_label_would_make_scored_counts_in_the_bounds_of_the_mean(tmp_path: Path) -> None:
    # q1 finds nothing at rank 1 (recall@1 0); q2 has no relevant label, and x, unjudged, is its
    # first key: labeled relevant, q2 is scored with recall@1 1 and the mean is 0.5.
    labels = [label("q1", "a", 1), label("q1", "z", 0), label("q2", "b", 0)]
    run = [{"query_id": "q1", "ranking": ["z", "a"]}, {"query_id": "q2", "ranking": ["x"]}]
    evaluation = run_gates(tmp_path, labels, run, ("recall@1:0.5", "recall@1:0.6"), k=(1,))
    assert evaluation.report["metrics"]["recall@1"]["upper"] == 0.5
    assert statuses(evaluation) == {"recall@1:0.5": "INDETERMINATE", "recall@1:0.6": "FAIL"}


def test_the_ndcg_bound_at_a_threshold_above_1_is_reached_by_a_labeling(tmp_path: Path) -> None:
    # Threshold 3 (gain 7); e at grade 1 (gain 1) stays in the ideal ranking. x and y unjudged
    # at ranks 2 and 4. The best labeling makes x alone relevant: DCG 7 + 7/log2(3) + 1/log2(6)
    # over the ideal 7 + 7/log2(3) + 1/log2(4); y too would lower it (0.966), none too (0.88).
    labels = [label("q", "a", 3), label("q", "b", 0), label("q", "c", 0), label("q", "e", 1)]
    run = [{"query_id": "q", "ranking": ["a", "x", "b", "y", "e"]}]
    evaluation = run_gates(tmp_path, labels, run, ("ndcg@5:0.995",), k=(5,), threshold=3)
    log = math.log2
    highest = (7 + 7 / log(3) + 1 / log(6)) / (7 + 7 / log(3) + 1 / log(4))
    assert abs(evaluation.report["metrics"]["ndcg@5"]["upper"] - highest) < 1e-9  # 0.9905
    assert statuses(evaluation) == {"ndcg@5:0.995": "FAIL"}


def test_a_bounded_reason_names_the_bounds_it_compared(tmp_path: Path) -> None:
    labels = [label("q", "a", 1), label("q", "b", 0)]
    run = [{"query_id": "q", "ranking": ["a", "b", "x"]}]
    evaluation = run_gates(tmp_path, labels, run, ("map@3:0.9", "map@3:0.5", "map@3:0.95"), k=(3,))
    reasons = {gate.expression: gate.reason for gate in evaluation.verdict.gates}
    between = "map@3 lies between 0.8333 (lower bound) and 1 (upper bound) over every labeling of 1 unjudged key"
    assert (
        reasons["map@3:0.9"]
        == f"map@3:0.9: {between} in the top 3; it fails at the lower bound and passes at the upper: label them"
    )
    assert reasons["map@3:0.5"] == f"map@3:0.5: {between} in the top 3; it passes at both"
    assert "even with every unjudged key counted not relevant" not in " ".join(reasons.values())


def test_the_reason_says_where_the_keys_are_when_only_a_query_without_relevant_labels_has_them(
    tmp_path: Path,
) -> None:
    # q1 is judged through its top 3 (precision@3 1/3); q2 has no relevant label, and d6, d7 are
    # unjudged in its top 3. Labeled relevant, they would put q2 in the mean at 1/3 or 2/3: the
    # bounds are 1/3 and (1/3 + 2/3) / 2 = 0.5. No scored query has an unjudged key, and the reason
    # said "over every labeling of 0 unjudged keys ... label them", with nothing in the queue.
    labels = [label("q1", "d1", 1), label("q1", "d2", 0), label("q1", "d3", 0), label("q2", "d5", 0)]
    run = [{"query_id": "q1", "ranking": ["d1", "d2", "d3"]}, {"query_id": "q2", "ranking": ["d6", "d5", "d7"]}]
    evaluation = run_gates(tmp_path, labels, run, ("precision@3:0.45",), k=(3,))
    (gate,) = evaluation.verdict.gates
    assert gate.status == "INDETERMINATE"
    assert "between 0.3333 (lower bound) and 0.5 (upper bound)" in gate.reason, gate.reason
    assert "the unjudged keys of the queries with no relevant label yet" in gate.reason, gate.reason
    assert "0 unjudged keys" not in gate.reason
