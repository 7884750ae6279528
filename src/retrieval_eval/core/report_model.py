"""The report as typed, immutable values: what ``score`` writes and ``compare``/``render`` read.

Every section of the JSON document is a frozen dataclass here; only
:mod:`retrieval_eval.formats.report` turns one into JSON and back, so nothing between
reading and writing handles the report as a dict. The JSON follows the dataclasses:

- a key is a field's name, in the field's order (the order reports have always been written in);
- a field that is ``None`` is left out, unless it is declared :func:`nullable`: then it is
  written as ``null`` (``inputs.run_sha256``, say, is always there, null when unknown);
- fields are keyword-only, so they can stand in the JSON's order whether required or not;
- a JSON array is a tuple, a JSON object with free keys a ``Mapping``;
- ``Json`` marks the few values whose content is the producer's business (a floor's parameters,
  as a run's sidecar describes them).

Every field is optional, as the readers of reports have always had them: a report file is
checked against :data:`retrieval_eval.formats.shapes.REPORT` when read, but a spec-v1 report another
tool wrote (or an older one of ours) lacks what the spec does not require, and a report handed
over in memory (the library's, a test's) may lack anything; missing is ``None``, and the
formats layer reads such a report leniently (what does not fit the type is missing).
``tests/test_report_model.py`` holds the shape and these classes to each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias, Union

from .metrics import primary_metric_at

# A value whose content the report does not define (JSON of any shape).
Json: TypeAlias = Union[None, bool, int, float, str, tuple["Json", ...], Mapping[str, "Json"]]  # noqa: UP007 (a recursive alias is evaluated at import, where `|` cannot join a string)

# The field metadata key of :func:`nullable`: True, or the sibling field whose presence asks for the null.
NULL = "json_null"
# The field metadata key of :func:`others`.
OTHERS = "json_others"


def nullable(when: str | None = None) -> Any:
    """A field written as ``null`` when it is None (rather than left out); with ``when``, only
    when that sibling field is there (the corpus's chunker fingerprint: null for a corpus that
    has none, absent when no corpus was given)."""
    return field(default=None, metadata={NULL: when or True})


def others() -> Any:
    """A field holding the keys of its JSON object that the model does not name, written after the
    named ones as they were: what another version (or tool) records beside them."""
    return field(default=None, metadata={OTHERS: True})


@dataclass(frozen=True, slots=True, kw_only=True)
class Tool:
    name: str | None = None
    version: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    k: tuple[int | str, ...] | None = None  # cutoffs; "all" for the full-depth metrics
    threshold: int | None = None
    gain: str | None = None
    unjudged: str | None = None  # absent: assume-irrelevant (reports before the policy existed)
    # Any other entry is a policy too: a history breaks its line where one changes (comparison/history.py).
    others: Mapping[str, Json] | None = others()


@dataclass(frozen=True, slots=True, kw_only=True)
class Inputs:
    """Hashes of what was scored; the receipts name the base report's and the floor run's bytes."""

    judgments_sha256: str | None = nullable()
    run_sha256: str | None = nullable()
    query_set_sha256: str | None = nullable()
    baseline_sha256: str | None = nullable()
    floor_sha256: str | None = nullable()


@dataclass(frozen=True, slots=True, kw_only=True)
class CorpusInfo:
    fingerprint: str | None = nullable()
    chunker_fingerprint: str | None = nullable(when="documents")
    documents: int | None = None
    chunks: int | None = None
    sha256: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StaleLabel:
    line: int | None = None
    query_id: str | None = None
    status: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Drift:
    """``judgments.drift``: the labels checked against the corpus."""

    valid: int | None = None
    re_anchorable: int | None = None
    merged: int | None = None
    split: int | None = None
    orphaned: int | None = None
    # Of the split and orphaned: those no re-judge queue can hold (their document is gone).
    stranded: int | None = None
    invalid_ratio: float | None = None
    changes: tuple[str, ...] | None = None
    repair_command: str | None = None
    list_command: str | None = None
    stale: tuple[StaleLabel, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgmentsSummary:
    queries: int | None = None
    queries_scored: int | None = None
    labels: int | None = None
    fingerprint: str | None = nullable()
    human_labels: int | None = None
    synthetic_labels: int | None = None
    drift: Drift | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Measurement:
    """A value over ``n`` queries; ``lower``/``upper`` its least and most favourable values over the
    labelings of the unjudged keys; ``stdev``/``ci`` a judged metric's spread (not deterministic)."""

    value: float | None = None
    lower: float | None = None
    upper: float | None = None
    n: int | None = None
    stdev: float | None = None
    ci: tuple[float, ...] | None = None
    deterministic: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StratumEntry:
    n: int | None = None
    queries: int | None = None
    metrics: Mapping[str, Measurement] | None = None

    def measured(self, metric: str) -> float | None:
        return _value(self.metrics, metric)


@dataclass(frozen=True, slots=True, kw_only=True)
class WorstStratum:
    metric: str | None = None
    name: str | None = None
    value: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Detectable:
    """What a delta gate's paired queries can see (core/gates.py ``Detectable``, as written)."""

    metric: str | None = None
    n: int | None = None
    mde: float | None = None
    tolerance: float | None = None
    needed: int | None = nullable()
    power: float | None = None
    alpha: float | None = None
    seen: bool | None = None
    direction: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GateEntry:
    expression: str | None = None
    status: str | None = None
    observed: float | None = None
    baseline: float | None = None
    reason: str | None = None
    detectable: Detectable | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class VerdictSection:
    status: str | None = None
    reasons: tuple[str, ...] | None = None
    gates: tuple[GateEntry, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Calibration:
    """The judge's agreement with the human labels (``machine_labels.calibration``)."""

    status: str | None = None
    pairs: int | None = None
    kappa_binary: float | None = nullable()
    kappa_graded: float | None = nullable()
    zero_rate_human: float | None = nullable()
    zero_rate_judge: float | None = nullable()
    floor: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MachineGate:
    expression: str | None = None
    metric: str | None = None
    human_status: str | None = None
    status: str | None = None
    value: float | None = None
    bounds: tuple[float, ...] | None = None
    estimate: float | None = None
    interval: tuple[float, ...] | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MachineLabels:
    """What the machine-label policy decided, beside the verdict (pipeline/machine_policy.py)."""

    file_sha256: str | None = None
    calibration: Calibration | None = nullable()
    holes: int | None = None
    machine_labeled: int | None = None
    machine_labeled_share: float | None = nullable()
    invalidated: int | None = None
    human_labels_verdict: str | None = None
    gates: tuple[MachineGate, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class QueryLists:
    """The query ids behind every count; the last three only when some query is marked no_answer."""

    scored: tuple[str, ...] | None = None
    without_positives: tuple[str, ...] | None = None
    missing_from_run: tuple[str, ...] | None = None
    with_duplicates: tuple[str, ...] | None = None
    unjudged: tuple[str, ...] | None = None
    no_answer: tuple[str, ...] | None = None
    abstained: tuple[str, ...] | None = None
    false_abstentions: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ValidationSummary:
    ok: bool | None = None
    errors: tuple[str, ...] | None = None
    warnings: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Unjudged:
    keys: Mapping[str, int] | None = None  # cutoff ("10", "all") -> unjudged keys in the top k
    new_keys: int | None = None  # of those, not in the base's top k


@dataclass(frozen=True, slots=True, kw_only=True)
class CollapsedQuery:
    received: int | None = None
    documents: int | None = None
    collapsed: int | None = None
    unmapped: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Collapse:
    """Chunk rankings collapsed to documents (``--collapse-to-documents``)."""

    to: str | None = None
    received: int | None = None
    collapsed: int | None = None
    unmapped: int | None = None
    per_query: Mapping[str, CollapsedQuery] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Margin:
    """One metric over the floor: both values, the margin and its paired-bootstrap interval."""

    floor: float | None = None
    head: float | None = None
    margin: float | None = nullable()
    n: int | None = None
    ci: tuple[float, ...] | None = None
    p_value: float | None = None
    significant: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FloorStratum:
    n: int | None = None
    metrics: Mapping[str, Margin] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Significance:
    name: str | None = None
    resamples: int | None = None
    seed: int | None = None
    confidence: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Floor:
    """The margin over a floor run (core/floor.py); ``unavailable`` says why there is none."""

    source: str | None = None
    unavailable: str | None = None
    run_sha256: str | None = None
    method: Json = None  # these three as the floor run's sidecar describes it
    parameters: Json = None
    tokenizer: Json = None
    queries: int | None = None
    significance: Significance | None = None
    metrics: Mapping[str, Margin] | None = None
    per_stratum: Mapping[str, FloorStratum] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SensitivityThresholds:
    easy_set: float | None = nullable()
    answer_in_query: int | None = nullable()


@dataclass(frozen=True, slots=True, kw_only=True)
class SensitivityFloor:
    source: str | None = None
    method: Json = None
    parameters: Json = None
    run_sha256: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class HitRate:
    overall: float | None = nullable()
    per_stratum: Mapping[str, float] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SensitivityWarning:
    code: str | None = None
    severity: str | None = None
    subject: str | None = None
    message: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Sensitivity:
    """The eval-set checks (core/sensitivity.py): is the set too easy, do queries quote answers."""

    metric: str | None = None
    thresholds: SensitivityThresholds | None = None
    skipped: str | None = None
    floor: SensitivityFloor | None = None
    hit_rate: HitRate | None = None
    warnings: tuple[SensitivityWarning, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """One report, in the order its JSON is written."""

    spec_version: str | None = None
    tool: Tool | None = None
    generated_at: str | None = None
    config: Config | None = None
    # The optional measures computed (absent: reports made before they were optional); beside the
    # config, not in it: what was computed is no policy, so reports that differ there compare as one.
    computed: tuple[str, ...] | None = None
    inputs: Inputs | None = None
    corpus: CorpusInfo | None = None
    judgments: JudgmentsSummary | None = None
    metrics: Mapping[str, Measurement] | None = None
    per_stratum: Mapping[str, StratumEntry] | None = None
    worst_stratum: WorstStratum | None = None
    verdict: VerdictSection | None = None  # None also in the body compared before the verdict is decided
    machine_labels: MachineLabels | None = None  # decided with the verdict, so written beside it
    queries: QueryLists | None = None
    validation: ValidationSummary | None = None
    unjudged: Unjudged | None = None
    collapse: Collapse | None = None
    floor: Floor | None = None
    sensitivity: Sensitivity | None = None
    per_query: Mapping[str, Mapping[str, float]] | None = None
    per_query_lower: Mapping[str, Mapping[str, float]] | None = None
    per_query_upper: Mapping[str, Mapping[str, float]] | None = None
    rankings: Mapping[str, tuple[str, ...]] | None = None
    # Scored against a corpus: per query, the rank (from 1, as a string) of each key of its stored
    # ranking its own labels call relevant, and that key's document. A comparison tells from it
    # which hits a removal of documents took (comparison/removal.py); a query with no hit is absent.
    hit_documents: Mapping[str, Mapping[str, str]] | None = None

    # What readers ask of any report, ours or another tool's, whatever it lacks.

    def measured(self, metric: str) -> float | None:
        """The value the report gives ``metric``."""
        return _value(self.metrics, metric)

    def cutoffs(self) -> list[int]:
        """The cutoffs recorded, ignoring ``all`` (see :meth:`full_depth`) and anything not positive."""
        ks = self.config.k if self.config is not None and self.config.k is not None else ()
        return [k for k in ks if isinstance(k, int) and k > 0]

    def full_depth(self) -> bool:
        """Whether the cutoffs include ``all`` (full-depth ndcg, map and mrr)."""
        return self.config is not None and "all" in (self.config.k or ())

    def unjudged_policy(self) -> str:
        """The policy for unjudged keys it was scored under; a report that records none assumed irrelevance."""
        policy = self.config.unjudged if self.config is not None else None
        return policy if policy in ("assume-irrelevant", "bounded", "condensed") else "assume-irrelevant"

    def primary_metric(self) -> str:
        """The metric a one-number summary uses, as ``ScoreConfig.primary`` (the default cutoffs when
        the report records none; map when its only cutoff is ``all``)."""
        ks = self.cutoffs()
        if not ks and self.full_depth():
            return "map"
        return primary_metric_at(ks)

    def status(self) -> str | None:
        """The verdict's status, when there is one."""
        return self.verdict.status if self.verdict is not None else None


def _value(metrics: Mapping[str, Measurement] | None, metric: str) -> float | None:
    measurement = (metrics or {}).get(metric)
    return measurement.value if measurement is not None else None
