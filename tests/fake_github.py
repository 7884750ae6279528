"""A fake GitHub REST API: a real HTTP server on 127.0.0.1 with in-memory state.

It keeps issue comments, file contents, workflow runs, artifacts and pull
requests, paginates like GitHub (``per_page``, ``page``, ``Link: rel="next"``),
records every request it receives, and can be told to fail: ``fail("POST",
"/comments", 403)`` answers the next matching request with 403, and
``break_answer("GET", "/comments", "incomplete")`` does the request, then
answers with a body cut short (or ``"status-line"``: a status line that is not HTTP).

The real client code runs against it; nothing of ours is mocked.
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT = {"login": "github-actions[bot]", "type": "Bot"}


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any

    @property
    def authorization(self) -> str | None:
        return self.headers.get("authorization")


@dataclass
class Failure:
    method: str
    pattern: str
    status: int
    times: int
    headers: dict[str, str] = field(default_factory=dict)
    applied: bool = False  # the request takes effect first (GitHub created it, then answered 502)


@dataclass
class Breakage:
    method: str
    pattern: str
    how: str  # incomplete | status-line
    times: int


@dataclass
class FakeGitHub:
    """State and behaviour; ``serve()`` puts it behind a real socket."""

    repo: str = "octo/widgets"
    user: dict[str, str] | None = None  # None: GET /user answers 403, like an Actions token
    acting_as: dict[str, str] = field(default_factory=lambda: dict(BOT))
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    contents: dict[tuple[str, str], bytes] = field(default_factory=dict)
    runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    artifacts: list[dict[str, Any]] = field(default_factory=list)
    blobs: dict[int, bytes] = field(default_factory=dict)
    pulls: list[dict[str, Any]] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    breakages: list[Breakage] = field(default_factory=list)
    url: str = ""
    _next_id: int = 1000
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- arranging ------------------------------------------------------------

    def fail(
        self, method: str, pattern: str, status: int, *, times: int = 1, applied: bool = False, **headers: str
    ) -> None:
        self.failures.append(Failure(method, pattern, status, times, headers, applied))

    def break_answer(self, method: str, pattern: str, how: str, *, times: int = 1) -> None:
        """The request takes effect, then its answer breaks at the transport level."""
        assert how in ("incomplete", "status-line"), how
        self.breakages.append(Breakage(method, pattern, how, times))

    def add_comment(self, number: int, body: str, user: dict[str, str] | None = None) -> dict[str, Any]:
        self._next_id += 1
        comment = {
            "id": self._next_id,
            "body": body,
            "user": dict(user or {"login": "someone", "type": "User"}),
            "html_url": f"https://github.example/{self.repo}/pull/{number}#issuecomment-{self._next_id}",
        }
        self.comments.setdefault(number, []).append(comment)
        return comment

    def add_run(
        self, run_id: int, *, branch: str, conclusion: str = "success", event: str = "push", fork: bool = False
    ) -> None:
        self.runs[run_id] = {
            "id": run_id,
            "head_branch": branch,
            "conclusion": conclusion,
            "status": "completed",
            "event": event,
            "repository_id": 1,
            "head_repository_id": 2 if fork else 1,
        }

    def add_artifact(self, run_id: int, name: str, zipped: bytes, *, created_at: str, expired: bool = False) -> int:
        self._next_id += 1
        run = self.runs[run_id]
        self.artifacts.append(
            {
                "id": self._next_id,
                "name": name,
                "expired": expired,
                "created_at": created_at,
                "size_in_bytes": len(zipped),
                "archive_download_url": f"{self.url}/repos/{self.repo}/actions/artifacts/{self._next_id}/zip",
                "workflow_run": {key: run[key] for key in ("id", "head_branch", "repository_id", "head_repository_id")},
            }
        )
        self.blobs[self._next_id] = zipped
        return self._next_id

    def add_pull(self, number: int, head_sha: str, *, head_label: str = "octo:feature", state: str = "open") -> None:
        self.pulls.append(
            {
                "number": number,
                "state": state,
                "head": {"sha": head_sha, "label": head_label},
                "html_url": f"https://github.example/{self.repo}/pull/{number}",
            }
        )

    # -- reading the log -----------------------------------------------------

    def calls(self, method: str | None = None, pattern: str = "") -> list[Recorded]:
        return [r for r in self.requests if (method is None or r.method == method) and re.search(pattern, r.path)]

    # -- serving ---------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            failure = self._take_failure(method, path)
            if failure is not None:
                if failure.applied:
                    self._route(method, path, query, body)
                return failure.status, {"message": f"injected {failure.status}"}, dict(failure.headers)
            return self._route(method, path, query, body)

    def take_breakage(self, method: str, path: str) -> str | None:
        with self._lock:
            for breakage in self.breakages:
                if breakage.times > 0 and breakage.method == method and re.search(breakage.pattern, path):
                    breakage.times -= 1
                    return breakage.how
        return None

    def _take_failure(self, method: str, path: str) -> Failure | None:
        for failure in self.failures:
            if failure.times > 0 and failure.method == method and re.search(failure.pattern, path):
                failure.times -= 1
                return failure
        return None

    def _route(self, method: str, path: str, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        prefix = f"/repos/{self.repo}"
        routes: list[tuple[str, str, Any]] = [
            ("GET", r"/user", self._user),
            ("GET", prefix + r"/issues/(\d+)/comments", self._list_comments),
            ("POST", prefix + r"/issues/(\d+)/comments", self._create_comment),
            ("PATCH", prefix + r"/issues/comments/(\d+)", self._update_comment),
            ("GET", prefix + r"/contents/(.+)", self._get_contents),
            ("GET", prefix + r"/actions/artifacts", self._list_artifacts),
            ("GET", prefix + r"/actions/artifacts/(\d+)/zip", self._artifact_zip),
            ("GET", prefix + r"/actions/runs/(\d+)", self._get_run),
            ("GET", prefix + r"/actions/runs/(\d+)/artifacts", self._list_run_artifacts),
            ("GET", prefix + r"/pulls", self._list_pulls),
            ("GET", prefix + r"/commits/([0-9a-f]+)/pulls", self._pulls_for_commit),
            ("GET", r"/storage/blob/(\d+)", self._blob),
        ]
        for route_method, pattern, handler in routes:
            match = re.fullmatch(pattern, path)
            if route_method == method and match:
                result: tuple[int, Any, dict[str, str]] = handler(*match.groups(), query=query, body=body)
                return result
        return 404, {"message": "Not Found"}, {}

    def _user(self, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        if self.user is None:
            return 403, {"message": "Resource not accessible by integration"}, {}
        return 200, self.user, {}

    def _list_comments(self, number: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        return self._page(self.comments.get(int(number), []), query, f"/repos/{self.repo}/issues/{number}/comments")

    def _create_comment(self, number: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        return 201, self.add_comment(int(number), body["body"], self.acting_as), {}

    def _update_comment(self, comment_id: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        for comments in self.comments.values():
            for comment in comments:
                if comment["id"] == int(comment_id):
                    comment["body"] = body["body"]
                    return 200, comment, {}
        return 404, {"message": "Not Found"}, {}

    def _get_contents(self, path: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        data = self.contents.get((query.get("ref", ""), urllib.parse.unquote(path)))
        if data is None:
            return 404, {"message": "Not Found"}, {}
        return 200, data, {"content-type": "application/vnd.github.raw+json"}

    def _list_artifacts(self, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        items = [a for a in self.artifacts if not query.get("name") or a["name"] == query["name"]]
        items.sort(key=lambda a: a["created_at"], reverse=True)
        return self._page(items, query, f"/repos/{self.repo}/actions/artifacts", key="artifacts")

    def _list_run_artifacts(self, run_id: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        items = [a for a in self.artifacts if a["workflow_run"]["id"] == int(run_id)]
        return self._page(items, query, f"/repos/{self.repo}/actions/runs/{run_id}/artifacts", key="artifacts")

    def _artifact_zip(self, artifact_id: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        if int(artifact_id) not in self.blobs:
            return 404, {"message": "Not Found"}, {}
        return 302, b"", {"location": f"{self.url}/storage/blob/{artifact_id}?sig=signed"}

    def _blob(self, artifact_id: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        return 200, self.blobs[int(artifact_id)], {"content-type": "application/zip"}

    def _get_run(self, run_id: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        run = self.runs.get(int(run_id))
        return (200, run, {}) if run else (404, {"message": "Not Found"}, {})

    def _list_pulls(self, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        items = [
            p
            for p in self.pulls
            if query.get("state", "open") in ("all", p["state"])
            and (not query.get("head") or p["head"]["label"] == query["head"])
        ]
        return self._page(items, query, f"/repos/{self.repo}/pulls")

    def _pulls_for_commit(self, sha: str, *, query: dict[str, str], body: Any) -> tuple[int, Any, dict[str, str]]:
        return self._page(
            [p for p in self.pulls if p["head"]["sha"] == sha], query, f"/repos/{self.repo}/commits/{sha}/pulls"
        )

    def _page(
        self, items: list[dict[str, Any]], query: dict[str, str], path: str, *, key: str | None = None
    ) -> tuple[int, Any, dict[str, str]]:
        per_page = min(int(query.get("per_page", 30)), 100)
        page = int(query.get("page", 1))
        chunk = items[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(items):
            rest = {k: v for k, v in query.items() if k != "page"}
            next_query = urllib.parse.urlencode({**rest, "page": page + 1})
            headers["link"] = f'<{self.url}{path}?{next_query}>; rel="next"'
        payload = {"total_count": len(items), key: chunk} if key else chunk
        return 200, payload, headers

    def serve(self) -> _Server:
        return _Server(self)


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def _dispatch(self) -> None:
        fake = self.server.fake
        parts = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(parts.query))
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake.requests.append(Recorded(self.command, parts.path, query, headers, body))
        status, payload, extra = fake.handle(self.command, parts.path, query, body)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        broken = fake.take_breakage(self.command, parts.path)
        if broken is not None:
            self._broken_answer(broken, status, data)
            return
        self.send_response(status)
        self.send_header("content-length", str(len(data)))
        if "content-type" not in extra:
            self.send_header("content-type", "application/json")
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _broken_answer(self, how: str, status: int, data: bytes) -> None:
        self.close_connection = True
        if how == "status-line":
            self.wfile.write(b"NOT-HTTP garbled\r\n\r\n")
            return
        self.send_response(status)
        self.send_header("content-length", str(len(data) + 100))  # promises more than it sends
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])

    do_GET = do_POST = do_PATCH = do_DELETE = _dispatch


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeGitHub) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake


class _Server:
    """Context manager: start on a free port of 127.0.0.1, stop on exit."""

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        self.httpd = _HTTPServer(fake)
        fake.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # A short poll interval keeps shutdown (and so each test's teardown) quick.
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> FakeGitHub:
        self.thread.start()
        return self.fake

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()
