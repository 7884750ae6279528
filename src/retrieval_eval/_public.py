"""The public names of the Python API, listed once.

The package root exports them (and loads api.py on first use of one); api.py defines each of
them and takes its ``__all__`` from here. A module of its own, so that neither imports the other
at its top.
"""

API_NAMES = (
    "Comparison",
    "Drift",
    "Evaluation",
    "InputError",
    "Judgments",
    "MetricChange",
    "Record",
    "Report",
    "RetrievalEvalError",
    "Run",
    "UsageError",
    "canonical_metric",
    "chunk_id",
    "compare",
    "drift",
    "evaluate",
    "load_judgments",
    "load_report",
    "load_run",
    "plan",
    "text_sha",
)
