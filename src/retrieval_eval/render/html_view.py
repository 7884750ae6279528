"""The HTML page's view: what ``report.html.j2`` reads, as records. A module of its own so that
the page's Jinja side (:mod:`.html_page`) and its builder (:mod:`.html`) both read it without
importing each other."""

from __future__ import annotations

from dataclasses import dataclass

from .charts import Chart, StratumPoint
from .machine import MachineView
from .power import PowerView
from .unjudged import UnjudgedView
from .view import EvalSetLine, ScoredView


@dataclass(frozen=True, slots=True)
class PageVerdict:
    status: str
    tone: str  # the status in lower case: the CSS class that colours it
    headline: str
    note: str


@dataclass(frozen=True, slots=True)
class PageGate:
    expression: str
    status: str
    tone: str
    reason: str


@dataclass(frozen=True, slots=True)
class PageMetric:
    name: str
    primary: bool
    base: str
    head: str
    head_value: float | None
    delta: str
    delta_value: float | None
    interval: str
    p: str
    p_value: float | None
    significant: bool
    gate: str  # "pass", "fail", "indeterminate" or ""


@dataclass(frozen=True, slots=True)
class PageStratum:
    point: StratumPoint
    n: int | str  # "—" when neither side counts it
    base: str


@dataclass(frozen=True, slots=True)
class PageStrata:
    rows: tuple[PageStratum, ...]
    chart: Chart | None
    worst: str | None


@dataclass(frozen=True, slots=True)
class PageFinding:
    effect: str
    detail: str
    meaning: str


@dataclass(frozen=True, slots=True)
class PageDrift:
    counts: tuple[tuple[str, int], ...]
    stale: bool
    sentence: str
    changes: tuple[str, ...]
    repair_command: str | None
    recoverable: int
    needs_person: int


@dataclass(frozen=True, slots=True)
class PageMargin:
    """One metric's margin over the floor; ``significant`` when its interval excludes 0."""

    name: str
    floor: str
    head: str
    margin: str
    margin_value: float | None
    interval: str
    significant: bool
    gate: str


@dataclass(frozen=True, slots=True)
class PageFloorStratum(PageMargin):
    """A stratum's margin on the primary metric: ``name`` is the stratum's, ``n`` its queries."""

    n: int


@dataclass(frozen=True, slots=True)
class PageFloor:
    source: str
    unavailable: str | None
    rows: tuple[PageMargin, ...]
    strata: tuple[PageFloorStratum, ...]


@dataclass(frozen=True, slots=True)
class PageEvalSet:
    rows: tuple[EvalSetLine, ...]
    skipped: str | None


@dataclass(frozen=True, slots=True)
class PageMover:
    query_id: str
    query: str
    stratum: str
    base: str
    head: str
    delta: str
    tone: str


@dataclass(frozen=True, slots=True)
class PageMovers:
    metric: str
    drops: tuple[PageMover, ...]
    gains: tuple[PageMover, ...]
    down: int
    up: int


@dataclass(frozen=True, slots=True)
class PageQueryMetric:
    name: str
    base: str
    head: str
    delta: str
    tone: str


@dataclass(frozen=True, slots=True)
class PageEntry:
    """One key at one rank of one side."""

    key: str
    label: str
    tone: str
    text: str
    other_rank: int | None  # its rank on the other side, None when it is not there


@dataclass(frozen=True, slots=True)
class PageRank:
    rank: int
    base: PageEntry | None
    head: PageEntry | None


@dataclass(frozen=True, slots=True)
class PageQuery:
    id: str
    text: str
    stratum: str
    base: str
    head: str
    head_value: float | None
    delta: str
    delta_value: float | None
    tone: str
    metrics: tuple[PageQueryMetric, ...]
    ranks: tuple[PageRank, ...]
    open: bool


@dataclass(frozen=True, slots=True)
class PageQueries:
    rows: tuple[PageQuery, ...]
    total: int
    left_out: int
    k: int
    order: str
    has_base: bool
    base_rankings: bool
    old_ids: bool
    judgments_given: bool
    corpus_given: bool


@dataclass(frozen=True, slots=True)
class PageView:
    """What ``report.html.j2`` sees. ``style`` and ``script`` are ours, the only strings taken as markup."""

    csp: str
    style: str
    script: str
    has_base: bool
    primary: str
    verdict: PageVerdict
    scored: ScoredView
    sections: tuple[str, ...]
    gates: tuple[PageGate, ...]
    machine_labels: MachineView | None
    unjudged: UnjudgedView | None
    power: PowerView
    reasons: tuple[str, ...]
    metrics: tuple[PageMetric, ...]
    significance: str | None
    floor: PageFloor | None
    eval_set: PageEvalSet
    movers: PageMovers
    strata: PageStrata
    comparability: tuple[PageFinding, ...]
    drift: PageDrift | None
    queries: PageQueries
    footer: str
