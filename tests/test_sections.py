"""Every rendering shows every section the report has: the summary, the terminal and the HTML page
are held to one list (render/sections.py), case by case, so a section cannot go missing from one.

The list itself is checked against what a report holds by construction (a case with drift has
a drift section, one with a floor a floor section, ...), not only against the renderers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from from_json import render, render_html, sections_of
from render_cases import CASES

# What marks each section in each rendering: a heading, a lead word, an element id.
SUMMARY = {
    "verdict": "retrieval-eval · ",
    "metrics": "### Metrics",
    "drift": "Label drift",
    "unjudged": "### Unjudged keys",
    "floor": "### Margin over the floor",
    "eval_set": ("This eval set may not tell retrievers apart", "> Note: the easy-set check"),
    "gates": "### Gates",
    "machine_labels": "### Machine labels",
    "strata": "### Strata",
    "movers": "### Movers on",
    "reasons": "### Reasons",
    "comparability": "### Comparability",
}
TERMINAL = {
    "verdict": "\nverdict  ",
    "metrics": "\nmetric ",
    "drift": "\nlabel drift\n",
    "unjudged": " fell from ",  # the terminal tells it among the reasons
    "floor": ("\nmargin over the floor (", "\nfloor  "),
    "eval_set": "\neval set\n",
    "gates": "\ngates\n",
    "machine_labels": "\nmachine labels\n",
    "strata": "\nstrata (",
    "movers": "\nqueries that moved: ",
    "reasons": "\nreasons\n",
    "comparability": "\ncomparability\n",
}
HTML = {name: f'id="{name.replace("_", "-")}"' for name in SUMMARY}
# Sections each case holds by construction (render_cases.py), so the list cannot lose one unseen.
EXPECTED = {
    "drift_after_rechunk": {"drift", "gates", "strata"},
    "drift_nothing_recoverable": {"drift"},
    "floor_and_abstention_gates": {"floor", "gates"},
    "floor_and_abstention_indeterminate": {"eval_set", "gates"},
    "floor_unavailable": {"floor", "eval_set"},
    "no_gates": {"movers"},
    "judgments_rescored": {"comparability"},
    "machine_labels_policy": {"machine_labels"},
    "judged_drop_with_queue": {"unjudged"},
}


def has_marker(text: str, marker: str | tuple[str, ...]) -> bool:
    return any(m in text for m in ((marker,) if isinstance(marker, str) else marker))


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_rendering_shows_every_section_the_report_has(case: str, tmp_path: Path) -> None:
    report, comparison = CASES[case](tmp_path)
    sections = sections_of(report, comparison)
    assert EXPECTED.get(case, set()) <= set(sections), sections
    if case == "no_gates":
        assert "gates" not in sections
    renderings: dict[str, tuple[str, dict[str, Any]]] = {
        "summary": (render("summary", report=report, comparison=comparison), SUMMARY),
        "terminal": ("\n" + render("text", report=report, comparison=comparison), TERMINAL),
        "html": (render_html(report, comparison), HTML),
    }
    if case == "oversized_truncated":  # the summary's budget leaves sections out, and says so
        del renderings["summary"]
    for kind, (text, markers) in renderings.items():
        missing = [name for name in sections if not has_marker(text, markers[name])]
        assert not missing, f"{kind} of {case} lacks {missing}"
