"""The action's entry point: the one impure shell.

``main`` reads the environment it is given, builds the collaborators (the
GitHub client, git, the console, the clock) and hands them to ``run``, which
scores, publishes everything (report, summary, outputs, annotations, comment)
and only then decides the exit code:

  0  PASS (or INDETERMINATE with fail-on-indeterminate: false)
  1  FAIL, or INDETERMINATE
  2  the inputs could not be read, or an output file could not be written; the summary says why
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..core.errors import RetrievalEvalError
from ..render.scrub import secret_inputs
from .event import Event, load_event
from .git import Git, GitCli
from .github import GitHubClient
from .publish import Console, scrubbing
from .settings import (
    Runner,
    Settings,
    SettingsError,
    config_location,
    parse_config_text,
    parse_settings,
    runner_from_env,
)

EXIT_OK, EXIT_BAD_ANSWER, EXIT_NO_ANSWER = 0, 1, 2


@dataclass(frozen=True)
class Deps:
    """The collaborators everything below the shell receives."""

    console: Console
    github: GitHubClient
    git: Git
    now: Callable[[], str]


def main(
    environ: Mapping[str, str] | None = None,
    *,
    stdout: TextIO | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    env = os.environ if environ is None else environ
    console = Console(stdout or sys.stdout)
    # Masked before anything is printed, and scrubbed from everything published.
    secrets = secret_inputs(env)
    for secret in secrets:
        console.mask(secret)
    with scrubbing(secrets):
        return _main(env, console, sleep)


def _main(env: Mapping[str, str], console: Console, sleep: Callable[[float], None]) -> int:
    runner = runner_from_env(env, cwd=Path.cwd())
    try:
        settings = load_settings(env, runner)
        event = load_event(runner.event_name, runner.event_path)
    except RetrievalEvalError as exc:
        from .flow import publish_early_failure

        publish_early_failure(runner, console, exc)
        return EXIT_NO_ANSWER
    deps = Deps(
        console=console,
        github=GitHubClient(settings.api_url, settings.github_token, sleep=sleep),
        git=GitCli(runner.workspace),
        now=lambda: generated_at(env),
    )
    return run(settings, event, deps)


def run(settings: Settings, event: Event, deps: Deps) -> int:
    from .flow import run_evaluate, run_post_comment

    if settings.mode == "post-comment":
        return run_post_comment(settings, event, deps)
    return run_evaluate(settings, event, deps)


def load_settings(env: Mapping[str, str], runner: Runner) -> Settings:
    path, _named = config_location(env, runner.workspace)
    config: dict[str, str] = {}
    shown = ""
    if path is not None:
        shown = os.path.relpath(path, runner.workspace)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            reason = "not found" if isinstance(exc, FileNotFoundError) else f"cannot be read ({exc})"
            raise SettingsError([f"config: {shown} {reason}"]) from None
        config = parse_config_text(text, source=shown)
    return parse_settings(env, config, runner=runner, config_file=shown)


def generated_at(env: Mapping[str, str]) -> str:
    """The report's time stamp: SOURCE_DATE_EPOCH when set (reproducible builds), else now."""
    from ..pipeline.timestamps import generated_at as stamp

    return stamp(source_date_epoch=env.get("SOURCE_DATE_EPOCH"))
