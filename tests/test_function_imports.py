"""Imports inside functions are few, and each says why it is there.

An import belongs at the top of its module. The exceptions: an optional extra (numpy, scipy,
bm25s, PyStemmer, pandas, orjson), which a plain install lacks, and a measured start-up path
(``--version`` and the commands that never need a layer load none of it). Each such import
carries a comment, on its line or just above it, saying which; there are at most 20.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval"
MOST = 20


def function_imports(root: Path = PACKAGE) -> list[tuple[str, int, str]]:
    """(module path, line, source line and the line above) of every import inside a function body."""
    found = []
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        where = path.relative_to(root).as_posix()
                        said = lines[inner.lineno - 2].strip() + "\n" + lines[inner.lineno - 1].strip()
                        found.append((where, inner.lineno, said))
    return sorted(set(found))


def test_at_most_twenty_imports_inside_functions() -> None:
    found = function_imports()
    assert len(found) <= MOST, "\n".join(f"{w}:{n}: {s}" for w, n, s in found)


def test_each_import_inside_a_function_says_why() -> None:
    silent = [
        f"{w}:{n}: {s}" for w, n, s in function_imports() if "#" not in s.split("\n")[1] and not s.startswith("#")
    ]
    assert not silent, "an import inside a function needs a comment giving its reason:\n" + "\n".join(silent)


def test_the_counter_sees_imports_inside_functions_only(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "import os\n\ndef f():\n    x = 1\n    import json\n    return json\n\n"
        "class C:\n    def g(self):\n        # the reason\n        from os import path\n"
    )
    found = function_imports(tmp_path)
    assert [(w, n) for w, n, _ in found] == [("m.py", 5), ("m.py", 11)]
    assert found[0][2] == "x = 1\nimport json" and found[1][2].startswith("# the reason")
