"""The benchmarks import the package inside their functions (so each timed process loads only
what it times); nothing runs those lines in the test suite, so a module moving under them went
unnoticed once. Every ``from retrieval_eval... import name`` in bench/ must resolve."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _package_imports() -> list[tuple[str, int, str, str]]:
    found = []
    for path in sorted(BENCH.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("retrieval_eval"):
                found.extend((path.name, node.lineno, node.module or "", alias.name) for alias in node.names)
    return found


def test_bench_has_package_imports() -> None:
    assert len(_package_imports()) > 5  # the check below would pass vacuously on an empty list


@pytest.mark.parametrize(("script", "line", "module", "name"), _package_imports())
def test_bench_import_resolves(script: str, line: int, module: str, name: str) -> None:
    loaded = importlib.import_module(module)
    assert hasattr(loaded, name) or importlib.util.find_spec(f"{module}.{name}") is not None, (
        f"bench/{script}:{line}: {module} has no {name}"
    )
