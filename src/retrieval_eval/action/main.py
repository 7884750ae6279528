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
from pathlib import Path
from typing import TextIO

from ..core.errors import RetrievalEvalError
from ..core.exits import EXIT_NO_ANSWER
from ..pipeline.forking import worker_count, workers_override
from ..pipeline.timestamps import generated_at as stamp
from ..render.scrub import MIN_LENGTH, encoded_forms, secret_inputs
from .deps import Deps
from .event import Event, load_event
from .flow import publish_early_failure, run_evaluate, run_post_comment
from .git import GitObjects
from .github import GitHubClient
from .publish import Console, RunnerFiles, scrubbing
from .settings import Settings, load_settings, runner_from_env


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
    raw = secret_inputs(env, encoded=False)
    for secret in (*raw, *(form for form in secrets if form not in raw)):  # as given first, then encoded
        console.mask(secret)
    with scrubbing(secrets):
        return _main(env, console, sleep, secrets)


def _main(env: Mapping[str, str], console: Console, sleep: Callable[[float], None], secrets: tuple[str, ...]) -> int:
    runner = runner_from_env(env, cwd=Path.cwd())
    files = RunnerFiles(runner.step_summary, runner.output_file, console)
    try:
        settings = load_settings(env, runner)
        event = load_event(runner.event_name, runner.event_path)
    except RetrievalEvalError as exc:
        publish_early_failure(files, exc, env=env, runner=runner)
        return EXIT_NO_ANSWER
    deps = Deps(
        console=console,
        github=GitHubClient(settings.api_url, settings.github_token, sleep=sleep),
        git=GitObjects(runner.workspace),
        now=lambda: generated_at(env),
        files=files,
        workers=worker_count(workers_override(env)),
    )
    # The judge's key is no input, so secret_inputs never saw it: masked and scrubbed like one
    # once the settings name its variable (the runner masks only what a workflow marked secret).
    key = settings.judge_key.strip()
    judge_secrets = (key, *sorted(encoded_forms(key))) if len(key) >= MIN_LENGTH else ()
    if judge_secrets:
        console.mask(key)
    with scrubbing((*secrets, *judge_secrets)):
        code = run(settings, event, deps)
    # A runner file that could not be written is a question not answered, even after a PASS.
    return EXIT_NO_ANSWER if files.broken else code


def run(settings: Settings, event: Event, deps: Deps) -> int:
    if settings.mode == "post-comment":
        return run_post_comment(settings, event, deps)
    return run_evaluate(settings, event, deps)


def generated_at(env: Mapping[str, str]) -> str:
    """The report's time stamp: SOURCE_DATE_EPOCH when set (reproducible builds), else now."""
    return stamp(source_date_epoch=env.get("SOURCE_DATE_EPOCH"))
