"""The public API, name by name: a name that disappears or changes its signature fails here.

``tests/api_snapshot.txt`` lists every name in ``retrieval_eval.__all__`` with its signature,
and every public member of each public class. After an intended change (a new name, a new
keyword), regenerate it with ``UPDATE_API_SNAPSHOT=1 python -m pytest tests/test_api_snapshot.py``
and review the diff like code: a removed or changed line breaks users.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import retrieval_eval

SNAPSHOT = Path(__file__).resolve().parent / "api_snapshot.txt"


def describe(name: str, value: object) -> list[str]:
    if inspect.isclass(value):
        lines = [f"class {name}{'(Exception)' if issubclass(value, BaseException) else ''}"]
        for member, attribute in sorted(vars(value).items()):
            if member.startswith("_") or member in getattr(value, "__slots__", ()):
                continue
            if isinstance(attribute, property):
                lines.append(f"  {name}.{member} (property)")
            elif callable(attribute):
                lines.append(f"  {name}.{member}{inspect.signature(attribute)}")
        lines.extend(f"  {name}.{slot}" for slot in getattr(value, "__slots__", ()) if not slot.startswith("_"))
        if issubclass(value, tuple) and hasattr(value, "_fields"):
            lines.append(f"  fields {value._fields}")
        return lines
    if callable(value):
        return [f"def {name}{inspect.signature(value)}"]
    return [f"{name} = {type(value).__name__}"]


def current() -> str:
    lines = []
    for name in sorted(retrieval_eval.__all__):
        lines.extend(describe(name, getattr(retrieval_eval, name)))
    return "\n".join(lines) + "\n"


def test_the_public_api_matches_its_snapshot() -> None:
    text = current()
    if os.environ.get("UPDATE_API_SNAPSHOT"):
        SNAPSHOT.write_text(text, encoding="utf-8")
    recorded = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    gone = [line for line in recorded if line not in text.splitlines()]
    assert not gone, "public names removed or changed (a break for users):\n" + "\n".join(gone)
    assert text == SNAPSHOT.read_text(encoding="utf-8"), (
        "the public API grew: regenerate tests/api_snapshot.txt (UPDATE_API_SNAPSHOT=1) and review it"
    )


def test_every_public_name_is_exported_and_documented() -> None:
    for name in retrieval_eval.__all__:
        value = getattr(retrieval_eval, name)
        assert name == "__version__" or inspect.getdoc(value), f"{name} has no docstring"
