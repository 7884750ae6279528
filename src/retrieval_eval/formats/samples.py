"""Samples of a judged metric: a JSON array of numbers, or ``{"samples": [...]}``."""

from __future__ import annotations

from typing import Any

from ..core.errors import InputError
from ..core.report_model import Measurement
from ..core.summarize import summarize_samples
from .jsondoc import named, read_document
from .typedjson import to_json


def measurement_to_json(measurement: Measurement) -> dict[str, Any]:
    """A judged metric's measurement as ``summarize --json`` and a report write it: value, n,
    and (from two samples) stdev and ci, then deterministic."""
    written: dict[str, Any] = to_json(measurement)
    return written


def read_samples(name: str, path: str, *, source: str | None = None) -> Measurement:
    """A judged metric's samples file, summarized (mean, standard deviation, interval).

    Messages name ``source``, ``judged NAME`` unless given.
    """
    source = source or f"judged {name}"
    data = read_document(path, source)
    source = named(source, path)  # a whole document: its refusals name the file
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
