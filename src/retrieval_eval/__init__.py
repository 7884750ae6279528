"""retrieval-eval: exact retrieval metrics, label drift repair and merge gates.

The package root holds only the version, so that ``retrieval-eval --version`` (and every
command's start) does not pay for modules it does not use. The layers, in the order data
flows: ``formats`` (files in and out), ``core`` (pure rules: metrics, scoring, gates,
drift), ``compare`` (base against head), ``pipeline`` (``evaluate``, the one pipeline the
CLI and the action share), ``render`` (text, Markdown) and ``action`` (the GitHub Action).
"""

from __future__ import annotations

__version__ = "1.0.0"

__all__ = ["__version__"]
