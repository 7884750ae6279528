"""retrieval-eval: exact retrieval metrics, label drift repair and merge gates.

The names in ``__all__`` are the public Python API (docs/api.md); everything else in the
package is private and may change. Importing the package stays cheap (about 9 ms against 8 ms
with the version alone, bench/import_bench.py): the API module loads no layer until one of its
functions runs, so ``retrieval-eval --version`` and every command start as fast as before.

The layers, in the order data flows: ``formats`` (files in and out), ``core`` (pure rules:
metrics, scoring, gates, drift), ``compare`` (base against head), ``pipeline`` (``evaluate``,
the one pipeline the CLI, the action and the API share), ``render`` (text, Markdown) and
``action`` (the GitHub Action).
"""

from __future__ import annotations

# The names are listed once, in api.__all__; the star import takes exactly those.
from . import api as _api
from ._version import __version__
from .api import *  # noqa: F403

__all__ = ["__version__", *_api.__all__]
