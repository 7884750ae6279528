"""The shapes of the documents we read back: a report and a comparison.

They are the JSON boundary's: a document read from a file is checked against its shape
before it is converted (formats/report.py), so they live with the readers.

``REPORT`` is spec/report.schema.json with our additions (``config``,
``computed``, ``inputs``, ``queries``, ``validation``, ``per_query``, ``per_query_lower``,
``per_query_upper``, ``unjudged``, ``rankings``, ``worst_stratum``, the drift, machine-label,
collapse, floor and sensitivity sections) typed as ``core/report.py`` writes them (every field,
so that a report read back is whole as :mod:`retrieval_eval.core.report_model` types it:
tests/test_report_model.py holds the two together),
and every number bounded: a value past ``MAX_MAGNITUDE`` is no
metric, and using it (a difference, a square, a percentage) could overflow.
``COMPARISON`` is the document ``compare`` writes (comparison/document.py).

A test checks that every report this shape accepts is valid under the spec's
schema, and that the shapes agree with a full JSON Schema validator.
"""

from __future__ import annotations

from typing import Any

from ..core.precision import MAX_MAGNITUDE
from .docshape import Checker, ShapeError

NUMBER: dict[str, Any] = {"type": "number", "minimum": -MAX_MAGNITUDE, "maximum": MAX_MAGNITUDE}
NUMBER_OR_NULL: dict[str, Any] = {**NUMBER, "type": ["number", "null"]}
COUNT: dict[str, Any] = {"type": "integer", "minimum": 0, "maximum": MAX_MAGNITUDE}
COUNT_OR_NULL: dict[str, Any] = {**COUNT, "type": ["integer", "null"]}
STRING: dict[str, Any] = {"type": "string"}
STRING_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
STRINGS: dict[str, Any] = {"type": "array", "items": STRING}
STATUS: dict[str, Any] = {"enum": ["PASS", "FAIL", "INDETERMINATE"]}
ANY: dict[str, Any] = {}  # any JSON value: what the producer wrote is kept as written


def _object(properties: dict[str, Any], required: tuple[str, ...] = (), **more: Any) -> dict[str, Any]:
    shape: dict[str, Any] = {"type": "object", "properties": properties, **more}
    if required:
        shape["required"] = list(required)
    return shape


def _map(values: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": values}


MEASUREMENT = _object(
    {
        "value": NUMBER,
        "lower": NUMBER,
        "upper": NUMBER,
        "n": COUNT,
        "stdev": NUMBER,
        "ci": {"type": "array", "items": NUMBER, "minItems": 2, "maxItems": 2},
        "deterministic": {"type": "boolean"},
    },
    ("value",),
)

# One metric of the floor section: the floor's value, the run's, the margin and its interval.
MARGIN = _object(
    {
        "floor": NUMBER,
        "head": NUMBER,
        "margin": NUMBER_OR_NULL,
        "n": COUNT,
        "ci": {"type": "array", "items": NUMBER, "minItems": 2, "maxItems": 2},
        "p_value": {"type": "number", "minimum": 0, "maximum": 1},
        "significant": {"type": "boolean"},
    }
)

# What a delta gate's paired queries can see (core/gates.py Detectable).
DETECTABLE = _object(
    {
        "metric": STRING,
        "n": COUNT,
        "mde": NUMBER,
        "tolerance": NUMBER,
        "needed": COUNT_OR_NULL,
        "power": {"type": "number", "minimum": 0, "maximum": 1},
        "alpha": {"type": "number", "minimum": 0, "maximum": 1},
        "seen": {"type": "boolean"},
        "direction": STRING,
    }
)

# The machine-label policy's decision, beside the verdict (pipeline/machine_policy.py).
MACHINE_LABELS = _object(
    {
        "file_sha256": STRING,
        "calibration": {
            **_object(
                {
                    "status": STRING,
                    "pairs": COUNT,
                    "kappa_binary": NUMBER_OR_NULL,
                    "kappa_graded": NUMBER_OR_NULL,
                    "zero_rate_human": NUMBER_OR_NULL,
                    "zero_rate_judge": NUMBER_OR_NULL,
                    "floor": NUMBER,
                }
            ),
            "type": ["object", "null"],
        },
        "holes": COUNT,
        "machine_labeled": COUNT,
        "machine_labeled_share": NUMBER_OR_NULL,
        "invalidated": COUNT,
        "human_labels_verdict": STRING,
        "gates": {
            "type": "array",
            "items": _object(
                {
                    "expression": STRING,
                    "metric": STRING,
                    "human_status": STRING,
                    "status": STRING,
                    "value": NUMBER,
                    "bounds": {"type": "array", "items": NUMBER},
                    "estimate": NUMBER,
                    "interval": {"type": "array", "items": NUMBER},
                    "note": STRING,
                }
            ),
        },
    }
)

REPORT: dict[str, Any] = _object(
    {
        "spec_version": {"const": "1"},
        "tool": _object({"name": STRING, "version": STRING}, ("name", "version")),
        "generated_at": STRING,
        "config": _object(
            # A cutoff, or "all": the full-depth metrics (-k all) are part of the configuration.
            {
                "k": {"type": "array", "items": {"anyOf": [COUNT, {"const": "all"}]}},
                "threshold": {**NUMBER, "type": "integer"},
                "gain": STRING,
                "unjudged": STRING,
            }
        ),
        "inputs": _object(
            {
                "judgments_sha256": STRING_OR_NULL,
                "run_sha256": STRING_OR_NULL,
                "query_set_sha256": STRING_OR_NULL,
                "baseline_sha256": STRING_OR_NULL,
                "floor_sha256": STRING_OR_NULL,
            }
        ),
        # The optional measures computed (absent in reports made before they were optional).
        "computed": STRINGS,
        "corpus": _object(
            {
                "fingerprint": STRING_OR_NULL,
                "chunker_fingerprint": STRING_OR_NULL,
                "documents": COUNT,
                "chunks": COUNT,
                "sha256": STRING,
            }
        ),
        "judgments": _object(
            {
                "queries": COUNT,
                "queries_scored": COUNT,
                "labels": COUNT,
                "fingerprint": STRING_OR_NULL,
                "human_labels": COUNT,
                "synthetic_labels": COUNT,
                "drift": _object(
                    {
                        "valid": COUNT,
                        "re_anchorable": COUNT,
                        "merged": COUNT,
                        "split": COUNT,
                        "orphaned": COUNT,
                        "stranded": COUNT,
                        "invalid_ratio": {"type": "number", "minimum": 0, "maximum": 1},
                        "changes": {"type": "array", "items": STRING},
                        "repair_command": STRING,
                        "list_command": STRING,
                        "stale": {
                            "type": "array",
                            "items": _object({"line": COUNT, "query_id": STRING, "status": STRING}),
                        },
                    }
                ),
            },
            ("queries", "labels"),
        ),
        "metrics": _map({"$ref": "#/$defs/measurement"}),
        "per_stratum": _map(
            _object({"n": COUNT, "queries": COUNT, "metrics": _map({"$ref": "#/$defs/measurement"})}, ("n",))
        ),
        "worst_stratum": _object({"metric": STRING, "name": STRING, "value": NUMBER}),
        "verdict": _object(
            {
                "status": STATUS,
                "reasons": STRINGS,
                "gates": {
                    "type": "array",
                    "items": _object(
                        {
                            "expression": STRING,
                            "status": STATUS,
                            "observed": NUMBER,
                            "baseline": NUMBER_OR_NULL,
                            "reason": STRING,
                            "detectable": DETECTABLE,
                        },
                        ("expression", "status"),
                    ),
                },
            },
            ("status",),
        ),
        "machine_labels": MACHINE_LABELS,
        # The query ids behind every count; keys of other tools' reports are read as string lists too.
        "queries": _object(
            {
                name: STRINGS
                for name in (
                    "scored",
                    "without_positives",
                    "missing_from_run",
                    "with_duplicates",
                    "unjudged",
                    "no_answer",
                    "abstained",
                    "false_abstentions",
                )
            },
            additionalProperties=STRINGS,
        ),
        "validation": _object({"ok": {"type": "boolean"}, "errors": STRINGS, "warnings": COUNT}),
        "unjudged": _object({"keys": _map(COUNT), "new_keys": COUNT}),
        "per_query": _map(_map(NUMBER)),
        "per_query_lower": _map(_map(NUMBER)),
        "per_query_upper": _map(_map(NUMBER)),
        "rankings": _map(STRINGS),
        "hit_documents": _map(_map(STRING)),
        "collapse": _object(
            {
                "to": STRING,
                "received": COUNT,
                "collapsed": COUNT,
                "unmapped": COUNT,
                "per_query": _map(
                    _object({"received": COUNT, "documents": COUNT, "collapsed": COUNT, "unmapped": COUNT})
                ),
            }
        ),
        "floor": _object(
            {
                "source": STRING,
                "unavailable": STRING,
                "run_sha256": STRING,
                # How the floor was made, as its run's sidecar says: the report keeps it as written.
                "method": ANY,
                "parameters": ANY,
                "tokenizer": ANY,
                "queries": COUNT,
                "significance": _object(
                    {
                        "name": STRING,
                        "resamples": COUNT,
                        "seed": {"type": "integer"},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    }
                ),
                "metrics": _map({"$ref": "#/$defs/margin"}),
                "per_stratum": _map(_object({"n": COUNT, "metrics": _map({"$ref": "#/$defs/margin"})})),
            }
        ),
        "sensitivity": _object(
            {
                "metric": STRING,
                "thresholds": _object({"easy_set": NUMBER_OR_NULL, "answer_in_query": COUNT_OR_NULL}),
                "skipped": STRING,
                "floor": _object({"source": STRING, "method": ANY, "parameters": ANY, "run_sha256": STRING}),
                "hit_rate": _object({"overall": NUMBER_OR_NULL, "per_stratum": _map(NUMBER)}),
                "warnings": {
                    "type": "array",
                    "items": _object(
                        {"code": STRING, "severity": STRING, "subject": STRING, "message": STRING}, ("code", "message")
                    ),
                },
            }
        ),
    },
    ("spec_version", "tool", "generated_at", "corpus", "judgments", "metrics", "verdict"),
    **{"$defs": {"measurement": MEASUREMENT, "margin": MARGIN}},
)

_SIDE = _object(
    {
        name: STRING_OR_NULL
        for name in (
            "generated_at",
            "tool_version",
            "judgments_sha256",
            "run_sha256",
            "query_set_sha256",
            "corpus_fingerprint",
            "verdict",
        )
    }
)
_MOVER = _object(
    {
        "query_id": STRING,
        "query": STRING_OR_NULL,
        "stratum": STRING_OR_NULL,
        "base": NUMBER,
        "head": NUMBER,
        "delta": NUMBER,
    },
    ("query_id", "base", "head", "delta"),
)
_INTERVAL_OR_NULL: dict[str, Any] = {"type": ["null", "array"], "items": NUMBER, "minItems": 2, "maxItems": 2}
_P_OR_NULL: dict[str, Any] = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
# What the paired queries detect and how they moved, beside a metric's or a paired stratum's delta.
_ROW_POWER: dict[str, Any] = {
    "sd_diff": NUMBER_OR_NULL,
    "mde": NUMBER_OR_NULL,
    "mde_source": STRING_OR_NULL,
    "moved": {**_object({"improved": COUNT, "tied": COUNT, "worsened": COUNT}), "type": ["object", "null"]},
}
COMPARISON: dict[str, Any] = _object(
    {
        "kind": STRING,
        "version": {"const": 1},
        "tool": _object({"name": STRING, "version": STRING}),
        "primary": STRING,
        "base": _SIDE,
        "head": _SIDE,
        "yardstick": STRING,
        "comparable": {"type": "boolean"},
        "comparability": {
            "type": "array",
            "items": _object(
                {"code": STRING, "effect": STRING, "detail": STRING, "meaning": STRING, "metrics": STRINGS}, ("code",)
            ),
        },
        "significance": _object(
            {
                "name": STRING,
                "resamples": {"type": "integer"},
                "seed": {"type": "integer"},
                "draws": STRING,
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "interval": STRING,
                "p_value": STRING,
                "adjustment": STRING,
                "strata": STRING,
                "paired_queries": COUNT,
            }
        ),
        "power": _object(
            {
                "power": {"type": "number", "minimum": 0, "maximum": 1},
                "alpha": {"type": "number", "minimum": 0, "maximum": 1},
                "method": STRING,
                "formula": STRING,
                "sd_diff": STRING,
                "base_proxy": STRING,
            }
        ),
        "queries": _object({"paired": COUNT, "added": STRINGS, "removed": STRINGS}),
        "metrics": _map(
            _object(
                {
                    "base": NUMBER_OR_NULL,
                    "head": NUMBER_OR_NULL,
                    "delta": NUMBER_OR_NULL,
                    "n": COUNT_OR_NULL,
                    "ci": _INTERVAL_OR_NULL,
                    "p_value": _P_OR_NULL,
                    "significant": {"type": ["boolean", "null"]},
                    "p_adjusted": _P_OR_NULL,
                    "significant_adjusted": {"type": ["boolean", "null"]},
                    "confounded": STRING_OR_NULL,
                    "bounds": _INTERVAL_OR_NULL,
                    "unjudged": COUNT_OR_NULL,
                    **_ROW_POWER,
                }
            )
        ),
        "per_stratum": _map(
            _object(
                {
                    "n": COUNT_OR_NULL,
                    "base": NUMBER_OR_NULL,
                    "head": NUMBER_OR_NULL,
                    "delta": NUMBER_OR_NULL,
                    "ci": _INTERVAL_OR_NULL,
                    "p_value": _P_OR_NULL,
                    "significant": {"type": ["boolean", "null"]},
                    "p_adjusted": _P_OR_NULL,
                    "significant_adjusted": {"type": ["boolean", "null"]},
                    **_ROW_POWER,
                }
            )
        ),
        "movers": _object(
            {
                "metric": STRING,
                "down": COUNT,
                "up": COUNT,
                "unchanged": COUNT,
                "drops": {"type": "array", "items": _MOVER},
                "gains": {"type": "array", "items": _MOVER},
            }
        ),
    },
    ("kind", "version", "base", "head", "metrics"),
)

_REPORT = Checker(REPORT)
_COMPARISON = Checker(COMPARISON)


def report_problem(document: Any) -> ShapeError | None:
    """The first way ``document`` is not a report we can use, or None."""
    return _first_problem(_REPORT, document)


def comparison_problem(document: Any) -> ShapeError | None:
    """The first way ``document`` is not a comparison we can use, or None."""
    return _first_problem(_COMPARISON, document)


def _first_problem(checker: Checker, document: Any) -> ShapeError | None:
    try:
        checker.check(document)
    except ShapeError as problem:
        return problem
    return None
