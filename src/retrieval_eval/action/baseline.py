"""Finding the base branch's report: the baseline a pull request is compared with.

``auto`` on a pull request tries, in order, the cheapest source that cannot be
stale: the report committed at ``baseline-path`` in the PR's base commit (read
from the checkout's git objects when it holds that commit, else through the
Contents API at that commit; nothing is fetched into the checkout), then the
newest ``retrieval-eval-report`` artifact of a successful run on the base branch. Finding none is a normal answer with a
reason that says how to publish one. A source the user named explicitly must
exist: not finding it is an input error.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ..core.errors import InputError
from ..core.report_model import Report
from ..formats.report import load_report_hashed, parse_report
from .event import BASE_BRANCH_EVENTS, MERGE_GROUP, Event
from .git import Git
from .github import GitHubClient, GitHubError, NotFound
from .settings import BaselineSpec, Settings

DEFAULT_ARTIFACT = "retrieval-eval-report"
FROM_CHECKOUT = "read from the checkout's git objects"
MAX_CANDIDATES = 10  # artifacts whose run we inspect before giving up
MAX_MEMBER_BYTES = 64 * 1024 * 1024
MAX_ARCHIVE_BYTES = 256 * 1024 * 1024  # a report and a comment are small; anything this big is something else
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Baseline:
    report: Report | None
    source: str = ""  # where the report came from, in words
    reason: str = ""  # why there is none
    notes: tuple[str, ...] = ()  # sources that failed for a reason worth telling
    no_base_branch: bool = False  # the event (a push, a schedule) has nothing to compare with
    sha256: str | None = None  # of the report's bytes as read (a file, a blob, an artifact's member)
    git_object: str = ""  # "<commit or ref>:<path>" when the report is a file of the repository's history
    gate_hint: str = ""  # what a delta gate without a base report says to do, in the action's words


@dataclass
class BaselineContext:
    settings: Settings
    event: Event
    git: Git
    github: GitHubClient
    notes: list[str] = field(default_factory=list)
    # Lookups the API failed (not a report found missing): then nobody knows whether one was published.
    failed: list[str] = field(default_factory=list)

    @property
    def repo(self) -> str:
        return self.settings.runner.repository


def resolve_baseline(ctx: BaselineContext) -> Baseline:
    spec = ctx.settings.baseline
    if spec.kind == "none":
        return Baseline(
            None,
            reason="the baseline input is 'none', so nothing is compared",
            gate_hint="the baseline input is 'none'; set it to auto or to a report to compare with",
        )
    if spec.kind == "path":
        report, sha256 = load_report_hashed(str(ctx.settings.resolve(spec.path)))
        return Baseline(report, source=spec.path, sha256=sha256)
    if spec.kind == "git":
        return _explicit(ctx, spec, _from_git_ref(ctx, spec.ref, spec.path))
    if spec.kind == "artifact":
        branch = ctx.event.base_ref or ctx.event.default_branch
        return _explicit(ctx, spec, _from_artifact(ctx, spec.name, branch))
    return _auto(ctx)


def _explicit(ctx: BaselineContext, spec: BaselineSpec, found: Baseline | None) -> Baseline:
    if found is None:
        tried = "; ".join(ctx.notes)
        # A lookup the API failed found nothing missing: it could not look (a wrong token, say).
        what = "could not be looked up" if ctx.failed else "was not found"
        raise InputError(
            "baseline",
            None,
            f"{spec.describe()} {what}" + (f" ({tried})" if tried else ""),
            hint="check the baseline input, or use baseline: auto to fall back to no baseline",
        )
    return found


def _auto(ctx: BaselineContext) -> Baseline:
    event, settings = ctx.event, ctx.settings
    if event.name not in BASE_BRANCH_EVENTS:
        return Baseline(None, reason=_not_a_pull_request(settings, event), no_base_branch=True)
    if not event.base_sha:
        # A pull request (or merge group) whose payload names no base commit still has a base
        # branch: its delta gates stay (INDETERMINATE), never set aside as on a push, which
        # would let them pass.
        return Baseline(
            None,
            reason=_no_base_commit(event),
            gate_hint='the event names no base commit to look it up at (see the note "No baseline")',
        )
    path = settings.baseline_path
    found = (
        _from_git_commit(ctx, event.base_sha, path)
        or _from_contents(ctx, event.base_sha, path)
        or _from_artifact(ctx, DEFAULT_ARTIFACT, event.base_ref)
    )
    if found is not None:
        return found
    if ctx.failed:
        return Baseline(
            None,
            reason=_not_looked_up(event, ctx.failed),
            notes=tuple(ctx.notes),
            gate_hint='the base branch\'s report could not be looked up (the API failed; see the note "No baseline")',
        )
    return Baseline(
        None,
        reason=_how_to_publish(settings, event),
        notes=tuple(ctx.notes),
        gate_hint=f'none was found for {event.base_ref or "the base branch"}; the note "No baseline" '
        "says where it was looked for and how to publish one",
    )


def _not_a_pull_request(settings: Settings, event: Event) -> str:
    what = f"a {event.name} event" if event.name else "not a pull request"
    return (
        f"this is {what}, not a pull request, so there is no base branch to compare with; "
        f"the report was written to {settings.report} to be committed as {settings.baseline_path} "
        f"or uploaded as the artifact {DEFAULT_ARTIFACT}"
    )


def _no_base_commit(event: Event) -> str:
    field = "merge_group.base_sha" if event.name == MERGE_GROUP else "pull_request.base.sha"
    return (
        f"this {event.name} event's payload names no base commit ({field}, read from "
        "GITHUB_EVENT_PATH), so the base branch's report cannot be looked up; delta gates are "
        "INDETERMINATE until it does"
    )


def _not_looked_up(event: Event, failed: list[str]) -> str:
    branch = event.base_ref or "the base branch"
    return (
        f"the baseline report of {branch} could not be looked up, so whether one was published is not "
        f"known: {'; '.join(failed)}"
    )


def _api_hint(status: int | None) -> str:
    """What a failed API call most likely means, by its status."""
    if status == 401:
        return " (is the github-token input a valid token? 401: the token was refused)"
    if status == 403:
        return " (does the workflow grant `actions: read` and `contents: read`?)"
    return ""


def _how_to_publish(settings: Settings, event: Event) -> str:
    branch = event.base_ref or "the base branch"
    return (
        f"no baseline report was found for {branch}: none at {settings.baseline_path} in the base commit "
        f"{event.base_sha[:12]}, and no successful run on {branch} uploaded an artifact named "
        f"{DEFAULT_ARTIFACT}. To publish one, run this action on pushes to {branch} and commit its "
        f"report to {settings.baseline_path}, or upload it with actions/upload-artifact under the "
        f"name {DEFAULT_ARTIFACT}"
    )


# -- git -------------------------------------------------------------------------


def _from_git_commit(ctx: BaselineContext, sha: str, path: str) -> Baseline | None:
    # A default (depth 1) checkout of a pull request holds the merge commit alone:
    # the base commit is then read through the Contents API, the next source.
    if not ctx.git.has_commit(sha):
        shallow = f"commit {sha[:12]} is not in the checkout (a shallow clone holds only what it checked out)"
        ctx.notes.append(ctx.git.problem or shallow)
        return None
    data = ctx.git.show(sha, path)
    if data is None:
        _note_refused(ctx)
        return None
    found = _parsed(data, f"{path} at {sha[:12]}", source=f"{path} at commit {sha[:12]}, {FROM_CHECKOUT}")
    return dataclasses.replace(found, git_object=f"{sha}:{path}")


def _from_git_ref(ctx: BaselineContext, ref: str, path: str) -> Baseline | None:
    data = ctx.git.show(ref, path)
    if data is not None:
        found = _parsed(data, f"{path} at {ref}", source=f"{path} at {ref}, {FROM_CHECKOUT}")
        return dataclasses.replace(found, git_object=f"{ref}:{path}")
    _note_refused(ctx)
    if not ctx.git.has_commit(ref):
        ctx.notes.append(f"{ref} is not in the checkout")
    # GitHub knows the branch as "release", the checkout as "origin/release".
    remote = _from_contents(ctx, ref.removeprefix("origin/"), path)
    return dataclasses.replace(remote, git_object=f"{ref}:{path}") if remote is not None else None


def _note_refused(ctx: BaselineContext) -> None:
    """An object the reader refused (a delta loop, a zlib bomb) is said; the next source is tried."""
    if ctx.git.problem:
        ctx.notes.append(ctx.git.problem)


# -- the API ---------------------------------------------------------------------


def _from_contents(ctx: BaselineContext, ref: str, path: str) -> Baseline | None:
    if not ctx.repo:
        return None
    try:
        data = ctx.github.get_contents(ctx.repo, path, ref=ref)
    except NotFound:
        return None
    except GitHubError as exc:
        failure = f"the Contents API could not be read ({exc}){_api_hint(exc.status)}"
        ctx.notes.append(failure)
        ctx.failed.append(failure)
        return None
    found = _parsed(data, f"{path} at {ref[:12]}", source=f"{path} at {ref[:12]}, read through the Contents API")
    return dataclasses.replace(found, git_object=f"{ref}:{path}")


def _from_artifact(ctx: BaselineContext, name: str, branch: str) -> Baseline | None:
    if not ctx.repo or not branch:
        return None
    try:
        return _newest_artifact(ctx, name, branch)
    except GitHubError as exc:
        failure = f"the artifacts of {branch} could not be listed: {exc}{_api_hint(exc.status)}"
        ctx.notes.append(failure)
        ctx.failed.append(failure)
        return None


def _newest_artifact(ctx: BaselineContext, name: str, branch: str) -> Baseline | None:
    candidates = []
    for artifact in ctx.github.list_artifacts(ctx.repo, name=name):
        # Same branch name is not enough: a fork's "main" is someone else's code.
        if (
            not artifact.expired
            and artifact.head_branch == branch
            and artifact.run_id is not None
            and artifact.head_repository_id == artifact.repository_id
            and artifact.size <= MAX_ARCHIVE_BYTES
        ):
            candidates.append(artifact)
        if len(candidates) >= MAX_CANDIDATES:
            break
    candidates.sort(key=lambda a: a.created_at, reverse=True)
    for artifact in candidates:
        run = ctx.github.get_workflow_run(ctx.repo, int(artifact.run_id or 0))
        # A pull request's run, or a merge group's (not landed yet), never stands for the branch.
        if run.conclusion != "success" or run.event in BASE_BRANCH_EVENTS:
            continue
        archive = ctx.github.download_artifact(ctx.repo, artifact.id)
        data = _report_member(archive, _member_names(ctx.settings), f"artifact {name}")
        return _parsed(data, f"artifact {name}", source=f"artifact {name} of run {artifact.run_id} on {branch}")
    return None


def _member_names(settings: Settings) -> tuple[str, ...]:
    return (PurePosixPath(settings.report).name, PurePosixPath(settings.baseline_path).name)


def _report_member(archive: bytes, preferred: tuple[str, ...], where: str) -> bytes:
    """The report inside an artifact zip: by the names we write, else its only JSON file."""
    found = read_zip_member(archive, preferred, where=where, source="baseline", fallback_suffix=".json")
    if found is None:
        raise InputError("baseline", None, f"{where} holds no report (expected {' or '.join(preferred)})")
    return found


def read_zip_member(
    archive: bytes, names: tuple[str, ...], *, where: str, source: str, fallback_suffix: str = ""
) -> bytes | None:
    """A file of an artifact zip, found by base name, read in memory (nothing is extracted:
    an artifact may come from a fork, and its paths are not to be trusted)."""
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
            files = [info for info in zipped.infolist() if not info.is_dir()]
            by_name = {PurePosixPath(info.filename).name: info for info in files}
            chosen = next((by_name[n] for n in names if n in by_name), None)
            fallback = [info for info in files if fallback_suffix and info.filename.endswith(fallback_suffix)]
            if chosen is None and len(fallback) == 1:
                chosen = fallback[0]
            if chosen is None:
                return None
            if chosen.file_size > MAX_MEMBER_BYTES:
                raise InputError(source, None, f"{where}: {chosen.filename} is too large")
            return _inflate(zipped, chosen, where=where, source=source)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, ValueError) as exc:
        # A damaged, encrypted or oddly compressed archive: whatever zipfile raises, it is the artifact's fault.
        raise InputError(source, None, f"{where} is not a zip archive we can read ({exc})") from None


def _inflate(zipped: zipfile.ZipFile, member: zipfile.ZipInfo, *, where: str, source: str) -> bytes:
    """The member's bytes, decompressed a chunk at a time and refused as soon as they pass the cap.

    The size in the header is the archive's word, not a fact: a member declaring 1,000 bytes
    can inflate to gigabytes, so the running total is what is checked.
    """
    chunks: list[bytes] = []
    total = 0
    with zipped.open(member) as stream:
        while chunk := stream.read(_CHUNK):
            total += len(chunk)
            if total > MAX_MEMBER_BYTES:
                raise InputError(
                    source,
                    None,
                    f"{where}: {member.filename} inflates to more than {MAX_MEMBER_BYTES:,} bytes "
                    f"(its header says {member.file_size:,})",
                )
            chunks.append(chunk)
    return b"".join(chunks)


def _parsed(data: bytes, where: str, *, source: str) -> Baseline:
    """A baseline from bytes, with the sha256 of exactly those bytes."""
    return Baseline(_parse(data, where), source=source, sha256=hashlib.sha256(data).hexdigest())


def _parse(data: bytes, where: str) -> Report:
    """The same reading and checks as load_report, for bytes that never were a file here."""
    return parse_report(data, "baseline", where=f"{where}: ")
