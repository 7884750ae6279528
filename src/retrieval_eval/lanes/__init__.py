"""The numeric floor lanes (BM25, TF-IDF): the only code that needs the ``lanes`` extra.

``pip install 'retrieval-eval[lanes]'`` brings numpy, scipy, bm25s and
PyStemmer. Nothing else in the package imports them: a command that needs a
lane calls :func:`require_lanes` first, which turns a missing library into
our usage error (exit 2) with the line to run, and only then imports the
lane modules, which import the libraries at their top.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from ..core.errors import UsageError

INSTALL = "pip install 'retrieval-eval[lanes]'"

# import name -> distribution name, in the order a message names them
_NEEDED = {"numpy": "numpy", "scipy.sparse": "scipy", "bm25s": "bm25s"}
_STEMMER = {"Stemmer": "PyStemmer"}


def require_lanes(*, stem: bool = False) -> None:
    """Import what the lanes need, or raise a UsageError that names the missing distributions."""
    needed = {**_NEEDED, **(_STEMMER if stem else {})}
    missing: list[str] = []
    for module, distribution in needed.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(distribution)
    if missing:
        raise UsageError(
            f"the floor lanes need the lanes extra, and {', '.join(missing)} cannot be imported",
            hint=INSTALL,
        )


def english_stemmer() -> Callable[[str], str]:
    """PyStemmer's Snowball English stemmer (call :func:`require_lanes` with stem=True first)."""
    import Stemmer  # PyStemmer: the optional lanes extra (it ships no type information)

    stem: Callable[[str], str] = Stemmer.Stemmer("english").stemWord
    return stem
