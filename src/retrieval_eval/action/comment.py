"""The one sticky pull-request comment: where it goes, and posting it without failing the job."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..core.errors import RetrievalEvalError
from ..pipeline.settings import DEFAULT_API_URL
from ..render import comment_marker
from .deps import Deps
from .event import Event, load_event
from .github import Forbidden, GitHubClient, GitHubError
from .publish import Console, upsert_comment
from .settings import Runner, Settings, input_value

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


def post_without_settings(env: Mapping[str, str], runner: Runner, console: Console, body: str) -> Posted:
    """When the settings themselves are wrong, the error still reaches the pull request, so an old
    PASS is not left standing: token, API root and comment id as the inputs give them (their
    defaults where those are wrong too), the pull request from the event, when it can be read."""
    token = input_value(env, "github-token")
    if not token or not runner.repository or input_value(env, "comment") == "off":
        return Posted()
    try:
        number = load_event(runner.event_name, runner.event_path).pr_number
    except RetrievalEvalError:
        return Posted()
    if number is None:
        return Posted()
    comment_id = input_value(env, "comment-id") or "default"
    try:
        marker = comment_marker(comment_id)
    except RetrievalEvalError:
        marker = comment_marker("default")
    api_url = input_value(env, "api-url") or env.get("GITHUB_API_URL", "") or DEFAULT_API_URL
    try:
        posted = upsert_comment(
            GitHubClient(api_url, token), runner.repository, number, f"{marker}\n{body}", marker=marker
        )
    except (GitHubError, ValueError) as exc:
        console.command("notice", f"The PR comment was not posted ({exc}).", title=TITLE)
        return Posted()
    console.log(f"{TITLE}: comment {'created' if posted.created else 'updated'}: {posted.url}")
    return Posted(True, posted.url)
