"""Numbers as the renderings show them: four decimals, a sign on deltas, a dash when missing."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.lenient import number


def fmt(value: float | None) -> str:
    figure = number(value)
    return "—" if figure is None else f"{figure:.4f}"


def fmt_delta(value: float | None) -> str:
    figure = number(value)
    if figure is None:
        return "—"
    return "±0.0000" if round(figure, 4) == 0 else f"{figure:+.4f}"


def fmt_p(value: float | None) -> str:
    figure = number(value)
    if figure is None:
        return "—"
    return f"{figure:.4f}" if figure >= 0.0001 else "<0.0001"


def fmt_bound(value: float | None) -> str:
    """An interval's end as a signed number: ``+0.0000`` for an end at exactly zero, because
    ``±`` would say the end sits on both sides of zero (``-0.0`` reads as zero too)."""
    figure = number(value)
    return "—" if figure is None else f"{figure + 0.0:+.4f}"


def fmt_interval(ci: Sequence[float | None] | None) -> str:
    """A report's interval (a JSON list) or a comparison's (a pair), as ``[low, high]``."""
    if not isinstance(ci, (list, tuple)) or len(ci) != 2:
        return "—"
    return f"[{fmt_bound(ci[0])}, {fmt_bound(ci[1])}]"
