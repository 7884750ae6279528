"""Comparability findings: what differs between the two reports, and what it does to the deltas.

Each finding says what was found (``detail``) and what that means for the
numbers (``meaning``); its ``effect`` says how it bears on them (a
:class:`~retrieval_eval.core.comparison_document.Finding`). Findings
about the yardstick itself are made in ``yardstick``; the others are here.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.comparison_document import (
    DOCUMENTS_REMOVED,
    LABELS_LOWERED,
    NO_PAIRED_QUERIES,
    QUERIES_DROPPED,
    REMOVAL_UNEXPLAINED,
    Finding,
    named_queries,
)

__all__ = [
    "CONFOUNDS",
    "LIMITS",
    "NOTE",
    "RESOLVED",
    "Finding",
    "distinct",
    "further_findings",
    "lowered_findings",
    "removal_findings",
    "short",
]
from .sides import Pairing, Sides

# How a finding bears on the deltas.
CONFOUNDS = "confounds"  # the deltas it names mix a change of yardstick with a change of retriever
RESOLVED = "resolved"  # the yardstick changed, and rescoring put both sides on the head's
LIMITS = "limits"  # the comparison covers less than everything (queries, metrics, intervals)
NOTE = "note"  # worth knowing; changes nothing computed


def short(sha: str | None) -> str:
    return str(sha)[:12] if sha else "unknown"


def distinct(before: str | None, after: str | None) -> tuple[str, str]:
    """Two fingerprints shortened only as far as they stay told apart.

    A hash reads well in 12 characters; a fingerprint a person chose (``help/2026-01``) is
    shown whole, and a long one keeps its first characters up to where the two differ.
    """
    first, second = str(before), str(after)
    width = 12
    while width < max(len(first), len(second)) and first[:width] == second[:width]:
        width += 8
    return _cut(first, width), _cut(second, width)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width + 4 else text[:width] + "…"


def further_findings(
    sides: Sides, pairing: Pairing, dropped: Sequence[str] = (), *, rescored: bool = False
) -> list[Finding]:
    """Every finding not about the yardstick, in the order the document lists them. ``dropped``:
    the queries the base report scored that the head's yardstick does not (see :func:`query_findings`);
    ``rescored``: the base side was scored again here, at the head's cutoffs."""
    return [
        *query_findings(pairing, dropped),
        *missing_per_query(pairing),
        *cutoff_findings(sides, rescored=rescored),
        *corpus_findings(sides),
        *documents_removed_findings(sides),
        *tool_findings(sides),
    ]


def _queries(count: int) -> str:
    return f"{count} query is" if count == 1 else f"{count} queries are"


def query_findings(pairing: Pairing, dropped: Sequence[str] = ()) -> list[Finding]:
    """Queries scored on one side only, named. ``dropped`` (also in ``pairing.removed``): queries
    the base report scored that the head's judgments no longer score (their labels deleted, or
    none relevant any more), found when the base was scored again under them; told apart, since
    a query dropped from the set moves every absolute figure without the retriever changing."""
    findings = []
    meaning = f"left out of the deltas, which cover the {len(pairing.ids)} queries scored on both sides"
    if pairing.added:
        findings.append(
            Finding("queries-added", LIMITS, f"{_queries(len(pairing.added))} scored in head only", meaning)
        )
    gone = set(dropped)
    removed = [query for query in pairing.removed if query not in gone]
    if removed:
        findings.append(Finding("queries-removed", LIMITS, f"{_queries(len(removed))} scored in base only", meaning))
    if dropped:
        findings.append(
            Finding(
                QUERIES_DROPPED,
                LIMITS,
                f"{_queries(len(dropped))} no longer scored under the head's judgments ({named_queries(dropped)}): "
                f"the base report scored {'it' if len(dropped) == 1 else 'them'}; the head's labels no longer count "
                f"{'it' if len(dropped) == 1 else 'them'} (deleted, or none relevant)",
                f"{meaning}, and out of the head's own averages: a query dropped from the set moves every "
                "absolute figure without the retriever changing",
            )
        )
    return findings


def lowered_findings(lowered: Sequence[str]) -> list[Finding]:
    """Queries whose base ranking the head's judgments credit with fewer relevant keys in a top k
    (a label on a key the base ranked there removed, or graded below the threshold)."""
    if not lowered:
        return []
    many = len(lowered) != 1
    return [
        Finding(
            LABELS_LOWERED,
            LIMITS,
            f"the head's judgments removed or lowered labels on keys the base ranked in a top k, in "
            f"{len(lowered)} quer{'ies' if many else 'y'} ({named_queries(lowered)})",
            f"the base's rescored values on {'them' if many else 'it'} fall with the labels, not with the "
            "retriever: a pull request that unlabels what its retriever lost moves no delta",
        )
    ]


def removal_findings(
    unexplained: Sequence[str], *, corpus_known: bool, rechunked: bool, by_documents: bool = False
) -> list[Finding]:
    """Documents left the corpus, and these queries lost labels the removal cannot be shown to
    account for (see :mod:`.removal`): told by the documents the base's hits lay in
    (``by_documents``), counted against the head's corpus, or not countable."""
    if not unexplained:
        return []
    many = len(unexplained) != 1
    queries = f"{len(unexplained)} quer{'ies' if many else 'y'} ({named_queries(unexplained)})"
    told = ""
    if not corpus_known:
        detail = (
            f"documents left the corpus, and without the head's corpus the labels they took cannot be told "
            f"from others removed beside them, in {queries}"
        )
        told = "; scored with --corpus and --baseline, the head's corpus tells them apart"
    elif by_documents:
        detail = (
            f"documents left the corpus, but {queries} lost hits whose documents the head's corpus still "
            f"holds: {'their' if many else 'its'} labels were removed or lowered beside the removal, not with it"
        )
    elif rechunked:
        detail = (
            f"documents left the corpus in a re-chunk, and {queries} lost hits in a top k of the base's "
            "ranking: across a re-chunk the reports cannot tell which of the base's keys left with the "
            "documents"
        )
        told = (
            "; to decide, score the base's retriever on the head's corpus and judgments and compare with "
            "that report (one corpus, one id space), or have the change to the judgments reviewed"
        )
    else:
        detail = (
            f"documents left the corpus, but {queries} lost hits on keys the head's corpus still holds: "
            f"{'their' if many else 'its'} labels were removed or lowered beside the removal, not with it"
        )
    return [
        Finding(
            REMOVAL_UNEXPLAINED,
            LIMITS,
            detail,
            "a delta cannot vouch for them: a pull request that removes a document and unlabels what its "
            f"retriever lost would move no delta{told}",
        )
    ]


def missing_per_query(pairing: Pairing) -> list[Finding]:
    missing = [side for side, table in (("base", pairing.base), ("head", pairing.head)) if table is None]
    if not missing:
        if pairing.base is not None and not pairing.ids:
            return [
                Finding(
                    NO_PAIRED_QUERIES,
                    LIMITS,
                    "no query is scored on both sides",
                    "no delta has an interval and there are no movers",
                )
            ]
        return []
    detail = (
        "neither report carries per-query values"
        if len(missing) == 2
        else f"the {missing[0]} report carries no per-query values"
    )
    return [
        Finding(
            "no-per-query",
            LIMITS,
            detail,
            "deltas are taken from the reported averages, with no interval, no significance and no movers",
        )
    ]


def cutoff_findings(sides: Sides, *, rescored: bool = False) -> list[Finding]:
    """The two reports were scored at other cutoffs. Rescored, the base's stored rankings were scored
    again at the head's cutoffs, so a new cutoff has a delta as far as those rankings reach."""
    base_k, head_k = sides.base.cutoffs(), sides.head.cutoffs()
    if not base_k or not head_k or sorted(set(base_k)) == sorted(set(head_k)):
        return []
    only = sorted(set(head_k) - set(base_k))
    detail = f"the cutoffs changed (k={','.join(map(str, base_k))} in base, k={','.join(map(str, head_k))} in head)"
    if rescored:
        meaning = (
            "the base's stored rankings were scored again at the head's cutoffs, so each has a delta, "
            "but for a cutoff deeper than the rankings the base kept (said apart where there is one)"
        )
    else:
        many = len(only) > 1
        new = f" (cutoff{'s' if many else ''} {', '.join(map(str, only))} {'are' if many else 'is'} new)"
        meaning = "metrics at a cutoff computed on one side only have no delta" + (new if only else "")
    return [Finding("cutoffs-changed", LIMITS, detail, meaning)]


def corpus_findings(sides: Sides) -> list[Finding]:
    base = sides.base.corpus.fingerprint if sides.base.corpus is not None else None
    head = sides.head.corpus.fingerprint if sides.head.corpus is not None else None
    if not base or not head or base == head:
        return []
    return [
        Finding(
            "corpus-changed",
            NOTE,
            "the corpus fingerprint changed ({} in base, {} in head)".format(*distinct(base, head)),
            "documents or chunks changed between the two runs: part of a move may come from the corpus "
            "(new documents, a re-chunk), and chunk-level labels may point at chunks that are gone; "
            "check them with 'retrieval-eval drift'",
        )
    ]


def documents_removed_findings(sides: Sides) -> list[Finding]:
    """The head's corpus holds fewer documents than the base's: their labels, and queries only they
    answered, leave with them. What tells this from unlabelling what a retriever lost is the
    corpus itself, not its fingerprint (a header string a pull request can change alone)."""
    base = sides.base.corpus.documents if sides.base.corpus is not None else None
    head = sides.head.corpus.documents if sides.head.corpus is not None else None
    if base is None or head is None or head >= base:
        return []
    return [
        Finding(
            DOCUMENTS_REMOVED,
            NOTE,
            f"the head's corpus holds {base - head:,} fewer documents ({base:,} in base, {head:,} in head)",
            "labels of the documents removed, and queries only they answered, leave the comparison with "
            "them; 'retrieval-eval drift' lists those labels",
        )
    ]


def tool_findings(sides: Sides) -> list[Finding]:
    base = sides.base.tool.version if sides.base.tool is not None else None
    head = sides.head.tool.version if sides.head.tool is not None else None
    if not base or not head or base == head:
        return []
    return [
        Finding(
            "tool-changed",
            NOTE,
            f"the reports come from different tool versions ({base} and {head})",
            "metric definitions are stable across versions of the same spec, so this is only noted",
        )
    ]
