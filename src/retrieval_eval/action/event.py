"""The event that started the workflow: what the action reads from its payload.

The payload is read into an :class:`Event` by :mod:`retrieval_eval.formats.github`; the action
handles the typed record only.
"""

from __future__ import annotations

from ..formats.github import BASE_BRANCH_EVENTS, MERGE_GROUP, PULL_REQUEST_EVENTS, Event, TriggeringRun, event_from_json
from ..formats.jsondoc import read_document

__all__ = ["BASE_BRANCH_EVENTS", "MERGE_GROUP", "PULL_REQUEST_EVENTS", "Event", "TriggeringRun", "load_event"]


def load_event(name: str, path: str) -> Event:
    """The payload at ``path`` (GITHUB_EVENT_PATH); an empty one when there is none."""
    if not path:
        return Event(name)
    # A few of the payload's fields are read: a lone surrogate in a title nobody reads fails nothing.
    return event_from_json(name, read_document(path, "event", lone_surrogates=True))
