"""retrieval-eval: exact retrieval metrics, label drift repair and merge gates.

The names in ``__all__`` are the public Python API (docs/api.md); everything else in the
package is private and may change.

The layers, in the order data flows: ``formats`` (files in and out), ``core`` (pure rules:
metrics, scoring, gates, drift), ``comparison`` (base against head), ``pipeline``
(``evaluate``, the one pipeline the CLI, the action and the API share), ``render`` (text,
Markdown) and ``action`` (the GitHub Action).
"""

from ._public import API_NAMES
from ._version import __version__

__all__ = ["__version__", *API_NAMES]


def __getattr__(name: str) -> object:
    """A public name, from api.py, loaded on first use (PEP 562).

    Every command's entry point (``entry.py``) lives in this package, so whatever this module
    imports, ``retrieval-eval --version`` and every command pay for; loading the API (and with
    it every layer, about 80 ms) only when a public name is used keeps ``import retrieval_eval``
    as cheap as the version alone (bench/import_bench.py)."""
    if name not in API_NAMES:
        raise AttributeError(f"module 'retrieval_eval' has no attribute {name!r}")
    from . import api  # the one deferred import of the API, for the start-up above

    value = getattr(api, name)
    globals()[name] = value  # later uses find it without this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *API_NAMES})
