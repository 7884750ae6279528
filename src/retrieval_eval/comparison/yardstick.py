"""One yardstick: were both reports measured alike, and if not, what then?

The yardstick is the judgments (compared by hash), the relevance threshold
and the gain. When it changed, the base rankings are scored again under the
head's (``rescore``) when that can be done; otherwise the deltas the change
touches are marked confounded, each with the change as its reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.lenient import section, unjudged_policy
from .findings import CONFOUNDS, RESOLVED, Finding, short
from .rescore import rescore_base, rescore_blocker
from .sides import PerQuery, Sides, per_query

Change = tuple[str, str]  # (finding code, detail)


@dataclass
class Yardstick:
    status: str  # "same", "rescored" or "changed"
    base_per_query: PerQuery | None  # what the deltas pair with the head: rescored when status says so
    findings: list[Finding]
    confounded: dict[str, str]  # metric -> reason; "*" for every metric
    base_upper: PerQuery | None = None  # the rescored base's upper bounds; None: the base report's own
    base_lower: PerQuery | None = None  # the rescored base's lower bounds; None: the base report's own


def decide_yardstick(sides: Sides, names: Sequence[str]) -> Yardstick:
    changes = yardstick_changes(sides)
    base_per_query = per_query(sides.base)
    if not changes:
        return Yardstick("same", base_per_query, [], {})
    blocker = rescore_blocker(sides)
    if blocker is None:
        return _rescored(sides, changes)
    return _unresolved(changes, blocker, names, base_per_query)


def yardstick_changes(sides: Sides) -> list[Change]:
    """Each way the two reports' yardsticks differ or cannot be told apart."""
    changes = []
    base_sha = section(sides.base, "inputs").get("judgments_sha256")
    head_sha = section(sides.head, "inputs").get("judgments_sha256")
    if not base_sha or not head_sha:
        changes.append(("judgments-unknown", "a report does not record which judgments it was scored with"))
    elif base_sha != head_sha:
        changes.append(
            (
                "judgments-changed",
                f"the judgments changed (sha256 {short(base_sha)} in base, {short(head_sha)} in head)",
            )
        )
    base_config, head_config = sides.base_config, sides.head_config
    if not base_config or not head_config:
        changes.append(("config-unknown", "a report does not record its threshold and gain"))
        return changes
    for name in ("threshold", "gain"):
        if base_config.get(name) != head_config.get(name):
            changes.append(
                (
                    f"{name}-changed",
                    f"the base was scored with {name} {base_config.get(name)}, the head with {head_config.get(name)}",
                )
            )
    # Assume-irrelevant and bounded score alike (only gates read them differently); condensed
    # lists score other rankings. A report that records no policy assumed irrelevance.
    base_policy, head_policy = unjudged_policy(sides.base), unjudged_policy(sides.head)
    if (base_policy == "condensed") != (head_policy == "condensed"):
        changes.append(
            (
                "unjudged-changed",
                f"the base was scored with unjudged {base_policy}, the head with unjudged {head_policy}",
            )
        )
    return changes


def _rescored(sides: Sides, changes: list[Change]) -> Yardstick:
    rescored, shallow, upper, lower = rescore_base(sides)
    meaning = (
        "the base rankings were scored again under the head's judgments and configuration, "
        "so both sides are measured with one yardstick"
    )
    findings = [Finding(code, RESOLVED, detail, meaning) for code, detail in changes]
    for metric, reason in shallow.items():
        findings.append(
            Finding(
                "rankings-too-short",
                CONFOUNDS,
                reason,
                f"{metric} is not compared: its delta would count the cut as misses",
                (metric,),
            )
        )
    return Yardstick("rescored", rescored, findings, dict(shallow), upper, lower)


def _unresolved(
    changes: list[Change], blocker: str, names: Sequence[str], base_per_query: PerQuery | None
) -> Yardstick:
    findings: list[Finding] = []
    confounded: dict[str, str] = {}
    for code, detail in changes:
        touched = _confounded_metrics(code, names)
        what = ", ".join(touched) if touched else "every metric"
        meaning = (
            f"deltas of {what} mix a change of yardstick with a change of the retriever; "
            f"they could not be put on one yardstick because {blocker}"
        )
        findings.append(Finding(code, CONFOUNDS, detail, meaning, touched))
        for metric in touched or ("*",):
            confounded.setdefault(metric, detail)
    return Yardstick("changed", base_per_query, findings, confounded)


def _confounded_metrics(code: str, names: Sequence[str]) -> tuple[str, ...]:
    """A gain only enters nDCG; every other change of yardstick touches every metric."""
    if code == "gain-changed":
        return tuple(name for name in names if name.startswith("ndcg@"))
    return ()
