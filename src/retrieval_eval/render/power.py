"""What the set can detect, as the renderings say it: one line per delta gate, and the effect sizes.

Read from the report (each delta gate's ``detectable``) and the comparison (each metric's
``mde`` and ``moved``), leniently: a report or comparison made before these fields existed
draws nothing here. The view (for the ``power`` template block) is escaped like every other;
the terminal's lines (``terminal.power_lines``) are cleaned of control characters there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..core.gates import gate_metric
from ..core.lenient import integer, items, mapping, number, primary_metric, section
from .escape import escape_markdown, escape_name
from .numbers import fmt_delta, fmt_interval


def detectable_sentence(gate: Mapping[str, Any], name: str) -> str | None:
    """``with 120 queries this set detects drops of recall@5 of 0.038 or more (80% power, 5% level); ...``."""
    seen = mapping(gate.get("detectable"))
    mde, n, tolerance = number(seen.get("mde")), integer(seen.get("n")), number(seen.get("tolerance"))
    power, alpha = number(seen.get("power")), number(seen.get("alpha"))
    if mde is None or n is None or tolerance is None or power is None or alpha is None:
        return None
    direction = seen.get("direction") if seen.get("direction") in DIRECTIONS else "changes"
    text = f"with {n} queries this set detects {direction} of {name} of {mde:.3f} or more "
    text += f"({power:.0%} power, {alpha:.0%} level)"
    needed = integer(seen.get("needed"))
    if seen.get("seen") is True:
        return f"{text}: a breach of {tolerance:g} would be seen"
    if needed is not None:
        return f"{text}; about {needed} queries are needed to see {tolerance:g}"
    return text


DIRECTIONS = ("drops", "gains", "changes")


def detectable_gates(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [g for g in map(mapping, items(section(report, "verdict").get("gates"))) if g.get("detectable")]


def power_view(
    report: Mapping[str, Any], comparison: Mapping[str, Any] | None, *, markdown: bool = True
) -> dict[str, Any]:
    """The ``power`` block's data: ``gates`` (one line per delta gate) and ``effects``.

    ``markdown``: user strings escaped for Markdown; False leaves them for an autoescaping
    HTML template (which must not show Markdown's backslashes), cut to the same lengths.
    """
    name: Callable[[Any], str] = escape_name if markdown else _plain_name
    text: Callable[[Any], str] = (lambda v: escape_markdown(v, limit=200)) if markdown else _plain_text
    gates = []
    for gate in detectable_gates(report):
        sentence = detectable_sentence(gate, name(gate_metric(str(gate.get("expression", "")))))
        if sentence is not None:
            gates.append({"expression": text(gate.get("expression", "")), "line": sentence})
    return {
        "gates": gates,
        "effects": effect_rows(report, comparison, name),
        "strata": stratum_reach(comparison, text),
        "metric": name(mapping(comparison).get("primary") or primary_metric(report)),
    }


def stratum_reach(comparison: Mapping[str, Any] | None, text: Callable[[Any], str]) -> str | None:
    """``faq 0.272 (14 queries), billing 0.216 (13 queries)``: each paired stratum's detectable effect."""
    parts = []
    for name, row in section(comparison, "per_stratum").items():
        mde, n = number(mapping(row).get("mde")), integer(mapping(row).get("n"))
        if mde is not None and n is not None:
            parts.append(f"{text(name)} {mde:.3f} ({n} queries)")
    return ", ".join(parts) or None


def _plain_name(value: Any) -> str:
    return str(value)[:60]


def _plain_text(value: Any) -> str:
    return str(value)[:200]


def effect_rows(
    report: Mapping[str, Any], comparison: Mapping[str, Any] | None, name: Callable[[Any], str] = escape_name
) -> list[dict[str, str]]:
    """The primary and the delta-gated metrics: the change, its interval, and the share of queries
    that improved, tied and worsened (on a large set a tiny change is significant; this says its size)."""
    rows = section(comparison, "metrics")
    wanted = [primary_metric(report), *(gate_metric(str(g.get("expression", ""))) for g in detectable_gates(report))]
    found = []
    for metric in dict.fromkeys(wanted):
        row = mapping(rows.get(metric))
        moved = mapping(row.get("moved"))
        counts = [integer(moved.get(k)) for k in ("improved", "tied", "worsened")]
        total = sum(c for c in counts if c is not None)
        if not total or any(c is None for c in counts):
            continue
        improved, tied, worsened = (f"{(c or 0) / total:.0%}" for c in counts)
        mde = number(row.get("mde"))
        found.append(
            {
                "metric": name(metric),
                "delta": fmt_delta(row.get("delta")),
                "interval": fmt_interval(row.get("ci")),
                "mde": "—" if mde is None else f"{mde:.3f}",
                "shares": f"{improved} of queries improved, {tied} tied, {worsened} worsened",
            }
        )
    return found


def comparison_power_lines(comparison: Mapping[str, Any], clean: Callable[[Any], str]) -> list[str]:
    """For ``compare``'s text: each metric's detectable effect and how its paired queries moved."""
    design = section(comparison, "power")
    power, alpha = number(design.get("power")), number(design.get("alpha"))
    rows = []
    for name, row in section(comparison, "metrics").items():
        mde, moved = number(mapping(row).get("mde")), mapping(mapping(row).get("moved"))
        if mde is None:
            continue
        counts = " ".join(f"{integer(moved.get(k)) or 0} {k}" for k in ("improved", "tied", "worsened"))
        rows.append(f"  {clean(name):<16}{mde:>8.4f}   {counts}")
    if not rows or power is None or alpha is None:
        return []
    return [f"detectable effect ({power:.0%} power, {alpha:.0%} level) and queries moved", *rows]
