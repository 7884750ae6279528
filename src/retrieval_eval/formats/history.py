"""A history (:class:`~retrieval_eval.core.history.History`) as a JSON object, and back.

The JSON form is what ``comparison.history.build_history`` returns and what ``render`` and
``render_history`` accept from a caller; read back leniently (a value of another type than its
field's reads as missing), as reports are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.history import HISTORY_KIND, History, HistoryPoint
from .lenient import items, mapping


def history_to_json(history: History) -> dict[str, Any]:
    data: dict[str, Any] = {
        "kind": history.kind,
        "metrics": list(history.metrics),
        "points": [point_to_json(point) for point in history.points],
    }
    if history.note is not None:
        data["note"] = history.note
    return data


def point_to_json(point: HistoryPoint) -> dict[str, Any]:
    return {"label": point.label, "date": point.date, "values": dict(point.values), "break": point.broken}


def history_from_json(data: Mapping[str, Any]) -> History:
    note = data.get("note")
    kind = data.get("kind")
    return History(
        metrics=tuple(str(m) for m in items(data.get("metrics"))),
        points=tuple(point_from_json(mapping(p)) for p in items(data.get("points"))),
        note=note if isinstance(note, str) else None,
        kind=kind if isinstance(kind, str) else HISTORY_KIND,
    )


def point_from_json(point: Mapping[str, Any]) -> HistoryPoint:
    values = mapping(point.get("values"))
    date, broken = point.get("date"), point.get("break")
    return HistoryPoint(
        label=str(point.get("label", "")),
        date=date if isinstance(date, str) else None,
        values={str(name): _number(value) for name, value in values.items()},
        broken=broken if isinstance(broken, str) else None,
    )


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
