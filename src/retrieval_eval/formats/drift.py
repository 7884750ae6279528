"""``drift --json``: one run of drift (:class:`~retrieval_eval.core.drift_check.DriftCheck`) as JSON.

Each label's finding, the summary of the statuses and the repair ``--fix`` planned are records
in core (core/drift.py, core/drift_fix.py); their JSON is written here, key for key as
docs/drift.md shows it.
"""

from __future__ import annotations

from typing import Any

from ..core.drift import DriftSummary, Finding
from ..core.drift_check import DriftCheck
from ..core.drift_fix import Change, Collapse, FixPlan, Replaced
from ..core.judgments import Label
from .corpus import corpus_to_json


def drift_to_json(check: DriftCheck) -> dict[str, Any]:
    """The payload ``drift --json`` prints and ``retrieval_eval.drift()`` returns."""
    result = check.result
    payload: dict[str, Any] = {
        "judgments": check.judgments_path,
        "corpus": {"path": check.corpus_path, **corpus_to_json(check.corpus)},
        "summary": drift_summary_json(check),
        "max_invalid_ratio": check.max_invalid_ratio,
        "ok": check.ok,
        "labels": drift_labels_json(check),
    }
    if check.fix is not None:
        payload["fix"] = {
            "dry_run": check.fix.dry_run,
            "written": check.fix.written,
            **fix_plan_to_json(check.fix.plan),
        }
    if check.queue is not None:
        payload["queue"] = {"path": check.queue.path, "lines": check.queue.lines, "labels": result.needs_human}
    return payload


def drift_summary_json(check: DriftCheck) -> dict[str, Any]:
    """The payload's ``summary``: labels per status, ``invalid_ratio``, what can be repaired."""
    result = check.result
    return {
        "labels": len(result.labels),
        **summary_to_json(result.summary()),
        "recoverable": result.recoverable,
        "needs_human": result.needs_human,
    }


def drift_labels_json(check: DriftCheck) -> list[dict[str, Any]]:
    """The payload's ``labels``: one entry per label, in the judgments' order."""
    return [finding_to_json(label, finding) for label, finding in check.result.pairs()]


def summary_to_json(summary: DriftSummary) -> dict[str, Any]:
    """Each status's count by its name in lower case, then the invalid ratio."""
    return {
        "valid": summary.valid,
        "re_anchorable": summary.re_anchorable,
        "merged": summary.merged,
        "split": summary.split,
        "orphaned": summary.orphaned,
        "invalid_ratio": summary.invalid_ratio,
    }


def finding_to_json(label: Label, finding: Finding) -> dict[str, Any]:
    """One label's entry: where it is, its status and why, and what a repair would point it at."""
    entry: dict[str, Any] = {
        "line": label.line,
        "query_id": label.query_id,
        "doc_uri": label.doc_uri,
        "chunk_id": label.chunk_id,
        "status": finding.status,
        "rule": finding.rule,
        "detail": finding.detail,
    }
    if finding.target is not None:
        entry["target"] = finding.target
    if finding.target_doc is not None:
        entry["target_doc"] = finding.target_doc
    if finding.covering:
        entry["covering"] = list(finding.covering)
    if finding.candidates:
        entry["candidates"] = list(finding.candidates)
    return entry


def change_to_json(change: Change) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "line": change.line,
        "query_id": change.query_id,
        "status": change.status,
        "rule": change.rule,
        "from": change.old_key,
        "to": change.new_key,
    }
    if change.old_doc != change.new_doc:
        entry.update({"from_doc": change.old_doc, "to_doc": change.new_doc})
    return entry


def collapse_to_json(collapse: Collapse) -> dict[str, Any]:
    return {
        "query_id": collapse.query_id,
        "key": collapse.key,
        "kept_line": collapse.kept_line,
        "absorbed_lines": list(collapse.absorbed_lines),
        "relevance": collapse.relevance,
    }


def replaced_to_json(replaced: Replaced) -> dict[str, Any]:
    return {"line": replaced.line, "query_id": replaced.query_id, "key": replaced.key, "status": replaced.status}


def fix_plan_to_json(plan: FixPlan) -> dict[str, Any]:
    """What ``--fix`` changed (or would change), and how the repaired set stands."""
    return {
        "changes": [change_to_json(change) for change in plan.changes],
        "collapsed": [collapse_to_json(collapse) for collapse in plan.collapses],
        "replaced": [replaced_to_json(entry) for entry in plan.replaced],
        "labels_after": plan.labels_after,
        "needs_human_after": plan.needs_human,
        "invalid_ratio_after": plan.invalid_ratio_after,
    }
