"""Geometry of the HTML report's SVG charts: numbers only, drawn by the template.

A horizontal bar chart gives each stratum its own row, so names never
collide however many strata there are or however long their names: the
chart grows downwards. Every metric charted lies in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .escape import shorten

ROW = 24  # pixels per stratum
LABEL_WIDTH = 230  # the names' column
PLOT_WIDTH = 420  # 0 to 1
VALUE_WIDTH = 150  # value and delta, right of the plot
TOP = 28  # room for the axis ticks
LABEL_CHARS = 32  # a longer name is cut in the chart (the title and the table hold it whole)
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Bar:
    name: str  # whole, for the tooltip
    label: str  # as drawn
    y: float
    width: float  # of the head's bar
    base_x: float | None  # where the base's mark goes
    value: str
    delta: str
    tone: str  # "down", "up" or "" for the delta's colour


@dataclass(frozen=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot_x: int
    plot_width: int
    row: int
    top: int
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]


@dataclass(frozen=True)
class StratumPoint:
    name: str
    head: float | None
    base: float | None
    value: str
    delta: str
    delta_value: float | None


def stratum_chart(points: Sequence[StratumPoint]) -> Chart | None:
    """One row per stratum with a head value; None when there is none to chart."""
    charted = [p for p in points if p.head is not None]
    if not charted:
        return None
    bars = tuple(_bar(i, point) for i, point in enumerate(charted))
    ticks = tuple(Tick(LABEL_WIDTH + t * PLOT_WIDTH, f"{t:g}") for t in TICKS)
    return Chart(
        width=LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH,
        height=TOP + ROW * len(bars) + 8,
        plot_x=LABEL_WIDTH,
        plot_width=PLOT_WIDTH,
        row=ROW,
        top=TOP,
        bars=bars,
        ticks=ticks,
    )


def _bar(index: int, point: StratumPoint) -> Bar:
    delta = point.delta_value
    return Bar(
        name=point.name,
        label=shorten(point.name, LABEL_CHARS),
        y=TOP + index * ROW,
        width=round(_unit(point.head) * PLOT_WIDTH, 1),
        base_x=None if point.base is None else round(LABEL_WIDTH + _unit(point.base) * PLOT_WIDTH, 1),
        value=point.value,
        delta=point.delta,
        tone="" if delta is None or round(delta, 4) == 0 else ("down" if delta < 0 else "up"),
    )


def _unit(value: float | None) -> float:
    return min(max(value or 0.0, 0.0), 1.0)
