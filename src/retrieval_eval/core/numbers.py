"""The one grammar for numbers a user writes: gates, settings, the config file, the action's inputs.

A number is a plain decimal: an optional sign, ASCII digits, an optional fraction
(``0.5``, ``-0.02``, ``+.05``, ``10``). Python's ``float`` also reads ``0_1``, spaces,
exponents, ``inf`` and other scripts' digits; none of those is a number a reviewer
would read the same way in a gate or a config file, so each is refused.
"""

from __future__ import annotations

import re

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


_WHOLE = re.compile(r"[+-]?[0-9]+")


def parse_whole(text: str) -> int:
    """``text`` read as a whole number in plain decimal digits; ValueError for anything else."""
    if not _WHOLE.fullmatch(text):
        raise ValueError(f"{text!r} is not a plain whole number (digits 0-9, an optional sign)")
    return int(text)


def parse_decimal(text: str) -> float:
    """``text`` read as a plain decimal; ValueError for anything else."""
    if not _DECIMAL.fullmatch(text):
        raise ValueError(f"{text!r} is not a plain decimal number (digits 0-9, an optional sign and point)")
    return float(text)
