"""A thin client for the few GitHub REST endpoints the action needs.

Standard library only. Every endpoint is a named method; list endpoints follow
``Link: rel="next"`` until the end; 5xx and 429 answers are retried a bounded
number of times, and so is an answer that breaks off or is not HTTP at all
(the connection drops, the body is cut short); 403 and 404 become ``Forbidden`` and ``NotFound`` so callers
can decide what a refusal means for them. The token is sent only to the API's
own origin and never appears in a message, a repr or an exception.
"""

from __future__ import annotations

import functools
import http.client
import inspect
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._version import __version__
from ..formats.github import (
    Artifact,
    Comment,
    PullRequest,
    WorkflowRun,
    artifact_from_api,
    comment_from_api,
    login_from_api,
    page_items,
    pull_request_from_api,
    workflow_run_from_api,
)

__all__ = ["Artifact", "Comment", "Forbidden", "GitHubClient", "GitHubError", "NotFound", "PullRequest", "WorkflowRun"]

JSON = "application/vnd.github+json"
RAW = "application/vnd.github.raw+json"
API_VERSION = "2022-11-28"
PER_PAGE = 100
MAX_PAGES = 100  # 10,000 items: far past any real PR, and it stops a server that loops
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 60.0

_NEXT_LINK = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class GitHubError(Exception):
    """The API answered with an error, or could not be reached.

    ``transient``: worth trying again (5xx, 429, the network); ``retry_after``: how long
    the API asked us to wait, if it did.
    """

    transient = False
    retry_after: float | None = None

    def __init__(self, status: int | None, method: str, path: str, message: str) -> None:
        where = f"{method} {path}"
        text = f"{where}: HTTP {status}: {message}" if status else f"{where}: {message}"
        super().__init__(text)
        self.status = status
        self.message = message


class Forbidden(GitHubError):
    """403: the token may not do this (a fork PR's read-only token, missing permissions)."""


class NotFound(GitHubError):
    """404: no such resource, or the token may not see it."""


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> object:
        """The body as JSON, for a reader of formats/github.py to take apart (None when empty)."""
        loaded: object = json.loads(self.body.decode("utf-8")) if self.body else None
        return loaded


def _answers(method: Callable[..., Any]) -> Callable[..., Any]:
    """An answer that is not what the API documents (not JSON, a field missing: a proxy's
    page, say) is a GitHubError like any other failure, never a crash of the caller."""

    def refusal(exc: Exception) -> GitHubError:
        return GitHubError(None, "answer to", method.__name__, f"not what the API documents ({exc!r})")

    if inspect.isgeneratorfunction(method):

        @functools.wraps(method)
        def lazily(*args: Any, **kwargs: Any) -> Iterator[Any]:
            try:
                yield from method(*args, **kwargs)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise refusal(exc) from None

        return lazily

    @functools.wraps(method)
    def at_once(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise refusal(exc) from None

    return at_once


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Hand redirects back to us: urllib would forward the Authorization header
    to the redirect target, which for artifact downloads is a storage host."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class GitHubClient:
    """Talks to ``base_url`` (``https://api.github.com`` or a GitHub Enterprise API)."""

    base_url: str
    token: str = field(repr=False)
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)
    max_attempts: int = 4
    timeout: float = 30.0

    def __post_init__(self) -> None:
        self.base_url = self.base_url.rstrip("/")
        self._origin = _origin(self.base_url)
        self._opener = urllib.request.build_opener(_NoRedirect)

    # -- the endpoints ------------------------------------------------------------

    @_answers
    def authenticated_login(self) -> str | None:
        """Who the token is, or None when the token cannot say (an Actions token cannot)."""
        try:
            data = self._request("GET", "/user").json()
        except (Forbidden, NotFound):
            return None
        return login_from_api(data)

    @_answers
    def list_issue_comments(self, repo: str, number: int) -> list[Comment]:
        path = f"/repos/{repo}/issues/{number}/comments"
        return [comment_from_api(item) for item in self._paginate(path)]

    @_answers
    def create_issue_comment(self, repo: str, number: int, body: str, *, retry: bool = True) -> Comment:
        """``retry=False``: one attempt. GitHub may create the comment and still answer 502 (or the
        answer may break off), so a caller that can look first retries itself (see ``pause``)."""
        data = self._request(
            "POST", f"/repos/{repo}/issues/{number}/comments", body={"body": body}, attempts=None if retry else 1
        ).json()
        return comment_from_api(data)

    @_answers
    def update_issue_comment(self, repo: str, comment_id: int, body: str) -> Comment:
        data = self._request("PATCH", f"/repos/{repo}/issues/comments/{comment_id}", body={"body": body}).json()
        return comment_from_api(data)

    def get_contents(self, repo: str, path: str, *, ref: str) -> bytes:
        """A file's bytes at ``ref`` (the raw media type works up to 100 MB, JSON only to 1 MB)."""
        quoted = urllib.parse.quote(path.lstrip("/"))
        return self._request("GET", f"/repos/{repo}/contents/{quoted}", query={"ref": ref}, accept=RAW).body

    @_answers
    def list_artifacts(self, repo: str, *, name: str) -> Iterator[Artifact]:
        """Artifacts of the repository with this name, newest first (lazily: callers stop early)."""
        for item in self._paginate(f"/repos/{repo}/actions/artifacts", {"name": name}, key="artifacts"):
            yield artifact_from_api(item)

    @_answers
    def list_run_artifacts(self, repo: str, run_id: int) -> list[Artifact]:
        items = self._paginate(f"/repos/{repo}/actions/runs/{run_id}/artifacts", key="artifacts")
        return [artifact_from_api(item) for item in items]

    @_answers
    def get_workflow_run(self, repo: str, run_id: int) -> WorkflowRun:
        return workflow_run_from_api(self._request("GET", f"/repos/{repo}/actions/runs/{run_id}").json())

    def download_artifact(self, repo: str, artifact_id: int) -> bytes:
        """The artifact's zip. GitHub answers with a redirect to storage, fetched without the token."""
        response = self._request("GET", f"/repos/{repo}/actions/artifacts/{artifact_id}/zip")
        location = response.headers.get("location")
        if response.status in (301, 302, 303, 307, 308) and location:
            target = urllib.parse.urljoin(self.base_url + "/", location)
            return self._send_with_retries("GET", target, headers={"User-Agent": _user_agent()}).body
        return response.body

    @_answers
    def list_pulls(self, repo: str, *, state: str = "open", head: str | None = None) -> list[PullRequest]:
        query = {"state": state, **({"head": head} if head else {})}
        return [pull_request_from_api(item) for item in self._paginate(f"/repos/{repo}/pulls", query)]

    @_answers
    def list_pulls_for_commit(self, repo: str, sha: str) -> list[PullRequest]:
        return [pull_request_from_api(item) for item in self._paginate(f"/repos/{repo}/commits/{sha}/pulls")]

    # -- transport ---------------------------------------------------------------

    def _paginate(
        self, path: str, query: Mapping[str, str] | None = None, *, key: str | None = None
    ) -> Iterator[object]:
        url: str | None = self._url(path, {**(query or {}), "per_page": str(PER_PAGE)})
        for _ in range(MAX_PAGES):
            if url is None:
                return
            response = self._send_with_retries("GET", url)
            yield from page_items(response.json(), key)
            url = self._next_page(response)

    def _next_page(self, response: Response) -> str | None:
        match = _NEXT_LINK.search(response.headers.get("link", ""))
        if match is None:
            return None
        url = match.group(1)
        # The token goes to the API's own origin only, whatever a Link header says.
        return url if _origin(url) == self._origin else None

    def pause(self, attempt: int, error: GitHubError) -> None:
        """Wait before a caller's own retry, as the client waits before its retries."""
        self.sleep(error.retry_after if error.retry_after is not None else _backoff(attempt))

    def _request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, str] | None = None,
        body: Mapping[str, str] | None = None,
        accept: str = JSON,
        attempts: int | None = None,
    ) -> Response:
        return self._send_with_retries(method, self._url(path, query), body=body, accept=accept, attempts=attempts)

    def _url(self, path: str, query: Mapping[str, str] | None = None) -> str:
        suffix = f"?{urllib.parse.urlencode(query)}" if query else ""
        return f"{self.base_url}{path}{suffix}"

    def _headers(self, accept: str) -> dict[str, str]:
        headers = {"Accept": accept, "X-GitHub-Api-Version": API_VERSION, "User-Agent": _user_agent()}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def _send_with_retries(
        self,
        method: str,
        url: str,
        *,
        body: Mapping[str, str] | None = None,
        accept: str = JSON,
        headers: Mapping[str, str] | None = None,
        attempts: int | None = None,
    ) -> Response:
        """``headers`` replaces the API's own (and the token with them), for hosts other than the API."""
        payload = json.dumps(body).encode("utf-8") if body is not None else None
        attempts = attempts or self.max_attempts
        for attempt in range(1, attempts + 1):
            try:
                return self._send(method, url, headers=headers or self._headers(accept), payload=payload)
            except _Retryable as retry:
                if attempt == attempts:
                    raise retry.error from None
                self.pause(attempt, retry.error)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _send(self, method: str, url: str, *, headers: Mapping[str, str], payload: bytes | None = None) -> Response:
        request = urllib.request.Request(url, data=payload, method=method, headers=dict(headers))
        if payload is not None:
            request.add_header("Content-Type", "application/json")
        path = urllib.parse.urlsplit(url).path
        try:
            with self._opener.open(request, timeout=self.timeout) as answer:
                return Response(answer.status, _lower(answer.headers), answer.read())
        except urllib.error.HTTPError as exc:
            return _http_error(exc, method, path)
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise _Retryable(GitHubError(None, method, path, f"cannot reach the API ({reason})"), None) from None
        except (http.client.HTTPException, OSError) as exc:
            # Reached, but the answer broke off or was not HTTP: a network error like any other.
            raise _Retryable(_broken(exc, method, path), None) from None


class _Retryable(Exception):
    def __init__(self, error: GitHubError, delay: float | None) -> None:
        super().__init__(str(error))
        error.transient, error.retry_after = True, delay
        self.error = error


def _broken(exc: Exception, method: str, path: str) -> GitHubError:
    return GitHubError(None, method, path, f"no usable answer from the API ({type(exc).__name__}: {exc})")


def _http_error(exc: urllib.error.HTTPError, method: str, path: str) -> Response:
    headers = _lower(exc.headers)
    try:
        body = exc.read() if exc.fp is not None else b""
    except (http.client.HTTPException, OSError) as broken:
        raise _Retryable(_broken(broken, method, path), None) from None
    if 300 <= exc.code < 400:
        return Response(exc.code, headers, body)
    message = _error_message(body) or exc.reason or "error"
    if exc.code in RETRY_STATUSES:
        raise _Retryable(GitHubError(exc.code, method, path, str(message)), _retry_after(headers))
    error_type = {403: Forbidden, 404: NotFound}.get(exc.code, GitHubError)
    raise error_type(exc.code, method, path, str(message)) from None


def _error_message(body: bytes) -> str | None:
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data.get("message") if isinstance(data, dict) else None


_DELAY_SECONDS = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """The wait the answer asks for, in seconds, at most MAX_RETRY_AFTER; None when it asks in
    any other form (an HTTP date, nan, a negative number, garbage): the usual backoff applies."""
    value = headers.get("retry-after", "").strip()
    if not _DELAY_SECONDS.fullmatch(value):
        return None
    return min(float(value), MAX_RETRY_AFTER)


def _backoff(attempt: int) -> float:
    return float(min(2 ** (attempt - 1), 8))


def _lower(headers: Any) -> dict[str, str]:
    return {key.lower(): value for key, value in (headers.items() if headers else [])}


def _origin(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _user_agent() -> str:
    return f"retrieval-eval/{__version__}"
