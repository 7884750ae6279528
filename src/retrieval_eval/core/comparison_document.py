"""The comparison document as typed records: what ``compare`` writes and ``render`` reads back.

Built by :mod:`retrieval_eval.comparison`, written and read as JSON by
:mod:`retrieval_eval.formats.comparison` only (after ``formats.shapes.COMPARISON`` accepted it).
A part that a comparison read from a file may lack (one made by an older version, or by hand)
is None here and left out when written; a value the document states as null is None inside a
part that is there. Fields marked ``inline`` are groups of keys written into their parent's
object, not objects of their own: a group is there or not as a whole (a stratum's test exists
only when its queries are paired).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .power import Moved

# A field whose record's keys are written into the parent object (see the module's note).
INLINE = {"inline": True}


@dataclass(frozen=True)
class Tool:
    name: str | None = None
    version: str | None = None


@dataclass(frozen=True)
class SideSummary:
    """What identifies one side; anything but a string in its report is recorded as unknown (None)."""

    generated_at: str | None = None
    tool_version: str | None = None
    judgments_sha256: str | None = None
    run_sha256: str | None = None
    query_set_sha256: str | None = None
    corpus_fingerprint: str | None = None
    verdict: str | None = None


# The codes of findings read outside the comparison that finds them (the gates, the renderings).
ID_SPACE_CHANGED = "id-space-changed"
DOCUMENTS_REMOVED = "documents-removed"
QUERIES_DROPPED = "queries-dropped"
LABELS_LOWERED = "labels-lowered"
# Documents left the corpus, but labels were taken from queries beyond what they can account for.
REMOVAL_UNEXPLAINED = "removal-unexplained"
NO_PAIRED_QUERIES = "no-paired-queries"


def named_queries(queries: Sequence[str], shown: int = 5) -> str:
    """The first ``shown`` query ids, and how many more there are."""
    named = ", ".join(queries[:shown])
    return named + (f" and {len(queries) - shown} more" if len(queries) > shown else "")


@dataclass(frozen=True)
class Finding:
    """What differs between the two reports (``detail``) and what it does to the deltas (``meaning``)."""

    code: str
    effect: str = ""
    detail: str = ""
    meaning: str = ""
    metrics: tuple[str, ...] = ()  # the metrics it confounds; empty means all, when it confounds


@dataclass(frozen=True)
class SignificanceMethod:
    """How significance was computed (a part a file may lack is None)."""

    name: str | None = None
    resamples: int | None = None
    seed: int | None = None
    draws: str | None = None
    confidence: float | None = None
    interval: str | None = None
    p_value: str | None = None
    adjustment: str | None = None  # None in a comparison made before Holm's adjustment
    strata: str | None = None
    paired_queries: int | None = None


@dataclass(frozen=True)
class PowerDesign:
    """How each ``mde`` was computed."""

    power: float | None = None
    alpha: float | None = None
    method: str | None = None
    formula: str | None = None
    sd_diff: str | None = None
    base_proxy: str | None = None


@dataclass(frozen=True)
class QueryCounts:
    paired: int | None = None
    added: tuple[str, ...] | None = None
    removed: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Holm:
    """Holm's adjustment over the rows tested beside this one; None each where the row has no test."""

    p_adjusted: float | None = None
    significant_adjusted: bool | None = None


@dataclass(frozen=True)
class RowPower:
    """What the paired queries detect and how they moved; None each where there is nothing to pair."""

    sd_diff: float | None = None
    mde: float | None = None
    mde_source: str | None = None
    moved: Moved | None = None


@dataclass(frozen=True)
class StratumTest:
    """A paired stratum's bootstrap: its interval and significance (None each without one)."""

    ci: tuple[float, float] | None = None
    p_value: float | None = None
    significant: bool | None = None


@dataclass(frozen=True)
class MetricRow:
    """One metric's base, head and delta, with its interval and significance."""

    base: float | None = None
    head: float | None = None
    delta: float | None = None
    n: int | None = None
    ci: tuple[float, float] | None = None
    p_value: float | None = None
    significant: bool | None = None
    confounded: str | None = None
    holm: Holm | None = field(default=None, metadata=INLINE)
    bounds: tuple[float, float] | None = None  # the delta's least and most favourable values
    unjudged: int | None = None  # unjudged keys in the metric's top k, both sides (with judgments)
    power: RowPower | None = field(default=None, metadata=INLINE)


@dataclass(frozen=True)
class StratumRow:
    """One stratum's primary metric: paired (with a test) when membership is known, else as reported."""

    n: int | None = None
    base: float | None = None
    head: float | None = None
    delta: float | None = None
    test: StratumTest | None = field(default=None, metadata=INLINE)
    holm: Holm | None = field(default=None, metadata=INLINE)
    power: RowPower | None = field(default=None, metadata=INLINE)


@dataclass(frozen=True)
class Mover:
    query_id: str
    query: str | None = None
    stratum: str | None = None
    base: float | None = None  # a file's movers always have the three numbers (the shape requires them)
    head: float | None = None
    delta: float | None = None


@dataclass(frozen=True)
class Movers:
    """The paired queries that moved most on the primary metric, both ways."""

    metric: str | None = None
    down: int | None = None
    up: int | None = None
    unchanged: int | None = None
    drops: tuple[Mover, ...] | None = None
    gains: tuple[Mover, ...] | None = None


@dataclass(frozen=True)
class ComparisonDocument:
    """A head report against a base report: every part ``compare`` writes."""

    kind: str
    version: int
    base: SideSummary
    head: SideSummary
    metrics: Mapping[str, MetricRow]
    tool: Tool | None = None
    primary: str | None = None
    yardstick: str | None = None
    comparable: bool | None = None
    comparability: tuple[Finding, ...] | None = None
    significance: SignificanceMethod | None = None
    power: PowerDesign | None = None
    queries: QueryCounts | None = None
    per_stratum: Mapping[str, StratumRow] | None = None
    movers: Movers | None = None

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.comparability or ()

    @property
    def strata(self) -> Mapping[str, StratumRow]:
        return self.per_stratum or {}
