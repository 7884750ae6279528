"""Headless Chromium for the tests: the DOM after scripts ran, and screenshots.

Debian's ``chromium`` package, driven over its DevTools pipe (``--remote-debugging-pipe``:
JSON messages ending in a NUL byte on file descriptors 3 and 4), no driver library. One
browser is started per test process and set of flags, and every page is opened in a browser
context of its own (an empty profile: no cookie, storage or cache is shared between pages),
so a page costs its load, not a browser's start (about 0.7 s of CPU each).

What a page gives is what ``chromium --dump-dom`` prints: the doctype and
``document.documentElement.outerHTML`` once the load event fired, after ``budget_ms`` of
virtual time for asynchronous work (timers run as fast as they can; fetches pause it).
Tests that need a browser are marked ``browser`` and skip where it is not installed.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian's chromium) is not installed")

# Everything Chromium would otherwise fetch on its own (updates, sync, safe browsing) is off,
# so any request seen during a test came from the page.
_QUIET = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--metrics-recording-only",
    "--hide-scrollbars",
)

# What --dump-dom prints: the doctype on a line of its own, then the root element's markup.
_DOCUMENT = (
    "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '')"
    " + document.documentElement.outerHTML"
)


class Browser:
    """One Chromium, driven over its DevTools pipe."""

    def __init__(self, extra: tuple[str, ...]) -> None:
        assert CHROMIUM is not None
        self.profile = tempfile.mkdtemp(prefix="chromium-")
        ours_to_write, its_to_read = _pipe()
        ours_to_read, its_to_write = _pipe(reverse=True)
        # Chromium reads commands on fd 3 and writes answers on fd 4; bash sets them up, since
        # the pipes' own numbers are whatever was free here, and starts it in the background and
        # leaves: the browser is no child of the test process (tests check, with os.waitpid(-1),
        # that no worker process is left behind), so it is ended by its pid.
        command = [CHROMIUM, *_QUIET, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", *extra]
        self.log = os.path.join(self.profile, "stderr.log")
        redirect = f"3<&{its_to_read} 4>&{its_to_write} {its_to_read}<&- {its_to_write}>&-"
        started = subprocess.run(
            ["bash", "-c", f'"$@" {redirect} </dev/null >/dev/null 2>"$LOG" & echo $!', "-", *command],
            pass_fds=(its_to_read, its_to_write),
            env={**os.environ, "LOG": self.log},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
        self.pid = int(started.stdout)
        os.close(its_to_read)
        os.close(its_to_write)
        self.writer, self.reader = ours_to_write, ours_to_read
        self.pending = b""
        self.last_id = 0
        self.events: list[dict[str, Any]] = []

    def page(
        self, url: str, *, budget_ms: int = 0, size: tuple[int, int] | None = None, screenshot: bool = False
    ) -> tuple[str, bytes | None]:
        """The DOM of ``url`` once loaded (and ``budget_ms`` of virtual time later), and a PNG of the viewport."""
        context = self.call("Target.createBrowserContext")["browserContextId"]
        target = self.call("Target.createTarget", {"url": "about:blank", "browserContextId": context})["targetId"]
        try:
            session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.call("Page.enable", session=session)
            if size is not None:
                metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False}
                self.call("Emulation.setDeviceMetricsOverride", metrics, session=session)
            self.call("Page.navigate", {"url": url}, session=session)
            self.event("Page.loadEventFired", session)
            if budget_ms:
                policy = {"policy": "pauseIfNetworkFetchesPending", "budget": budget_ms}
                self.call("Emulation.setVirtualTimePolicy", policy, session=session)
                self.event("Emulation.virtualTimeBudgetExpired", session)
            found = self.call("Runtime.evaluate", {"expression": _DOCUMENT, "returnByValue": True}, session=session)
            dom = found["result"]["value"]
            shot = None
            if screenshot:
                shot = base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"}, session=session)["data"])
        finally:
            self.call("Target.closeTarget", {"targetId": target})
            self.call("Target.disposeBrowserContext", {"browserContextId": context})
        return dom + "\n", shot

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None) -> dict[str, Any]:
        self.last_id += 1
        message: dict[str, Any] = {"id": self.last_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self.writer, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._next()
            if answer.get("id") == self.last_id:
                assert "error" not in answer, (method, answer["error"])
                return answer.get("result", {})  # type: ignore[no-any-return]
            self.events.append(answer)

    def event(self, method: str, session: str) -> dict[str, Any]:
        def wanted(message: dict[str, Any]) -> bool:
            return message.get("method") == method and message.get("sessionId") == session

        for position, message in enumerate(self.events):
            if wanted(message):
                return self.events.pop(position)
        while True:
            message = self._next()
            if wanted(message):
                return message
            self.events.append(message)

    def _next(self, timeout: float = 90) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self.pending:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.reader], [], [], max(left, 0))
            if not ready:
                self.close()
                raise AssertionError(f"Chromium did not answer within {timeout:g} s")
            data = os.read(self.reader, 1 << 20)
            if not data:
                said = Path(self.log).read_text(errors="replace")[-2000:]
                self.close()
                raise AssertionError("Chromium ended: " + said)
            self.pending += data
        raw, self.pending = self.pending.split(b"\0", 1)
        return json.loads(raw)  # type: ignore[no-any-return]

    def alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        return True

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        for fd in (self.writer, self.reader):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)


def _pipe(*, reverse: bool = False) -> tuple[int, int]:
    """A pipe as (ours, Chromium's), Chromium's end numbered 10 or more (bash's redirections
    then never meet fd 3 or 4 on the way), ours closed on exec."""
    read, write = os.pipe()
    theirs = write if reverse else read
    moved = fcntl.fcntl(theirs, fcntl.F_DUPFD, 10)
    os.close(theirs)
    ours = read if reverse else write
    return ours, moved


_BROWSERS: dict[tuple[str, ...], Browser] = {}


def browser(extra: tuple[str, ...] = ()) -> Browser:
    """This process's browser started with ``extra`` flags (started on first use, closed at exit)."""
    found = _BROWSERS.get(extra)
    if found is None or not found.alive():
        found = _BROWSERS[extra] = Browser(extra)
        atexit.register(found.close)
    return found


def dump_dom(page: Path, *, fragment: str = "", budget_ms: int = 0, extra: tuple[str, ...] = ()) -> str:
    """The page's DOM, serialized after load (and ``budget_ms`` of virtual time, for async work)."""
    dom, _ = browser(extra).page(page.resolve().as_uri() + fragment, budget_ms=budget_ms)
    return dom


def dump_dom_and_screenshot(
    page: Path, out: Path, *, size: tuple[int, int] = (1280, 2000), budget_ms: int = 0, extra: tuple[str, ...] = ()
) -> str:
    """The page's DOM and a screenshot of its viewport from one load."""
    dom, shot = browser(extra).page(page.resolve().as_uri(), budget_ms=budget_ms, size=size, screenshot=True)
    assert shot is not None and len(shot) > 10_000, "the screenshot is missing or blank"
    out.write_bytes(shot)
    return dom
