"""``drift --json``: one run of drift (:class:`~retrieval_eval.core.drift_check.DriftCheck`) as JSON."""

from __future__ import annotations

from typing import Any

from ..core.drift_check import DriftCheck


def drift_to_json(check: DriftCheck) -> dict[str, Any]:
    """The payload ``drift --json`` prints and ``retrieval_eval.drift()`` returns."""
    payload: dict[str, Any] = {
        "judgments": check.judgments_path,
        "corpus": {"path": check.corpus_path, **check.corpus.describe()},
        "summary": drift_summary_json(check),
        "max_invalid_ratio": check.max_invalid_ratio,
        "ok": check.ok,
        "labels": drift_labels_json(check),
    }
    if check.fix is not None:
        payload["fix"] = {"dry_run": check.fix.dry_run, "written": check.fix.written, **check.fix.plan.as_dict()}
    if check.queue is not None:
        payload["queue"] = {"path": check.queue.path, "lines": check.queue.lines, "labels": check.result.needs_human}
    return payload


def drift_summary_json(check: DriftCheck) -> dict[str, Any]:
    """The payload's ``summary``: labels per status, ``invalid_ratio``, what can be repaired."""
    result = check.result
    return {
        "labels": len(result.labels),
        **result.summary(),
        "recoverable": result.recoverable,
        "needs_human": result.needs_human,
    }


def drift_labels_json(check: DriftCheck) -> list[dict[str, Any]]:
    """The payload's ``labels``: one entry per label, in the judgments' order."""
    return [finding.as_dict(label) for label, finding in check.result.pairs()]
