"""Everything the action leaves behind: workflow commands, outputs, the job summary,
the files, and the one sticky PR comment.

Workflow commands are lines on stdout (``::error::``, ``::warning::``,
``::notice::``, ``::add-mask::``); their text is escaped so user data cannot
end a command early or start a new one. Outputs go to the ``GITHUB_OUTPUT``
file, in the heredoc form when a value spans lines.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import select
import time
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..formats.fileio import write_atomic
from ..render.scrub import scrub
from ..render.terminal import clean
from .github import Comment, GitHubClient, GitHubError

MAX_ANNOTATIONS = 10  # per kind: more is noise, and the runner caps them anyway
MAX_COMMENT_CHARS = 65536  # GitHub refuses longer comment bodies
# How long a runner file (a FIFO whose reader stalled) may keep a write waiting.
RUNNER_FILE_SECONDS = 30.0

# The secrets of the run in progress (``scrubbing``): taken out of everything published below.
_SECRETS: ContextVar[tuple[str, ...]] = ContextVar("secrets", default=())


@contextlib.contextmanager
def scrubbing(values: Iterable[str]) -> Iterator[None]:
    """While inside, every comment, summary, output, file and log line written here is scrubbed of ``values``."""
    token = _SECRETS.set(tuple(values))
    try:
        yield
    finally:
        _SECRETS.reset(token)


def scrubbed(text: str) -> str:
    return scrub(text, _SECRETS.get())


# -- workflow commands -------------------------------------------------------------


def escape_data(text: str) -> str:
    """GitHub's escaping of a workflow command's data; every other control character (an escape
    sequence that would recolour or rewrite the log) is shown by the one cleaner, not obeyed."""
    return _github_escape("".join(char if char in "\r\n" else clean(char) for char in text))


def _github_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass
class Console:
    """Where workflow commands and log lines go (the step's stdout)."""

    stream: TextIO

    def command(self, name: str, message: str, **properties: str) -> None:
        if name != "add-mask":  # the one command that must carry the secret itself
            message = scrubbed(message)
            properties = {key: scrubbed(value) for key, value in properties.items()}
        props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items() if value)
        # A secret is masked as it is, control characters included: only GitHub's escaping applies.
        data = _github_escape(message) if name == "add-mask" else escape_data(message)
        line = f"::{name}{' ' + props if props else ''}::{data}\n"
        try:
            self.stream.write(line)
        except UnicodeEncodeError:
            # A secret read from the environment with bytes that are not UTF-8 (each a lone
            # surrogate here): the runner is given those bytes, as the environment holds them.
            self.stream.flush()
            self.stream.buffer.write(line.encode("utf-8", "surrogateescape"))
        self.stream.flush()

    def mask(self, secret: str) -> None:
        if secret:
            self.command("add-mask", secret)

    def log(self, line: str) -> None:
        """One line of the log, always one: the runner reads a line that starts with ``::`` as a
        command, so a line break in user text (a path, a message) is escaped as in a command."""
        self.stream.write(escape_data(scrubbed(line).rstrip("\n")) + "\n")
        self.stream.flush()


@dataclass(frozen=True)
class Annotation:
    kind: str  # error | warning | notice
    title: str
    message: str


def emit_annotations(console: Console, annotations: Iterable[Annotation]) -> None:
    """At most MAX_ANNOTATIONS of each kind; one more line says how many were left out."""
    by_kind: dict[str, list[Annotation]] = {}
    for annotation in annotations:
        by_kind.setdefault(annotation.kind, []).append(annotation)
    for kind, items in by_kind.items():
        for item in items[:MAX_ANNOTATIONS]:
            console.command(kind, item.message, title=item.title)
        if len(items) > MAX_ANNOTATIONS:
            console.log(
                f"{len(items) - MAX_ANNOTATIONS} more {kind} annotation(s) left out; the job summary lists them all"
            )


# -- files ---------------------------------------------------------------------------


def format_outputs(outputs: Mapping[str, str]) -> str:
    """``name=value`` lines, or ``name<<DELIMITER`` blocks for values with line breaks."""
    lines = []
    for name, value in outputs.items():
        if "\n" in value or "\r" in value:
            delimiter = _delimiter(value)
            lines.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        else:
            lines.append(f"{name}={value}\n")
    return "".join(lines)


def _delimiter(value: str) -> str:
    # Random, and checked: a value that contained the delimiter would end the block early.
    while True:
        delimiter = f"retrieval_eval_{secrets.token_hex(8)}"
        if delimiter not in value:
            return delimiter


@dataclass
class RunnerFiles:
    """The runner's job summary and outputs files, shared with the job's other steps.

    A runner may point them nowhere writable (a folder that does not exist, a read-only
    file): that is said once per variable, as an error the log shows, and everything else
    is still published; ``broken`` then makes the exit code 2.
    """

    summary_path: str
    output_path: str
    console: Console
    broken: list[str] = field(default_factory=list)

    def summary(self, text: str) -> None:
        self._append("GITHUB_STEP_SUMMARY", self.summary_path, text)

    def outputs(self, values: dict[str, str]) -> None:
        self._append("GITHUB_OUTPUT", self.output_path, format_outputs(values))

    def _append(self, variable: str, path: str, text: str) -> None:
        if not path or any(problem.startswith(variable) for problem in self.broken):
            return
        try:
            append_within(path, scrubbed(text).encode("utf-8"), RUNNER_FILE_SECONDS)
        except OSError as exc:
            problem = f"{variable} points to {path}, which cannot be written ({_why(exc)})"
            self.broken.append(problem)
            self.console.command("error", problem, title="retrieval-eval")


def append_within(path: str, data: bytes, seconds: float) -> None:
    """Append ``data`` to ``path``, giving up after ``seconds`` (TimeoutError) rather than waiting forever.

    A runner file may be a FIFO: with no reader, opening it would block for good (here it fails
    at once, ENXIO); with a reader that stops reading, a write would block once the pipe is full.
    The file is opened non-blocking and each write waits for room until the deadline.
    """
    deadline = time.monotonic() + seconds
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY, 0o666)
    try:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(fd, view) :]
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [fd], [], left)[1]:
                    raise TimeoutError(errno.ETIMEDOUT, f"nothing read it for {seconds:g} s") from None
    finally:
        os.close(fd)


def _why(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "its folder does not exist"
    if isinstance(exc, IsADirectoryError):
        return "it is a folder"
    if exc.errno == errno.ENXIO:
        return "it is a pipe nobody reads"
    return exc.strerror or str(exc)


def write_text(path: Path, text: str) -> None:
    write_atomic(path, scrubbed(text))


# -- the sticky comment --------------------------------------------------------------


@dataclass(frozen=True)
class PostedComment:
    url: str
    created: bool


def fit_comment(body: str, marker: str) -> str:
    """Keep a body under GitHub's limit, with the marker still in it (else it stops being sticky)."""
    if len(body) <= MAX_COMMENT_CHARS:
        return body
    note = "\n\n_The comment was cut to fit GitHub's size limit; the job summary has everything._\n"
    room = MAX_COMMENT_CHARS - len(note) - len(marker) - 2
    return f"{marker}\n{body[:room]}{note}"


def is_ours(comment: Comment, marker: str, login: str | None) -> bool:
    """Our marker, written by us. Without a login (an Actions token cannot ask who
    it is), a bot author is required, so a person quoting the marker is never edited."""
    if marker not in comment.body:
        return False
    return comment.login == login if login else comment.user_type == "Bot"


def upsert_comment(client: GitHubClient, repo: str, number: int, body: str, *, marker: str) -> PostedComment:
    """Update our comment on the PR if there is one, else create it. Raises the client's errors.

    A create is retried here, not in the client: GitHub may have created the comment and still
    answered 502 (or the answer broke off), so the comments are listed again before each retry.
    """
    login = client.authenticated_login()
    body = fit_comment(scrubbed(body), marker)
    for attempt in range(1, client.max_attempts + 1):
        found = next((c for c in client.list_issue_comments(repo, number) if is_ours(c, marker, login)), None)
        if found is not None and attempt > 1 and found.body == body:
            return PostedComment(found.html_url, created=True)  # the failed-looking create did it
        if found is not None:
            updated = client.update_issue_comment(repo, found.id, body)
            return PostedComment(updated.html_url or found.html_url, created=attempt > 1)
        try:
            created = client.create_issue_comment(repo, number, body, retry=False)
        except GitHubError as exc:
            if not exc.transient or attempt == client.max_attempts:
                raise
            client.pause(attempt, exc)
            continue
        return PostedComment(created.html_url, created=True)
    raise AssertionError("unreachable")  # the loop returns or raises
