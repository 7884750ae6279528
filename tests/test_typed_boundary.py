"""The report and everything built from it are records: JSON objects exist only where a file
is read or written, in ``formats/``. An untyped mapping anywhere else (``dict[str, Any]``, its
``Mapping``/``object`` twins, or a fresh alias for them) is where a typo in a key would go
unnoticed, so none is allowed back."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval"

# One hole, documented: a user template's format_map receives the caller's keyword arguments,
# values of any type, each checked before use (render/limits.py).
ALLOWED = {("render/limits.py", "Mapping[str, object]")}

UNTYPED = re.compile(r"\b(?:dict|Dict|Mapping|MutableMapping)\[str, *(Any|object)\]")


def _hits() -> list[tuple[str, int, str]]:
    hits = []
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        if where.startswith("formats/"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in UNTYPED.finditer(line):
                if (where, match.group(0).replace(" ", "").replace(",", ", ")) not in ALLOWED:
                    hits.append((where, number, line.strip()))
    return hits


def test_no_untyped_mapping_outside_formats() -> None:
    assert _hits() == []


def test_the_pattern_catches_what_it_names() -> None:
    for text in ("x: dict[str, Any]", "def f(a: Mapping[str, Any])", "y: MutableMapping[str,object]"):
        assert UNTYPED.search(text), text
    for text in ("x: dict[str, float]", "Mapping[str, Json]", "dict[str, list[str]]"):
        assert not UNTYPED.search(text), text


def test_formats_is_the_only_home_of_json_aliases() -> None:
    alias = re.compile(r"^\s*\w+(?:\s*:\s*TypeAlias)?\s*=\s*(?:dict|Mapping)\[str, *Any\]", re.M)
    outside = [path for path in SRC.rglob("*.py") if not path.relative_to(SRC).as_posix().startswith("formats/")]
    found = [path.name for path in outside if alias.search(path.read_text(encoding="utf-8"))]
    assert found == []
