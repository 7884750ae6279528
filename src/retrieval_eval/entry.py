"""The console script's entry point, kept free of imports so ``--version`` answers at once.

CI systems call ``retrieval-eval --version`` first and often; everything else
goes to the click application in :mod:`retrieval_eval.cli`. No ``from __future__ import
annotations`` here or in the package root: it imports the ``__future__`` module at run time, a
tenth of a millisecond of every start (the annotations below need Python 3.10, our floor).
"""

import os
import sys

from ._version import __version__  # already loaded by the package's __init__: free

# numpy's BLAS would start a thread per core for the bootstrap's small matrix products
# (core/fastdraws.py): on a shared runner they spin and double the CPU time for no gain.
# Set before numpy loads; a value the user set is kept.
_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        sys.stdout.write(f"retrieval-eval {__version__}\n")
        raise SystemExit(0)
    for name in _ONE_THREAD:
        os.environ.setdefault(name, "1")
    # click and the command table: about 20 ms of start-up (the least of seven python -X importtime
    # runs) that `--version` above does without.
    from .cli import cli

    if argv is not None or args[:1] != ["score"]:
        cli.main(args=args, prog_name="retrieval-eval")
        return
    try:
        cli.main(args=args, prog_name="retrieval-eval")
    except SystemExit as done:
        _leave_now(done.code)
        raise


def _leave_now(code: object) -> None:
    """End the process with ``code`` as the interpreter would, less what nobody reads: freeing
    every object ``score`` made, one by one, and the last collection (about 0.04 s of CPU on
    10k queries, on the critical path; docs/benchmarks.md). Returns, for the interpreter's own
    exit, when it cannot be this plain: another thread still running, a code that is not a
    status, output that cannot be flushed.

    Only ``score`` run as a process comes here (its report is written and closed, its
    workers reaped, before it exits); a caller that passes ``argv`` never does.
    """
    import atexit  # not loaded at start in a venv (71 µs by -X importtime): only this exit pays it

    threading = sys.modules.get("threading")
    if threading is not None and any(
        not thread.daemon for thread in threading.enumerate() if thread is not threading.main_thread()
    ):
        return
    if code is None:
        code = 0
    if type(code) is not int or not 0 <= code <= 255:
        return
    atexit._run_exitfuncs()  # what the interpreter runs at exit, in the same order
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:  # the interpreter says so, and exits with 120
        return
    os._exit(code)
