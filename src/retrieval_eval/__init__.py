"""retrieval-eval: exact retrieval metrics, label drift repair and merge gates.

The public library surface is re-exported lazily so that `import retrieval_eval`
(and so the CLI's start-up) stays cheap.
"""

from __future__ import annotations

__version__ = "1.0.0"

_EXPORTS = {
    "InputError": "errors",
    "UsageError": "errors",
    "normalize": "identity",
    "text_sha": "identity",
    "chunk_id": "identity",
    "read_corpus": "corpus",
    "check_drift": "drift",
    "plan_fix": "drift_fix",
    "parse_judgments": "judgments",
    "write_judgments": "judgments",
    "parse_run": "runs",
    "ScoreConfig": "scoring",
    "score": "scoring",
    "validate": "validate",
    "parse_gate": "gates",
    "build_report": "report",
    "summarize_samples": "summarize",
}


def __getattr__(name: str) -> object:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'retrieval_eval' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"retrieval_eval.{module_name}")
    return getattr(module, name)


__all__ = ["__version__", *_EXPORTS]
