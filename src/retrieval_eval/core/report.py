"""The report: one JSON document that any CI or dashboard can read.

It follows spec/report.schema.json and adds what a later comparison needs:
``config`` (cutoffs, threshold, gain), ``inputs`` (hashes of what was
scored), the query ids behind every count (``queries``), each scored query's
values (``per_query``), their upper bounds where a key was unjudged (``per_query_upper``),
the unjudged keys in the top k (``unjudged``) and each deduplicated ranking head (``rankings``).
Numbers are rounded to 12 decimals; everything but ``generated_at`` is a
function of the inputs. Reading and writing one is :mod:`retrieval_eval.formats.report`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from .._version import __version__
from .gates import Verdict
from .labelindex import LabelIndex
from .precision import DECIMALS
from .scoring import Scores
from .validate import Validation

TOOL_NAME = "retrieval-eval"


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def blocking_findings(scores: Scores, validation: Validation) -> list[str]:
    """Findings that make every number of this run untrustworthy."""
    findings = []
    if not validation.ok:
        codes = ", ".join(validation.error_codes())
        findings.append(
            f"the judgment set is unsound ({codes}); run 'retrieval-eval validate' for detail. "
            "No metric computed from it can be trusted"
        )
    if not scores.per_query:
        findings.append(f"no query had a label at relevance >= {scores.config.threshold}, so no metric was computed")
    return findings


def policy_notes(scores: Scores) -> list[str]:
    """What the scoring policy did, so that nothing is dropped silently."""
    notes = []
    threshold = scores.config.threshold
    if scores.with_duplicates:
        one = len(scores.with_duplicates) == 1
        notes.append(
            _plural(len(scores.with_duplicates), "query", "queries")
            + f" repeated a key in {'its' if one else 'their'} ranking; only the first occurrence of each was counted"
        )
    if scores.without_positives and scores.per_query:
        one = len(scores.without_positives) == 1
        notes.append(
            _plural(len(scores.without_positives), "query", "queries")
            + f" had no label at relevance >= {threshold} and {'was' if one else 'were'} left out of the averages"
        )
    if scores.missing_from_run:
        one = len(scores.missing_from_run) == 1
        notes.append(
            _plural(len(scores.missing_from_run), "judged query", "judged queries")
            + f" {'was' if one else 'were'} not in the run and scored 0"
        )
    if scores.no_answer:
        notes.append(
            _plural(len(scores.no_answer), "query is", "queries are")
            + " marked no_answer: left out of the ranking metrics and measured on abstaining "
            + f"(abstention_rate: {len(scores.abstained)} of {len(scores.no_answer)} returned nothing)"
        )
    if scores.unjudged:
        one = len(scores.unjudged) == 1
        notes.append(
            _plural(len(scores.unjudged), "run query", "run queries")
            + f" had no judgment and {'was' if one else 'were'} ignored"
        )
    return notes


def measurement(value: float, n: int, upper: float | None = None, lower: float | None = None) -> dict[str, Any]:
    """A value over n queries; ``lower`` and ``upper``: its least and most favourable values
    over the labelings of the unjudged keys."""
    result: dict[str, Any] = {"value": round(value, DECIMALS)}
    if lower is not None:
        result["lower"] = round(lower, DECIMALS)
    if upper is not None:
        result["upper"] = round(upper, DECIMALS)
    result.update(n=n, deterministic=True)
    return result


def _labels_summary(index: LabelIndex, scores: Scores, drift: Mapping[str, Any] | None) -> dict[str, Any]:
    fingerprints = index.fingerprints
    summary: dict[str, Any] = {
        "queries": scores.queries,
        "queries_scored": len(scores.per_query),
        "labels": scores.labels,
        "fingerprint": next(iter(fingerprints)) if len(fingerprints) == 1 else None,
        "human_labels": index.human_labels,
        "synthetic_labels": index.synthetic_labels,
    }
    if drift is not None:
        summary["drift"] = dict(drift)
    return summary


def _per_stratum(scores: Scores) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, stratum in scores.strata.items():
        entry: dict[str, Any] = {"n": stratum.n, "queries": stratum.queries}
        if stratum.metrics:
            entry["metrics"] = {
                m: measurement(v, stratum.n, stratum.upper.get(m), stratum.lower.get(m))
                for m, v in stratum.metrics.items()
            }
        result[name] = entry
    return result


@dataclass(frozen=True)
class ReportInputs:
    """Everything about the inputs a report records besides the scores."""

    judgments_sha256: str
    run_sha256: str | None
    generated_at: str
    corpus: dict[str, Any] = field(default_factory=lambda: {"fingerprint": None})
    judged: dict[str, dict[str, Any]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    drift: dict[str, Any] | None = None  # judgments.drift, when the labels were checked against a corpus
    # Receipts: the exact bytes of the base report compared with, and of the floor run, hashed
    # (None: there was none), so reports committed on the base branch form a hash chain.
    baseline_sha256: str | None = None
    floor_sha256: str | None = None
    unjudged: dict[str, Any] = field(default_factory=dict)  # what the base adds to "unjudged"


def with_verdict(
    body: Mapping[str, Any], verdict: Verdict, *, beside: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A new report: ``body`` with the verdict in its place (before ``queries``), and
    ``beside`` (sections decided with the verdict, such as ``machine_labels``) after it."""
    report: dict[str, Any] = {}
    for key, value in body.items():
        if key == "queries":
            report["verdict"] = verdict.as_dict()
            report.update(beside or {})
        report[key] = value
    return report


def unjudged_section(scores: Scores, extra: Mapping[str, Any]) -> dict[str, Any]:
    """The unjudged keys in the top k of the scored queries, per cutoff (``all``: the rankings
    kept), and what the base adds (``new_keys``)."""
    cutoffs = [str(k) for k in scores.config.k] + ["all"]
    return {"keys": {k: scores.unjudged_keys.get(k, 0) for k in cutoffs}, **extra}


def report_body(
    index: LabelIndex,
    scores: Scores,
    validation: Validation,
    inputs: ReportInputs,
) -> dict[str, Any]:
    """Everything a report says but the verdict: what a comparison with the base reads.

    The verdict depends on that comparison, so the body comes first and the report is
    assembled once the verdict is decided (:func:`with_verdict`), never patched.
    """
    n = len(scores.per_query)
    metrics = {
        name: measurement(value, n, scores.upper.get(name), scores.lower.get(name))
        for name, value in scores.metrics.items()
    }
    for name, (value, count) in scores.abstention().items():
        metrics[name] = measurement(value, count)
    for name, judged in inputs.judged.items():
        metrics[name] = dict(judged)
    report: dict[str, Any] = {
        "spec_version": "1",
        "tool": {"name": TOOL_NAME, "version": __version__},
        "generated_at": inputs.generated_at,
        "config": scores.config.as_dict(),
        "computed": scores.config.computed,
        "inputs": {
            "judgments_sha256": inputs.judgments_sha256,
            "run_sha256": inputs.run_sha256,
            "query_set_sha256": index.query_set_sha256(),
            "baseline_sha256": inputs.baseline_sha256,
            "floor_sha256": inputs.floor_sha256,
        },
        "corpus": inputs.corpus,
        "judgments": _labels_summary(index, scores, inputs.drift),
        "metrics": metrics,
    }
    if scores.strata:
        report["per_stratum"] = _per_stratum(scores)
        worst = scores.worst_stratum()
        if worst is not None:
            report["worst_stratum"] = {**worst, "value": round(cast(float, worst["value"]), DECIMALS)}
    report["queries"] = {
        "scored": scores.scored,
        "without_positives": scores.without_positives,
        "missing_from_run": scores.missing_from_run,
        "with_duplicates": scores.with_duplicates,
        "unjudged": scores.unjudged,
    }
    if scores.no_answer:
        report["queries"].update(
            no_answer=scores.no_answer, abstained=scores.abstained, false_abstentions=scores.false_abstentions
        )
    report["validation"] = {
        "ok": validation.ok,
        "errors": validation.error_codes(),
        "warnings": len(validation.warnings),
    }
    report["unjudged"] = unjudged_section(scores, inputs.unjudged)
    report.update(inputs.extra)
    report["per_query"] = dict(scores.per_query)  # scoring keeps them rounded to DECIMALS
    if scores.config.bounds:  # absent when not computed (``computed`` says so), never an empty claim
        report["per_query_lower"] = dict(scores.per_query_lower)
        report["per_query_upper"] = dict(scores.per_query_upper)
    report["rankings"] = scores.rankings
    return report
