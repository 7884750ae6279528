"""Reading the objects and arrays of documents that may hold anything: comparison and
history documents, a plan.

Any field may be missing or of another type. Each reader here returns the type asked for,
or "missing" (an empty mapping or list), and never raises: a malformed field costs a
number, not a run. Numbers are read by core/lenient.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
