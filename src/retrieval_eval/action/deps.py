"""The collaborators everything below the action's shell receives: one integration test
drives the whole action by handing in fakes (a GitHub client pointed at a local server)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .git import Git
from .github import GitHubClient
from .publish import Console, RunnerFiles


@dataclass(frozen=True)
class Deps:
    console: Console
    github: GitHubClient
    git: Git
    now: Callable[[], str]
    files: RunnerFiles
    workers: int = 0  # forked helpers for reading a large run and the bootstrap
