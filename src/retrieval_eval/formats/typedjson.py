"""Frozen dataclasses to JSON and back, led by their type hints (the report's, core/report_model.py).

The rules are the model's: a key per field in the field's order, None left out unless the field
is declared nullable, tuples as arrays, ``Json`` kept as written. :func:`from_json` trusts what it
is given to have been checked against its shape already (formats/shapes.py): it converts, it does
not validate. :func:`from_json_lenient` reads what may hold anything (a report handed over in
memory): a value that does not fit its type is missing, down to one entry of a map or one item
of a list, as the lenient readers of formats/lenient.py have always had it. Each type's converter
is made once and cached, and a map or array of plain values is copied whole rather than value
by value: a report holds tens of thousands of per-query rows.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias, TypeVar, Union

from ..core.precision import MAX_MAGNITUDE
from ..core.report_model import NULL, OTHERS, Json

T = TypeVar("T")
Convert = Callable[[Any], Any]

# A JSON object as the writers of this package hand it out (and ``json.loads`` gives it): new
# dicts and lists throughout, each value whatever JSON holds there. It is what a public
# ``to_dict()`` returns, made by a writer of this package from typed records; nothing outside
# formats/ builds one or takes one apart, it is handed on untouched (docs/api.md, Typed results).
JsonObject: TypeAlias = dict[str, Any]

_PLAIN = (int, float, str, bool)


def to_json(value: Any) -> Any:
    """``value`` (a dataclass of the model) as JSON holds it: new dicts and lists throughout."""
    kind: Any = type(value)  # a class is hashable; the cache's signature does not know it
    return _writer(kind)(value)


def from_json(kind: type[T], data: Any) -> T:
    """A ``kind`` from JSON already checked to have its shape."""
    hint: Any = kind
    result: T = _reader(hint)(data)
    return result


# The scalars ``Json`` opens with; its two recursive members differ between ``Json`` and the
# hint get_type_hints gives back (their forward references are resolved apart), so the scalars identify it.
_JSON_SCALARS = typing.get_args(Json)[:5]


def _is_json(hint: Any) -> bool:
    args = typing.get_args(hint)
    return _is_union(hint) and len(args) == len(typing.get_args(Json)) and args[:5] == _JSON_SCALARS


def from_json_lenient(kind: type[T], data: Any) -> T | None:
    """A ``kind`` from JSON that may hold anything; None when ``data`` is no object at all."""
    hint: Any = kind
    result = _lenient(hint)(data)
    return None if result is MISSING else result


def _identity(value: Any) -> Any:
    return value


def _is_plain(hint: Any) -> bool:
    """A scalar, or a union of scalars (``int | str``): copied as is."""
    if hint in _PLAIN:
        return True
    return _is_union(hint) and all(arg in _PLAIN or arg is type(None) for arg in typing.get_args(hint))


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (Union, types.UnionType)


def _optional_of(hint: Any) -> Any:
    """``X`` for ``X | None`` (not plain), else None."""
    if not _is_union(hint) or _is_json(hint):
        return None
    args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    return args[0] if len(args) == 1 and len(typing.get_args(hint)) == 2 else None


@functools.cache
def _hints(kind: type) -> tuple[tuple[dataclasses.Field[Any], Any], ...]:
    hints = typing.get_type_hints(kind)
    return tuple((f, hints[f.name]) for f in dataclasses.fields(kind))


# -- writing ---------------------------------------------------------------------------


@functools.cache
def _writer(hint: Any) -> Convert:
    if _is_json(hint):
        return _thaw
    if _is_plain(hint):
        return _identity
    inner = _optional_of(hint)
    if inner is not None:
        write = _writer(inner)
        return lambda value: None if value is None else write(value)
    if dataclasses.is_dataclass(hint):
        return _object_writer(hint)  # type: ignore[arg-type]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        if _is_plain(args[0]):
            return list
        item = _writer(args[0])
        return lambda values: [item(value) for value in values]
    if origin is Mapping:
        if _is_plain(args[1]):
            return dict
        item = _writer(args[1])
        return lambda values: {key: item(value) for key, value in values.items()}
    raise TypeError(f"no JSON writer for {hint!r}")


def _object_writer(kind: type) -> Convert:
    fields = [(f.name, f.metadata.get(NULL), _writer(hint)) for f, hint in _hints(kind) if not f.metadata.get(OTHERS)]
    rest = _others_field(kind)

    def write(value: Any) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, null, write_field in fields:
            item = getattr(value, name)
            if item is not None:
                data[name] = write_field(item)
            elif null is True or (null is not None and getattr(value, null) is not None):
                data[name] = None
        if rest is not None:
            data.update(_thaw(getattr(value, rest) or {}))
        return data

    return write


def _thaw(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _thaw(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [_thaw(item) for item in value]
    return value


# -- reading ---------------------------------------------------------------------------


@functools.cache
def _reader(hint: Any) -> Convert:
    if _is_json(hint):
        return _freeze
    if _is_plain(hint):
        return _identity
    inner = _optional_of(hint)
    if inner is not None:
        read = _reader(inner)
        return lambda value: None if value is None else read(value)
    if dataclasses.is_dataclass(hint):
        return _object_reader(hint)  # type: ignore[arg-type]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        if _is_plain(args[0]):
            return tuple
        item = _reader(args[0])
        return lambda values: tuple(item(value) for value in values)
    if origin is Mapping:
        if _is_plain(args[1]):
            return dict
        item = _reader(args[1])
        return lambda values: {key: item(value) for key, value in values.items()}
    raise TypeError(f"no JSON reader for {hint!r}")


def _object_reader(kind: type) -> Convert:
    fields = [(f.name, _reader(hint)) for f, hint in _hints(kind) if not f.metadata.get(OTHERS)]
    rest = _others_field(kind)
    named = frozenset(name for name, _ in fields)

    def read(data: Mapping[str, Any]) -> Any:
        # A key the model does not name is another tool's (or a later version's): not carried,
        # unless the object keeps such keys (see report_model.others).
        found = {name: read_field(data[name]) for name, read_field in fields if name in data}
        if rest is not None:
            found.update(_others(data, named, rest))
        return kind(**found)

    return read


def _others_field(kind: type) -> str | None:
    """The field of ``kind`` that keeps the keys the model does not name, if it has one."""
    return next((f.name for f, _ in _hints(kind) if f.metadata.get(OTHERS)), None)


def _others(data: Mapping[str, Any], named: frozenset[str], rest: str) -> dict[str, Any]:
    kept = {key: _freeze(value) for key, value in data.items() if key not in named and isinstance(key, str)}
    return {rest: kept} if kept else {}


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _freeze(item) for key, item in value.items()}
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


# -- reading what may hold anything ------------------------------------------------------------

MISSING: Any = object()  # what a value that does not fit its type reads as


def _fits(value: Any, kind: type) -> bool:
    """``value`` is a ``kind`` as a report holds one: a bool is no number, a number is finite and bounded."""
    if kind is bool or kind is str:
        return isinstance(value, kind)
    if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
        return False
    return -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE  # false for NaN, exact for an integer of any size


@functools.cache
def _lenient(hint: Any) -> Convert:
    if _is_json(hint):
        return _freeze
    if _is_plain(hint):
        kinds = [arg for arg in _args(hint) if arg is not type(None)]
        return lambda value: value if any(_fits(value, kind) for kind in kinds) else MISSING
    inner = _optional_of(hint)
    if inner is not None:
        read = _lenient(inner)
        return lambda value: None if value is None else read(value)
    if dataclasses.is_dataclass(hint):
        return _lenient_object(hint)  # type: ignore[arg-type]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        return _lenient_items(args[0])
    if origin is Mapping:
        return _lenient_entries(args[1])
    raise TypeError(f"no lenient JSON reader for {hint!r}")


def _lenient_items(hint: Any) -> Convert:
    item, fit = _lenient(hint), _bulk_fit(hint)

    def read(values: Any) -> Any:
        if not isinstance(values, list):
            return MISSING
        if fit is not None and fit(values):
            return tuple(values)  # every item fits: a ranking of a thousand keys is copied whole
        return _kept(item(value) for value in values)

    return read


def _lenient_entries(hint: Any) -> Convert:
    entry, fit = _lenient(hint), _bulk_fit(hint)

    def read(values: Any) -> Any:
        if not isinstance(values, Mapping):
            return MISSING
        if fit is not None and fit(values.values()) and all(type(key) is str for key in values):
            return dict(values)  # every value fits: a query's row is copied whole
        return _kept_entries(entry, values)

    return read


def _bulk_fit(hint: Any) -> Callable[[Any], bool] | None:
    """For a plain hint, a test that every one of many values fits it, decided without a call per
    value (the types counted at once, numbers bounded by their least and greatest); else None."""
    if not _is_plain(hint):
        return None
    kinds = {arg for arg in _args(hint) if arg is not type(None)}
    allowed = {int, float} if float in kinds else set(kinds)

    def fit(values: Any) -> bool:
        values = values if type(values) is list else list(values)
        if not set(map(type, values)) <= allowed:
            return False
        numbers = [value for value in values if type(value) in (int, float)]
        if not numbers:
            return True
        return -MAX_MAGNITUDE <= min(numbers) and max(numbers) <= MAX_MAGNITUDE and math.isfinite(sum(numbers))

    return fit


def _args(hint: Any) -> tuple[Any, ...]:
    return typing.get_args(hint) if _is_union(hint) else (hint,)


def _kept(values: Any) -> tuple[Any, ...]:
    return tuple(value for value in values if value is not MISSING)


def _kept_entries(entry: Convert, values: Mapping[Any, Any]) -> dict[str, Any]:
    read = ((key, entry(value)) for key, value in values.items() if isinstance(key, str))
    return {key: value for key, value in read if value is not MISSING}


def _lenient_object(kind: type) -> Convert:
    fields = [(f.name, _lenient(hint)) for f, hint in _hints(kind) if not f.metadata.get(OTHERS)]
    rest = _others_field(kind)
    named = frozenset(name for name, _ in fields)

    def read(data: Any) -> Any:
        if not isinstance(data, Mapping):
            return MISSING
        found = ((name, read_field(data[name])) for name, read_field in fields if name in data)
        kept = {name: value for name, value in found if value is not MISSING}
        if rest is not None:
            kept.update(_others(data, named, rest))
        return kind(**kept)

    return read
