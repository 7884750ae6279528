"""The glossary in CONTRIBUTING.md names real code, and the retired names are gone.

Each dotted name in the table's last column (``core.comparison.Deltas``) must import; each
retired name (the word a concept had before it got one) must appear nowhere in the package.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "retrieval_eval"


def _glossary_rows() -> list[str]:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    table = text.split("## Glossary: one word per concept", 1)[1].split("\n## ", 1)[0]
    return [line for line in table.splitlines() if line.startswith("| **")]


def test_every_dotted_name_in_the_glossary_imports() -> None:
    names = set()
    for row in _glossary_rows():
        code = row.rstrip(" |").rsplit(" | ", 1)[1]
        names.update(re.findall(r"`((?:core|pipeline|render|comparison|formats|action)\.[\w.]+)", code))
    assert {"core.comparison.Deltas", "pipeline.evaluate.run_pipeline", "render.html_inputs.PageLabels"} <= names
    for dotted in sorted(names):
        module, _, attribute = dotted.rpartition(".")
        if module.count(".") == 0:  # a module path such as core.judgments
            module, attribute = dotted, ""
        loaded = importlib.import_module(f"retrieval_eval.{module}")
        assert not attribute or hasattr(loaded, attribute), f"the glossary names {dotted}, which does not exist"


def test_one_class_per_name_and_no_retired_names() -> None:
    comparisons, query_labels = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        where = path.relative_to(PACKAGE).as_posix()
        assert not re.search(r"\bclass Judgment\b", source), f"{where}: a label is `Label`"
        if re.search(r"\bclass Comparison\b", source):
            comparisons.append(where)
        if re.search(r"\bclass QueryLabels\b", source):
            query_labels.append(where)
        if where != "api.py":
            assert not re.search(r"^def evaluate\(", source, re.M), f"{where}: the pipeline's run is `run_pipeline`"
    assert comparisons == ["pipeline/results.py"]  # the public view; the gates' is Deltas
    assert query_labels == ["core/scoring.py"]  # the page's are PageLabels


def test_the_floor_is_never_called_a_baseline() -> None:
    for folder in ("lanes",):
        for path in (PACKAGE / folder).rglob("*.py"):
            assert "baseline" not in path.read_text(encoding="utf-8"), path
    for name in ("core/floor.py", "core/tokenize.py", "pipeline/floor.py", "pipeline/floor_run.py"):
        text = (PACKAGE / name).read_text(encoding="utf-8")
        assert not re.search(r"(lexical|bm25|tf-idf|numeric|floor) baselines?\b|baseline run", text, re.I), name
