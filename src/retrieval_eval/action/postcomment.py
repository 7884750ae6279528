"""``mode: post-comment``: the privileged half of the fork recipe.

A pull request from a fork runs with a read-only token, so its workflow can
render the comment but not post it. A second workflow, triggered by
``workflow_run`` in the base repository's context, runs this mode: it reads
the comment the first run rendered (from the workspace, where a download step
put it, or straight from the triggering run's artifacts), finds the pull
request by the run's head commit, and upserts the sticky comment.

Nothing from the fork is executed or extracted to disk; the PR number is never
taken from the artifact (a fork could name someone else's PR), only from
GitHub: the event's ``pull_requests`` or a search of open PRs by head commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..core.errors import InputError, UsageError
from ..formats.jsondoc import parse_document
from ..render import comment_marker
from .baseline import MAX_ARCHIVE_BYTES, MAX_MEMBER_BYTES, read_zip_member
from .comment import TITLE, Posted, post_comment
from .deps import Deps
from .event import PULL_REQUEST_EVENTS, Event, TriggeringRun
from .github import GitHubError
from .settings import Settings


@dataclass(frozen=True)
class Rendered:
    body: str
    report: bytes | None
    source: str


def post_rendered_comment(settings: Settings, event: Event, deps: Deps) -> tuple[Posted, str]:
    """Post the comment of the triggering run; returns what was posted and that run's verdict."""
    run = triggering_run(event)
    if run.event not in PULL_REQUEST_EVENTS:
        deps.console.log(f"{TITLE}: the triggering run was a {run.event or 'non-PR'} event; nothing to post")
        return Posted(), ""
    rendered = rendered_files(settings, run, deps)
    if comment_marker(settings.comment_id) not in rendered.body:
        raise InputError(
            "comment",
            None,
            f"{rendered.source} is not a comment for comment-id {settings.comment_id!r}",
            hint="give both workflows the same comment-id",
        )
    verdict = _verdict(rendered.report)
    number = find_pull_request(settings, run, deps)
    if number is None:
        deps.console.command(
            "notice",
            f"No open pull request has head commit {run.head_sha[:12]}; the comment was not posted.",
            title=TITLE,
        )
        return Posted(), verdict
    return post_comment(settings, deps, number, rendered.body), verdict


def triggering_run(event: Event) -> TriggeringRun:
    run = event.triggering_run
    if run is None:
        raise UsageError(
            f"mode post-comment needs a workflow_run event, and this is {event.name or 'no event'}",
            hint="run it from a workflow `on: workflow_run` that follows the pull request workflow",
        )
    return run


def rendered_files(settings: Settings, run: TriggeringRun, deps: Deps) -> Rendered:
    """The comment file in the workspace (downloaded there by a step), else in the run's artifacts."""
    comment_path = settings.resolve(settings.comment_file)
    if comment_path.is_file():
        report_path = settings.resolve(settings.report)
        report = _bounded(report_path, "report") if report_path.is_file() else None
        return Rendered(_text(_bounded(comment_path, "comment"), settings.comment_file), report, settings.comment_file)
    found = _from_artifacts(settings, run, deps)
    if found is None:
        raise InputError(
            "comment",
            None,
            f"{settings.comment_file} is neither in the workspace nor in an artifact of run {run.id}",
            hint="upload the report and comment files in the pull request workflow "
            "(actions/upload-artifact, see docs/action.md), and keep `report` the same in both",
        )
    return found


def _from_artifacts(settings: Settings, run: TriggeringRun, deps: Deps) -> Rendered | None:
    repo = settings.runner.repository
    comment_name = PurePosixPath(settings.comment_file).name
    report_name = PurePosixPath(settings.report).name
    try:
        artifacts = [
            a for a in deps.github.list_run_artifacts(repo, run.id) if not a.expired and a.size <= MAX_ARCHIVE_BYTES
        ]
        for artifact in artifacts:
            archive = deps.github.download_artifact(repo, artifact.id)
            where = f"artifact {artifact.name} of run {run.id}"
            body = read_zip_member(archive, (comment_name,), where=where, source="comment")
            if body is not None:
                report = read_zip_member(archive, (report_name,), where=where, source="comment")
                return Rendered(_text(body, where), report, where)
    except GitHubError as exc:
        raise InputError(
            "comment",
            None,
            f"the artifacts of run {run.id} could not be read ({exc})",
            hint="grant the workflow `actions: read`",
        ) from None
    return None


def find_pull_request(settings: Settings, run: TriggeringRun, deps: Deps) -> int | None:
    """The open PR whose head is the run's commit. ``pull_requests`` is empty for forks,
    so the open PRs are searched by head (owner:branch first, then all of them)."""
    if run.pull_numbers:
        return run.pull_numbers[0]
    repo = settings.runner.repository
    try:
        if run.head_owner and run.head_branch:
            narrowed = deps.github.list_pulls(repo, head=f"{run.head_owner}:{run.head_branch}")
            match: int | None = next((p.number for p in narrowed if p.head_sha == run.head_sha), None)
            if match is not None:
                return match
        found: int | None = next((p.number for p in deps.github.list_pulls(repo) if p.head_sha == run.head_sha), None)
        return found
    except GitHubError as exc:
        deps.console.log(f"could not search the pull requests ({exc})")
        return None


def _text(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("comment", None, f"{where} is not UTF-8 text") from None


def _verdict(report: bytes | None) -> str:
    if report is None:
        return ""
    try:
        data = parse_document(report, "report")
    except InputError:
        return ""
    # The report comes from the fork's run: any shape is possible.
    verdict = data.get("verdict") if isinstance(data, dict) else None
    status = verdict.get("status") if isinstance(verdict, dict) else None
    return status if status in ("PASS", "FAIL", "INDETERMINATE", "ERROR") else ""


def _bounded(path: Path, source: str) -> bytes:
    """A file another run left in the workspace, read no further than an artifact member may be."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_MEMBER_BYTES + 1)
    except OSError as exc:
        raise InputError(source, None, f"cannot read {path} ({exc.strerror or exc})") from None
    if len(data) > MAX_MEMBER_BYTES:
        raise InputError(source, None, f"{path} is larger than {MAX_MEMBER_BYTES:,} bytes; a rendered {source} is not")
    return data
