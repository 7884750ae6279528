"""generated_at: --now, then SOURCE_DATE_EPOCH, then the clock; bad values are usage errors."""

from __future__ import annotations

import datetime as dt

import pytest

from retrieval_eval.core.errors import UsageError
from retrieval_eval.pipeline.timestamps import generated_at


def fixed_clock() -> dt.datetime:
    return dt.datetime(2026, 5, 4, 3, 2, 1, tzinfo=dt.timezone(dt.timedelta(hours=2)))


def test_order_of_sources() -> None:
    assert generated_at(now="2026-01-01T12:00:00+01:00", source_date_epoch="0") == "2026-01-01T11:00:00Z"
    assert generated_at(source_date_epoch="86400", clock=fixed_clock) == "1970-01-02T00:00:00Z"
    assert generated_at(clock=fixed_clock) == "2026-05-04T01:02:01Z"
    assert generated_at(now="2026-01-01T12:00:00") == "2026-01-01T12:00:00Z"  # no zone means UTC


@pytest.mark.parametrize(
    ("now", "epoch", "message"),
    [
        ("yesterday", None, "--now 'yesterday' is not an ISO-8601 time"),
        ("9999-12-31T23:59:59-01:00", None, "out of range"),
        (None, "²", "is not a whole number of seconds"),
        (None, "-5", "is not a whole number of seconds"),
        (None, "9" * 30, "out of range"),
    ],
)
def test_bad_values_are_usage_errors(now: str | None, epoch: str | None, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        generated_at(now=now, source_date_epoch=epoch)
