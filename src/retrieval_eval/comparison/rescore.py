"""Scoring the base rankings again under the head's judgments and configuration.

When the yardstick changed, the head's numbers cannot be repeated on the
old one (the old judgments are gone), but the base report keeps its
rankings, so the base can be measured on the new one. This is the only part
of the comparison that scores, and it loads scoring only when it runs: a
comparison of two reports on one yardstick never needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.errors import UsageError
from ..core.lenient import cutoffs, full_depth, section, unjudged_policy
from ..core.metrics import is_positive_decimal
from ..core.scoring import ScoreConfig, index_judgments, score_rankings
from .sides import PerQuery, Sides


def score_config(report: Mapping[str, Any]) -> ScoreConfig | None:
    """The report's configuration as a ScoreConfig, or None when it is not one we can score with."""

    config = section(report, "config")
    try:
        return ScoreConfig(
            k=tuple(cutoffs(report)),
            threshold=config.get("threshold"),  # type: ignore[arg-type]
            gain=config.get("gain"),  # type: ignore[arg-type]
            full_depth=full_depth(report),
            unjudged=unjudged_policy(report),
        )
    except UsageError:
        return None


def rescore_blocker(sides: Sides) -> str | None:
    """Why the base rankings cannot be scored again under the head's yardstick, or None."""
    if sides.judgments is None:
        return "the head's judgments file was not given (pass --judgments, the file the head report was scored with)"
    if not isinstance(sides.base.get("rankings"), Mapping):
        return "the base report does not carry its rankings, so they cannot be scored again"
    if score_config(sides.head) is None:
        return "the head report does not record a configuration (cutoffs, threshold, gain) to score with"
    return None


def rescore_base(sides: Sides) -> tuple[PerQuery, dict[str, str], PerQuery, PerQuery]:
    """The base rankings scored under the head judgments and configuration.

    Returns per-query values, for metrics the stored rankings are too short
    to score again why, and the per-query upper and lower bounds (queries with an
    unjudged key only). Callers check ``rescore_blocker`` first.
    """

    config = score_config(sides.head)
    assert sides.judgments is not None and config is not None  # what rescore_blocker checked
    rankings = {
        str(q): [str(key) for key in keys] for q, keys in sides.base["rankings"].items() if isinstance(keys, list)
    }
    indexed = index_judgments(sides.judgments, config)
    scores = score_rankings(sides.judgments, rankings, config, indexed=indexed)
    # A query the base report kept no ranking for was never scored there (it had no positive
    # label then): scoring it now would count the missing ranking as misses. It is left to
    # the head side, where it shows as added.
    per_query = {q: row for q, row in scores.per_query.items() if q in rankings}  # rounded by scoring
    base_depth = max(cutoffs(sides.base), default=0)
    needs = {q: labels.n_relevant for q, labels in indexed.items()}
    upper = {q: row for q, row in scores.per_query_upper.items() if q in rankings}
    lower = {q: row for q, row in scores.per_query_lower.items() if q in rankings}
    return per_query, shallow_metrics(list(scores.metrics), rankings, needs, base_depth=base_depth), upper, lower


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
            reasons[name] = f"the base report kept its rankings to depth {base_depth}, too short to score {name} again"
    cut = [q for q, keys in rankings.items() if len(keys) >= base_depth and relevant.get(q, 0) > len(keys)]
    if "r_precision" in names and cut:
        reasons["r_precision"] = (
            f"{len(cut)} base ranking(s) may have been cut above rank R, so r_precision cannot be scored again"
        )
    return reasons


def _cutoff(metric: str) -> int | None:
    _, sep, cutoff = metric.partition("@")
    return int(cutoff) if sep and is_positive_decimal(cutoff) else None
