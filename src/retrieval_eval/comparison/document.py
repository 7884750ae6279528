"""The comparison document: every part assembled, as records (``build_document``).

The same inputs give the same bytes: nothing here reads the clock, and the
bootstrap draws from a fixed seed. The JSON is written by :mod:`retrieval_eval.formats.comparison`
(``comparison_to_json``), and only there.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import replace

from .._version import __version__
from ..core.comparison_document import DOCUMENTS_REMOVED, ComparisonDocument, QueryCounts, SideSummary, Tool
from ..core.judgments import JudgmentSet
from ..core.labelindex import LabelIndex, as_label_index
from ..core.power import DEFAULT_POWER
from ..core.report_model import Inputs, Report
from ..core.significance import DEFAULT_RESAMPLES, DEFAULT_SEED, BlockMap
from ..formats.comparison import KIND
from .bounds import add_bounds
from .breakdown import movers, query_facts, stratum_members, stratum_rows
from .deltas import bootstrap_all, method, metric_rows, scored_per_query
from .findings import further_findings, lowered_findings, removal_findings
from .idspace import decide_id_space, without_old_trails
from .power import add_power, add_stratum_power, design_section, gate_design
from .removal import lost_hits, unexplained_by_removal
from .sides import Pairing, Sides, metric_names, pair_queries, per_query
from .yardstick import Yardstick, decide_yardstick, yardstick_changes

DOCUMENT_VERSION = 1
__all__ = ["DOCUMENT_VERSION", "KIND", "build_document", "side_summary"]


def build_document(
    base_report: Report,
    head_report: Report,
    *,
    judgments: JudgmentSet | LabelIndex | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    map_blocks: BlockMap = map,
    power: float = DEFAULT_POWER,
    bounds: Callable[[], tuple[Report, Report]] | None = None,
    live: Container[str] | None = None,
) -> ComparisonDocument:
    """The comparison document of a head report against a base report.

    ``judgments`` are the head's judgments (the file the head report was
    scored with; callers check its hash). They give query text and strata,
    and allow rescoring the base rankings when the yardstick changed.
    ``power`` is the power at which each minimum detectable effect (``mde``) is stated.
    A report held as JSON is read into one by :mod:`retrieval_eval.formats.report` first.
    ``bounds``, when given, returns the two reports with their per-query bounds, computed
    meanwhile elsewhere (``compare`` draws the bootstrap while a worker computes them): it
    is called where the bounds are first read, after the bootstrap under one yardstick,
    at once when the base is to be rescored (rescoring reuses the head's bounds).
    ``live``: the keys of the corpus the head was scored against (chunk ids and document uris),
    when it is at hand; it tells which labels taken a removal of documents accounts for.
    """
    # Indexed once: rescoring, query text and strata all read the same index.
    sides = Sides(base_report, head_report, as_label_index(judgments) if judgments is not None else None)
    sides = without_old_trails(sides)
    if bounds is not None and (decide_id_space(sides).changed or yardstick_changes(sides)):
        sides, bounds = Sides(*bounds(), sides.judgments), None
    yardstick = decide_yardstick(sides, metric_names(sides))
    pairing = pair_queries(yardstick.base_per_query, per_query(head_report))
    dropped = dropped_queries(base_report, yardstick, pairing)
    pairing = replace(pairing, removed=sorted({*pairing.removed, *dropped}))
    primary = head_report.primary_metric()
    facts = query_facts(sides.judgments)
    lowered = lowered_queries(
        base_report, head_report, yardstick, judgments=sides.judgments, threshold=sides.head_config.threshold
    )
    findings = [
        *yardstick.findings,
        *further_findings(sides, pairing, dropped, rescored=yardstick.rescored),
        *lowered_findings(lowered),
    ]
    if any(finding.code == DOCUMENTS_REMOVED for finding in findings):
        rechunked = decide_id_space(sides).changed
        unexplained = unexplained_by_removal(
            base_report,
            yardstick,
            pairing.removed,
            lowered,
            live,
            sides.judgments,
            rechunked=rechunked,
            head_threshold=sides.head_config.threshold,
        )
        exact = base_report.hit_documents is not None and sides.judgments is not None  # see removal.py
        findings += removal_findings(
            unexplained, corpus_known=live is not None, rechunked=rechunked and not exact, by_documents=exact
        )
    members = stratum_members(sides, pairing, primary, facts)
    # One set of resamples for every metric and every stratum.
    boots, stratum_boots = bootstrap_all(
        pairing, scored_per_query(sides), resamples=resamples, seed=seed, map_blocks=map_blocks, strata=members
    )
    rows = metric_rows(sides, pairing, yardstick, resamples=resamples, seed=seed, boots=boots)
    if bounds is not None:
        sides = Sides(*bounds(), sides.judgments)
    rows = add_bounds(rows, sides, pairing, yardstick.base_upper, yardstick.base_lower)
    design = gate_design(power)
    rows = add_power(rows, pairing, design)
    strata = stratum_rows(sides, pairing, primary, facts, rescored=yardstick.rescored, boots=stratum_boots)
    strata = add_stratum_power(strata, pairing, primary, {name: ids for name, (_, ids) in members.items()}, design)
    return ComparisonDocument(
        kind=KIND,
        version=DOCUMENT_VERSION,
        tool=Tool("retrieval-eval", __version__),
        primary=primary,
        base=side_summary(base_report),
        head=side_summary(head_report),
        yardstick=yardstick.status,
        comparable=not yardstick.confounded,
        comparability=tuple(findings),
        significance=method(pairing, resamples=resamples, seed=seed),
        power=design_section(design),
        queries=QueryCounts(len(pairing.ids), tuple(pairing.added), tuple(pairing.removed)),
        metrics=rows,
        per_stratum=strata,
        movers=movers(pairing, primary, facts),
    )


def dropped_queries(base_report: Report, yardstick: Yardstick, pairing: Pairing) -> list[str]:
    """The queries the base report scored that its rescoring under the head's judgments does not
    (the pull request deleted their labels, or left none relevant), and the head does not score
    either: scored in base only, though the rescored base, which pairs with the head, lacks them."""
    if not yardstick.rescored or yardstick.base_per_query is None:
        return []
    scored = set(per_query(base_report) or ())
    return sorted(scored - set(yardstick.base_per_query) - set(pairing.head or ()))


def lowered_queries(
    base_report: Report,
    head_report: Report,
    yardstick: Yardstick,
    *,
    judgments: LabelIndex | None = None,
    threshold: int | None = None,
) -> list[str]:
    """The queries whose base ranking the head's judgments credit with fewer relevant keys in a
    top k than the base's own judgments did (a label on a key the base ranked there was removed
    or graded below the threshold), where the head ranked otherwise: with the same ranking on
    both sides a label edit moves both alike and hides nothing. Read off precision@k, which no
    label outside the top k moves (recall, AP and nDCG also fall when labels are added elsewhere);
    and, where the base report says where its hits lay (``hit_documents``), off each hit itself:
    one the head's labels no longer credit, at any depth the base kept, however many labels were
    added beside it (a label moved from the hit to another key both sides rank left every count
    as it was)."""
    if not yardstick.rescored or yardstick.base_per_query is None:
        return []
    own = per_query(base_report) or {}
    uncredited = _uncredited_hits(base_report, head_report, yardstick, judgments, threshold)
    if yardstick.base_hits is not None:
        return sorted({*_fewer_hits(own, yardstick.base_hits), *uncredited})
    base_rankings, head_rankings = base_report.rankings or {}, head_report.rankings or {}
    lowered = list(uncredited)
    for query, rescored in yardstick.base_per_query.items():
        if query in head_rankings and _alike(head_rankings[query], base_rankings.get(query, ())):
            continue
        before = own.get(query, {})
        for name, value in rescored.items():
            if name.startswith("precision@") and name in before and value < before[name] - _ROUNDING:
                lowered.append(query)
                break
    return sorted(set(lowered))


def _uncredited_hits(
    base_report: Report,
    head_report: Report,
    yardstick: Yardstick,
    judgments: LabelIndex | None,
    threshold: int | None,
) -> list[str]:
    """The queries the base report records a hit of (``hit_documents``) that the head's labels no
    longer credit, the key carried through the moves they record, where the head ranked otherwise."""
    if base_report.hit_documents is None or judgments is None or threshold is None:
        return []
    base_rankings, head_rankings = base_report.rankings or {}, head_report.rankings or {}
    rechunked = yardstick.base_hits is not None  # ids differ on the two sides: none is alike
    return [
        query
        for query in yardstick.base_per_query or {}
        if (rechunked or query not in head_rankings or not _alike(head_rankings[query], base_rankings.get(query, ())))
        and lost_hits(base_report, query, judgments, threshold)
    ]


def _fewer_hits(own: Mapping[str, Mapping[str, float]], credited: Mapping[str, Mapping[int, int]]) -> list[str]:
    """Across a re-chunk: the queries whose base top k the head's labels credit with fewer hits
    than the base's own precision@k counted, each old key carried on its own (a merge of two
    relevant chunks is no label taken; the translated ranking, which keeps the merged chunk once,
    would say it was). The rankings always differ in ids here, so none is skipped as alike."""
    lowered = []
    for query, by_k in credited.items():
        before = own.get(query, {})
        for k, hits in by_k.items():
            value = before.get(f"precision@{k}")
            if value is not None and hits < round(value * k):
                lowered.append(query)
                break
    return sorted(lowered)


_ROUNDING = 1e-9  # reports hold values at 12 decimals: a difference below this is no label's


def _alike(head: Sequence[str], base: Sequence[str]) -> bool:
    """The same ranking as far as both sides kept it: a report keeps max(k, R) keys of its own
    cutoffs, so the same retriever scored with other cutoffs keeps a longer or shorter head."""
    if not head or not base:
        return not head and not base
    depth = min(len(head), len(base))
    return tuple(head[:depth]) == tuple(base[:depth])


def side_summary(report: Report) -> SideSummary:
    """What identifies one side; what the report does not hold as a string is recorded as unknown."""
    inputs = report.inputs or Inputs()
    return SideSummary(
        generated_at=report.generated_at,
        tool_version=report.tool.version if report.tool is not None else None,
        judgments_sha256=inputs.judgments_sha256,
        run_sha256=inputs.run_sha256,
        query_set_sha256=inputs.query_set_sha256,
        corpus_fingerprint=report.corpus.fingerprint if report.corpus is not None else None,
        verdict=report.status(),
    )
