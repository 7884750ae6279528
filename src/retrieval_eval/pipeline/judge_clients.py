"""The two judges, at the edge: an OpenAI-compatible chat endpoint and a command.

Both answer :class:`Request` s (one query, up to a batch of its passages, one sample) with a
:class:`Reply`: one answer per passage, or an ``error`` when no answer came (the pair stays
unasked and a later run asks again). The HTTP judge uses the standard library only.

The command protocol (docs/judge.md): the command is started once, reads one JSON request
per line on stdin, and writes one JSON answer per line on stdout::

    request: {"id": "r3", "sample": 0, "query": "...", "passages": ["...", "..."], "prompt": "..."}
    answer:  {"id": "r3", "answers": [2, "refused", {"text": "1: 3"}], "tokens": 120}

An answer is a grade 0-3, ``"refused"``, or ``{"text": ...}`` (a raw model reply, read as
the chat judge reads one). Anything else is unparseable; a missing answer is an error.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import UsageError
from ..core.judge import REFUSED, UNPARSEABLE, Answer, user_message
from ..formats.judge import read_command_line, read_completion_bytes
from .endpoints import shown_url

MAX_BACKOFF = 30.0  # seconds; a Retry-After beyond this is capped
# A grading reply is a few hundred bytes: a body past this is a broken or hostile endpoint,
# and reading it whole (an endless chunked body) would exhaust memory.
MAX_BODY = 4 * 1024 * 1024
READ_STEP = 64 * 1024
_RETRY_AFTER = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,6})?")
ERROR_BODY = 4000  # bytes of an error body read to spot a content filter


@dataclass(frozen=True)
class Request:
    id: str
    query: str
    passages: tuple[str, ...]
    sample: int


@dataclass(frozen=True)
class Reply:
    answers: tuple[Answer, ...] = ()
    tokens: int = 0
    error: str | None = None


class JudgeUnavailable(UsageError):
    """The judge refuses every request (a wrong key, endpoint or model): stop, say what to fix."""


@dataclass(frozen=True)
class HttpJudge:
    """POST ``{endpoint}/chat/completions``; retries 429, 5xx and lost connections with backoff."""

    endpoint: str
    model: str
    prompt: str
    temperature: float
    key: str = field(default="", repr=False)
    retries: int = 3
    backoff: float = 0.5
    timeout: float = 60.0
    sleep: Callable[[float], None] = time.sleep

    @property
    def url(self) -> str:
        base = self.endpoint.rstrip("/")
        return base if base.endswith("/chat/completions") else base + "/chat/completions"

    def payload(self, request: Request) -> bytes:
        body = {
            "model": self.model,
            "temperature": self.temperature,
            "seed": request.sample,
            "messages": [
                {"role": "system", "content": self.prompt},
                {"role": "user", "content": user_message(request.query, request.passages)},
            ],
        }
        return json.dumps(body).encode("utf-8")

    def ask(self, request: Request) -> Reply:
        count = len(request.passages)
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.sleep(min(self.backoff * 2 ** (attempt - 1), MAX_BACKOFF))
            try:
                return self._post(request, count)
            except _Retry as exc:
                last = exc.reason
                if exc.wait is not None and attempt < self.retries:  # no wait after the last attempt
                    self.sleep(min(exc.wait, MAX_BACKOFF))
        return Reply(error=f"no answer after {self.retries + 1} attempts ({last})")

    def _post(self, request: Request, count: int) -> Reply:
        headers = {"Content-Type": "application/json"}
        if self.key:
            headers["Authorization"] = f"Bearer {self.key}"
        call = urllib.request.Request(self.url, data=self.payload(request), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(call, timeout=self.timeout) as response:  # noqa: S310 (the user's URL)
                # The deadline starts with the headers: the model's thinking before them has the
                # socket's own timeout, as before; the body then gets as long again.
                raw = _read_body(response, time.monotonic() + self.timeout)
        except _TooLarge:
            return Reply(error=f"the answer was larger than {MAX_BODY // (1024 * 1024)} MB")
        except urllib.error.HTTPError as exc:
            return self._http_error(exc, count)
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            raise _Retry(f"{type(exc).__name__}: {exc}", None) from None
        answers, tokens = read_completion_bytes(raw, count)
        return Reply(answers, tokens)

    def _http_error(self, exc: urllib.error.HTTPError, count: int) -> Reply:
        try:
            text = exc.read(ERROR_BODY).decode("utf-8", "replace")
        except (OSError, ValueError):
            text = ""
        if exc.code == 429 or exc.code >= 500:
            after = exc.headers.get("Retry-After", "") if exc.headers else ""
            raise _Retry(f"HTTP {exc.code}", _seconds(after))
        if exc.code == 400 and ("content_filter" in text or "content_policy" in text):
            return Reply((REFUSED,) * count)  # a content filter: a refusal, not "not relevant"
        if exc.code in (401, 403, 404):
            raise JudgeUnavailable(
                f"the judge endpoint {shown_url(self.url)} answered HTTP {exc.code}",
                hint="check --endpoint, --model and the key's environment variable (--api-key-env)",
            )
        return Reply(error=f"HTTP {exc.code}")


def _seconds(after: str) -> float | None:
    """A Retry-After in seconds; anything else (a date, or "³", which str.isdigit calls a digit
    and float refuses) is ignored and the backoff decides."""
    return float(after) if _RETRY_AFTER.fullmatch(after.strip()) else None


class _TooLarge(Exception):
    pass


def _read_body(response: Any, deadline: float) -> bytes:
    """The body, in steps: a cap on its size, and one deadline for all of it (a slow drip
    of bytes resets the socket's timeout on every byte, so that timeout alone never ends it)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise _Retry("the answer did not finish in time", None)
        chunk = response.read1(READ_STEP)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_BODY:
            raise _TooLarge
        chunks.append(chunk)


class _Retry(Exception):
    def __init__(self, reason: str, wait: float | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


MAX_COMMAND_OUTPUT = 64 * 1024 * 1024  # answers are short lines: more is a runaway command


@dataclass(frozen=True)
class _Output:
    stdout: bytes
    returncode: int
    failure: str | None = None  # the whole group's error: ran too long, or wrote too much


# After the command exits, how long its output may still take to arrive: a background process
# it left behind can hold its stdout open for ever, and what it writes later is no answer.
EXIT_GRACE = 2.0


def _run_capped(argv: list[str], data: bytes, timeout: float) -> _Output:
    """Run the command with ``data`` on stdin; read its stdout to a cap, under a deadline.

    ``subprocess.run(capture_output=True)`` would hold all the command writes in memory (an
    endless writer fills it) and keep its stderr, where a command may print the environment:
    stderr goes nowhere, stdout is cut off at the cap and the command killed. The command runs
    in a session of its own, so that killing it (past the deadline, past the cap, or when it
    exited and left a process holding its stdout) kills what it started too.
    """
    started: list[subprocess.Popen[bytes]] = []
    with _ended_with_us(started):  # before the command starts: no stop may fall between the two
        process = subprocess.Popen(  # noqa: S603 (the user's own command)
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
        )
        started.append(process)
        reader = _Reader(process)
        feeder = threading.Thread(target=_feed, args=(process, data), daemon=True)
        feeder.start()
        reader.start()
        try:
            returncode = process.wait(timeout)
        except subprocess.TimeoutExpired:
            _kill_session(process)
            return _Output(b"", process.wait(), f"the judge command ran past {timeout:g}s")
        except BaseException:  # Ctrl-C, or a stop: the command runs in its own session, which would outlive us
            _kill_session(process)
            raise
    reader.join(EXIT_GRACE)
    if reader.is_alive():  # a process the command started still holds its stdout
        _kill_session(process)
        reader.join(EXIT_GRACE)
    if reader.too_much:
        return _Output(b"", -1, f"the judge command wrote more than {MAX_COMMAND_OUTPUT // (1024 * 1024)} MB")
    return _Output(reader.output(), returncode)


class _Reader(threading.Thread):
    """Reads the command's stdout to the cap, in a thread, so that the caller keeps the clock."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        super().__init__(daemon=True)
        self.process = process
        self.chunks: list[bytes] = []
        self.too_much = False
        self._lock = threading.Lock()

    def run(self) -> None:
        stream = self.process.stdout
        assert stream is not None  # noqa: S101 (Popen was given stdout=PIPE)
        size = 0
        try:
            while chunk := os.read(stream.fileno(), READ_STEP):
                size += len(chunk)
                if size > MAX_COMMAND_OUTPUT:
                    self.too_much = True
                    _kill_session(self.process)
                    return
                with self._lock:
                    self.chunks.append(chunk)
        except (OSError, ValueError):
            return
        finally:
            stream.close()

    def output(self) -> bytes:
        with self._lock:
            return b"".join(self.chunks)


@contextlib.contextmanager
def _ended_with_us(started: list[subprocess.Popen[bytes]]) -> Iterator[None]:
    """While the block runs, a SIGTERM or SIGHUP (a CI job cancelled, a terminal closed) ends the
    commands in ``started`` and their sessions before it ends this process: started in a session
    of their own, they would not get the signal and would be left running. Handlers can be set on
    the main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    previous = {signum: signal.getsignal(signum) for signum in signals}

    def stop(signum: int, frame: Any) -> None:
        for process in started:
            _kill_session(process)
        raise SystemExit(128 + signum)

    for signum in signals:
        if previous[signum] not in (signal.SIG_IGN, None):
            signal.signal(signum, stop)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            if handler is not None:
                signal.signal(signum, handler)


def _kill_session(process: subprocess.Popen[bytes]) -> None:
    """Kill the command and every process of its session; one already gone is no error."""
    try:
        os.killpg(process.pid, 9)  # SIGKILL, spelled as a number for platforms without the name
    except (ProcessLookupError, PermissionError, AttributeError, OSError):
        process.kill()


def _feed(process: subprocess.Popen[bytes], data: bytes) -> None:
    """Write the requests and close stdin; a command that stops reading early is its own affair."""
    assert process.stdin is not None  # noqa: S101 (Popen was given stdin=PIPE)
    try:
        process.stdin.write(data)
        process.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass


def _answer_line(line: str, wanted: dict[str, Request]) -> tuple[str, Reply] | None:
    found = read_command_line(line, max((len(r.passages) for r in wanted.values()), default=0))
    if found is None or found.id not in wanted:
        return None  # garbage on stdout names no request: its request stays unanswered
    request = wanted[found.id]
    if found.answers is None:
        return request.id, Reply((UNPARSEABLE,) * len(request.passages))
    read = list(found.answers[: len(request.passages)])
    read += [UNPARSEABLE] * (len(request.passages) - len(read))
    return request.id, Reply(tuple(read), found.tokens)


@dataclass(frozen=True)
class CommandJudge:
    """Runs the user's command once per group of requests (module docstring)."""

    command: str
    prompt: str
    timeout: float = 600.0

    def ask_all(self, requests: Sequence[Request]) -> dict[str, Reply]:
        if not requests:
            return {}
        lines = "".join(
            json.dumps(
                {"id": r.id, "sample": r.sample, "query": r.query, "passages": list(r.passages), "prompt": self.prompt},
                ensure_ascii=False,
            )
            + "\n"
            for r in requests
        )
        try:
            output = _run_capped(shlex.split(self.command), lines.encode("utf-8"), self.timeout)
        except FileNotFoundError as exc:
            raise JudgeUnavailable(f"the judge command cannot be started: {exc}", hint="check --command") from None
        if output.failure is not None:
            return {r.id: Reply(error=output.failure) for r in requests}
        wanted = {r.id: r for r in requests}
        replies: dict[str, Reply] = {}
        for line in output.stdout.decode("utf-8", "replace").splitlines():
            found = _answer_line(line, wanted)
            if found is not None and found[0] not in replies:
                replies[found[0]] = found[1]
        failure = f"exit status {output.returncode}" if output.returncode else "no answer for this request"
        return {r.id: replies.get(r.id, Reply(error=failure)) for r in requests}
