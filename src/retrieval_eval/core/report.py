"""The report: one JSON document that any CI or dashboard can read.

It follows spec/report.schema.json and adds what a later comparison needs:
``config`` (cutoffs, threshold, gain), ``inputs`` (hashes of what was
scored), the query ids behind every count (``queries``), each scored query's
values (``per_query``), their upper bounds where a key was unjudged (``per_query_upper``),
the unjudged keys in the top k (``unjudged``) and each deduplicated ranking head (``rankings``).
Numbers are rounded to 12 decimals; everything but ``generated_at`` is a
function of the inputs. The report is built as the typed values of :mod:`.report_model`;
reading and writing one is :mod:`retrieval_eval.formats.report`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from .._version import __version__
from . import gates
from .labelindex import LabelIndex
from .precision import DECIMALS
from .report_model import (
    Collapse,
    Config,
    CorpusInfo,
    Detectable,
    Drift,
    Floor,
    GateEntry,
    Inputs,
    JudgmentsSummary,
    MachineLabels,
    Measurement,
    QueryLists,
    Report,
    Sensitivity,
    StratumEntry,
    Tool,
    Unjudged,
    ValidationSummary,
    VerdictSection,
    WorstStratum,
)
from .scoring import ALL, ScoreConfig, Scores
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


def measurement(value: float, n: int, upper: float | None = None, lower: float | None = None) -> Measurement:
    """A value over n queries; ``lower`` and ``upper``: its least and most favourable values
    over the labelings of the unjudged keys."""
    return Measurement(
        value=round(value, DECIMALS),
        lower=None if lower is None else round(lower, DECIMALS),
        upper=None if upper is None else round(upper, DECIMALS),
        n=n,
        deterministic=True,
    )


def _labels_summary(index: LabelIndex, scores: Scores, drift: Drift | None) -> JudgmentsSummary:
    fingerprints = index.fingerprints
    return JudgmentsSummary(
        queries=scores.queries,
        queries_scored=len(scores.per_query),
        labels=scores.labels,
        fingerprint=next(iter(fingerprints)) if len(fingerprints) == 1 else None,
        human_labels=index.human_labels,
        synthetic_labels=index.synthetic_labels,
        drift=drift,
    )


def _per_stratum(scores: Scores) -> dict[str, StratumEntry]:
    return {
        name: StratumEntry(
            n=stratum.n,
            queries=stratum.queries,
            metrics={
                m: measurement(v, stratum.n, stratum.upper.get(m), stratum.lower.get(m))
                for m, v in stratum.metrics.items()
            }
            or None,  # a stratum without a scored query has no metrics at all
        )
        for name, stratum in scores.strata.items()
    }


def _worst_stratum(scores: Scores) -> WorstStratum | None:
    worst = scores.worst_stratum()
    if worst is None:
        return None
    return WorstStratum(metric=worst.metric, name=worst.name, value=round(worst.value, DECIMALS))


@dataclass(frozen=True)
class ReportInputs:
    """Everything about the inputs a report records besides the scores."""

    judgments_sha256: str
    run_sha256: str | None
    generated_at: str
    corpus: CorpusInfo = field(default_factory=CorpusInfo)
    judged: Mapping[str, Measurement] = field(default_factory=dict)
    collapse: Collapse | None = None  # chunk rankings collapsed to documents
    floor: Floor | None = None
    sensitivity: Sensitivity | None = None
    drift: Drift | None = None  # judgments.drift, when the labels were checked against a corpus
    # Receipts: the exact bytes of the base report compared with, and of the floor run, hashed
    # (None: there was none), so reports committed on the base branch form a hash chain.
    baseline_sha256: str | None = None
    floor_sha256: str | None = None
    new_keys: int | None = None  # the unjudged keys new against the base's top k (None: no base)
    hit_documents: Mapping[str, Mapping[str, str]] | None = None  # see Report.hit_documents


def hit_documents(
    rankings: Mapping[str, Sequence[str]], index: LabelIndex, threshold: int, document_of: Callable[[str], str]
) -> dict[str, dict[str, str]]:
    """Per query, the rank of each key of its ranking the labels call relevant, and its document
    (``document_of``: "" where the corpus holds no such key); see ``Report.hit_documents``."""
    found: dict[str, dict[str, str]] = {}
    for query_id, ranking in rankings.items():
        labels = index.queries.get(query_id)
        if labels is None:
            continue
        grades = labels.grades
        hits = {str(rank): document_of(key) for rank, key in enumerate(ranking, 1) if grades.get(key, -1) >= threshold}
        if hits:
            found[query_id] = hits
    return found


def verdict_section(verdict: gates.Verdict) -> VerdictSection:
    return VerdictSection(
        status=verdict.status,
        reasons=tuple(verdict.reasons),
        gates=tuple(_gate_entry(gate) for gate in verdict.gates),
    )


def _gate_entry(result: gates.GateResult) -> GateEntry:
    seeing = result.detectable
    return GateEntry(
        expression=result.expression,
        status=result.status,
        observed=result.observed,
        baseline=result.baseline,
        reason=result.reason,
        detectable=None if seeing is None else _detectable(seeing),
    )


def _detectable(seeing: gates.Detectable) -> Detectable:
    return Detectable(
        metric=seeing.metric,
        n=seeing.n,
        mde=round(seeing.mde, DECIMALS),
        tolerance=round(seeing.tolerance, DECIMALS),
        needed=seeing.needed,
        power=seeing.power,
        alpha=seeing.alpha,
        seen=seeing.seen,
        direction=seeing.direction,
    )


def with_verdict(body: Report, verdict: gates.Verdict, *, machine_labels: MachineLabels | None = None) -> Report:
    """A new report: ``body`` with the verdict, and the sections decided with it (``machine_labels``)."""
    return replace(body, verdict=verdict_section(verdict), machine_labels=machine_labels)


def unjudged_section(scores: Scores, new_keys: int | None) -> Unjudged:
    """The unjudged keys in the top k of the scored queries, per cutoff (``all``: the rankings
    kept), and what the base adds (``new_keys``)."""
    cutoffs = [str(k) for k in scores.config.k] + ["all"]
    return Unjudged(keys={k: scores.unjudged_keys.get(k, 0) for k in cutoffs}, new_keys=new_keys)


def config_section(config: ScoreConfig) -> Config:
    cutoffs: tuple[int | str, ...] = (*config.k, ALL) if config.full_depth else tuple(config.k)
    return Config(k=cutoffs, threshold=config.threshold, gain=config.gain, unjudged=config.unjudged_policy)


def _query_lists(scores: Scores) -> QueryLists:
    abstaining = bool(scores.no_answer)  # the abstention lists only when some query expects no answer
    return QueryLists(
        scored=tuple(scores.scored),
        without_positives=tuple(scores.without_positives),
        missing_from_run=tuple(scores.missing_from_run),
        with_duplicates=tuple(scores.with_duplicates),
        unjudged=tuple(scores.unjudged),
        no_answer=tuple(scores.no_answer) if abstaining else None,
        abstained=tuple(scores.abstained) if abstaining else None,
        false_abstentions=tuple(scores.false_abstentions) if abstaining else None,
    )


def _metrics(scores: Scores, judged: Mapping[str, Measurement]) -> dict[str, Measurement]:
    n = len(scores.per_query)
    metrics = {
        name: measurement(value, n, scores.upper.get(name), scores.lower.get(name))
        for name, value in scores.metrics.items()
    }
    for name, (value, count) in scores.abstention().items():
        metrics[name] = measurement(value, count)
    metrics.update(judged)
    return metrics


def report_body(
    index: LabelIndex,
    scores: Scores,
    validation: Validation,
    inputs: ReportInputs,
) -> Report:
    """Everything a report says but the verdict: what a comparison with the base reads.

    The verdict depends on that comparison, so the body comes first and the report is
    assembled once the verdict is decided (:func:`with_verdict`), never patched.
    """
    return Report(
        spec_version="1",
        tool=Tool(name=TOOL_NAME, version=__version__),
        generated_at=inputs.generated_at,
        config=config_section(scores.config),
        computed=tuple(scores.config.computed),
        inputs=Inputs(
            judgments_sha256=inputs.judgments_sha256,
            run_sha256=inputs.run_sha256,
            query_set_sha256=index.query_set_sha256(),
            baseline_sha256=inputs.baseline_sha256,
            floor_sha256=inputs.floor_sha256,
        ),
        corpus=inputs.corpus,
        judgments=_labels_summary(index, scores, inputs.drift),
        metrics=_metrics(scores, inputs.judged),
        per_stratum=_per_stratum(scores) if scores.strata else None,
        worst_stratum=_worst_stratum(scores) if scores.strata else None,
        verdict=None,
        queries=_query_lists(scores),
        validation=ValidationSummary(
            ok=validation.ok, errors=tuple(validation.error_codes()), warnings=len(validation.warnings)
        ),
        unjudged=unjudged_section(scores, inputs.new_keys),
        collapse=inputs.collapse,
        floor=inputs.floor,
        sensitivity=inputs.sensitivity,
        per_query=dict(scores.per_query),  # scoring keeps them rounded to DECIMALS
        # Absent when not computed (``computed`` says so), never an empty claim.
        per_query_lower=dict(scores.per_query_lower) if scores.config.bounds else None,
        per_query_upper=dict(scores.per_query_upper) if scores.config.bounds else None,
        rankings={query: tuple(keys) for query, keys in scores.rankings.items()},
        hit_documents=inputs.hit_documents,
    )
