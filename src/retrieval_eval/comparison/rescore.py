"""Scoring the base rankings again under the head's judgments and configuration.

When the yardstick changed, the head's numbers cannot be repeated on the
old one (the old judgments are gone), but the base report keeps its
rankings, so the base can be measured on the new one. This is the only part
of the comparison that scores, and it loads scoring only when it runs: a
comparison of two reports on one yardstick never needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core.errors import UsageError
from ..core.metrics import FULL, is_positive_decimal, metric_names
from ..core.report_model import Report
from ..core.scoring import CONDENSED, ScoreConfig, condense, index_judgments, score_rankings, unjudged_policy_named
from .sides import PerQuery, Sides, as_table, per_query


def score_config(report: Report) -> ScoreConfig | None:
    """The report's configuration as a ScoreConfig, or None when it is not one we can score with."""
    config = report.config
    if config is None or config.threshold is None or config.gain is None:
        return None
    try:
        return ScoreConfig(
            k=tuple(report.cutoffs()),
            threshold=config.threshold,
            gain=config.gain,
            full_depth=report.full_depth(),
            unjudged_policy=unjudged_policy_named(report.unjudged_policy()),
        )
    except UsageError:
        return None


def rescore_blocker(sides: Sides) -> str | None:
    """Why the base rankings cannot be scored again under the head's yardstick, or None."""
    if sides.judgments is None:
        return "the head's judgments file was not given (pass --judgments, the file the head report was scored with)"
    if sides.base.rankings is None:
        return "the base report does not carry its rankings, so they cannot be scored again"
    if score_config(sides.head) is None:
        return "the head report does not record a configuration (cutoffs, threshold, gain) to score with"
    return None


def rescore_base(
    sides: Sides, rankings: Mapping[str, list[str]] | None = None
) -> tuple[PerQuery, dict[str, str], PerQuery, PerQuery]:
    """The base rankings (or ``rankings``: the base's, in the head's ids) scored under the
    head judgments and configuration.

    Returns per-query values, for metrics the stored rankings are too short
    to score again why, and the per-query upper and lower bounds (queries with an
    unjudged key only). Callers check ``rescore_blocker`` first.
    """

    config = score_config(sides.head)
    assert sides.judgments is not None and config is not None  # what rescore_blocker checked
    # What the base report stored decides which rankings may have been cut; ``rankings`` (a
    # translation into the head's ids) is what gets scored.
    stored = {q: list(keys) for q, keys in (sides.base.rankings or {}).items()}
    if rankings is None:
        rankings = stored
    indexed = index_judgments(sides.judgments, config)
    reused = head_values(sides, rankings, config)
    # The head's own values stand for every base ranking that is the head's very list.
    to_score = {q: labels for q, labels in indexed.items() if q not in reused.per_query}
    scores = score_rankings(sides.judgments, rankings, config, indexed=to_score)
    # A query the base report kept no ranking for was never scored there (it had no positive
    # label then): scoring it now would count the missing ranking as misses. It is left to
    # the head side, where it shows as added.
    per_query = {
        q: row for q, row in {**scores.per_query, **reused.per_query}.items() if q in rankings
    }  # rounded by scoring
    base_depth = FULL if sides.base.full_depth() else max(sides.base.cutoffs(), default=0)
    needs = {q: labels.n_relevant for q, labels in indexed.items()}
    if config.condensed:  # what a condensed list keeps of each stored ranking
        rankings = {q: condense(indexed[q], keys) if q in indexed else keys for q, keys in rankings.items()}
    upper = {q: row for q, row in {**scores.per_query_upper, **reused.upper}.items() if q in rankings}
    lower = {q: row for q, row in {**scores.per_query_lower, **reused.lower}.items() if q in rankings}
    # Scoring names every metric once a query is scored; the reused ones were scored in the head.
    names = list(scores.metrics) or (metric_names(config.k, config.full_depth) if reused.per_query else [])
    shallow = shallow_metrics(names, stored, needs, base_depth=base_depth, kept=rankings)
    if sides.base.unjudged_policy() == CONDENSED and not config.condensed:
        reason = "the base report kept condensed rankings (its unjudged keys removed), too few keys to score again"
        shallow = {name: reason for name in scores.metrics}
    return per_query, shallow, upper, lower


@dataclass(frozen=True)
class Reused:
    """The head report's values of the queries whose base ranking is the head's very list."""

    per_query: PerQuery
    upper: PerQuery
    lower: PerQuery


def head_values(sides: Sides, rankings: Mapping[str, list[str]], config: ScoreConfig) -> Reused:
    """What scoring the base rankings would give, read from the head report where it must be the same.

    Scoring a query reads its labels, the configuration and its kept ranking, nothing else:
    with the head's judgments and configuration (rescoring's yardstick), a base ranking equal to
    the head's kept one scores to the head's values and bounds, as the head report holds them
    (rounded by the same scoring). Not reused: a condensed policy (the kept list is
    condensed from a longer one), a head report without its bounds tables (made before they
    existed), or a query the head did not score.
    """
    head = sides.head
    kept, values = head.rankings, per_query(head)
    if config.condensed or kept is None or values is None:
        return Reused({}, {}, {})
    if head.per_query_upper is None or head.per_query_lower is None:
        return Reused({}, {}, {})
    upper, lower = as_table(head.per_query_upper) or {}, as_table(head.per_query_lower) or {}
    same = [
        q for q, keys in rankings.items() if q in values and tuple(keys) == kept.get(q) and (q in upper) == (q in lower)
    ]
    return Reused(
        {q: values[q] for q in same},
        {q: upper[q] for q in same if q in upper},
        {q: lower[q] for q in same if q in lower},
    )


def shallow_metrics(
    names: Sequence[str],
    rankings: Mapping[str, list[str]],
    relevant: Mapping[str, int],
    *,
    base_depth: int,
    kept: Mapping[str, list[str]] | None = None,
) -> dict[str, str]:
    """Metrics whose depth the stored base rankings may not reach.

    A base report keeps each ranking to its own largest cutoff (deeper only
    when R-precision needed it; whole with ``-k all``). A stored ranking shorter
    than that is whole; one at least that long may have been cut. A metric is
    answerable when every ranking that may have been cut still holds as many
    keys as it reads once rescoring has ``kept`` what it scores (a condensed list
    drops the unjudged keys, so a cut ranking condenses to fewer): its cutoff,
    and for a full-depth metric (no cutoff) the whole ranking, which a cut one
    never is. Otherwise the cut would count as misses.
    """
    kept = kept if kept is not None else rankings
    cut = {q: len(kept.get(q, keys)) for q, keys in rankings.items() if len(keys) >= base_depth}
    reasons = {}
    for name in names:
        cutoff = _cutoff(name)
        if name == "r_precision":
            short = [q for q, length in cut.items() if relevant.get(q, 0) > length]
            if short:
                cut_above = f"{len(short)} base ranking(s) may have been cut above rank R"
                reasons[name] = f"{cut_above}, so r_precision cannot be scored again"
            continue
        short = [q for q, length in cut.items() if cutoff is None or length < cutoff]
        if short:
            depth = f"depth {base_depth}" if base_depth != FULL else "their own depth"
            reasons[name] = (
                f"the base report kept its rankings to {depth}, too short to score {name} again "
                f"({len(short)} ranking(s) may have been cut above what it reads)"
            )
    return reasons


def _cutoff(metric: str) -> int | None:
    _, sep, cutoff = metric.partition("@")
    return int(cutoff) if sep and is_positive_decimal(cutoff) else None
