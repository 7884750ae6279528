"""The base branch's history for the job summary: its last reports, read from the checkout's git objects.

The reports are the versions of ``baseline-path`` along the base commit's first
parents (the line of the base branch), newest first, read by ``GitObjects``
like the baseline itself: nothing is fetched and no git binary is needed.

A default checkout (``fetch-depth: 1``) holds no history of the base branch.
The history is then the base report the comparison used, if any, and this
pull request, and the summary says that ``fetch-depth: 0`` gives the rest.
Artifacts of past runs are not read for it: each holds a whole report (5 MB
for 10,000 queries) behind its own download, on every pull request run, while
a full clone of the repository is a one-time cost the checkout step already
knows how to pay.
"""

from __future__ import annotations

import hashlib
import time

from ..comparison.history import Point, history_metrics, history_of
from ..core.errors import InputError
from ..core.history import History
from ..core.report_model import Report
from ..formats.jsondoc import parse_document
from ..formats.report import as_report
from .baseline import Baseline
from .event import PULL_REQUEST_EVENTS, Event
from .git import LATEST_TIME, FileHistory, Git
from .settings import Settings

THIS_PR = "this PR"
FETCH_HINT = "set fetch-depth: 0 in actions/checkout to chart the base branch's history"


def base_history_records(
    settings: Settings, event: Event, git: Git, baseline: Baseline, report: Report, now: str
) -> History | None:
    """The history for the summary, or None when it is off or there is no base branch."""
    if settings.history == 0 or event.name not in PULL_REQUEST_EVENTS or not event.base_sha:
        return None
    found = git.file_history(event.base_sha, settings.baseline_path, settings.history)
    points, unreadable = _points(found, baseline)
    if not points and baseline.report is not None:
        points = [Point(event.base_sha[:7], None, baseline.report)]
    note = _note(settings, event, found, len(points), unreadable)
    return history_of([*points, Point(THIS_PR, now[:10], report)], history_metrics(report), note=note)


def _points(found: FileHistory, baseline: Baseline) -> tuple[list[Point], int]:
    points, unreadable = [], 0
    for version in reversed(found.versions):  # oldest first
        # The base commit's version is usually the very bytes the baseline was read from: a
        # 10k-query report is 5 MB of JSON, parsed once (hashing the bytes costs a hundredth of it).
        if baseline.report is not None and baseline.sha256 == hashlib.sha256(version.data).hexdigest():
            points.append(Point(version.commit[:7], _day(version.timestamp), baseline.report))
            continue
        try:
            document = parse_document(version.data, "history")
        except InputError:
            unreadable += 1
            continue
        if isinstance(document, dict):
            points.append(Point(version.commit[:7], _day(version.timestamp), as_report(document)))
        else:
            unreadable += 1
    return points, unreadable


def _day(timestamp: int) -> str | None:
    """The commit's day, or None when the reader could not tell (a time of 0)."""
    if not 0 < timestamp <= LATEST_TIME:
        return None
    return time.strftime("%Y-%m-%d", time.gmtime(timestamp))


def _note(settings: Settings, event: Event, found: FileHistory, count: int, unreadable: int) -> str:
    branch = event.base_ref or "the base branch"
    where = f"{settings.baseline_path} on {branch}"  # escaped by the view, as every string of the PR
    if not found.versions:
        why = found.cut or f"no commit on {branch} holds {settings.baseline_path}"
        told = f"The base report and this pull request only: {why}; {FETCH_HINT}."
        return told if found.cut else f"No history of {where}: {why}."
    versions = f"{count} version{'' if count == 1 else 's'}"  # a repository's first report is one version
    text = f"The last {versions} of {where} (first parents from {event.base_sha[:12]}), then this pull request."
    if unreadable:
        text += f" {unreadable} version(s) were not JSON and are left out."
    if found.cut:
        text += f" The history stops early: {found.cut}; {FETCH_HINT}."
    return text
