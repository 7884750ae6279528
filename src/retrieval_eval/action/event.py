"""The event that started the workflow: what the action reads from its payload."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..formats.jsondoc import read_document

PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})


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
    name: str
    payload: Mapping[str, Any] = field(default_factory=dict)

    @property
    def pull_request(self) -> Mapping[str, Any]:
        if self.name not in PULL_REQUEST_EVENTS:
            return {}
        return _object(self.payload.get("pull_request"))

    @property
    def pr_number(self) -> int | None:
        return _number(self.pull_request.get("number"))

    @property
    def base_sha(self) -> str:
        return _text(_object(self.pull_request.get("base")).get("sha"))

    @property
    def base_ref(self) -> str:
        return _text(_object(self.pull_request.get("base")).get("ref"))

    @property
    def default_branch(self) -> str:
        return _text(_object(self.payload.get("repository")).get("default_branch"))

    @property
    def triggering_run(self) -> TriggeringRun | None:
        run = _object(self.payload.get("workflow_run")) if self.name == "workflow_run" else {}
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
    return value if isinstance(value, str) else ""


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def load_event(name: str, path: str) -> Event:
    """The payload at ``path`` (GITHUB_EVENT_PATH); an empty one when there is none."""
    if not path:
        return Event(name)
    payload = read_document(path, "event")
    return Event(name, payload if isinstance(payload, dict) else {})
