"""The config file (``.retrieval-eval.yml``): YAML in, the settings' text values out.

A pull request controls this file, so it is read as hostile input: at most
:data:`MAX_CONFIG_BYTES`, nesting at most :data:`MAX_DEPTH` deep, no anchors or aliases
(a few hundred bytes of aliases can expand to gigabytes; a settings file never needs
them), and no integer longer than :data:`MAX_NUMBER_DIGITS` digits. The limits are checked
on PyYAML's event stream, which is read without recursion, before anything is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from ..core.errors import UsageError

MAX_CONFIG_BYTES = 256 * 1024
MAX_DEPTH = 16
MAX_NUMBER_DIGITS = 100  # PyYAML would build (or choke on) any longer integer


class ConfigError(UsageError):
    """The config file is unreadable or breaks its format; ``problems`` lists each finding."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems), hint="fix the keys named in the config file")
        self.problems = list(problems)


def read_config(path: Path, *, source: str, keys: tuple[str, ...], not_here: Mapping[str, str]) -> dict[str, str]:
    """The config file at ``path`` (named ``source`` in messages), as text values per key."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        reason = "not found" if isinstance(exc, FileNotFoundError) else f"cannot be read ({exc.strerror or exc})"
        raise ConfigError([f"config: {source} {reason}"]) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError([f"config: {source} is larger than {MAX_CONFIG_BYTES // 1024} KiB; a config file is small"])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError([f"config: {source} is not valid UTF-8"]) from None
    return parse_config_text(text, source=source, keys=keys, not_here=not_here)


def parse_config_text(text: str, *, source: str, keys: tuple[str, ...], not_here: Mapping[str, str]) -> dict[str, str]:
    """A config file's keys, validated and flattened to the strings inputs would carry.

    ``not_here`` maps a key that exists but may not be set in a file to why not.
    """
    data = _load(text, source)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError([f"config: {source} must be a mapping of setting names to values"])
    problems, values = [], {}
    spelled: dict[str, str] = {}  # each setting's name -> the key it was given under
    for key, value in data.items():
        name = str(key).replace("_", "-")
        if name in spelled:  # fail-on-indeterminate and fail_on_indeterminate: one setting, two values
            problems.append(f"config: {source}: {spelled[name]!r} and {str(key)!r} are one setting; keep one")
            continue
        spelled[name] = str(key)
        if name not in keys:
            why = f"cannot be set in the config file ({not_here[name]})" if name in not_here else "is not a setting"
            problems.append(f"config: {source}: {str(key)!r} {why}; the keys are {', '.join(keys)}")
            continue
        try:
            values[name] = _flatten(name, value)
        except ValueError as exc:
            problems.append(f"config: {source}: {key}: {exc}")
    if problems:
        raise ConfigError(problems)
    return values


def _load(text: str, source: str) -> Any:
    try:
        _check_shape(yaml.parse(text, Loader=yaml.SafeLoader), source)
        return yaml.load(text, Loader=_TextNumbers)  # noqa: S506 - a SafeLoader, less two resolvers
    except yaml.YAMLError as exc:
        raise ConfigError([f"config: {source} is not valid YAML ({_first_line(exc)})"]) from None


_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"


class _TextNumbers(yaml.SafeLoader):
    """YAML's safe loader, with numbers kept as the text written: YAML 1.1 reads ``010`` as 8,
    ``1:30`` as 90 and ``0x2`` as 2, and each setting's parser reads numbers by one grammar
    (:mod:`..core.numbers`) whether they come from a flag, an input or this file."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_INT, _FLOAT)]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }


def _check_shape(events: Any, source: str) -> None:
    depth = 0
    # Per open container: the keys seen (None in a sequence), and whether the next node is a key.
    open_containers: list[tuple[set[str] | None, list[bool]]] = []
    for event in events:
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise ConfigError([f"config: {source} uses a YAML anchor or alias; write each value out"])
        if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            _refuse_repeated_key(event, open_containers, source)
        if isinstance(event, yaml.MappingStartEvent):
            open_containers.append((set(), [True]))
        elif isinstance(event, yaml.SequenceStartEvent):
            open_containers.append((None, [False]))
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            open_containers.pop()
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise ConfigError([f"config: {source} nests deeper than {MAX_DEPTH} levels"])
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.ScalarEvent) and event.style is None and len(event.value) > MAX_NUMBER_DIGITS:
            if event.value.lstrip("+-").isdigit():
                line = event.start_mark.line + 1 if event.start_mark is not None else "?"
                raise ConfigError([f"config: {source}:{line}: a number of {len(event.value)} digits is no setting"])


def _refuse_repeated_key(event: Any, open_containers: list[tuple[set[str] | None, list[bool]]], source: str) -> None:
    """A key given twice in one mapping: YAML keeps the last, while a reviewer reads the first."""
    if not open_containers:
        return
    keys, at_key = open_containers[-1]
    if keys is None:
        return
    if at_key[0] and isinstance(event, yaml.ScalarEvent):
        if event.value in keys:
            line = event.start_mark.line + 1 if event.start_mark is not None else "?"
            raise ConfigError([f"config: {source}:{line}: the key {event.value!r} is given twice; keep one"])
        keys.add(event.value)
    at_key[0] = not at_key[0]


_LISTS_BY_LINE = ("gates", "judged")


def _flatten(name: str, value: Any) -> str:
    if value is None:
        return ""
    if name == "comment" and value is False:
        return "off"  # YAML 1.1 reads an unquoted `off` as false
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value).strip()
    if name == "judged" and isinstance(value, dict) and all(_scalar(v) for v in value.values()):
        return "\n".join(f"{key}={item}" for key, item in value.items())
    if isinstance(value, list) and all(_scalar(v) for v in value):
        return ("\n" if name in _LISTS_BY_LINE else ",").join(str(v).strip() for v in value)
    raise ValueError("expected a string, a number, a boolean or a list of them")


def _scalar(value: Any) -> bool:
    return isinstance(value, (int, float, str)) and not isinstance(value, bool)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
