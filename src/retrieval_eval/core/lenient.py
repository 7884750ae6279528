"""Reading values that may be anything: a number or an integer, or "missing".

``render`` reads comparison files that a pull request can change or another tool wrote,
so any field may be missing or of another type. Each reader here returns the type asked
for, or None, and never raises: a malformed field costs a number, not a run. Reading the
objects and arrays of such a document is the formats' business (formats/lenient.py); a
report is read into its typed model instead (core/report_model.py).
"""

from __future__ import annotations

from .precision import MAX_MAGNITUDE


def number(value: object) -> float | None:
    """A number within a report's bounds as a float; None for anything else (a bool is not a
    number here). Past the bounds a value is damage, and using it could overflow."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE:
        return float(value)  # the comparison is exact for an integer of any size, and false for NaN
    return None


def integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
