"""docs/api.md runs: every example in it is a doctest, run in order as a notebook would run it.

The ranx section is run on its own, so that where ranx cannot be installed (it brings numba)
the rest still runs; the test extra installs it.
"""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
RANX = "### ranx"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def run_examples(text: str, name: str) -> None:
    test = doctest.DocTestParser().get_doctest(text, {}, name, str(DOC), 0)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0, f"{name}: see the failures printed above"


def test_the_tour_and_the_other_libraries() -> None:
    pytest.importorskip("pandas")
    text = DOC.read_text(encoding="utf-8")
    run_examples(text[: text.index(RANX)], "docs/api.md")


@pytest.mark.ranx
def test_the_ranx_example() -> None:
    pytest.importorskip("ranx")
    text = DOC.read_text(encoding="utf-8")
    setup = text[text.index("## Coming from") : text.index("### retrieval-eval")]
    ranx = text[text.index(RANX) :]
    run_examples(setup + ranx, "docs/api.md (ranx)")
