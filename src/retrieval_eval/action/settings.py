"""The action's side of the settings: inputs from the environment, the runner, the config file.

Inputs arrive as ``INPUT_<NAME>`` with the input's hyphens kept (the runner upper-cases the
name and nothing else: ``INPUT_GITHUB-TOKEN``). What they mean, their defaults and how they
are parsed is :mod:`retrieval_eval.pipeline.settings`, shared with the CLI and the config file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path

from ..core.errors import UsageError
from ..formats import config as config_file
from ..pipeline.settings import (
    ACTION,
    CONFIG_KEYS,
    DEFAULT_CONFIG,
    SETTINGS,
    BaselineSpec,
    Runner,
    Settings,
    SettingsError,
    Values,
    confine,
)
from ..pipeline.settings import parse_settings as parse_values

__all__ = ["BaselineSpec", "Runner", "Settings", "SettingsError", "load_settings", "parse_settings"]

INPUTS = tuple(setting.name for setting in SETTINGS if ACTION in setting.where)
# Why a setting may not come from the committed file.
NOT_IN_CONFIG = {
    "config": "the file cannot name itself",
    "github-token": "a token never belongs in a committed file",
    "api-url": "the runner says where its API is",
    "mode": "one config serves both modes of the fork recipe",
}
HINT = f"fix the inputs under `with:` in the workflow, or the keys in {DEFAULT_CONFIG}"


def input_value(env: Mapping[str, str], name: str) -> str:
    """An input as the runner passes it; the underscore spelling is accepted for hand-made envs."""
    for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('-', '_')}"):
        value = env.get(key, "").strip()
        if value:
            return value
    return ""


def runner_from_env(env: Mapping[str, str], *, cwd: Path) -> Runner:
    return Runner(
        workspace=Path(env.get("GITHUB_WORKSPACE") or cwd),
        repository=env.get("GITHUB_REPOSITORY", ""),
        event_name=env.get("GITHUB_EVENT_NAME", ""),
        event_path=env.get("GITHUB_EVENT_PATH", ""),
        sha=env.get("GITHUB_SHA", ""),
        step_summary=env.get("GITHUB_STEP_SUMMARY", ""),
        output_file=env.get("GITHUB_OUTPUT", ""),
    )


def config_location(env: Mapping[str, str], workspace: Path) -> tuple[Path | None, bool]:
    """The config file to read and whether the user named it (then it must exist)."""
    named = input_value(env, "config")
    path = workspace / (named or DEFAULT_CONFIG)
    if not named and not path.is_file():
        return None, False
    try:
        confine(path, workspace, shown=f"config: {named or DEFAULT_CONFIG}")
    except UsageError as exc:
        raise SettingsError([exc.message], hint=exc.hint) from None
    return path, bool(named)


def parse_config_text(text: str, *, source: str) -> dict[str, str]:
    return _refusing_as_settings(
        lambda: config_file.parse_config_text(text, source=source, keys=CONFIG_KEYS, not_here=NOT_IN_CONFIG)
    )


def parse_settings(
    env: Mapping[str, str], config: Mapping[str, str] | None = None, *, runner: Runner, config_file: str = ""
) -> Settings:
    """The settings from the inputs in ``env`` and an already-read config mapping."""
    given = {name: input_value(env, name) for name in INPUTS}
    given["api-url"] = given["api-url"] or env.get("GITHUB_API_URL", "")
    values = Values(given, config or {}, label=str, confined=True, noun="input", given_where=" under `with:`")
    try:
        return parse_values(values, runner=runner, config_file=config_file, token=given["github-token"])
    except SettingsError as exc:
        raise SettingsError(exc.problems, hint=HINT) from None


def load_settings(env: Mapping[str, str], runner: Runner) -> Settings:
    """Inputs over the config file over the defaults."""
    path, _named = config_location(env, runner.workspace)
    config: dict[str, str] = {}
    shown = ""
    if path is not None:
        shown = _shown(path, runner.workspace)
        config = _refusing_as_settings(
            lambda: config_file.read_config(path, source=shown, keys=CONFIG_KEYS, not_here=NOT_IN_CONFIG)
        )
    settings = parse_settings(env, config, runner=runner, config_file=shown)
    # The judge's key comes from a variable the workflow fills from a secret; never an input.
    key = env.get(settings.judge_key_env, "") if settings.judge_key_env else ""
    return dataclasses.replace(settings, judge_key=key)


def _refusing_as_settings(read: Callable[[], dict[str, str]]) -> dict[str, str]:
    try:
        return read()
    except config_file.ConfigError as exc:
        raise SettingsError(exc.problems, hint=HINT) from None


def _shown(path: Path, workspace: Path) -> str:
    try:
        return str(path.relative_to(workspace))
    except ValueError:
        return str(path)
