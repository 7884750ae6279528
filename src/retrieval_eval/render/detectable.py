"""What each delta gate's queries can detect, in words: the sentences every rendering shares.

Kept apart from :mod:`.power` (the Markdown and HTML views) so that the terminal, on the
score command's path, draws them without loading the Markdown escaping (about 1 ms).
Reads the report's ``verdict.gates[].detectable`` and the comparison's rows leniently.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.comparison_document import ComparisonDocument
from ..core.lenient import number
from ..core.power import Moved
from ..core.report_model import Detectable, GateEntry, Report

# Every metric lies in [0, 1], so no change is larger than 1: a detectable effect past it (a
# stratum of three noisy queries) means this set sees no change at all, and says so.
WHOLE_RANGE = 1.0


def detectable_text(mde: float, digits: int) -> str:
    """``0.038``; ``none (> 1)`` when even the largest possible change would go unseen."""
    return "none (> 1)" if mde > WHOLE_RANGE else f"{mde:.{digits}f}"


def detectable_sentence(gate: GateEntry, name: str) -> str | None:
    """``with 120 queries this set detects drops of recall@5 of 0.038 or more (80% power, 5% level); ...``."""
    seen = gate.detectable or Detectable()
    mde, n, tolerance, power, alpha = seen.mde, seen.n, seen.tolerance, seen.power, seen.alpha
    if mde is None or n is None or tolerance is None or power is None or alpha is None:
        return None
    direction = seen.direction if seen.direction in DIRECTIONS else "changes"
    if mde > WHOLE_RANGE:
        text = f"with {n} queries this set detects no {direction} of {name} at all: the smallest it could "
        text += f"see, {mde:.3f}, is more than the metric's whole range ({power:.0%} power, {alpha:.0%} level)"
    else:
        text = f"with {n} queries this set detects {direction} of {name} of {mde:.3f} or more "
        text += f"({power:.0%} power, {alpha:.0%} level)"
    needed = seen.needed
    if seen.seen is True:
        return f"{text}: a change of {tolerance:g} would be told from none"
    if needed is not None:
        return f"{text}; about {needed} queries are needed to tell a change of {tolerance:g} from none"
    return text


DIRECTIONS = ("drops", "gains", "changes")


def detectable_gates(report: Report) -> list[GateEntry]:
    gates = report.verdict.gates if report.verdict is not None else None
    return [gate for gate in gates or () if gate.detectable is not None and gate.detectable != Detectable()]


def comparison_power_lines(comparison: ComparisonDocument, clean: Callable[[str], str]) -> list[str]:
    """For ``compare``'s text: each metric's detectable effect and how its paired queries moved."""
    design = comparison.power
    power = None if design is None else number(design.power)
    alpha = None if design is None else number(design.alpha)
    rows = []
    width = max([16, *(len(clean(name)) + 1 for name in comparison.metrics)])
    for name, row in comparison.metrics.items():
        if row.power is None:
            continue
        # No spread to state an effect from (docs/compare.md: "—"): the row still says how queries moved.
        mde = number(row.power.mde)
        moved = row.power.moved or Moved(0, 0, 0)
        if mde is None and not (moved.improved or moved.tied or moved.worsened):
            continue  # not paired at all (a cutoff on one side only): nothing to say
        counts = f"{moved.improved} improved {moved.tied} tied {moved.worsened} worsened"
        effect = "—" if mde is None else detectable_text(mde, 4)
        rows.append(f"  {clean(name):<{width}}{effect:>8}   {counts}")
    if not rows or power is None or alpha is None:
        return []
    return [f"detectable effect ({power:.0%} power, {alpha:.0%} level) and queries moved", *rows]
