"""The report's ``generated_at``: the one part of a report that is not a function of its inputs.

An explicit time wins, then SOURCE_DATE_EPOCH (the reproducible-builds
convention, so CI can make reports byte-identical), then the clock. Always
UTC, to the second.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable

from ..core.errors import UsageError

FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def _now() -> _dt.datetime:
    return _dt.datetime.now(tz=_dt.timezone.utc)


def _parse_iso(text: str) -> _dt.datetime:
    try:
        moment = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--now {text!r} is not an ISO-8601 time", hint="--now 2026-01-31T12:00:00Z") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=_dt.timezone.utc)


def _parse_epoch(text: str) -> _dt.datetime:
    if not (text.isascii() and text.isdigit()):
        raise UsageError(f"SOURCE_DATE_EPOCH {text!r} is not a whole number of seconds")
    try:
        return _dt.datetime.fromtimestamp(int(text), tz=_dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise UsageError(f"SOURCE_DATE_EPOCH {text!r} is out of range (years 1 to 9999)") from None


def _utc_stamp(moment: _dt.datetime, what: str) -> str:
    try:  # a time near year 1 or 9999 may leave the calendar once moved to UTC
        return moment.astimezone(_dt.timezone.utc).strftime(FORMAT)
    except OverflowError:
        raise UsageError(f"{what} is out of range (years 1 to 9999)") from None


def generated_at(
    *, now: str | None = None, source_date_epoch: str | None = None, clock: Callable[[], _dt.datetime] = _now
) -> str:
    """The time stamp for a report; bad values are usage errors naming where they came from."""
    if now:
        return _utc_stamp(_parse_iso(now), f"--now {now!r}")
    if source_date_epoch:
        return _utc_stamp(_parse_epoch(source_date_epoch), f"SOURCE_DATE_EPOCH {source_date_epoch!r}")
    return _utc_stamp(clock(), "the clock")
