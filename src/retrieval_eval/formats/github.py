"""What GitHub sends the action, as typed records: REST answers and the event payload.

The JSON comes from GitHub, a proxy in front of it, or (the event payload) a file on the runner
whose content a pull request's author can shape; here, and only here, it is taken apart. A REST
answer missing a field the API documents raises ``KeyError``/``TypeError``/``ValueError`` (the
client turns those into a ``GitHubError``); the event payload is read field by field as the type
each must have, anything else reading as absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .jsonl import lone_surrogate

PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})
# A merge queue tests each group of pull requests on top of the branch it will land on, and its
# payload names that branch's commit (merge_group.base_sha): delta gates hold there as on a pull
# request, or pull requests that each stay within a gate could land together past it.
MERGE_GROUP = "merge_group"
BASE_BRANCH_EVENTS = PULL_REQUEST_EVENTS | {MERGE_GROUP}


# -- REST answers -------------------------------------------------------------------------


@dataclass(frozen=True)
class Comment:
    id: int
    body: str
    login: str
    user_type: str
    html_url: str


@dataclass(frozen=True)
class Artifact:
    id: int
    name: str
    expired: bool
    run_id: int | None
    head_branch: str | None
    repository_id: int | None
    head_repository_id: int | None
    created_at: str = ""
    size: int = 0


@dataclass(frozen=True)
class PullRequest:
    number: int
    state: str
    head_sha: str
    html_url: str


@dataclass(frozen=True)
class WorkflowRun:
    """A workflow run as the action reads it: how it ended, and what started it."""

    conclusion: str | None
    event: str | None


def comment_from_api(answer: object) -> Comment:
    data = _answer(answer, "a comment")
    user = data.get("user") or {}
    return Comment(
        int(data["id"]),
        data.get("body") or "",
        user.get("login") or "",
        user.get("type") or "",
        data.get("html_url") or "",
    )


def artifact_from_api(answer: object) -> Artifact:
    data = _answer(answer, "an artifact")
    run = data.get("workflow_run") or {}
    return Artifact(
        int(data["id"]),
        data.get("name") or "",
        bool(data.get("expired")),
        run.get("id"),
        run.get("head_branch"),
        run.get("repository_id"),
        run.get("head_repository_id"),
        data.get("created_at") or "",
        int(data.get("size_in_bytes") or 0),
    )


def pull_request_from_api(answer: object) -> PullRequest:
    data = _answer(answer, "a pull request")
    return PullRequest(
        int(data["number"]),
        data.get("state") or "",
        (data.get("head") or {}).get("sha") or "",
        data.get("html_url") or "",
    )


def workflow_run_from_api(answer: object) -> WorkflowRun:
    data = _answer(answer, "a run")
    conclusion, event = data.get("conclusion"), data.get("event")
    return WorkflowRun(
        conclusion if isinstance(conclusion, str) else None,
        event if isinstance(event, str) else None,
    )


def login_from_api(data: object) -> str | None:
    """``GET /user``'s login, or None when the answer holds none."""
    if data is None:
        return None
    login = _answer(data, "a user").get("login")
    return login if isinstance(login, str) else None


def page_items(answer: object, key: str | None) -> list[object]:
    """The items of one page of a list endpoint: the answer itself, or its ``key`` (``artifacts``)."""
    if answer is None:
        return []
    items = _answer(answer, "a page").get(key) if key else answer
    if items is None:
        return []
    if not isinstance(items, list):
        raise TypeError(f"a page's items are a list, not {type(items).__name__}")
    return items


def _answer(answer: object, what: str) -> Mapping[str, Any]:
    if not isinstance(answer, dict):
        raise TypeError(f"{what} is an object, not {type(answer).__name__}")
    return answer


# -- the event payload --------------------------------------------------------------------


@dataclass(frozen=True)
class TriggeringRun:
    """For ``workflow_run``: the run that finished, which carries the PR's results."""

    id: int
    event: str
    head_sha: str
    head_branch: str
    head_owner: str
    pull_numbers: tuple[int, ...]


@dataclass(frozen=True)
class Event:
    """The event that started the workflow: its name, and what the action reads of its payload
    (the pull request's fields only for a pull request event, the run only for ``workflow_run``)."""

    name: str
    pr_number: int | None = None
    base_sha: str = ""
    base_ref: str = ""
    default_branch: str = ""
    triggering_run: TriggeringRun | None = None


def event_from_json(name: str, payload: object) -> Event:
    """The event ``name`` with what its payload says; a payload that is no object says nothing."""
    data = _object(payload)
    pull = _object(data.get("pull_request")) if name in PULL_REQUEST_EVENTS else {}
    base = _object(pull.get("base"))
    group = _object(data.get(MERGE_GROUP)) if name == MERGE_GROUP else {}
    return Event(
        name,
        pr_number=_number(pull.get("number")),
        base_sha=_text(base.get("sha")) or _text(group.get("base_sha")),
        base_ref=_text(base.get("ref")) or _branch(_text(group.get("base_ref"))),
        default_branch=_text(_object(data.get("repository")).get("default_branch")),
        triggering_run=_triggering_run(_object(data.get("workflow_run"))) if name == "workflow_run" else None,
    )


def _triggering_run(run: Mapping[str, Any]) -> TriggeringRun | None:
    run_id = _number(run.get("id"))
    if run_id is None:
        return None
    owner = _object(_object(run.get("head_repository")).get("owner")).get("login")
    pulls = run.get("pull_requests")
    numbers = tuple(
        number
        for number in (_number(_object(p).get("number")) for p in (pulls if isinstance(pulls, list) else []))
        if number is not None
    )
    return TriggeringRun(
        run_id,
        _text(run.get("event")),
        _text(run.get("head_sha")),
        _text(run.get("head_branch")),
        _text(owner),
        numbers,
    )


# The payload is a file on the runner, but what it holds comes from GitHub and the pull request:
# every field is read as the type it must have, and anything else reads as absent.
def _object(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _text(value: object) -> str:
    # The payload is read with its lone surrogates (action/event.py): a field holding one names
    # no branch or commit, and would fail every page and file it is written into, so it is absent.
    return value if isinstance(value, str) and lone_surrogate(value) is None else ""


def _branch(ref: str) -> str:
    """A merge group names its base as a ref (refs/heads/main); a pull request names the branch."""
    return ref.removeprefix("refs/heads/")


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
