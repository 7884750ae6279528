"""Fitting GitHub's size limits by leaving out whole sections, in a fixed order.

GitHub refuses a comment over 65,536 characters and truncates a job summary
over 1 MiB. When a rendering is over, the view is reduced one step at a time
(least informative first) and drawn again; each step keeps every table
whole and adds a note saying what was left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # The view is only annotated here: the package's __init__ imports the limits below, and the
    # score command (which imports the package for its terminal output) never builds a view.
    from .view import View

COMMENT_LIMIT = 65_536  # characters, GitHub's limit for a comment body
SUMMARY_LIMIT = 1 << 20  # bytes, GitHub's limit for one step's summary

# A step gives the view shortened and says what it left out, or None when it had nothing to cut.
if TYPE_CHECKING:
    Reduction = Callable[[View], tuple[View, str] | None]


def _keep_movers(count: int) -> Reduction:
    def reduce(view: View) -> tuple[View, str] | None:
        movers = view.movers
        if len(movers.drops) <= count and len(movers.gains) <= count:
            return None
        shorter = replace(movers, drops=movers.drops[:count], gains=movers.gains[:count])
        return replace(view, movers=shorter), f"movers shortened to {count} each way" if count else "movers"

    return reduce


def _keep_strata(count: int) -> Reduction:
    """Keep the first ``count`` strata (they come in order of interest)."""

    def reduce(view: View) -> tuple[View, str] | None:
        rows = view.strata.rows
        if len(rows) <= count:
            return None
        return replace(view, strata=replace(view.strata, rows=rows[:count])), _shortened("strata", count, len(rows))

    return reduce


def _keep_eval_set(count: int) -> Reduction:
    def reduce(view: View) -> tuple[View, str] | None:
        rows = view.eval_set.rows
        if len(rows) <= count:
            return None
        return replace(view, eval_set=replace(view.eval_set, rows=rows[:count])), _shortened(
            "eval_set", count, len(rows)
        )

    return reduce


def _keep_reasons(count: int) -> Reduction:
    def reduce(view: View) -> tuple[View, str] | None:
        rows = view.reasons.rows
        if len(rows) <= count:
            return None
        return replace(view, reasons=replace(view.reasons, rows=rows[:count])), _shortened("reasons", count, len(rows))

    return reduce


def _keep_comparability(count: int) -> Reduction:
    def reduce(view: View) -> tuple[View, str] | None:
        rows = view.comparability.rows
        if len(rows) <= count:
            return None
        shorter = replace(view.comparability, rows=rows[:count])
        return replace(view, comparability=shorter), _shortened("comparability", count, len(rows))

    return reduce


def _shortened(section: str, count: int, total: int) -> str:
    return f"{section} shortened to the first {count} of {total}"


def _few_confounds(view: View) -> tuple[View, str] | None:
    """The warning above the table names at most three changes of yardstick."""
    if len(view.confounds) <= 3:
        return None
    return replace(view, confounds=view.confounds[:3]), "all but three of the confounding changes in the warning"


def _only_confounds(view: View) -> tuple[View, str] | None:
    rows = view.comparability.rows
    kept = tuple(row for row in rows if row.confounds)
    if len(kept) == len(rows):
        return None
    shorter = replace(view.comparability, rows=kept)
    return replace(view, comparability=shorter), "comparability notes that change no number"


def _gated_metrics_only(view: View) -> tuple[View, str] | None:
    metrics = view.metrics
    kept = tuple(row for row in metrics.rows if row.primary or row.gate)
    if len(kept) == len(metrics.rows):
        return None
    shorter = replace(metrics, rows=kept, hidden=metrics.total - len(kept))
    return replace(view, metrics=shorter), "metrics that are neither primary nor gated"


def _drop_history(view: View) -> tuple[View, str] | None:
    if not view.history:
        return None
    return replace(view, history=None), "the history on the base branch"


def _drop_gates(view: View) -> tuple[View, str] | None:
    if not view.gates:
        return None
    return replace(view, gates=()), "the gate list (gate marks stay in the metric table)"


def _floor_strata(view: View) -> tuple[View, str] | None:
    if not view.floor.strata:
        return None
    return replace(view, floor=replace(view.floor, strata=())), "the margin over the floor per stratum"


# Fixed order: least informative first. Each step keeps every table whole.
REDUCTIONS: tuple[Reduction, ...] = (
    _keep_movers(3),
    _keep_strata(10),
    _floor_strata,
    _keep_eval_set(10),
    _keep_reasons(10),
    _only_confounds,
    _keep_comparability(5),
    _few_confounds,
    _keep_movers(0),
    _drop_history,
    _keep_strata(0),
    _gated_metrics_only,
    _drop_gates,
    _keep_reasons(0),
)


@dataclass(frozen=True)
class Budget:
    """GitHub's limit for one kind, in the unit GitHub counts it in."""

    limit: int
    measure: Callable[[str], int]
    unit: str


BUDGETS = {
    "comment": Budget(COMMENT_LIMIT, len, "characters"),
    "summary": Budget(SUMMARY_LIMIT, lambda text: len(text.encode("utf-8")), "bytes"),
}


def fit(view: View, draw: Callable[[View], str], budget: Budget) -> str:
    """Render, and while over budget shorten or drop the next section in the fixed order."""
    text = draw(view)
    for reduce in REDUCTIONS:
        if budget.measure(text) <= budget.limit:
            return text
        reduced = reduce(view)
        if reduced is not None:
            shorter, left_out = reduced
            view = replace(shorter, omitted=(*shorter.omitted, left_out))
            text = draw(view)
    if budget.measure(text) <= budget.limit:
        return text
    return last_resort(view, budget)


def last_resort(view: View, budget: Budget) -> str:
    """When even the shortest rendering is over budget: the verdict line and where to look."""
    verdict = view.verdict
    marker = view.marker + "\n" if view.kind == "comment" else ""
    return (
        f"{marker}### {verdict.icon} retrieval-eval · {verdict.status}"
        f"{' · ' + verdict.note if verdict.note else ''}\n\n"
        f"The full {view.kind} is over GitHub's limit of {budget.limit:,} {budget.unit}; "
        "see the report file for every number.\n"
    )
