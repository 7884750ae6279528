"""The console script's entry point, kept free of imports so ``--version`` answers at once.

CI systems call ``retrieval-eval --version`` first and often; everything else
goes to the click application in :mod:`retrieval_eval.cli`.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        from ._version import __version__

        sys.stdout.write(f"retrieval-eval {__version__}\n")
        raise SystemExit(0)
    from .cli import cli

    cli.main(args=args, prog_name="retrieval-eval")
