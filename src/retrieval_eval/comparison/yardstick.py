"""One yardstick: were both reports measured alike, and if not, what then?

The yardstick is the judgments (compared by hash), the relevance threshold
and the gain. When it changed, the base rankings are scored again under the
head's (``rescore``) when that can be done; otherwise the deltas the change
touches are marked confounded, each with the change as its reason.

Before any of that, the chunk ids: when the two sides were chunked
differently (``idspace``), the base rankings are carried into the head's ids
first, or each side keeps its own judgments, or the deltas are confounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.comparison_document import ID_SPACE_CHANGED
from ..core.report_model import Config
from .findings import CONFOUNDS, RESOLVED, Finding, short
from .idspace import IdSpace, base_rankings, credited_hits, decide_id_space, translate_per_query, with_judged
from .rescore import rescore_base, rescore_blocker, score_config
from .sides import PerQuery, Sides, per_query

Change = tuple[str, str]  # (finding code, detail)


@dataclass
class Yardstick:
    # "same", "rescored", "changed"; across a re-chunk "translated" (the base rankings carried
    # into the head's ids, then rescored) or "own-judgments" (each side under its own labels)
    status: str
    base_per_query: PerQuery | None  # what the deltas pair with the head: rescored when status says so
    findings: list[Finding]
    confounded: dict[str, str]  # metric -> reason; "*" for every metric
    base_upper: PerQuery | None = None  # the rescored base's upper bounds; None: the base report's own
    base_lower: PerQuery | None = None  # the rescored base's lower bounds; None: the base report's own
    # Across a re-chunk: per query and k, the base's top-k keys the head's labels still call
    # relevant, each old key counted on its own (a merge is no label taken); see credited_hits.
    base_hits: dict[str, dict[int, int]] | None = None

    @property
    def rescored(self) -> bool:
        """Whether the base side holds values scored here, not the base report's own."""
        return self.status in ("rescored", "translated")


ID_SPACE = ID_SPACE_CHANGED
DEPTH_REASON = "the base report kept its rankings to"  # how shallow_metrics words a cut
JUDGMENT_CHANGES = ("judgments-changed", "judgments-unknown")


def decide_yardstick(sides: Sides, names: Sequence[str]) -> Yardstick:
    space = decide_id_space(sides)
    if space.changed:
        return _across_id_spaces(sides, space, names)
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
    base_sha = sides.base.inputs.judgments_sha256 if sides.base.inputs is not None else None
    head_sha = sides.head.inputs.judgments_sha256 if sides.head.inputs is not None else None
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
    if base_config == Config() or head_config == Config():
        changes.append(("config-unknown", "a report does not record its threshold and gain"))
        return changes
    for name in ("threshold", "gain"):
        before, after = getattr(base_config, name), getattr(head_config, name)
        if before != after:
            changes.append((f"{name}-changed", f"the base was scored with {name} {before}, the head with {after}"))
    # Assume-irrelevant and bounded score alike (only gates read them differently); condensed
    # lists score other rankings. A report that records no policy assumed irrelevance.
    base_policy, head_policy = sides.base.unjudged_policy(), sides.head.unjudged_policy()
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
    findings.extend(_shallow_findings(shallow))
    return Yardstick("rescored", rescored, findings, dict(shallow), upper, lower)


def _shallow_findings(shallow: dict[str, str]) -> list[Finding]:
    """One finding per reason: metrics cut short for the same reason (each reason names its own
    metric) share one finding that names them all, rather than one near-copy a metric."""
    groups: dict[tuple[str, str], list[str]] = {}
    for metric, reason in shallow.items():
        # A reason that does not name its metric (r_precision's) stays the metric's own.
        key = (reason.replace(metric, _SLOT), "") if metric in reason else (reason, metric)
        groups.setdefault(key, []).append(metric)
    findings = []
    for (shape, _), metrics in groups.items():
        names = ", ".join(metrics)
        verb = "is not compared: its delta" if len(metrics) == 1 else "are not compared: their deltas"
        meaning = f"{names} {verb} would count the cut as misses (a base scored with a deeper -k keeps more)"
        findings.append(Finding("rankings-too-short", CONFOUNDS, shape.replace(_SLOT, names), meaning, tuple(metrics)))
    return findings


_SLOT = "\0"  # where a reason names its metric, while reasons are grouped


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


# -- across a re-chunk -----------------------------------------------------------------


def _across_id_spaces(sides: Sides, space: IdSpace, names: Sequence[str]) -> Yardstick:
    """Rankings in two id spaces are never scored against one set of labels as they are."""
    if space.blocker is not None:
        # The head's labels name the new chunks only once repaired, and what blocks is often that they are not.
        moved = space.meaning or "the base rankings name the old chunks and the head's run the new ones"
        meaning = f"{moved}; they cannot be put in one id space soundly because {space.blocker}"
        finding = Finding(ID_SPACE, CONFOUNDS, space.detail, meaning)
        return Yardstick("changed", per_query(sides.base), [finding], {"*": f"{space.detail}; {space.blocker}"})
    rankings = base_rankings(sides.base)
    if rankings and rescore_blocker(sides) is None:
        return _translated(sides, space, rankings)
    return _own_judgments(sides, space, names)


def _translated(sides: Sides, space: IdSpace, rankings: dict[str, list[str]]) -> Yardstick:
    config = score_config(sides.head)
    assert sides.judgments is not None and config is not None  # what rescore_blocker checked
    labels = sides.judgments
    carried = translate_per_query(rankings, labels, config.threshold, labels.opaque_keys)
    # The old chunks whose moves were not faithful are judged, for the base side only.
    base_sides = Sides(sides.base, sides.head, with_judged(labels, carried.judged))
    rescored, shallow, upper, lower = rescore_base(base_sides, carried.rankings)
    shallow = _merged_reasons(shallow, carried.shortened)
    count = sum(1 for q, keys in rankings.items() for key in keys if key in labels.carries.get(q, {}))
    meaning = (
        f"every label survived the re-chunk by a sound rule; the base rankings were carried into the "
        f"head's chunk ids through the moves the labels record ({count} ranked id(s) moved) and scored "
        "under the head's judgments, so each delta is a change at the level of the labeled text"
    )
    findings = [Finding(ID_SPACE, RESOLVED, space.detail, meaning)]
    findings.extend(_shallow_findings(shallow))
    hits = credited_hits(rankings, labels, config.threshold, config.k, labels.opaque_keys)
    return Yardstick("translated", rescored, findings, dict(shallow), upper, lower, hits)


def _merged_reasons(shallow: dict[str, str], shortened: int) -> dict[str, str]:
    """Say why a translated ranking is too short when the translation made it so."""
    if not shortened:
        return shallow
    cause = (
        f"the translation into the head's ids merged old chunks of {shortened} stored base ranking(s) "
        "into fewer new chunks, so ids the base ranked below its stored depth, which the base report "
        "does not keep, would now enter the top"
    )
    # Only the depth reason can come from the merge; a condensed base is too short anyway.
    return {
        metric: f"{cause} ({reason})" if reason.startswith(DEPTH_REASON) else reason
        for metric, reason in shallow.items()
    }


def _own_judgments(sides: Sides, space: IdSpace, names: Sequence[str]) -> Yardstick:
    """No rankings to carry over, but every label survived soundly: each side keeps its own labels."""
    meaning = (
        "every label survived the re-chunk by a sound rule (VALID, RE_ANCHORABLE or MERGED), so each side "
        "is measured under its own judgments, which name the same labeled text; the base rankings could "
        f"not be carried over because {rescore_blocker(sides) or 'the base report keeps no rankings'}"
    )
    finding = Finding(ID_SPACE, RESOLVED, space.detail, meaning)
    changes = [change for change in yardstick_changes(sides) if change[0] not in JUDGMENT_CHANGES]
    if not changes:
        return Yardstick("own-judgments", per_query(sides.base), [finding], {})
    unresolved = _unresolved(changes, "the base report keeps no rankings to score again", names, per_query(sides.base))
    unresolved.findings.insert(0, finding)
    return unresolved
