"""Fitting GitHub's size limits by leaving out whole sections, in a fixed order.

GitHub refuses a comment over 65,536 characters and truncates a job summary
over 1 MiB. When a rendering is over, the view is reduced one step at a time
(least informative first) and drawn again; each step keeps every table
whole and adds a note saying what was left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

COMMENT_LIMIT = 65_536  # characters, GitHub's limit for a comment body
SUMMARY_LIMIT = 1 << 20  # bytes, GitHub's limit for one step's summary

View = dict[str, Any]
# A step shortens the view in place and says what it left out, or returns None when it had nothing to cut.
Reduction = Callable[[View], str | None]


def _keep_rows(section: str, count: int) -> Reduction:
    """Keep the first ``count`` rows of a section (its rows come in order of interest)."""

    def reduce(view: View) -> str | None:
        rows = view[section]["rows"]
        if len(rows) <= count:
            return None
        view[section]["rows"] = rows[:count]
        return f"{section} shortened to the first {count} of {len(rows)}"

    return reduce


def _keep_movers(count: int) -> Reduction:
    def reduce(view: View) -> str | None:
        movers = view["movers"]
        if len(movers["drops"]) <= count and len(movers["gains"]) <= count:
            return None
        movers["drops"], movers["gains"] = movers["drops"][:count], movers["gains"][:count]
        return f"movers shortened to {count} each way" if count else "movers"

    return reduce


def _few_confounds(view: View) -> str | None:
    """The warning above the table names at most three changes of yardstick."""
    if len(view["confounds"]) <= 3:
        return None
    view["confounds"] = view["confounds"][:3]
    return "all but three of the confounding changes in the warning"


def _only_confounds(view: View) -> str | None:
    rows = view["comparability"]["rows"]
    kept = [row for row in rows if row["confounds"]]
    if len(kept) == len(rows):
        return None
    view["comparability"]["rows"] = kept
    return "comparability notes that change no number"


def _gated_metrics_only(view: View) -> str | None:
    rows = view["metrics"]["rows"]
    kept = [row for row in rows if row["primary"] or row["gate"]]
    if len(kept) == len(rows):
        return None
    view["metrics"]["rows"] = kept
    view["metrics"]["hidden"] = view["metrics"]["total"] - len(kept)
    return "metrics that are neither primary nor gated"


def _drop_history(view: View) -> str | None:
    if not view.get("history"):
        return None
    view["history"] = None
    return "the history on the base branch"


def _drop_gates(view: View) -> str | None:
    if not view["gates"]:
        return None
    view["gates"] = []
    return "the gate list (gate marks stay in the metric table)"


def _floor_strata(view: View) -> str | None:
    if not view["floor"]["strata"]:
        return None
    view["floor"]["strata"] = []
    return "the margin over the floor per stratum"


# Fixed order: least informative first. Each step keeps every table whole.
REDUCTIONS: tuple[Reduction, ...] = (
    _keep_movers(3),
    _keep_rows("strata", 10),
    _floor_strata,
    _keep_rows("eval_set", 10),
    _keep_rows("reasons", 10),
    _only_confounds,
    _keep_rows("comparability", 5),
    _few_confounds,
    _keep_movers(0),
    _drop_history,
    _keep_rows("strata", 0),
    _gated_metrics_only,
    _drop_gates,
    _keep_rows("reasons", 0),
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
        left_out = reduce(view)
        if left_out:
            view["omitted"].append(left_out)
            text = draw(view)
    if budget.measure(text) <= budget.limit:
        return text
    return last_resort(view, budget)


def last_resort(view: View, budget: Budget) -> str:
    """When even the shortest rendering is over budget: the verdict line and where to look."""
    verdict = view["verdict"]
    marker = view["marker"] + "\n" if view["kind"] == "comment" else ""
    return (
        f"{marker}### {verdict['icon']} retrieval-eval · {verdict['status']}"
        f"{' · ' + verdict['note'] if verdict.get('note') else ''}\n\n"
        f"The full {view['kind']} is over GitHub's limit of {budget.limit:,} {budget.unit}; "
        "see the report file for every number.\n"
    )
