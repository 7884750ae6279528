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
        return self.payload.get("pull_request") or {}

    @property
    def pr_number(self) -> int | None:
        number = self.pull_request.get("number")
        return int(number) if isinstance(number, int) else None

    @property
    def base_sha(self) -> str:
        return str((self.pull_request.get("base") or {}).get("sha") or "")

    @property
    def base_ref(self) -> str:
        return str((self.pull_request.get("base") or {}).get("ref") or "")

    @property
    def default_branch(self) -> str:
        return str((self.payload.get("repository") or {}).get("default_branch") or "")

    @property
    def triggering_run(self) -> TriggeringRun | None:
        run = self.payload.get("workflow_run") if self.name == "workflow_run" else None
        if not isinstance(run, Mapping) or not isinstance(run.get("id"), int):
            return None
        owner = ((run.get("head_repository") or {}).get("owner") or {}).get("login") or ""
        numbers = tuple(
            int(p["number"])
            for p in run.get("pull_requests") or []
            if isinstance(p, Mapping) and isinstance(p.get("number"), int)
        )
        return TriggeringRun(
            int(run["id"]),
            str(run.get("event") or ""),
            str(run.get("head_sha") or ""),
            str(run.get("head_branch") or ""),
            str(owner),
            numbers,
        )


def load_event(name: str, path: str) -> Event:
    """The payload at ``path`` (GITHUB_EVENT_PATH); an empty one when there is none."""
    if not path:
        return Event(name)
    payload = read_document(path, "event")
    return Event(name, payload if isinstance(payload, dict) else {})
