"""``drift --json``: one run of drift (:class:`~retrieval_eval.core.drift_check.DriftCheck`) as JSON."""

from __future__ import annotations

from typing import Any

from ..core.drift_check import DriftCheck
from .corpus import corpus_to_json


def drift_to_json(check: DriftCheck) -> dict[str, Any]:
    """The payload ``drift --json`` prints and ``retrieval_eval.drift()`` returns."""
    result = check.result
    summary = {
        "labels": len(result.labels),
        **result.summary(),
        "recoverable": result.recoverable,
        "needs_human": result.needs_human,
    }
    payload: dict[str, Any] = {
        "judgments": check.judgments_path,
        "corpus": {"path": check.corpus_path, **corpus_to_json(check.corpus)},
        "summary": summary,
        "max_invalid_ratio": check.max_invalid_ratio,
        "ok": check.ok,
        "labels": [finding.as_dict(label) for label, finding in result.pairs()],
    }
    if check.fix is not None:
        payload["fix"] = {"dry_run": check.fix.dry_run, "written": check.fix.written, **check.fix.plan.as_dict()}
    if check.queue is not None:
        payload["queue"] = {"path": check.queue.path, "lines": check.queue.lines, "labels": result.needs_human}
    return payload
