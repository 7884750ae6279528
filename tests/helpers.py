"""Test helpers: where the spec fixtures live, and running the real CLI in a child process."""

from __future__ import annotations

import atexit
import json
import locale
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import retrieval_eval

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "spec" / "fixtures"


def fixture_path(case: str, name: str) -> str:
    return str(FIXTURES / case / name)


def expected(case: str) -> dict[str, Any]:
    return json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def run_cli(*args: str, cwd: str | Path | None = None, env: dict[str, str] | None = None) -> CliResult:
    """Run the real console entry point in a child process: exit codes and stderr as users see them."""
    completed = run_entry_point(list(args), cwd=cwd, env=env, timeout=120)
    return CliResult(completed.returncode, completed.stdout, completed.stderr)


def run_entry_point(
    argv: list[str],
    *,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = 120,
    code: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m retrieval_eval ARGV`` with its output captured, as ``subprocess.run`` gives it;
    with ``code``, ``python -c CODE ARGV`` instead (a snippet of the Python API).

    The child is forked from a server that has already imported the CLI (tests/cli_zygote.py),
    which saves the interpreter's start-up and imports on every call; when ``env`` changes what
    a fresh interpreter would do before our code runs (a ``PYTHON*`` or locale variable, another
    ``PYTHONPATH``), a fresh interpreter is started instead."""
    environment = dict(os.environ if env is None else env)
    if not _ZYGOTE.serves(environment):
        return subprocess.run(
            [sys.executable, *(["-m", "retrieval_eval"] if code is None else ["-c", code]), *argv],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=environment,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    return _ZYGOTE.run(argv, cwd=None if cwd is None else str(cwd), env=environment, timeout=timeout, code=code)


class _Zygote:
    """The client side of tests/cli_zygote.py: one server per test process, started on first use."""

    def __init__(self) -> None:
        self.server: subprocess.Popen[str] | None = None
        self.started_with: dict[str, str] = {}

    def serves(self, env: Mapping[str, str]) -> bool:
        reference = self.started_with or dict(os.environ)
        changed = {k for k in set(env) | set(reference) if env.get(k) != reference.get(k)}
        for name in changed:
            if name == "PYTHONPATH" and _same_source(env.get(name)):
                continue
            if name.startswith(("PYTHON", "LC_")) or name in {"LANG", "LANGUAGE", *_ONE_THREAD}:
                return False
        return hasattr(os, "fork") and hasattr(os, "mkfifo")

    def _server(self) -> subprocess.Popen[str]:
        if self.server is None:
            self.started_with = dict(os.environ)
            self.server = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("cli_zygote.py"))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                bufsize=1,
            )
            self.server.wait(60)  # it detaches: the server is its child, and keeps the pipes
            atexit.register(self.close)
        return self.server

    def close(self) -> None:
        if self.server is not None:
            self.server.stdin.close()  # type: ignore[union-attr]  # the server ends at end of input
            self.server.stdout.close()  # type: ignore[union-attr]
            self.server = None

    def _answer(self, server: subprocess.Popen[str]) -> dict[str, int]:
        line = server.stdout.readline()  # type: ignore[union-attr]
        if not line:
            self.close()
            raise RuntimeError("the CLI server (tests/cli_zygote.py) ended; see its stderr above")
        return json.loads(line)  # type: ignore[no-any-return]

    def run(
        self, argv: list[str], *, cwd: str | None, env: dict[str, str], timeout: float, code: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        server = self._server()
        with tempfile.TemporaryDirectory(prefix="cli-") as folder:
            paths = [os.path.join(folder, name) for name in ("out", "err")]
            readers = []
            for path in paths:
                os.mkfifo(path)
                readers.append(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            try:
                request = {"argv": argv, "cwd": cwd, "env": env, "out": paths[0], "err": paths[1], "code": code}
                server.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
                pid = self._answer(server)["pid"]
                out, err = _drain(readers, time.monotonic() + timeout, pid)
                status = self._answer(server)["status"]
            finally:
                for fd in readers:
                    os.close(fd)
        if out is None:
            raise subprocess.TimeoutExpired(["retrieval-eval", *argv], timeout)
        code = os.waitstatus_to_exitcode(status)
        return subprocess.CompletedProcess(["retrieval-eval", *argv], code, _text(out), _text(err))


def _drain(readers: list[int], deadline: float, pid: int) -> tuple[bytes | None, bytes]:
    """Everything the child writes to its two FIFOs, until both close; (None, ...) past the
    deadline, once the child is killed."""
    chunks: dict[int, list[bytes]] = {fd: [] for fd in readers}
    open_fds = set(readers)
    with selectors.DefaultSelector() as selector:
        for fd in readers:
            selector.register(fd, selectors.EVENT_READ)
        while open_fds:
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                return None, b""
            for key, _ in selector.select(min(left, 1.0)):
                try:
                    data = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                if data:
                    chunks[key.fd].append(data)
                else:
                    selector.unregister(key.fd)
                    open_fds.discard(key.fd)
    return b"".join(chunks[readers[0]]), b"".join(chunks[readers[1]])


def _text(data: bytes) -> str:
    # What subprocess.run(text=True) does: the locale's encoding, universal newlines.
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


def _same_source(pythonpath: str | None) -> bool:
    """Whether a PYTHONPATH finds the package where this process found it."""
    if not pythonpath:
        return False
    first = pythonpath.split(os.pathsep)[0]
    return Path(first).resolve() == Path(str(retrieval_eval.__file__)).resolve().parent.parent


_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_ZYGOTE = _Zygote()
