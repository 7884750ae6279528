"""retrieval-eval: exact retrieval metrics, label drift repair and merge gates.

The public library surface is re-exported lazily so that `import retrieval_eval`
(and so the CLI's start-up) stays cheap.
"""

from __future__ import annotations

__version__ = "1.0.0"

_EXPORTS = {
    "InputError": "core.errors",
    "UsageError": "core.errors",
    "normalize": "core.identity",
    "text_sha": "core.identity",
    "chunk_id": "core.identity",
    "read_corpus": "formats.corpus",
    "check_drift": "core.drift",
    "plan_fix": "core.drift_fix",
    "parse_judgments": "formats.judgments",
    "write_judgments": "core.judgments",
    "parse_run": "formats.runs",
    "ScoreConfig": "core.scoring",
    "score": "core.scoring",
    "validate": "core.validate",
    "parse_gate": "core.gates",
    "build_report": "core.report",
    "summarize_samples": "core.summarize",
}


def __getattr__(name: str) -> object:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'retrieval_eval' has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"retrieval_eval.{module_name}")
    return getattr(module, name)


__all__ = ["__version__", *_EXPORTS]
