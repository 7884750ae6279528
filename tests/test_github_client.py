"""The GitHub client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fake_github import BOT, FakeGitHub
from retrieval_eval.action.github import Forbidden, GitHubClient, GitHubError, NotFound

TOKEN = "ghs_secretvalue123"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub().serve() as server:
        yield server


@pytest.fixture
def slept() -> list[float]:
    return []


@pytest.fixture
def client(fake: FakeGitHub, slept: list[float]) -> GitHubClient:
    return GitHubClient(fake.url, TOKEN, sleep=slept.append)


def test_sends_the_token_and_api_headers(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.add_comment(7, "hello")
    client.list_issue_comments("octo/widgets", 7)
    request = fake.requests[-1]
    assert request.authorization == f"Bearer {TOKEN}"
    assert request.headers["accept"] == "application/vnd.github+json"
    assert request.headers["x-github-api-version"] == "2022-11-28"
    assert request.headers["user-agent"].startswith("retrieval-eval/")


def test_token_is_not_in_repr(client: GitHubClient) -> None:
    assert TOKEN not in repr(client)


def test_paginates_all_comments(fake: FakeGitHub, client: GitHubClient) -> None:
    for n in range(250):
        fake.add_comment(3, f"comment {n}")
    comments = client.list_issue_comments("octo/widgets", 3)
    assert [c.body for c in comments] == [f"comment {n}" for n in range(250)]
    pages = fake.calls("GET", "/issues/3/comments")
    assert [r.query.get("page", "1") for r in pages] == ["1", "2", "3"]
    assert all(r.query["per_page"] == "100" for r in pages)


def test_create_and_update_comment(fake: FakeGitHub, client: GitHubClient) -> None:
    created = client.create_issue_comment("octo/widgets", 5, "first")
    assert created.login == BOT["login"] and created.user_type == "Bot"
    updated = client.update_issue_comment("octo/widgets", created.id, "second")
    assert updated.id == created.id and updated.body == "second"
    assert fake.comments[5][0]["body"] == "second"
    assert fake.calls("POST")[0].body == {"body": "first"}


def test_forbidden_and_not_found_are_typed(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.fail("POST", "/comments", 403)
    with pytest.raises(Forbidden) as caught:
        client.create_issue_comment("octo/widgets", 5, "x")
    assert caught.value.status == 403
    assert TOKEN not in str(caught.value)
    with pytest.raises(NotFound):
        client.get_contents("octo/widgets", "missing.json", ref="abc")


def test_retries_server_errors_then_succeeds(fake: FakeGitHub, client: GitHubClient, slept: list[float]) -> None:
    fake.fail("GET", "/comments", 500, times=2)
    assert client.list_issue_comments("octo/widgets", 1) == []
    assert len(fake.calls("GET", "/comments")) == 3
    assert slept == [1.0, 2.0]


def test_honours_retry_after_on_429(fake: FakeGitHub, client: GitHubClient, slept: list[float]) -> None:
    fake.fail("GET", "/comments", 429, **{"retry-after": "3"})
    client.list_issue_comments("octo/widgets", 1)
    assert slept == [3.0]


def test_gives_up_after_bounded_attempts(fake: FakeGitHub, client: GitHubClient, slept: list[float]) -> None:
    fake.fail("GET", "/comments", 502, times=10)
    with pytest.raises(GitHubError) as caught:
        client.list_issue_comments("octo/widgets", 1)
    assert caught.value.status == 502
    assert len(fake.calls("GET", "/comments")) == 4
    assert len(slept) == 3


def test_an_answer_of_another_shape_is_a_github_error(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.fail("GET", "/comments", 200)  # an object where a list belongs
    with pytest.raises(GitHubError, match="not what the API documents"):
        client.list_issue_comments("octo/widgets", 1)
    fake.fail("GET", "/actions/artifacts", 200)  # no "artifacts" key: an empty list, lazily
    assert list(client.list_artifacts("octo/widgets", name="x")) == []
    fake.fail("POST", "/comments", 201)
    with pytest.raises(GitHubError, match="create_issue_comment"):
        client.create_issue_comment("octo/widgets", 5, "x")


def test_unreachable_api_is_a_github_error(slept: list[float]) -> None:
    with FakeGitHub().serve() as gone:
        url = gone.url
    client = GitHubClient(url, TOKEN, sleep=slept.append, max_attempts=2)
    with pytest.raises(GitHubError, match="cannot reach the API"):
        client.list_issue_comments("octo/widgets", 1)


def test_contents_are_read_raw(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.contents[("base123", "dir/report.json")] = b'{"a": 1}'
    assert client.get_contents("octo/widgets", "dir/report.json", ref="base123") == b'{"a": 1}'
    assert fake.requests[-1].headers["accept"] == "application/vnd.github.raw+json"


def test_artifact_download_follows_the_redirect_without_the_token(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.add_run(11, branch="main")
    artifact_id = fake.add_artifact(11, "retrieval-eval-report", b"PK-zip-bytes", created_at="2026-01-01T00:00:00Z")
    assert client.download_artifact("octo/widgets", artifact_id) == b"PK-zip-bytes"
    api, blob = fake.requests[-2:]
    assert api.authorization == f"Bearer {TOKEN}"
    assert blob.path.startswith("/storage/blob/") and blob.authorization is None


def test_lists_artifacts_runs_and_pulls(fake: FakeGitHub, client: GitHubClient) -> None:
    fake.add_run(21, branch="main")
    fake.add_artifact(21, "retrieval-eval-report", b"x", created_at="2026-01-02T00:00:00Z")
    fake.add_artifact(21, "other", b"y", created_at="2026-01-03T00:00:00Z")
    artifacts = list(client.list_artifacts("octo/widgets", name="retrieval-eval-report"))
    assert [(a.name, a.run_id, a.head_branch) for a in artifacts] == [("retrieval-eval-report", 21, "main")]
    assert client.get_workflow_run("octo/widgets", 21).conclusion == "success"
    assert len(client.list_run_artifacts("octo/widgets", 21)) == 2
    fake.add_pull(9, "f" * 40, head_label="fork:main")
    assert [p.number for p in client.list_pulls("octo/widgets", head="fork:main")] == [9]
    assert [p.number for p in client.list_pulls_for_commit("octo/widgets", "f" * 40)] == [9]


def test_login_is_none_for_an_actions_token(fake: FakeGitHub, client: GitHubClient) -> None:
    assert client.authenticated_login() is None
    fake.user = {"login": "eval-bot", "type": "User"}
    assert client.authenticated_login() == "eval-bot"


def test_next_links_to_another_origin_are_not_followed(fake: FakeGitHub, slept: list[float]) -> None:
    for n in range(150):
        fake.add_comment(4, f"c{n}")
    # The server's Link headers name 127.0.0.1; a client configured for "localhost"
    # must not send its token there.
    client = GitHubClient(fake.url.replace("127.0.0.1", "localhost"), TOKEN, sleep=slept.append)
    try:
        comments = client.list_issue_comments("octo/widgets", 4)
    except GitHubError:
        pytest.skip("localhost does not resolve to 127.0.0.1 here")
    assert len(comments) == 100


@pytest.mark.parametrize("how", ["incomplete", "status-line"])
def test_a_broken_answer_is_retried_then_succeeds(
    fake: FakeGitHub, client: GitHubClient, slept: list[float], how: str
) -> None:
    fake.add_comment(2, "hello")
    fake.break_answer("GET", "/comments", how)
    assert [c.body for c in client.list_issue_comments("octo/widgets", 2)] == ["hello"]
    assert len(fake.calls("GET", "/comments")) == 2
    assert slept == [1.0]


@pytest.mark.parametrize("how", ["incomplete", "status-line"])
def test_a_broken_answer_every_time_is_a_github_error(
    fake: FakeGitHub, client: GitHubClient, slept: list[float], how: str
) -> None:
    fake.break_answer("GET", "/contents/", how, times=10)
    with pytest.raises(GitHubError, match="no usable answer") as caught:
        client.get_contents("octo/widgets", "report.json", ref="abc")
    assert caught.value.status is None and TOKEN not in str(caught.value)
    assert len(fake.calls("GET", "/contents/")) == 4 and len(slept) == 3


def test_a_broken_artifact_download_is_a_github_error(
    fake: FakeGitHub, client: GitHubClient, slept: list[float]
) -> None:
    fake.add_run(11, branch="main")
    artifact_id = fake.add_artifact(11, "retrieval-eval-report", b"PK-zip-bytes", created_at="2026-01-01T00:00:00Z")
    fake.break_answer("GET", "/storage/blob/", "incomplete")
    assert client.download_artifact("octo/widgets", artifact_id) == b"PK-zip-bytes"
    assert all(r.authorization is None for r in fake.calls("GET", "/storage/blob/"))
    fake.break_answer("GET", "/storage/blob/", "status-line", times=10)
    with pytest.raises(GitHubError, match="no usable answer"):
        client.download_artifact("octo/widgets", artifact_id)


def test_a_create_without_retries_says_whether_to_try_again(
    fake: FakeGitHub, client: GitHubClient, slept: list[float]
) -> None:
    fake.fail("POST", "/comments", 429, **{"retry-after": "3"})
    with pytest.raises(GitHubError) as caught:
        client.create_issue_comment("octo/widgets", 5, "x", retry=False)
    assert caught.value.transient and caught.value.retry_after == 3.0
    assert len(fake.calls("POST")) == 1 and slept == []
    fake.fail("POST", "/comments", 422)
    with pytest.raises(GitHubError) as refused:
        client.create_issue_comment("octo/widgets", 5, "x", retry=False)
    assert not refused.value.transient
