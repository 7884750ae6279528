"""Reading documents that may hold anything: comparison and history documents, a sidecar.

``render`` reads comparison files that a pull request can change or another tool wrote,
so any field may be missing or of another type. Each reader here returns the type asked
for, or "missing" (an empty mapping or list, None), and never raises: a malformed field
costs a number, not a run. A report is read into its typed model instead
(core/report_model.py), leniently where it was handed over in memory (formats/report.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .precision import MAX_MAGNITUDE


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def section(document: Any, name: str) -> Mapping[str, Any]:
    """A part of a document that should be an object; empty when it is anything else."""
    return mapping(mapping(document).get(name))


def items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def number(value: Any) -> float | None:
    """A number within a report's bounds as a float; None for anything else (a bool is not a
    number here). Past the bounds a value is damage, and using it could overflow."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
        return float(value)  # the comparison is exact for an integer of any size, and false for NaN
    return None


def integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
