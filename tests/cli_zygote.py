"""A process that has imported the CLI once and forks a fresh child for every command a test runs.

Starting Python and importing click, Jinja2 and the package costs a few tenths of a CPU second;
the suite runs the CLI several hundred times, so that was about half of its CPU time. This
server is started once per test process (``python tests/cli_zygote.py``, which detaches), imports the CLI and
every command, and then, for each request, forks a child that is what ``python -m
retrieval_eval ARGS`` would be after its imports: its own working directory, environment,
standard input (/dev/null), standard output and error (files), and exit status. The server
never runs a command itself and starts no thread, so each child starts from the same clean
state, and forking is safe.

Requests and answers are JSON lines on the server's standard input and output:
``{"argv", "cwd", "env", "out", "err"}`` in (and ``"code"``: a snippet run as ``python -c CODE ARGV``
would run it, instead of the CLI), where ``out`` and ``err`` are FIFOs the caller
reads (so the child's output is a pipe, as under ``subprocess.run``); ``{"pid"}`` as soon as
the child exists (the caller kills it on a timeout), then ``{"status"}``, its wait status.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import sys
import threading
import traceback

# What entry.main sets before anything can load numpy (see retrieval_eval/entry.py).
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")


def preload() -> None:
    import retrieval_eval.cli
    import retrieval_eval.commands

    for module in pkgutil.iter_modules(retrieval_eval.commands.__path__):
        importlib.import_module(f"retrieval_eval.commands.{module.name}")
    # The optional extras, where installed: every command with --corpus or --floor loads numpy,
    # scipy and bm25s (about 0.25 s of CPU per child, more than most commands take to run), and
    # the bootstrap loads numpy. A fresh interpreter would import the very same modules, with
    # the same one-thread BLAS set above, when the command asks for them; a machine without an
    # extra still gets the command's own message, since the child then imports it and fails as
    # a fresh process would. Tests that take an extra away start a fresh interpreter instead.
    for extra in (
        "retrieval_eval.core.fastdraws",
        "retrieval_eval.lanes.topk",
        "retrieval_eval.lanes.bm25",
        "retrieval_eval.lanes.tfidf",
        "Stemmer",
    ):
        try:
            importlib.import_module(extra)
        except ImportError:
            pass
    # Every command that draws a summary, a comment, a history or the HTML page (the action, render,
    # history) would first import Jinja2 and compile the built-in templates: about 0.1 s of CPU in
    # every such child, more than many of them take to run. Compiled here once, they are in every
    # child, as in any process that has drawn them before (a user's templates are read as ever).
    from retrieval_eval.render import html_page, sandbox

    for kind in ("summary", "comment", "history"):
        sandbox.template_drawer(kind, None)
    html_page._template()
    # Forking is only safe from a process with one thread: no extra may have started one.
    assert threading.active_count() == 1, threading.enumerate()
    del retrieval_eval


def open_writer(path: str) -> int:
    """The write end of the caller's FIFO (the caller holds the read end open), blocking."""
    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    os.set_blocking(fd, True)
    return fd


def child(request: dict, channel: int, out: int, err: int) -> None:
    """Become the command: never returns."""
    code = 1
    try:
        os.close(channel)
        if request["cwd"]:
            os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        null = os.open(os.devnull, os.O_RDONLY)
        for source, fd in ((null, 0), (out, 1), (err, 2)):
            os.dup2(source, fd)
            os.close(source)
        # The streams a fresh interpreter gives a command whose output goes to files.
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
        snippet = request.get("code")
        sys.argv = ["-c" if snippet is not None else "retrieval-eval", *request["argv"]]
        from retrieval_eval.entry import main

        try:
            if snippet is not None:  # python -c SNIPPET ARGV: the snippet as __main__'s code
                exec(compile(snippet, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
            else:
                main(list(request["argv"]))
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc.code)
        except BaseException:  # what the interpreter does with an uncaught exception
            traceback.print_exc()
            code = 1
        # What the interpreter does at exit before flushing: wait for the threads still running.
        for thread in threading.enumerate():
            if thread is not threading.main_thread() and not thread.daemon:
                thread.join()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except OSError:
                code = code or 120  # as the interpreter does when flushing at exit fails
    finally:
        os._exit(code)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1


def serve() -> None:
    preload()
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    channel = answers.fileno()
    for line in requests:
        request = json.loads(line)
        out, err = open_writer(request["out"]), open_writer(request["err"])
        pid = os.fork()
        if pid == 0:
            child(request, channel, out, err)
        os.close(out)
        os.close(err)
        answers.write(json.dumps({"pid": pid}) + "\n")
        answers.flush()
        _, status = os.waitpid(pid, 0)
        answers.write(json.dumps({"status": status}) + "\n")
        answers.flush()


if __name__ == "__main__":
    # Leave the caller at once and serve from a grandchild: the test process then has no child
    # of its own (tests check that no worker process is left behind with os.waitpid(-1)).
    if os.fork() > 0:
        os._exit(0)
    serve()
