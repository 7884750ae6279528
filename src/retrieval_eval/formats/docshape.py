"""Checking a document read back against the shape it claims, with one message for the first fault.

Shapes are written in a small subset of JSON Schema (``type``, ``required``,
``properties``, ``additionalProperties``, ``items``, ``enum``, ``const``,
``minItems``, ``maxItems``, ``minimum``, ``maximum``, ``anyOf`` of shapes that hold a type or a
``const``, ``$ref`` into ``$defs``),
so each is also a JSON Schema a test can hand to a full validator. Two rules
are stricter than JSON Schema: ``integer`` means a JSON integer (``2.0`` is
not one), and a boolean is never a number.

Only the parts a shape names are walked: a document's unknown fields are its
own business (the reader has already bounded their depth and size).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TYPE_WORDS = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "null": "null",
}


class ShapeError(ValueError):
    """The first place a document departs from its shape: ``problem`` and the JSON path ``at``."""

    def __init__(self, problem: str, at: str) -> None:
        super().__init__(f"{problem} (at {at})")
        self.problem = problem
        self.at = at


def _is(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    return value is None


def _step(at: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{at}[{key}]"
    if _IDENTIFIER.match(key):
        return f"{at}.{key}"
    return f"{at}[{json.dumps(key)}]"  # escapes quotes and control characters


def _key_name(key: str) -> str:
    return key if _IDENTIFIER.match(key) else json.dumps(key)


def _shown(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class Checker:
    """Checks documents against one shape (a JSON Schema subset with ``$defs``)."""

    def __init__(self, shape: Mapping[str, Any]) -> None:
        self.shape = shape
        self.defs: Mapping[str, Any] = shape.get("$defs", {})
        # Per sub-shape (they live as long as the checker): its bulk-check summary, made once.
        self._plain: dict[int, tuple[frozenset[type], float, float] | None] = {}

    def check(self, document: Any) -> None:
        """Raise :class:`ShapeError` at the first departure, in document order."""
        self._check(document, self.shape, "$", "the document")

    def _resolve(self, shape: Mapping[str, Any]) -> Mapping[str, Any]:
        while "$ref" in shape:
            shape = self.defs[shape["$ref"].removeprefix("#/$defs/")]
        return shape

    def _check(self, value: Any, shape: Mapping[str, Any], at: str, name: str) -> None:
        """``name`` is the message's subject: the key, or the array's name and the index."""
        shape = self._resolve(shape)
        if "anyOf" in shape:
            self._any_of(value, shape["anyOf"], at, name)
        kinds = shape.get("type")
        if kinds is not None:
            kinds = [kinds] if isinstance(kinds, str) else kinds
            if not any(_is(value, kind) for kind in kinds):
                raise ShapeError(f"{name} must be {' or '.join(_TYPE_WORDS[k] for k in kinds)}", at)
        if "const" in shape and not _same(value, shape["const"]):
            raise ShapeError(f"{name} must be {_shown(shape['const'])}", at)
        if "enum" in shape and not any(_same(value, option) for option in shape["enum"]):
            raise ShapeError(f"{name} must be one of {', '.join(map(_shown, shape['enum']))}", at)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self._range(value, shape, at, name)
        elif isinstance(value, dict):
            self._object(value, shape, at)
        elif isinstance(value, list):
            self._array(value, shape, at, name)

    def _any_of(self, value: Any, options: list[Mapping[str, Any]], at: str, name: str) -> None:
        for option in options:
            try:
                self._check(value, option, at, name)
            except ShapeError:
                continue
            return
        words = [_shown(o["const"]) if "const" in o else _TYPE_WORDS[o["type"]] for o in map(self._resolve, options)]
        raise ShapeError(f"{name} must be {' or '.join(words)}", at)

    def _range(self, value: float, shape: Mapping[str, Any], at: str, name: str) -> None:
        if "minimum" in shape and not value >= shape["minimum"]:
            raise ShapeError(f"{name} must be at least {shape['minimum']:g} (it is {_shown(value)})", at)
        if "maximum" in shape and not value <= shape["maximum"]:
            raise ShapeError(f"{name} must be at most {shape['maximum']:g} (it is {_shown(value)})", at)

    def _object(self, value: dict[str, Any], shape: Mapping[str, Any], at: str) -> None:
        for key in shape.get("required", ()):
            if key not in value:
                raise ShapeError(f"{key} is required", at)
        properties = shape.get("properties", {})
        extra = shape.get("additionalProperties", True)
        if extra is not True and not properties and self._all_plain(value.values(), extra):
            return  # a query's values, a ranking: checked in bulk
        if extra is not True and not properties and self._all_plain_rows(value.values(), extra):
            return  # every query's values, every ranking: one bulk check a row
        for key, item in value.items():
            inner = properties.get(key, extra)
            if inner is not True:
                self._check(item, inner, _step(at, key), _key_name(key))

    def _array(self, value: list[Any], shape: Mapping[str, Any], at: str, name: str) -> None:
        if "minItems" in shape and len(value) < shape["minItems"]:
            raise ShapeError(f"{name} must hold at least {shape['minItems']} items", at)
        if "maxItems" in shape and len(value) > shape["maxItems"]:
            raise ShapeError(f"{name} must hold at most {shape['maxItems']} items", at)
        items = shape.get("items")
        if items is None or self._all_plain(value, items):
            return
        for position, item in enumerate(value):
            self._check(item, items, _step(at, position), f"{name}[{position}]")

    def _all_plain_rows(self, rows: Any, shape: Mapping[str, Any]) -> bool:
        """True when ``shape`` is a plain map or array of plain values (``per_query``'s rows,
        ``rankings``' lists) and every row passes :meth:`_all_plain`: what checking each row
        would find, without a call of :meth:`_check` per row (a report has tens of thousands).
        False means "check them one by one", which also words any fault."""
        resolved = self._resolve(shape)
        if resolved.get("type") == "object" and set(resolved) <= {"type", "additionalProperties", "description"}:
            kind: type = dict
            inner = resolved.get("additionalProperties", True)
        elif resolved.get("type") == "array" and set(resolved) <= {"type", "items", "description"}:
            kind = list
            inner = resolved.get("items")
        else:
            return False
        if inner is True or inner is None:  # anything goes inside: only the row's own type is checked
            return all(type(row) is kind for row in rows)
        plain = self._all_plain
        if kind is dict:
            return all(type(row) is dict and plain(row.values(), inner) for row in rows)
        return all(type(row) is list and plain(row, inner) for row in rows)

    def _all_plain(self, values: Any, shape: Mapping[str, Any]) -> bool:
        """True when every value is of a plain scalar type ``shape`` accepts and within its range,
        decided without a call per value; False means "check them one by one"."""
        if id(shape) not in self._plain:
            self._plain[id(shape)] = _plain_spec(self._resolve(shape))
        plain = self._plain[id(shape)]
        if plain is None:
            return False
        allowed, low, high = plain
        values = values if type(values) is list else list(values)
        if not allowed.issuperset(map(type, values)):
            return False
        numbers = [v for v in values if type(v) is float or type(v) is int] if allowed & _NUMBERS else []
        if not numbers:
            return True
        if not (low <= min(numbers) and max(numbers) <= high):
            return False
        try:  # min and max pass over a NaN in the middle; a sum does not
            return math.isfinite(math.fsum(numbers))
        except OverflowError:
            return False


def _plain_spec(shape: Mapping[str, Any]) -> tuple[frozenset[type], float, float] | None:
    """What a bulk check needs of a shape that only names scalar types and a range; None otherwise."""
    if set(shape) - {"type", "minimum", "maximum", "description"}:
        return None
    kinds = shape.get("type")
    allowed = frozenset(t for kind in ([kinds] if isinstance(kinds, str) else kinds or ()) for t in _PLAIN[kind])
    return allowed, shape.get("minimum", -_INF), shape.get("maximum", _INF)


_NUMBERS = frozenset((int, float))
_INF = float("inf")
# Exact types each type word accepts (bool is a subclass of int, so types are compared exactly).
_PLAIN: dict[str, tuple[type, ...]] = {
    "object": (),
    "array": (),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}


def _same(value: Any, expected: Any) -> bool:
    """JSON equality of a value and a constant: ``true`` is not ``1`` (Python's ``True == 1``)."""
    return value == expected and isinstance(value, bool) == isinstance(expected, bool)
