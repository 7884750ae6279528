"""What GitHub sends the action, read into typed records (formats/github.py): REST answers and
the event payload. Each expected value is read off the payload by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from retrieval_eval.action.event import load_event
from retrieval_eval.core.errors import InputError
from retrieval_eval.formats.github import (
    Artifact,
    Comment,
    Event,
    PullRequest,
    TriggeringRun,
    WorkflowRun,
    artifact_from_api,
    comment_from_api,
    event_from_json,
    login_from_api,
    page_items,
    pull_request_from_api,
    workflow_run_from_api,
)

PULL = {
    "pull_request": {"number": 7, "base": {"sha": "b" * 40, "ref": "main"}, "head": {"sha": "h" * 40}},
    "repository": {"default_branch": "trunk"},
}
FINISHED = {
    "workflow_run": {
        "id": 99,
        "event": "pull_request",
        "head_sha": "c" * 40,
        "head_branch": "feature",
        "head_repository": {"owner": {"login": "fork-owner"}},
        "pull_requests": [{"number": 3}, {"number": "4"}, {"number": 5}],
    },
    "repository": {"default_branch": "main"},
}


def test_a_pull_request_event_reads_its_pull_request() -> None:
    assert event_from_json("pull_request", PULL) == Event(
        "pull_request", pr_number=7, base_sha="b" * 40, base_ref="main", default_branch="trunk"
    )
    # The same payload under another event name: the pull request is not read, the repository is.
    assert event_from_json("push", PULL) == Event("push", default_branch="trunk")


# A merge queue's group (GitHub's documented merge_group payload): the commit it lands on.
GROUP = {
    "action": "checks_requested",
    "merge_group": {
        "head_sha": "h" * 40,
        "head_ref": "refs/heads/gh-readonly-queue/main/pr-7-" + "b" * 40,
        "base_sha": "b" * 40,
        "base_ref": "refs/heads/main",
        "head_commit": {"id": "h" * 40},
    },
    "repository": {"default_branch": "trunk"},
}


def test_a_merge_group_event_reads_the_base_branch_it_lands_on() -> None:
    assert event_from_json("merge_group", GROUP) == Event(
        "merge_group", base_sha="b" * 40, base_ref="main", default_branch="trunk"
    )
    # No pull request to comment on: the group's head_ref only mentions one.
    assert event_from_json("merge_group", GROUP).pr_number is None
    # A branch named without refs/heads/ is taken as it is; the group is read for merge_group only.
    named = {"merge_group": {**GROUP["merge_group"], "base_ref": "release/2"}}  # type: ignore[dict-item]
    assert event_from_json("merge_group", named).base_ref == "release/2"
    assert event_from_json("pull_request", GROUP) == Event("pull_request", default_branch="trunk")


def test_a_workflow_run_event_reads_the_run_that_finished() -> None:
    event = event_from_json("workflow_run", FINISHED)
    assert event.triggering_run == TriggeringRun(99, "pull_request", "c" * 40, "feature", "fork-owner", (3, 5))
    assert event.pr_number is None and event.default_branch == "main"
    assert event_from_json("push", FINISHED).triggering_run is None


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        "text",
        {"pull_request": []},
        {"pull_request": {"number": True, "base": "main"}},
        {"pull_request": {"number": -1, "base": {"sha": 5, "ref": None}}},
        {"repository": {"default_branch": ["main"]}, "workflow_run": {"id": "99"}},
        {"merge_group": []},
        {"merge_group": {"base_sha": 5, "base_ref": ["refs/heads/main"]}},
    ],
)
def test_a_field_of_another_type_reads_as_absent(payload: Any) -> None:
    for name in ("pull_request", "workflow_run", "merge_group"):
        assert event_from_json(name, payload) == Event(name)


def test_the_event_file_is_read_or_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(PULL))
    assert load_event("pull_request_target", str(path)).pr_number == 7
    assert load_event("pull_request", "") == Event("pull_request")
    path.write_text('{"pull_request": ')
    with pytest.raises(InputError, match="event.json"):
        load_event("pull_request", str(path))


def test_a_lone_surrogate_in_a_field_nobody_reads_does_not_fail_the_event(tmp_path: Path) -> None:
    """Reports and comparisons refuse a lone surrogate (their strings are written back); the
    event's payload is GitHub's, read for a few fields, and is read as it was."""
    path = tmp_path / "event.json"
    payload = json.dumps(PULL)[:-1] + ', "comment": {"body": "broken \\ud83d here"}}'
    path.write_text(payload)
    assert load_event("pull_request", str(path)).pr_number == 7


def test_a_field_read_holding_a_lone_surrogate_reads_as_absent(tmp_path: Path) -> None:
    """The payload is read with its lone surrogates, but a field that is read holds a branch or
    a commit, written into the summary, the comment and the API's URLs: one holding a lone
    surrogate (``"sha": "\\udfff"``) failed the summary's UTF-8 count with a traceback."""
    path = tmp_path / "event.json"
    broken = {
        "pull_request": {"number": 7, "base": {"sha": "\udfff", "ref": "main\ud800"}},
        "repository": {"default_branch": "\udc00"},
    }
    path.write_text(json.dumps(broken))
    assert load_event("pull_request", str(path)) == Event("pull_request", pr_number=7)
    run = {**FINISHED["workflow_run"], "head_branch": "f\ud83d", "head_sha": "\ude00"}  # type: ignore[dict-item]
    run["head_repository"] = {"owner": {"login": "x\udfff"}}
    found = event_from_json("workflow_run", {"workflow_run": run}).triggering_run
    assert found == TriggeringRun(99, "pull_request", "", "", "", (3, 5))


def test_rest_answers_read_into_records() -> None:
    comment = {"id": 12, "body": "hi", "user": {"login": "bot", "type": "Bot"}, "html_url": "u"}
    assert comment_from_api(comment) == Comment(12, "hi", "bot", "Bot", "u")
    assert comment_from_api({"id": "13", "body": None, "user": None}) == Comment(13, "", "", "", "")
    artifact = {
        "id": 5,
        "name": "retrieval-eval-report",
        "expired": False,
        "created_at": "2026-01-01T00:00:00Z",
        "size_in_bytes": 2048,
        "workflow_run": {"id": 21, "head_branch": "main", "repository_id": 1, "head_repository_id": 2},
    }
    assert artifact_from_api(artifact) == Artifact(
        5, "retrieval-eval-report", False, 21, "main", 1, 2, "2026-01-01T00:00:00Z", 2048
    )
    pull = {"number": 9, "state": "open", "head": {"sha": "f" * 40}, "html_url": "p"}
    assert pull_request_from_api(pull) == PullRequest(9, "open", "f" * 40, "p")
    assert workflow_run_from_api({"conclusion": "success", "event": "push"}) == WorkflowRun("success", "push")
    assert workflow_run_from_api({"conclusion": None, "event": 3}) == WorkflowRun(None, None)
    assert login_from_api({"login": "octocat"}) == "octocat"
    assert login_from_api(None) is None and login_from_api({"login": 5}) is None
    assert page_items({"artifacts": [1, 2]}, "artifacts") == [1, 2] and page_items([3], None) == [3]
    assert page_items({"total_count": 0}, "artifacts") == [] and page_items(None, None) == []


@pytest.mark.parametrize(
    ("read", "answer"),
    [
        (comment_from_api, ["not", "an", "object"]),
        (comment_from_api, {"body": "no id"}),
        (artifact_from_api, "text"),
        (pull_request_from_api, {"number": "nine"}),
        (workflow_run_from_api, [1]),
        (login_from_api, "octocat"),
        (lambda answer: page_items(answer, None), {"an": "object"}),
        (lambda answer: page_items(answer, "artifacts"), {"artifacts": "all"}),
    ],
)
def test_an_answer_of_another_shape_is_refused(read: Any, answer: Any) -> None:
    # The client turns these into a GitHubError ("not what the API documents"), never a crash.
    with pytest.raises((KeyError, TypeError, ValueError)):
        read(answer)
