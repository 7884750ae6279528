"""Scoring: judgments + run -> per-query values, averages and per-stratum averages.

Policy, written down because every choice here changes a number:
- a query is *scored* when it has at least one label at or above the
  threshold; the others are listed in ``without_positives`` and left out of
  every average (recall, MRR, AP and nDCG are undefined for them);
- a scored query missing from the run scores 0 on every metric and is listed
  in ``missing_from_run`` (the denominator is fixed by the judgments, not by
  what the retriever chose to answer);
- run queries with no judgment are ignored and listed in ``unjudged``;
- a key repeated in a ranking counts once, at its first position; the
  queries where that happened are listed in ``with_duplicates``;
- averages are arithmetic means over scored queries, summed with math.fsum
  so they do not depend on query order;
- a query marked no_answer is measured on abstaining only: it is left out of
  the ranking metrics and listed in ``no_answer``; a query *abstains* when
  its ranking is empty or it is absent from the run (no score threshold);
  ``abstention_rate`` is the share of no-answer queries that abstain, and
  ``false_abstention_rate`` the share of scored queries that do;
- per-query values are kept rounded to 12 decimals, as the report prints
  them; averages are taken over the unrounded values;
- every metric's lower and upper bound (see :mod:`.metrics`) is kept beside
  it, per query only for the queries whose ranking holds an unjudged key; the
  mean's bounds are the extremes over labelings of the mean over the queries
  each labeling makes scored: a query with no relevant label yet but an
  unjudged key in the top k joins the mean under the labelings that make one of
  its keys relevant, so each bound takes in those that move it furthest;
- under the ``condensed`` policy the unjudged keys are removed from each
  ranking before it is cut and scored (Sakai's condensed lists,
  trec_eval's ``-J``).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from .errors import UsageError
from .labelindex import LabelIndex
from .metrics import (
    ABSTENTION_RATE,
    DEFAULT_CUTOFFS,
    FALSE_ABSTENTION_RATE,
    FULL,
    GAINS,
    RankedQuery,
    ValuesOnDemand,
    bounds_query,
    gain_function,
    is_positive_decimal,
    metric_names,
    primary_metric_at,
    score_query,
)
from .precision import DECIMALS
from .runs import Run

ALL = "all"  # the cutoff list's word for the whole ranking: full-depth ndcg, map and mrr
# The unjudged policy (the setting ``unjudged``): what scoring and gates make of unjudged keys.
UnjudgedPolicy = Literal["assume-irrelevant", "bounded", "condensed"]
ASSUME_IRRELEVANT: UnjudgedPolicy = "assume-irrelevant"
BOUNDED: UnjudgedPolicy = "bounded"
CONDENSED: UnjudgedPolicy = "condensed"
UNJUDGED_POLICIES: tuple[UnjudgedPolicy, ...] = (ASSUME_IRRELEVANT, BOUNDED, CONDENSED)


def unjudged_policy_named(name: str) -> UnjudgedPolicy:
    """The unjudged policy spelled ``name``; a UsageError for any other word."""
    for policy in UNJUDGED_POLICIES:
        if name == policy:
            return policy
    raise UsageError(f"unjudged must be one of {', '.join(UNJUDGED_POLICIES)}")


# The measures computed only when something reads them, as a report's ``computed``
# names them: "bounds" are the lower and upper bounds (metrics' ``lower`` and ``upper``, the
# per-stratum ones, ``per_query_lower`` and ``per_query_upper``).
BOUNDS = "bounds"
OPTIONAL_MEASURES = (BOUNDS,)


def parse_cutoffs(text: str) -> tuple[int, ...]:
    """``"5,10,20"`` -> (5, 10, 20), repeats dropped; ValueError for anything else."""
    parts = [part.strip() for part in text.split(",")]
    if not all(is_positive_decimal(part) for part in parts):
        raise ValueError("cutoffs must be positive whole numbers")
    return tuple(dict.fromkeys(int(part) for part in parts))


def parse_cutoff_list(text: str) -> tuple[tuple[int, ...], bool]:
    """``"10,all"`` -> ((10,), True): the cutoffs, and whether full-depth metrics were asked for."""
    parts = [part.strip() for part in text.split(",")]
    full = ALL in parts
    numbers = [part for part in parts if part != ALL]
    return (parse_cutoffs(",".join(numbers)) if numbers else ()), full


@dataclass(frozen=True)
class ScoreConfig:
    k: tuple[int, ...] = DEFAULT_CUTOFFS
    threshold: int = 1
    gain: str = "exponential"
    full_depth: bool = False  # -k all: ndcg, map and mrr over the whole ranking, which is kept whole
    unjudged_policy: UnjudgedPolicy = ASSUME_IRRELEVANT
    # Each metric's lower and upper bound over labelings of the unjudged keys, per query and
    # as means (see core/metrics.py). Scoring alone computes them; the pipeline turns them
    # off when nothing reads them (pipeline/evaluate.py: ``needs_bounds``), since they cost
    # about a fifth of ``score``. :attr:`computed` says which were computed.
    bounds: bool = True

    def __post_init__(self) -> None:
        if not (self.k or self.full_depth) or any(
            isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in self.k
        ):
            raise UsageError("k must be one or more positive integers, or all, e.g. -k 5,10 or -k 10,all")
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, int) or self.threshold < 1:
            raise UsageError("threshold must be a positive integer (the lowest relevant grade)")
        if self.gain not in GAINS:
            raise UsageError(f"gain must be one of {', '.join(GAINS)}")
        if self.unjudged_policy not in UNJUDGED_POLICIES:
            raise UsageError(f"unjudged must be one of {', '.join(UNJUDGED_POLICIES)}")

    @property
    def max_k(self) -> int:
        """The deepest cutoff; the whole ranking (FULL) with -k all."""
        return FULL if self.full_depth else max(self.k)

    @property
    def read_depth(self) -> int | None:
        """The depth a run is read to at least; None when whole rankings are needed
        (-k all, or condensed lists, whose unjudged keys go before the cut)."""
        return None if self.full_depth or self.condensed else self.max_k

    @property
    def condensed(self) -> bool:
        return self.unjudged_policy == CONDENSED

    @property
    def primary(self) -> str:
        """The metric a one-number summary uses: recall at the first cutoff given (map with -k all alone)."""
        return primary_metric_at(self.k) if self.k else "map"

    @property
    def computed(self) -> list[str]:
        """The optional measures this configuration computes (:data:`OPTIONAL_MEASURES`), as a
        report's ``computed`` lists them (beside ``config``, not in it: what was computed is
        no policy, so two reports that differ only there still chart and compare as one)."""
        return [BOUNDS] if self.bounds else []


@dataclass(frozen=True, slots=True)
class QueryLabels:
    """Everything scoring needs to know about one judged query.

    ``grades`` is shared with the label index, not copied; ``ideal`` holds
    the largest label gains, largest first, as deep as the deepest cutoff
    (nDCG reads no further, and a million-label set keeps no more floats).
    """

    grades: dict[str, int]
    n_relevant: int
    ideal: tuple[float, ...]
    stratum: str | None
    no_answer: bool = False
    n_nonrelevant: int = 0  # labels below the threshold, grade 0 included (bpref reads it)


def index_judgments(index: LabelIndex, config: ScoreConfig) -> dict[str, QueryLabels]:
    """Group labels by query. A key labeled twice keeps its highest grade.

    (Two labels for one key make the set unsound; ``validate`` says so and the
    verdict turns INDETERMINATE, so this choice only has to be deterministic.)
    """
    gain_of = gain_table(config.gain, index)
    depth = config.max_k
    threshold = config.threshold
    indexed: dict[str, QueryLabels] = {}
    at_least = threshold.__le__
    gain = gain_of.__getitem__
    for query_id, query in index.queries.items():
        grades = query.grades
        values = grades.values()
        n_relevant = sum(map(at_least, values))
        ideal = sorted(map(gain, filter(None, values)), reverse=True)[:depth]  # grades are >= 0
        indexed[query_id] = QueryLabels(
            grades, n_relevant, tuple(ideal), query.stratum, query.no_answer, len(grades) - n_relevant
        )
    return indexed


def gain_table(gain: str, index: LabelIndex) -> dict[int, float]:
    """The gain of every grade in use, computed once, so equal gains share one float."""
    function = gain_function(gain)
    used: set[int] = set()
    for query in index.queries.values():
        used.update(query.grades.values())
    return {grade: function(grade) for grade in used}


def rank_query(
    labels: QueryLabels, ranking: list[str], gain_of: dict[int, float], threshold: int, flip_gain: float = 1.0
) -> RankedQuery:
    grade_of = labels.grades.get
    grades = [grade_of(key, -1) for key in ranking]  # -1: no label
    return RankedQuery(
        gains=[gain_of.get(g, 0.0) for g in grades],
        relevant=[g >= threshold for g in grades],
        ideal=labels.ideal,
        n_relevant=labels.n_relevant,
        judged=[g >= 0 for g in grades],
        n_nonrelevant=labels.n_nonrelevant,
        flip_gain=flip_gain,
    )


def condense(labels: QueryLabels, ranking: list[str]) -> list[str]:
    """The ranking without its unjudged keys (a key labeled 0 is judged and stays)."""
    grades = labels.grades
    return [key for key in ranking if key in grades]


@dataclass(frozen=True)
class StratumScores:
    n: int
    queries: int
    metrics: dict[str, float]
    upper: dict[str, float] = field(default_factory=dict)
    lower: dict[str, float] = field(default_factory=dict)


@dataclass
class Scores:
    """What scoring found. ``per_query`` values are rounded to ``DECIMALS``; ``metrics``
    and the strata's averages are means of the unrounded values."""

    config: ScoreConfig
    queries: int
    labels: int
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    rankings: dict[str, list[str]] = field(default_factory=dict)
    strata: dict[str, StratumScores] = field(default_factory=dict)
    without_positives: list[str] = field(default_factory=list)
    missing_from_run: list[str] = field(default_factory=list)
    with_duplicates: list[str] = field(default_factory=list)
    unjudged: list[str] = field(default_factory=list)
    no_answer: list[str] = field(default_factory=list)  # queries marked no_answer, measured on abstaining only
    abstained: list[str] = field(default_factory=list)  # no-answer queries with an empty or absent ranking
    false_abstentions: list[str] = field(default_factory=list)  # scored queries with an empty or absent ranking
    upper: dict[str, float] = field(default_factory=dict)  # each metric's mean upper bound
    lower: dict[str, float] = field(default_factory=dict)  # each metric's mean lower bound
    per_query_lower: dict[str, dict[str, float]] = field(default_factory=dict)  # queries with an unjudged key
    per_query_upper: dict[str, dict[str, float]] = field(default_factory=dict)  # queries with an unjudged key
    unjudged_keys: dict[str, int] = field(default_factory=dict)  # cutoff ("10", "all") -> unjudged keys in the top k

    @property
    def scored(self) -> list[str]:
        return sorted(self.per_query)

    def abstention(self) -> dict[str, tuple[float, int]]:
        """(value, queries it is over) of each abstention metric; none unless a query is marked no_answer."""
        if not self.no_answer:
            return {}
        rates = {ABSTENTION_RATE: (len(self.abstained) / len(self.no_answer), len(self.no_answer))}
        if self.per_query:
            rates[FALSE_ABSTENTION_RATE] = (len(self.false_abstentions) / len(self.per_query), len(self.per_query))
        return rates

    def worst_stratum(self) -> Worst | None:
        """The scored stratum lowest on the primary metric; ties go to the first name."""
        metric = self.config.primary
        scored = [(s.metrics[metric], name) for name, s in self.strata.items() if s.n > 0]
        if not scored:
            return None
        value, name = min(scored)
        return Worst(metric, name, value)


class Worst(NamedTuple):
    """The stratum lowest on ``metric``, and its unrounded value there."""

    metric: str
    name: str
    value: float


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return math.fsum(values) / len(values)


class Columns:
    """Each metric's unrounded per-query values, eight bytes a value: what averages read.

    Keeping them here rather than in per-query dicts lets the per-query
    values be stored once, rounded as reported.
    """

    def __init__(self, names: list[str]) -> None:
        self.values: dict[str, array[float]] = {name: array("d") for name in names}
        self.position: dict[str, int] = {}

    def add(self, query_id: str, row: Mapping[str, float]) -> None:
        """Add a query's values, or replace them when it was added before. Averages are
        summed exactly, so the order queries come in changes nothing."""
        position = self.position.get(query_id)
        if position is None:
            self.position[query_id] = len(self.position)
            for name, value in row.items():
                self.values[name].append(value)
        else:
            for name, value in row.items():
                self.values[name][position] = value

    def means(self, query_ids: Iterable[str] | None = None) -> dict[str, float]:
        """Means over the given scored queries (all of them by default); {} when none."""
        if query_ids is None:
            return {name: mean(column) for name, column in self.values.items()} if self.position else {}
        rows = [self.position[q] for q in query_ids]
        if not rows:
            return {}
        return {name: mean(column[row] for row in rows) for name, column in self.values.items()}


# Most per-query values come from a small set (0.0, 0.1, 1/rank, hits/R...). The pool
# maps each such value to its rounded float, so it is rounded once (round() to 12
# decimals is the costly step) and one float object serves every query. It stops
# growing past this size, so values that never repeat (nDCG, AP) cannot make it large.
POOL_LIMIT = 1 << 14


def rounded(values: Mapping[str, float], pool: dict[float, float] | None = None) -> dict[str, float]:
    """Values rounded to ``DECIMALS``; with a ``pool``, equal values share one float."""
    if pool is None:
        return {name: round(value, DECIMALS) for name, value in values.items()}
    result = {}
    for name, value in values.items():
        if value == 0.0:  # 0.0 and -0.0 are equal keys but print differently; both round to themselves
            result[name] = value
            continue
        shared = pool.get(value)
        if shared is None:
            shared = round(value, DECIMALS)
            if len(pool) < POOL_LIMIT:
                pool[value] = shared
        result[name] = shared
    return result


def depth_for(labels: QueryLabels | None, config: ScoreConfig) -> int:
    """How much of a ranking to read: what scoring keeps, or all of it when the unjudged
    keys are to be removed first (condensed)."""
    return FULL if config.condensed else kept_depth(labels, config)


def kept_depth(labels: QueryLabels | None, config: ScoreConfig) -> int:
    """How much of a ranking to keep: max(k), or R when R-precision needs more."""
    return max(config.max_k, labels.n_relevant if labels else 0)


class HeadScorer:
    """Scores one query's head at a time, so a run read by ranges is scored as it arrives.

    The values go straight into :attr:`columns` (eight bytes each) and the
    reported, rounded ones are kept beside the head list they came from;
    :func:`score_rankings` takes them only for that very list (the same
    object), so a head cut or replaced afterwards is simply scored again.
    """

    def __init__(self, index: LabelIndex, indexed: Mapping[str, QueryLabels], config: ScoreConfig) -> None:
        self.indexed = indexed
        self.gain_of = gain_table(config.gain, index)
        self.threshold = config.threshold
        self.flip_gain = gain_function(config.gain)(config.threshold)
        self.ks = config.k
        self.full_depth = config.full_depth
        self.condensed = config.condensed
        self.bounds = config.bounds
        names = metric_names(config.k, config.full_depth)
        self.columns = Columns(names)
        self.upper_columns = Columns(names)
        self.lower_columns = Columns(names)
        self.uppers: dict[str, dict[str, float]] = {}
        self.lowers: dict[str, dict[str, float]] = {}
        # Scored queries whose ranking kept holds an unjudged key: how many in each top k, then in all of it.
        self.unjudged_counts: dict[str, list[int]] = {}
        self.pool: dict[float, float] = {}
        self.early: dict[str, tuple[list[str], dict[str, float]]] = {}

    def score_head(self, query_id: str, head: list[str]) -> None:
        """Score a head as soon as it is read (a query with nothing to find is not scored;
        a head still to be condensed is scored once condensed)."""
        labels = self.indexed.get(query_id)
        if labels is not None and labels.n_relevant and not labels.no_answer and not self.condensed:
            self.early[query_id] = (head, self._score(query_id, labels, head))

    def scored(self, query_id: str, labels: QueryLabels, ranking: list[str]) -> dict[str, float]:
        """One query's values as reported; its exact values are in :attr:`columns`."""
        known = self.early.pop(query_id, None)
        if known is not None and known[0] is ranking:
            return known[1]
        return self._score(query_id, labels, ranking)

    def _score(self, query_id: str, labels: QueryLabels, ranking: list[str]) -> dict[str, float]:
        query = rank_query(labels, ranking, self.gain_of, self.threshold, self.flip_gain)
        values = score_query(query, self.ks, self.full_depth)
        self.columns.add(query_id, values)
        if all(query.judged):
            self.unjudged_counts.pop(query_id, None)
        else:  # the unjudged keys in the top k, read off the flags scoring already made
            judged = query.judged
            counts = [min(k, len(judged)) - sum(judged[:k]) for k in self.ks]
            counts.append(len(judged) - sum(judged))
            self.unjudged_counts[query_id] = counts
        if not self.bounds:
            return rounded(values, self.pool)
        bounds = bounds_query(query, values, self.ks, self.full_depth)
        self.upper_columns.add(query_id, values if bounds is None else {**values, **bounds.upper})
        self.lower_columns.add(query_id, values if bounds is None else {**values, **bounds.lower})
        if bounds is None:
            self.uppers.pop(query_id, None)
            self.lowers.pop(query_id, None)
        else:
            self.uppers[query_id] = rounded(bounds.upper, self.pool)
            self.lowers[query_id] = rounded(bounds.lower, self.pool)
        return rounded(values, self.pool)

    def unscored_bounds(self, labels: QueryLabels, ranking: list[str]) -> dict[str, tuple[float, float]]:
        """A query with no relevant label yet: each metric's (lowest, highest) over the labelings
        that make it scored, for the metrics with an unjudged key in their top k."""
        if self.condensed or not self.bounds:
            return {}  # its unjudged keys are removed before scoring: labeling them changes nothing here
        query = rank_query(labels, ranking, self.gain_of, self.threshold, self.flip_gain)
        bounds = bounds_query(query, None, self.ks, self.full_depth)
        return {} if bounds is None else {m: (bounds.lower[m], bounds.upper[m]) for m in bounds.upper}


def score_rankings(
    index: LabelIndex,
    rankings: Mapping[str, list[str]],
    config: ScoreConfig,
    *,
    indexed: dict[str, QueryLabels] | None = None,
    scorer: HeadScorer | None = None,
) -> Scores:
    """Score deduplicated rankings (judged queries only) against the judgments.

    ``scorer`` may hold values already computed for some of these very
    rankings (see :class:`HeadScorer`).
    """
    indexed = indexed if indexed is not None else index_judgments(index, config)
    scorer = scorer if scorer is not None else HeadScorer(index, indexed, config)
    scores = Scores(config, queries=len(indexed), labels=index.labels)
    columns = scorer.columns
    unscored: dict[str, dict[str, tuple[float, float]]] = {}  # queries a labeling could make scored
    cutoff_names = [*map(str, config.k), ALL]  # the unjudged keys' cutoffs, in the scorer's order
    unjudged_keys = scores.unjudged_keys
    for query_id in sorted(indexed):
        labels = indexed[query_id]
        if labels.no_answer:
            scores.no_answer.append(query_id)
            if not rankings.get(query_id):
                scores.abstained.append(query_id)
            continue
        if labels.n_relevant == 0:
            scores.without_positives.append(query_id)
            reachable = scorer.unscored_bounds(labels, (rankings.get(query_id) or [])[: kept_depth(labels, config)])
            if reachable:
                unscored[query_id] = reachable
            continue
        ranking = rankings.get(query_id)
        if ranking is None:
            scores.missing_from_run.append(query_id)
            ranking = []
        if not ranking:
            scores.false_abstentions.append(query_id)
        if config.condensed:
            ranking = condense(labels, ranking)
        depth = kept_depth(labels, config)
        if len(ranking) > depth:
            ranking = ranking[:depth]
        scores.rankings[query_id] = ranking
        scores.per_query[query_id] = scorer.scored(query_id, labels, ranking)
        counts = scorer.unjudged_counts.get(query_id)
        if counts is not None:
            if config.bounds:
                scores.per_query_upper[query_id] = scorer.uppers[query_id]
                scores.per_query_lower[query_id] = scorer.lowers[query_id]
            for position, cutoff in enumerate(cutoff_names):
                unjudged_keys[cutoff] = unjudged_keys.get(cutoff, 0) + counts[position]
    scores.metrics = columns.means()
    if config.bounds:
        scores.lower, scores.upper = mean_bounds(scorer, None, unscored)
    scores.strata = stratum_scores(indexed, columns, config.primary, scorer, unscored)
    return scores


def per_query_bounds(
    index: LabelIndex,
    rankings: Mapping[str, list[str]],
    config: ScoreConfig,
    *,
    indexed: Mapping[str, QueryLabels] | None = None,
    known: dict[tuple[str, tuple[str, ...]], QueryRowBounds | None] | None = None,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """The ``per_query_lower`` and ``per_query_upper`` that :func:`score_rankings` with bounds
    would give for the queries of ``rankings``, and nothing else.

    The same queries (scored ones whose kept ranking holds an unjudged key), the same
    values and order, made without the averages, the strata or the values' columns: what
    a comparison reads from a report that left its bounds out.

    ``known`` remembers each (query, kept ranking)'s bounds across calls with the same
    index and configuration: a query's bounds read nothing but its labels, the
    configuration and its kept ranking, so a ranking the other side kept alike (a
    change leaves most queries' rankings as they were) is not scored twice.
    """
    indexed = indexed if indexed is not None else index_judgments(index, config)
    gain_of = gain_table(config.gain, index)
    threshold = config.threshold
    flip_gain = gain_function(config.gain)(threshold)
    ks, full_depth = config.k, config.full_depth
    lowers: dict[str, dict[str, float]] = {}
    uppers: dict[str, dict[str, float]] = {}
    pool: dict[float, float] = {}
    for query_id in sorted(rankings):
        labels = indexed.get(query_id)
        if labels is None or labels.no_answer or labels.n_relevant == 0:
            continue  # not scored: score_rankings keeps no per-query bound for it
        ranking = rankings[query_id]
        if config.condensed:
            ranking = condense(labels, ranking)
        depth = kept_depth(labels, config)
        if len(ranking) > depth:
            ranking = ranking[:depth]
        key = (query_id, tuple(ranking))
        if known is not None and key in known:
            rows = known[key]
        else:
            rows = _row_bounds(rank_query(labels, ranking, gain_of, threshold, flip_gain), ks, full_depth, pool)
            if known is not None:
                known[key] = rows
        if rows is not None:
            lowers[query_id], uppers[query_id] = rows
    return lowers, uppers


QueryRowBounds = tuple[dict[str, float], dict[str, float]]  # one query's lower and upper bounds, rounded


def _row_bounds(
    query: RankedQuery, ks: tuple[int, ...], full_depth: bool, pool: dict[float, float]
) -> QueryRowBounds | None:
    """One query's rounded lower and upper bounds, or None when its kept ranking is all judged."""
    if all(query.judged):
        return None
    bounds = bounds_query(query, ValuesOnDemand(query, ks, full_depth), ks, full_depth)
    if bounds is None:
        return None
    return rounded(bounds.lower, pool), rounded(bounds.upper, pool)


def mean_bounds(
    scorer: HeadScorer, query_ids: list[str] | None, unscored: Mapping[str, Mapping[str, tuple[float, float]]]
) -> tuple[dict[str, float], dict[str, float]]:
    """Each metric's mean at its lowest and highest over labelings, over the given scored
    queries (all by default) and the unscored ones a labeling could add (``unscored``)."""
    lower = scorer.lower_columns.means(query_ids)
    upper = scorer.upper_columns.means(query_ids)
    n = len(scorer.columns.position) if query_ids is None else len(query_ids)
    for metric in upper:
        reachable = [bounds[metric] for bounds in unscored.values() if metric in bounds]
        if reachable:
            lower[metric] = _extreme_mean(lower[metric], n, [low for low, _ in reachable], highest=False)
            upper[metric] = _extreme_mean(upper[metric], n, [high for _, high in reachable], highest=True)
    return lower, upper


def _extreme_mean(mean_value: float, n: int, extra: list[float], *, highest: bool) -> float:
    """The highest (or lowest) mean reachable by adding any of ``extra`` to n values of this
    mean: adding a value helps exactly when it lies beyond the mean reached so far, so the
    best choice takes the values from the most extreme inwards while they do."""
    total = mean_value * n
    for value in sorted(extra, reverse=highest):
        if (value > total / n) if highest else (value < total / n):
            total += value
            n += 1
        else:
            break
    return total / n


def stratum_scores(
    indexed: Mapping[str, QueryLabels],
    columns: Columns,
    primary: str,
    scorer: HeadScorer | None = None,
    unscored: Mapping[str, Mapping[str, tuple[float, float]]] | None = None,
) -> dict[str, StratumScores]:
    """Averages per stratum, worst first on the primary metric, then by name.

    Names sort by Unicode code point (Python's own order), never by locale, so
    the order is the same on every machine. Strata with nothing scored follow,
    by name.
    """
    members: dict[str, list[str]] = {}
    for query_id, labels in indexed.items():
        if labels.stratum is not None:
            members.setdefault(labels.stratum, []).append(query_id)
    result: dict[str, StratumScores] = {}
    for name, query_ids in members.items():
        scored = [q for q in query_ids if q in columns.position]
        lowers: dict[str, float] = {}
        uppers: dict[str, float] = {}
        if scorer is not None and scorer.bounds and scored:
            reachable = {q: b for q, b in (unscored or {}).items() if q in query_ids}
            lowers, uppers = mean_bounds(scorer, scored, reachable)
        result[name] = StratumScores(len(scored), len(query_ids), columns.means(scored), uppers, lowers)
    scored_names = sorted((s.metrics[primary], n) for n, s in result.items() if s.n > 0)
    unscored_names = sorted(n for n, s in result.items() if s.n == 0)
    return {name: result[name] for name in [n for _, n in scored_names] + unscored_names}


def score(index: LabelIndex, run: Run, config: ScoreConfig) -> Scores:
    """Score a parsed run; run-level findings (duplicates, unjudged) are carried over."""
    return with_run_findings(score_rankings(index, run.rankings, config), run)


def with_run_findings(scores: Scores, run: Run) -> Scores:
    scores.with_duplicates = list(run.with_duplicates)
    scores.unjudged = list(run.unjudged)
    return scores
