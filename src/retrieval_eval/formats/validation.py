"""``validate --json``: a :class:`~retrieval_eval.core.validate.Validation` as JSON."""

from __future__ import annotations

from typing import Any

from ..core.validate import Issue, Validation


def issue_to_json(issue: Issue) -> dict[str, str]:
    return {"code": issue.code, "severity": issue.severity, "subject": issue.subject, "message": issue.message}


def validation_to_json(validation: Validation) -> dict[str, Any]:
    """Whether the set is sound, its size, and every issue in the order validation gives them."""
    return {
        "ok": validation.ok,
        "queries": validation.queries,
        "labels": validation.labels,
        "errors": len(validation.errors),
        "warnings": len(validation.warnings),
        "issues": [issue_to_json(issue) for issue in validation.issues],
    }
