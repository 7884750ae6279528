"""The one sticky pull-request comment: where it goes, and posting it without failing the job."""

from __future__ import annotations

from dataclasses import dataclass

from ..render import comment_marker
from .deps import Deps
from .event import Event
from .github import Forbidden, GitHubError
from .publish import upsert_comment
from .settings import Settings

TITLE = "retrieval-eval"


@dataclass(frozen=True)
class Posted:
    posted: bool = False
    url: str = ""


def publish_comment(settings: Settings, event: Event, deps: Deps, body: str) -> Posted:
    number = comment_target(settings, event, deps)
    return Posted() if number is None else post_comment(settings, deps, number, body)


def post_comment(settings: Settings, deps: Deps, number: int, body: str) -> Posted:
    """Upsert the sticky comment; a refusal is told once and never fails the job."""
    try:
        posted = upsert_comment(
            deps.github, settings.runner.repository, number, body, marker=comment_marker(settings.comment_id)
        )
    except Forbidden:
        deps.console.command(
            "notice",
            f"The PR comment was not posted: the token may not write to this pull "
            f"request (pull requests from forks get a read-only token). It was written to "
            f"{settings.comment_file}; docs/action.md shows how to post it from a second "
            f"workflow.",
            title=TITLE,
        )
        return Posted()
    except GitHubError as exc:
        deps.console.command(
            "notice", f"The PR comment was not posted ({exc}). It was written to {settings.comment_file}.", title=TITLE
        )
        return Posted()
    deps.console.log(f"{TITLE}: comment {'created' if posted.created else 'updated'}: {posted.url}")
    return Posted(True, posted.url)


def comment_target(settings: Settings, event: Event, deps: Deps) -> int | None:
    if settings.comment == "off" or not settings.runner.repository:
        return None
    if event.pr_number is not None:
        return event.pr_number
    if settings.comment != "always" or not settings.runner.sha:
        return None
    try:
        pulls = deps.github.list_pulls_for_commit(settings.runner.repository, settings.runner.sha)
    except GitHubError as exc:
        deps.console.log(f"{TITLE}: could not look up the pull request of {settings.runner.sha[:12]} ({exc})")
        return None
    return next((p.number for p in pulls if p.state == "open"), None)
