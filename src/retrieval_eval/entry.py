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

    cli.main(args=args, prog_name="retrieval-eval")
