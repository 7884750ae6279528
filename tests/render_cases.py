"""The situations the Markdown renderings are pinned on, each a head report and maybe a comparison."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from compare_data import labels, run, score
from from_json import build_comparison
from retrieval_eval.formats.judgments import parse_judgments
from retrieval_eval.formats.queue import QueueExcerpt
from retrieval_eval.formats.report import as_report

Case = tuple[dict[str, Any], dict[str, Any] | None]
QUEUES: dict[str, QueueExcerpt] = {}  # the label queue's excerpt a case drew, by case name
RESAMPLES = 2_000

HOSTILE_TEXTS = [
    "@octocat please look <img src=x onerror=alert(1)>",
    "[click me](https://evil.example/phish) and ![pixel](https://evil.example/p.png)",
    "col | break | table\nsecond line",
    "<!-- retrieval-eval:comment id=default --> </details> <script>alert(1)</script>",
    "```\ncode fence``` and `tick` and $x^2$ math",
    "# heading? see #12 and www.evil.example or mailto:a@b.example",
    "**bold** _em_ ~~strike~~ <b>tag</b> &amp; entity",
    "1. looks like a list",
]


def _compare(directory: Path, base: dict[str, Any], head: dict[str, Any], *, judged: bool = True) -> dict[str, Any]:
    judgments = parse_judgments(str(directory / "head-judgments.jsonl")) if judged else None
    return build_comparison(base, head, judgments=judgments, resamples=RESAMPLES)


def pass_without_baseline(directory: Path) -> Case:
    return score(
        directory, "head", labels(), run(misses=[3, 17]), gates=["recall@5:0.8", "worst-stratum:recall@5:0.5"]
    ), None


def delta_fail(directory: Path) -> Case:
    base = score(directory, "base", labels(), run())
    head = score(directory, "head", labels(), run(misses=[2, 9, 30]), gates=["recall@5:-0.02"], baseline=base)
    return head, _compare(directory, base, head)


def significant_drop(directory: Path) -> Case:
    base = score(directory, "base", labels(), run(misses=[1]))
    head = score(
        directory, "head", labels(), run(misses=range(1, 13)), gates=["recall@5:-0.02:significant"], baseline=base
    )
    return head, _compare(directory, base, head)


def not_significant_drop(directory: Path) -> Case:
    base = score(directory, "base", labels(), run(misses=[1]))
    head = score(directory, "head", labels(), run(misses=[1, 22]), gates=["recall@5:-0.02:significant"], baseline=base)
    return head, _compare(directory, base, head)


def no_gates(directory: Path) -> Case:
    """A comparison and no gate: the verdict says "no gates"; an interval ends at exactly zero."""
    base = score(directory, "base", labels(), run(misses=[1]))
    head = score(directory, "head", labels(), run(misses=[1, 22]), baseline=base)
    return head, _compare(directory, base, head)


def holm_unmarks_a_drop(directory: Path) -> Case:
    """Four of 40 queries drop: each metric's own test calls it (p about 0.03), Holm's over seven does not.

    The :significant gate keeps its own, unadjusted test (it named recall@5 in advance) and fails.
    """
    base = score(directory, "base", labels(), run())
    head = score(
        directory,
        "head",
        labels(),
        run(misses=[3, 11, 25, 36]),
        gates=["recall@5:-0.02:significant"],
        baseline=as_report(base),
    )
    return head, _compare(directory, base, head)


def indeterminate_nothing_scored(directory: Path) -> Case:
    unjudged = [{**row, "relevance": 0} for row in labels(6)]
    base = score(directory, "base", labels(6), run(6))
    head = score(directory, "head", unjudged, run(6), gates=["recall@5:0.5"], baseline=base)
    return head, _compare(directory, base, head)


def judgments_rescored(directory: Path) -> Case:
    from test_compare import relabelled

    base = score(directory, "base", labels(), run(41, misses=[5]))
    head = score(directory, "head", relabelled(), run(41, misses=[5, 33]), gates=["recall@5:-0.05"], baseline=base)
    return head, _compare(directory, base, head)


def drift_warning(directory: Path) -> Case:
    base = score(directory, "base", labels(), run())
    head = score(directory, "head", labels(), run(misses=[4]), gates=["recall@5:-0.05"], baseline=base)
    head["judgments"]["drift"] = {
        "valid": 105,
        "re_anchorable": 9,
        "merged": 2,
        "split": 1,
        "orphaned": 3,
        "invalid_ratio": 0.125,
    }
    return head, _compare(directory, base, head)


def drift_after_rechunk(directory: Path) -> Case:
    """Drift with its cause (the chunker changed) and the repair command, as the pipeline reports them."""
    head, comparison = drift_warning(directory)
    head["judgments"]["drift"] = {
        **head["judgments"]["drift"],
        "changes": ["the chunker changed since the base branch (paragraph/v1 there, paragraph/v2 here)"],
        "repair_command": "retrieval-eval drift -j 'golden set.jsonl' -c corpus.json --fix",
    }
    return head, comparison


def drift_nothing_recoverable(directory: Path) -> Case:
    """After a rewrite every stale label is orphaned or split: no `drift --fix` is offered, though the
    pipeline wrote the command, and the labels to redo are pointed at instead."""
    head, comparison = drift_after_rechunk(directory)
    drift = head["judgments"]["drift"]
    head["judgments"]["drift"] = {**drift, "re_anchorable": 0, "merged": 0, "split": 4, "orphaned": 11}
    return head, comparison


def oversized_truncated(directory: Path) -> Case:
    head, comparison = significant_drop(directory)
    assert comparison is not None
    # A judgments file with thousands of strata of long names: far over the comment budget.
    for index in range(1_500):
        name = f"stratum {index:04d} " + "with a long descriptive name " * 3
        head["per_stratum"][name] = {"n": 1, "queries": 1, "metrics": {"recall@5": {"value": 0.5, "n": 1}}}
        comparison["per_stratum"][name] = {"n": 1, "base": 0.75, "head": 0.5, "delta": -0.25}
    return head, comparison


def hostile_text_escaped(directory: Path) -> Case:
    texts = [HOSTILE_TEXTS[i % len(HOSTILE_TEXTS)] for i in range(40)]
    strata = ["<b>vip</b> | @admins", "[x](https://evil.example)", "plain"]
    base = score(directory, "base", labels(texts=texts, strata=strata), run())
    head = score(
        directory,
        "head",
        labels(texts=texts, strata=strata),
        run(misses=range(8)),
        gates=["recall@5:-0.02", "worst-stratum:recall@5:0.9"],
        baseline=as_report(base),
    )
    return head, _compare(directory, base, head)


def _floored(
    directory: Path, rows: list[dict[str, Any]], head_run: list[dict[str, Any]], gates: list[str], floor: bool
) -> dict[str, Any]:
    from compare_data import NOW, write_jsonl
    from retrieval_eval.core.gates import Gating
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.pipeline.evaluate import run_pipeline
    from retrieval_eval.pipeline.request import EvaluationRequest

    floor_path = str(write_jsonl(directory / "floor-run.jsonl", run(misses=range(12)))) if floor else ""
    request = EvaluationRequest(
        str(write_jsonl(directory / "head-judgments.jsonl", rows)),
        str(write_jsonl(directory / "head-run.jsonl", head_run)),
        ScoreConfig(k=(5, 10)),
        generated_at=NOW,
        floor=floor_path,
        gating=Gating(gates=gates),
    )
    return run_pipeline(request).report


NO_ANSWER = [{"query_id": f"n{i}", "query": f"unanswerable question {i}", "expect": "no_answer"} for i in range(4)]


def floor_and_abstention_gates(directory: Path) -> Case:
    """A floor run and four no-answer queries (the run abstains on three): each gate kind passing and failing."""
    head_run = run(misses=[2]) + [{"query_id": f"n{i}", "ranking": [] if i else ["doc://0/a"]} for i in range(4)]
    gates = [
        "floor:recall@5:+0.2",
        "floor:recall@5:+0.3:significant",
        "floor:recall@5:+0.5:significant",
        "abstention_rate:0.7",
        "abstention_rate:0.9",
        "false_abstention_rate:<=0.02",
    ]
    return _floored(directory, labels() + NO_ANSWER, head_run, gates, floor=True), None


def floor_and_abstention_indeterminate(directory: Path) -> Case:
    """No floor run and no no-answer query: the floor and abstention gates cannot be decided; the eval set is easy."""
    report = _floored(directory, labels(), run(), ["floor:recall@5:+0.05", "false_abstention_rate:<=0.02"], floor=False)
    report["sensitivity"] = {
        "metric": "hit_rate@5",
        "warnings": [
            {"code": "easy-set", "subject": "faq", "message": "on stratum faq the BM25 floor reaches hit_rate@5 1.000"},
            {"code": "answer-in-query", "subject": "q1", "message": "query q1 repeats 9 words of `its` <b>answer</b>"},
        ],
    }
    return report, None


def floor_unavailable(directory: Path) -> Case:
    """floor: bm25 asked for where the lanes extra is missing: a notice, and the gate INDETERMINATE."""
    report = _floored(directory, labels(), run(), ["recall@5:0.5"], floor=False)
    # As the pipeline words it: one cause in the floor section, the reasons and the eval-set note.
    install = "install retrieval-eval[lanes] for the floor: pip install 'retrieval-eval[lanes]'"
    notice = f"the bm25 floor was not computed: {install}"
    report["floor"] = {"source": "bm25", "unavailable": notice}
    report["verdict"]["reasons"].append(notice)
    report["sensitivity"] = {
        "metric": "hit_rate@5",
        "skipped": f"the easy-set check was skipped: {install}",
        "warnings": [],
    }
    return report, None


CASES: dict[str, Callable[[Path], Case]] = {
    "pass_without_baseline": pass_without_baseline,
    "delta_fail": delta_fail,
    "significant_drop": significant_drop,
    "not_significant_drop": not_significant_drop,
    "no_gates": no_gates,
    "holm_unmarks_a_drop": holm_unmarks_a_drop,
    "indeterminate_nothing_scored": indeterminate_nothing_scored,
    "judgments_rescored": judgments_rescored,
    "drift_warning": drift_warning,
    "drift_after_rechunk": drift_after_rechunk,
    "drift_nothing_recoverable": drift_nothing_recoverable,
    "oversized_truncated": oversized_truncated,
    "hostile_text_escaped": hostile_text_escaped,
    "floor_and_abstention_gates": floor_and_abstention_gates,
    "floor_and_abstention_indeterminate": floor_and_abstention_indeterminate,
    "floor_unavailable": floor_unavailable,
}


def judged_drop_with_queue(directory: Path) -> Case:
    """A head whose top 5 fills with unlabeled documents: judged@5 falls, the queue says what to label."""
    from dataclasses import replace

    from compare_data import NOW, write_jsonl
    from retrieval_eval.core.gates import Gating
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.pipeline.evaluate import run_pipeline
    from retrieval_eval.pipeline.holes import queue_excerpt
    from retrieval_eval.pipeline.request import EvaluationRequest

    rows = labels(12)
    # Every noise document of the base run is labeled not relevant (from each query's z label).
    noise = [{**rows[3 * i + 2], "doc_uri": f"doc://noise/{i}/{j}"} for i in range(12) for j in range(10)]
    base = score(directory, "base", rows + noise, run(12), k=(3, 10))
    fresh = [
        {
            "query_id": f"q{i:02d}",
            "ranking": [f"doc://{i}/a", f"doc://new/{i}/1", f"doc://new/{i}/2", f"doc://{i}/b"]
            + [f"doc://noise/{i}/{j}" for j in range(10)],
        }
        for i in range(12)
    ]
    request = EvaluationRequest(
        str(write_jsonl(directory / "head-judgments.jsonl", rows + noise)),
        str(write_jsonl(directory / "head-run.jsonl", fresh)),
        ScoreConfig(k=(3, 10)),
        baseline=as_report(base),
        generated_at=NOW,
        holes_command="retrieval-eval holes -j judgments.jsonl -r run.jsonl -k 3,10 --baseline base.json "
        "--out label-queue.jsonl",
        gating=Gating(gates=["recall@3:-0.05"]),
    )
    evaluation = run_pipeline(replace(request, label_queue=True))
    head = evaluation.report
    QUEUES["judged_drop_with_queue"] = queue_excerpt(evaluation.queue, request.holes_command)
    return head, _compare(directory, base, head)


CASES["judged_drop_with_queue"] = judged_drop_with_queue


def machine_labels_policy(directory: Path) -> Case:
    """The machine policy's section as the pipeline writes it (tests/test_judge_policy.py runs it
    end to end): one gate resolved, one left open, one a judge may not touch; a hostile gate text."""
    report, _ = pass_without_baseline(directory)
    report = {key: value for key, value in report.items() if key != "queries"}
    report["machine_labels"] = {
        "file_sha256": "0" * 64,
        "calibration": {
            "status": "calibrated",
            "pairs": 135,
            "kappa_binary": 0.812345,
            "kappa_graded": 0.7654321,
            "zero_rate_human": 0.445,
            "zero_rate_judge": 0.35,
            "floor": 0.4,
        },
        "holes": 342,
        "machine_labeled": 262,
        "machine_labeled_share": 0.766081871345,
        "invalidated": 3,
        "human_labels_verdict": "INDETERMINATE",
        "gates": [
            {"expression": "precision@10:0.51", "metric": "precision@10", "human_status": "INDETERMINATE",
             "status": "PASS", "value": 0.2333, "bounds": [0.2333, 0.8333], "estimate": 0.6012,
             "interval": [0.5652, 0.7331]},
            {"expression": "precision@10:0.71", "metric": "precision@10", "human_status": "INDETERMINATE",
             "status": "INDETERMINATE", "value": 0.2333, "bounds": [0.2333, 0.8333], "estimate": 0.6012,
             "interval": [0.5652, 0.7331]},
            {"expression": "ndcg@10:0.78", "metric": "ndcg@10", "human_status": "INDETERMINATE",
             "status": "FAIL", "value": 0.7458, "bounds": [0.7458, 0.814], "estimate": 0.7187,
             "interval": [0.6991, 0.7328]},
            {"expression": "ndcg@10:-0.02 <b>|x|</b>", "metric": "ndcg@10", "human_status": "INDETERMINATE",
             "status": "INDETERMINATE", "value": 0.7458, "bounds": [0.7458, 0.814],
             "note": "machine labels resolve absolute gates only"},
        ],
    }  # fmt: skip
    return report, None


CASES["machine_labels_policy"] = machine_labels_policy


def undetectable_tolerance(directory: Path) -> Case:
    """One query of 40 drops: recall@5 -0.025, within the 0.05 allowed, but 40 queries detect only
    drops of 0.070 or more; with require-detectable that gate is INDETERMINATE. A gate allowing
    0.1 can see its breach and passes."""
    from compare_data import NOW, write_jsonl
    from retrieval_eval.core.gates import Gating
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.pipeline.evaluate import run_pipeline
    from retrieval_eval.pipeline.request import EvaluationRequest

    base = score(directory, "base", labels(), run())
    request = EvaluationRequest(
        str(write_jsonl(directory / "head-judgments.jsonl", labels())),
        str(write_jsonl(directory / "head-run.jsonl", run(misses=[5]))),
        ScoreConfig(k=(5, 10)),
        baseline=as_report(base),
        generated_at=NOW,
        gating=Gating(gates=["recall@5:-0.05", "recall@5:-0.1"], require_detectable=True),
    )
    head = run_pipeline(request).report
    return head, _compare(directory, base, head)


CASES["undetectable_tolerance"] = undetectable_tolerance
