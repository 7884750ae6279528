"""Comparing a head report with a base report: what moved, is it real, and is it comparable?

A delta is only worth reading when both numbers were measured with one
yardstick: the same judgments, relevance threshold and gain. When the
yardstick changed and the base report kept its rankings, the base rankings
are scored again under the head's judgments and configuration, so both
sides are judged alike; the document says so. When that cannot be done, the
deltas it touches are marked *confounded*, and delta gates over them say
INDETERMINATE instead of guessing.

Queries are paired by id. Only queries scored on both sides enter the
deltas, the bootstrap and the movers; the others are listed. Cutoff lists
may differ: ``recall@5`` means the same whatever other cutoffs were computed
beside it.

``build_comparison`` returns a JSON-ready document; the same inputs give the
same bytes (nothing in it reads the clock). ``comparison_from_document``
turns it into the :class:`Comparison` that gates read.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import __version__
from .judgments import JudgmentSet
from .labelindex import LabelIndex, as_label_index
from .lenient import cutoffs, measured, number, primary_metric, section
from .significance import DEFAULT_RESAMPLES, DEFAULT_SEED, CONFIDENCE, Bootstrap, paired_bootstrap

KIND = "retrieval-eval comparison"
DOCUMENT_VERSION = 1
DECIMALS = 12
MOVERS = 10

# How a finding bears on the deltas.
CONFOUNDS = "confounds"  # the deltas it names mix a change of yardstick with a change of retriever
RESOLVED = "resolved"  # the yardstick changed, and rescoring put both sides on the head's
LIMITS = "limits"  # the comparison covers less than everything (queries, metrics, intervals)
NOTE = "note"  # worth knowing; changes nothing computed


@dataclass(frozen=True)
class MetricDelta:
    metric: str
    base: float | None
    head: float | None
    ci: tuple[float, float] | None = None
    p_value: float | None = None
    significant: bool | None = None
    confounded: str | None = None
    n: int | None = None

    @property
    def delta(self) -> float | None:
        if self.base is None or self.head is None:
            return None
        return round(self.head - self.base, 12)


@dataclass
class Comparison:
    metrics: dict[str, MetricDelta] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    document: dict[str, Any] | None = None

    @property
    def comparable(self) -> bool:
        return not self.problems

    def get(self, metric: str) -> MetricDelta | None:
        return self.metrics.get(metric)


# -- reading reports ---------------------------------------------------------------


def _per_query(report: Mapping[str, Any]) -> dict[str, dict[str, float]] | None:
    """The report's per-query values, or None when it carries none (or not in our shape)."""
    table = report.get("per_query")
    if not isinstance(table, Mapping):
        return None
    if not all(isinstance(row, Mapping) for row in table.values()):
        return None
    return {str(q): _numbers(row) for q, row in table.items()}


def _numbers(row: Mapping[str, Any]) -> dict[str, float]:
    return {name: float(value) for name, value in row.items() if number(value) is not None}


def _score_config(report: Mapping[str, Any]) -> Any:
    """The report's configuration as a ScoreConfig, or None when it is not one we can score with."""
    from .errors import UsageError
    from .scoring import ScoreConfig

    config = section(report, "config")
    try:
        return ScoreConfig(k=tuple(cutoffs(report)), threshold=config.get("threshold"),  # type: ignore[arg-type]
                           gain=config.get("gain"))  # type: ignore[arg-type]
    except UsageError:
        return None


def _cutoff(metric: str) -> int | None:
    _, sep, cutoff = metric.partition("@")
    return int(cutoff) if sep and cutoff.isdigit() else None


def _deterministic(report: Mapping[str, Any], metric: str) -> bool:
    measurement = section(report, "metrics").get(metric)
    return not (isinstance(measurement, Mapping) and measurement.get("deterministic") is False)


def _short(sha: Any) -> str:
    return str(sha)[:12] if sha else "unknown"


# -- findings ----------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    code: str
    effect: str
    detail: str
    meaning: str
    metrics: tuple[str, ...] = ()  # the metrics it confounds; empty means all, when it confounds

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "effect": self.effect, "detail": self.detail,
                                "meaning": self.meaning}
        if self.metrics:
            data["metrics"] = list(self.metrics)
        return data


@dataclass(frozen=True)
class Sides:
    """Everything the comparison reads, gathered once."""

    base: Mapping[str, Any]
    head: Mapping[str, Any]
    judgments: JudgmentSet | LabelIndex | None

    @property
    def base_config(self) -> Mapping[str, Any]:
        return section(self.base, "config")

    @property
    def head_config(self) -> Mapping[str, Any]:
        return section(self.head, "config")


def yardstick_changes(sides: Sides) -> list[tuple[str, str]]:
    """(code, detail) for each way the two reports' yardsticks differ or cannot be told apart."""
    changes = []
    base_sha = section(sides.base, "inputs").get("judgments_sha256")
    head_sha = section(sides.head, "inputs").get("judgments_sha256")
    if not base_sha or not head_sha:
        changes.append(("judgments-unknown", "a report does not record which judgments it was scored with"))
    elif base_sha != head_sha:
        changes.append(("judgments-changed",
                        f"the judgments changed (sha256 {_short(base_sha)} in base, {_short(head_sha)} in head)"))
    base_config, head_config = sides.base_config, sides.head_config
    if not base_config or not head_config:
        changes.append(("config-unknown", "a report does not record its threshold and gain"))
        return changes
    for name in ("threshold", "gain"):
        if base_config.get(name) != head_config.get(name):
            changes.append((f"{name}-changed", f"the base was scored with {name} {base_config.get(name)}, "
                                                f"the head with {head_config.get(name)}"))
    return changes


def _confounded_metrics(code: str, names: Sequence[str]) -> tuple[str, ...]:
    """A gain only enters nDCG; every other change of yardstick touches every metric."""
    if code == "gain-changed":
        return tuple(name for name in names if name.startswith("ndcg@"))
    return ()


def rescore_blocker(sides: Sides) -> str | None:
    """Why the base rankings cannot be scored again under the head's yardstick, or None."""
    if sides.judgments is None:
        return "the head's judgments file was not given (pass --judgments, the file the head report was scored with)"
    if not isinstance(sides.base.get("rankings"), Mapping):
        return "the base report does not carry its rankings, so they cannot be scored again"
    if _score_config(sides.head) is None:
        return "the head report does not record a configuration (cutoffs, threshold, gain) to score with"
    return None


# -- rescoring ---------------------------------------------------------------------


def rescore_base(sides: Sides) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """The base rankings scored under the head judgments and configuration.

    Returns per-query values and, for metrics the stored rankings are too
    short to score again, why.
    """
    from .scoring import index_judgments, score_rankings

    assert sides.judgments is not None  # callers check rescore_blocker first
    config = _score_config(sides.head)
    rankings = {str(q): [str(key) for key in keys] for q, keys in sides.base["rankings"].items()
                if isinstance(keys, list)}
    indexed = index_judgments(sides.judgments, config)
    scores = score_rankings(sides.judgments, rankings, config, indexed=indexed)
    # A query the base report kept no ranking for was never scored there (it had no positive
    # label then): scoring it now would count the missing ranking as misses. It is left to
    # the head side, where it shows as added.
    per_query = {q: row for q, row in scores.per_query.items() if q in rankings}  # rounded by scoring
    base_depth = max(cutoffs(sides.base), default=0)
    needs = {q: labels.n_relevant for q, labels in indexed.items()}
    return per_query, shallow_metrics(list(scores.metrics), rankings, needs, base_depth=base_depth)


def shallow_metrics(
    names: Sequence[str], rankings: Mapping[str, list[str]], relevant: Mapping[str, int], *, base_depth: int
) -> dict[str, str]:
    """Metrics whose depth the stored base rankings may not reach.

    A base report keeps each ranking to its own largest cutoff (deeper only
    when R-precision needed it). A ranking shorter than that is whole; one at
    least that long may have been cut, so a deeper metric cannot be scored
    again from it without counting the cut as misses.
    """
    reasons = {}
    for name in names:
        cutoff = _cutoff(name)
        if cutoff is not None and cutoff > base_depth:
            reasons[name] = (f"the base report kept its rankings to depth {base_depth}, "
                             f"too short to score {name} again")
    cut = [q for q, keys in rankings.items() if len(keys) >= base_depth and relevant.get(q, 0) > len(keys)]
    if "r_precision" in names and cut:
        reasons["r_precision"] = (f"{len(cut)} base ranking(s) may have been cut above rank R, "
                                  "so r_precision cannot be scored again")
    return reasons


# -- the yardstick decision --------------------------------------------------------


@dataclass
class Yardstick:
    status: str  # "same", "rescored" or "changed"
    base_per_query: dict[str, dict[str, float]] | None
    findings: list[Finding]
    confounded: dict[str, str]  # metric -> reason; "*" for every metric


def decide_yardstick(sides: Sides, names: Sequence[str]) -> Yardstick:
    changes = yardstick_changes(sides)
    base_per_query = _per_query(sides.base)
    if not changes:
        return Yardstick("same", base_per_query, [], {})
    blocker = rescore_blocker(sides)
    if blocker is None:
        return _rescored(sides, changes)
    return _unresolved(changes, blocker, names, base_per_query)


def _rescored(sides: Sides, changes: list[tuple[str, str]]) -> Yardstick:
    per_query, shallow = rescore_base(sides)
    meaning = ("the base rankings were scored again under the head's judgments and configuration, "
               "so both sides are measured with one yardstick")
    findings = [Finding(code, RESOLVED, detail, meaning) for code, detail in changes]
    for metric, reason in shallow.items():
        findings.append(Finding("rankings-too-short", CONFOUNDS, reason,
                                f"{metric} is not compared: its delta would count the cut as misses", (metric,)))
    return Yardstick("rescored", per_query, findings, dict(shallow))


def _unresolved(changes: list[tuple[str, str]], blocker: str, names: Sequence[str],
                base_per_query: dict[str, dict[str, float]] | None) -> Yardstick:
    findings, confounded = [], {}
    for code, detail in changes:
        touched = _confounded_metrics(code, names)
        what = ", ".join(touched) if touched else "every metric"
        meaning = (f"deltas of {what} mix a change of yardstick with a change of the retriever; "
                   f"they could not be put on one yardstick because {blocker}")
        findings.append(Finding(code, CONFOUNDS, detail, meaning, touched))
        for metric in touched or ("*",):
            confounded.setdefault(metric, detail)
    return Yardstick("changed", base_per_query, findings, confounded)


# -- metric rows -------------------------------------------------------------------


@dataclass(frozen=True)
class Pairing:
    """Which queries enter the paired deltas."""

    base: dict[str, dict[str, float]] | None
    head: dict[str, dict[str, float]] | None
    ids: list[str]
    added: list[str]
    removed: list[str]

    @property
    def available(self) -> bool:
        return self.base is not None and self.head is not None and bool(self.ids)


def pair_queries(base: dict[str, dict[str, float]] | None, head: dict[str, dict[str, float]] | None) -> Pairing:
    if base is None or head is None:
        return Pairing(base, head, [], [], [])
    ids = sorted(set(base) & set(head))
    return Pairing(base, head, ids, sorted(set(head) - set(base)), sorted(set(base) - set(head)))


def metric_names(sides: Sides) -> list[str]:
    head_metrics = section(sides.head, "metrics")
    base_metrics = section(sides.base, "metrics")
    return [str(name) for name in dict.fromkeys([*head_metrics, *base_metrics])]


def _mean(pairing: Pairing, side: dict[str, dict[str, float]], metric: str) -> float | None:
    values = [side[q][metric] for q in pairing.ids if metric in side[q]]
    if len(values) != len(pairing.ids):
        return None
    return round(math.fsum(values) / len(values), DECIMALS)


def point_values(sides: Sides, pairing: Pairing, metric: str, *, rescored: bool) -> tuple[float | None, float | None]:
    """Base and head values of one metric.

    The reports' own numbers when the paired queries are exactly what both
    reports averaged over (so the comparison repeats them to the last digit);
    otherwise means over the paired queries. A rescored base has no number
    of its own beyond what was rescored.
    """
    if pairing.base is None or pairing.head is None:
        return measured(sides.base, metric), measured(sides.head, metric)
    whole = not pairing.added and not pairing.removed and not rescored
    if whole or not pairing.ids and not rescored:
        return measured(sides.base, metric), measured(sides.head, metric)
    if not pairing.ids:
        return None, measured(sides.head, metric)
    return _mean(pairing, pairing.base, metric), _mean(pairing, pairing.head, metric)


def bootstrap_all(pairing: Pairing, names: Sequence[str], *, resamples: int, seed: int) -> dict[str, Bootstrap]:
    if not pairing.available:
        return {}
    assert pairing.base is not None and pairing.head is not None
    usable = [m for m in names if all(m in pairing.base[q] and m in pairing.head[q] for q in pairing.ids)]
    base = {q: pairing.base[q] for q in pairing.ids}
    head = {q: pairing.head[q] for q in pairing.ids}
    return paired_bootstrap(base, head, usable, resamples=resamples, seed=seed)


def metric_row(metric: str, values: tuple[float | None, float | None], boot: Bootstrap | None,
               confounded: str | None) -> dict[str, Any]:
    base, head = values
    delta = round(head - base, DECIMALS) if base is not None and head is not None else None
    row: dict[str, Any] = {"base": base, "head": head, "delta": delta, "n": boot.n if boot else None,
                           "ci": None, "p_value": None, "significant": None, "confounded": confounded}
    if boot is not None and delta is not None:
        row.update(ci=[boot.low, boot.high], p_value=boot.p_value, significant=boot.significant)
    return row


def metric_rows(sides: Sides, pairing: Pairing, yardstick: Yardstick, *, resamples: int,
                seed: int) -> dict[str, dict[str, Any]]:
    names = metric_names(sides)
    deterministic = [m for m in names if _deterministic(sides.head, m) and _deterministic(sides.base, m)]
    boots = bootstrap_all(pairing, deterministic, resamples=resamples, seed=seed)
    rows = {}
    for metric in names:
        confounded = yardstick.confounded.get(metric) or yardstick.confounded.get("*")
        values = point_values(sides, pairing, metric, rescored=yardstick.status == "rescored")
        rows[metric] = metric_row(metric, values, boots.get(metric), confounded)
    return rows


# -- strata and movers -------------------------------------------------------------


def query_facts(judgments: JudgmentSet | LabelIndex | None) -> dict[str, dict[str, str | None]]:
    """Query text and stratum per query id (the first each query's labels give), when judgments are given."""
    if judgments is None:
        return {}
    queries = as_label_index(judgments).queries
    return {query_id: {"query": query.text, "stratum": query.stratum} for query_id, query in queries.items()}


def _stratum_value(report: Mapping[str, Any], name: str, metric: str) -> float | None:
    return measured(section(report, "per_stratum").get(name), metric)


def stratum_rows(sides: Sides, pairing: Pairing, primary: str, facts: Mapping[str, Mapping[str, Any]],
                 *, rescored: bool) -> dict[str, dict[str, Any]]:
    """Each stratum's primary metric on both sides: paired when membership is known, else as reported."""
    names = [str(n) for n in dict.fromkeys([*section(sides.head, "per_stratum"),
                                              *section(sides.base, "per_stratum")])]
    paired = bool(facts) and pairing.available
    rows = {}
    for name in names:
        if paired:
            rows[name] = _paired_stratum(pairing, primary, [q for q in pairing.ids
                                                             if facts.get(q, {}).get("stratum") == name])
        elif not rescored:
            base, head = _stratum_value(sides.base, name, primary), _stratum_value(sides.head, name, primary)
            rows[name] = {"n": None, "base": base, "head": head,
                          "delta": round(head - base, DECIMALS) if base is not None and head is not None else None}
    return rows


def _paired_stratum(pairing: Pairing, primary: str, members: list[str]) -> dict[str, Any]:
    assert pairing.base is not None and pairing.head is not None
    if not members:
        return {"n": 0, "base": None, "head": None, "delta": None}
    base = round(math.fsum(pairing.base[q].get(primary, 0.0) for q in members) / len(members), DECIMALS)
    head = round(math.fsum(pairing.head[q].get(primary, 0.0) for q in members) / len(members), DECIMALS)
    return {"n": len(members), "base": base, "head": head, "delta": round(head - base, DECIMALS)}


def movers(pairing: Pairing, primary: str, facts: Mapping[str, Mapping[str, Any]],
           *, limit: int = MOVERS) -> dict[str, Any]:
    """The paired queries that moved most on the primary metric, both ways."""
    moves = []
    if pairing.available:
        assert pairing.base is not None and pairing.head is not None
        for q in pairing.ids:
            base, head = pairing.base[q].get(primary), pairing.head[q].get(primary)
            if base is not None and head is not None and round(head - base, DECIMALS) != 0:
                moves.append((round(head - base, DECIMALS), q, base, head))
    drops = sorted((m for m in moves if m[0] < 0), key=lambda m: (m[0], m[1]))
    gains = sorted((m for m in moves if m[0] > 0), key=lambda m: (-m[0], m[1]))
    return {
        "metric": primary,
        "down": len(drops),
        "up": len(gains),
        "unchanged": len(pairing.ids) - len(moves),
        "drops": [_mover(m, facts) for m in drops[:limit]],
        "gains": [_mover(m, facts) for m in gains[:limit]],
    }


def _mover(move: tuple[float, str, float, float], facts: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    delta, query_id, base, head = move
    fact = facts.get(query_id, {})
    return {"query_id": query_id, "query": fact.get("query"), "stratum": fact.get("stratum"),
            "base": base, "head": head, "delta": delta}


# -- other findings ----------------------------------------------------------------


def _queries(count: int) -> str:
    return f"{count} query is" if count == 1 else f"{count} queries are"


def query_findings(pairing: Pairing) -> list[Finding]:
    findings = []
    meaning = f"left out of the deltas, which cover the {len(pairing.ids)} queries scored on both sides"
    if pairing.added:
        findings.append(Finding("queries-added", LIMITS, f"{_queries(len(pairing.added))} scored in head only",
                                meaning))
    if pairing.removed:
        findings.append(Finding("queries-removed", LIMITS, f"{_queries(len(pairing.removed))} scored in base only",
                                meaning))
    return findings


def _missing_per_query(pairing: Pairing) -> list[Finding]:
    missing = [side for side, table in (("base", pairing.base), ("head", pairing.head)) if table is None]
    if not missing:
        if pairing.base is not None and not pairing.ids:
            return [Finding("no-paired-queries", LIMITS, "no query is scored on both sides",
                            "no delta has an interval and there are no movers")]
        return []
    detail = ("neither report carries per-query values" if len(missing) == 2
              else f"the {missing[0]} report carries no per-query values")
    return [Finding("no-per-query", LIMITS, detail,
                    "deltas are taken from the reported averages, with no interval, no significance and no movers")]


def cutoff_findings(sides: Sides) -> list[Finding]:
    base_k, head_k = cutoffs(sides.base), cutoffs(sides.head)
    if not base_k or not head_k or sorted(set(base_k)) == sorted(set(head_k)):
        return []
    only = sorted(set(head_k) - set(base_k))
    detail = f"the cutoffs changed (k={','.join(map(str, base_k))} in base, k={','.join(map(str, head_k))} in head)"
    meaning = ("metrics at a cutoff computed on one side only have no delta"
               + (f" (cutoffs {', '.join(map(str, only))} are new)" if only else ""))
    return [Finding("cutoffs-changed", LIMITS, detail, meaning)]


def corpus_findings(sides: Sides) -> list[Finding]:
    base = section(sides.base, "corpus").get("fingerprint")
    head = section(sides.head, "corpus").get("fingerprint")
    if not base or not head or base == head:
        return []
    return [Finding("corpus-changed", NOTE,
                    f"the corpus fingerprint changed ({_short(base)} in base, {_short(head)} in head)",
                    "documents or chunks changed between the two runs: part of a move may come from the corpus "
                    "(new documents, a re-chunk), and chunk-level labels may point at chunks that are gone; "
                    "check them with 'retrieval-eval drift'")]


def tool_findings(sides: Sides) -> list[Finding]:
    base = section(sides.base, "tool").get("version")
    head = section(sides.head, "tool").get("version")
    if not base or not head or base == head:
        return []
    return [Finding("tool-changed", NOTE, f"the reports come from different tool versions ({base} and {head})",
                    "metric definitions are stable across versions of the same spec, so this is only noted")]


# -- the document ------------------------------------------------------------------


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def side_summary(report: Mapping[str, Any]) -> dict[str, str | None]:
    """What identifies one side; anything but a string in the file is recorded as unknown."""
    inputs = section(report, "inputs")
    return {
        "generated_at": _text(report.get("generated_at")),
        "tool_version": _text(section(report, "tool").get("version")),
        "judgments_sha256": _text(inputs.get("judgments_sha256")),
        "run_sha256": _text(inputs.get("run_sha256")),
        "query_set_sha256": _text(inputs.get("query_set_sha256")),
        "corpus_fingerprint": _text(section(report, "corpus").get("fingerprint")),
        "verdict": _text(section(report, "verdict").get("status")),
    }


def method(pairing: Pairing, *, resamples: int, seed: int) -> dict[str, Any]:
    return {
        "name": "paired bootstrap over queries",
        "resamples": resamples,
        "seed": seed,
        "confidence": CONFIDENCE,
        "interval": "percentile, linear interpolation between order statistics",
        "p_value": "two-sided, (r + 1) / (B + 1)",
        "paired_queries": len(pairing.ids),
    }


def build_comparison(
    base_report: Mapping[str, Any],
    head_report: Mapping[str, Any],
    *,
    judgments: JudgmentSet | LabelIndex | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """The comparison document of a head report against a base report.

    ``judgments`` are the head's judgments (the file the head report was
    scored with; callers check its hash). They give query text and strata,
    and allow rescoring the base rankings when the yardstick changed.
    """
    # Indexed once: rescoring, query text and strata all read the same index.
    sides = Sides(base_report, head_report, as_label_index(judgments) if judgments is not None else None)
    names = metric_names(sides)
    yardstick = decide_yardstick(sides, names)
    pairing = pair_queries(yardstick.base_per_query, _per_query(head_report))
    primary = primary_metric(head_report)
    facts = query_facts(sides.judgments)
    rescored = yardstick.status == "rescored"
    findings = [*yardstick.findings, *query_findings(pairing), *_missing_per_query(pairing),
                *cutoff_findings(sides), *corpus_findings(sides), *tool_findings(sides)]
    return {
        "kind": KIND,
        "version": DOCUMENT_VERSION,
        "tool": {"name": "retrieval-eval", "version": __version__},
        "primary": primary,
        "base": side_summary(base_report),
        "head": side_summary(head_report),
        "yardstick": yardstick.status,
        "comparable": not yardstick.confounded,
        "comparability": [finding.as_dict() for finding in findings],
        "significance": method(pairing, resamples=resamples, seed=seed),
        "queries": {"paired": len(pairing.ids), "added": pairing.added, "removed": pairing.removed},
        "metrics": metric_rows(sides, pairing, yardstick, resamples=resamples, seed=seed),
        "per_stratum": stratum_rows(sides, pairing, primary, facts, rescored=rescored),
        "movers": movers(pairing, primary, facts),
    }


# -- for gates ---------------------------------------------------------------------


def _ci(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list) and len(value) == 2 and all(number(v) is not None for v in value):
        return float(value[0]), float(value[1])
    return None


def comparison_from_document(document: Mapping[str, Any]) -> Comparison:
    """What gates read from a comparison document."""
    comparison = Comparison(document=dict(document))
    for name, row in section(document, "metrics").items():
        comparison.metrics[name] = MetricDelta(
            name, row.get("base"), row.get("head"), _ci(row.get("ci")), row.get("p_value"),
            row.get("significant"), row.get("confounded"), row.get("n"),
        )
    for finding in document.get("comparability") or []:
        if finding.get("effect") == CONFOUNDS and not finding.get("metrics"):
            # What changed and why it could not be undone: a gate's reason should say both.
            comparison.problems.append(f"{finding.get('detail', '')}; {finding.get('meaning', '')}")
        elif finding.get("effect") != CONFOUNDS:
            comparison.notes.append(finding.get("detail", ""))
    return comparison


def compare_reports(base: Mapping[str, Any], head: Mapping[str, Any], *,
                    judgments: JudgmentSet | LabelIndex | None = None, resamples: int = DEFAULT_RESAMPLES,
                    seed: int = DEFAULT_SEED) -> Comparison:
    """The full comparison, in the form gates read (its document rides along)."""
    return comparison_from_document(build_comparison(base, head, judgments=judgments,
                                                     resamples=resamples, seed=seed))
