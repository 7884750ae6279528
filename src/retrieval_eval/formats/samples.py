"""Samples of a judged metric: a JSON array of numbers, or ``{"samples": [...]}``."""

from __future__ import annotations

import json
from typing import Any

from ..core.errors import InputError
from ..core.summarize import summarize_samples
from .fileio import read_bytes


def read_samples(name: str, path: str) -> dict[str, Any]:
    """A judged metric's samples file, summarized (mean, standard deviation, interval)."""
    source = f"judged {name}"
    try:
        data = json.loads(read_bytes(path).decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(source, None, f"not valid JSON ({exc})", path=path) from None
    samples = data.get("samples") if isinstance(data, dict) else data
    if (
        not isinstance(samples, list)
        or not samples
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in samples)
    ):
        raise InputError(source, None, 'expected a non-empty JSON array of numbers (or {"samples": [...]})', path=path)
    try:
        return summarize_samples(samples)
    except ValueError as exc:
        raise InputError(source, None, str(exc), path=path) from None
