"""A floor run's sidecar ``<run>.meta.json`` as JSON: written from its records
(core/floor_sidecar.py), and its description read back for a report's floor.

The keys and their order are the sidecar's (docs/floors.md): command, method, parameters
(the lane's, then depth and granularity), tokenizer, corpus, judgments, queries, run, software.
"""

from __future__ import annotations

import os
from typing import Any

from ..core.floor_sidecar import (
    BM25Description,
    FloorDescription,
    FloorParameters,
    FloorProvenance,
    FloorSidecar,
    LaneDescription,
    TokenizerDescription,
)
from ..core.report_model import Json
from .jsondoc import read_document
from .runout import meta_path

COMMAND = "floor-run"
QUERY_ORDER = "query_id"
_PROVENANCE = ("method", "parameters", "tokenizer")


def tokenizer_to_json(tokenizer: TokenizerDescription) -> dict[str, Any]:
    return {
        "lowercase": tokenizer.lowercase,
        "word_pattern": tokenizer.word_pattern,
        "stopwords": tokenizer.stopwords,
        "stopword_count": tokenizer.stopword_count,
        "stemmer": tokenizer.stemmer,
    }


def lane_to_json(lane: LaneDescription) -> dict[str, Any]:
    if isinstance(lane, BM25Description):
        return {"variant": lane.variant, "k1": lane.k1, "b": lane.b, "score_decimals": lane.score_decimals}
    return {
        "tf": lane.tf,
        "idf": lane.idf,
        "norm": lane.norm,
        "score": lane.score,
        "score_decimals": lane.score_decimals,
    }


def parameters_to_json(parameters: FloorParameters) -> dict[str, Any]:
    return {**lane_to_json(parameters.lane), "depth": parameters.depth, "granularity": parameters.granularity}


def description_to_json(described: FloorDescription) -> dict[str, Any]:
    return {
        "method": described.method,
        "parameters": parameters_to_json(described.parameters),
        "tokenizer": tokenizer_to_json(described.tokenizer),
    }


def sidecar_to_json(sidecar: FloorSidecar) -> dict[str, Any]:
    """The sidecar's JSON object, as ``floor-run`` writes it."""
    corpus, queries = sidecar.corpus, sidecar.queries
    return {
        "command": COMMAND,
        **description_to_json(sidecar.described),
        "corpus": {
            "sha256": corpus.sha256,
            "fingerprint": corpus.fingerprint,
            "chunker_fingerprint": corpus.chunker_fingerprint,
            "keys": corpus.keys,
            "without_text": corpus.without_text,
            "vocabulary": corpus.vocabulary,
        },
        "judgments": {"sha256": sidecar.judgments_sha256},
        "queries": {
            "ranked": queries.ranked,
            "no_known_term": list(queries.no_known_term),
            "without_text": list(queries.without_text),
            "conflicting_text": list(queries.conflicting_text),
        },
        "run": {"sha256": sidecar.run_sha256, "query_order": QUERY_ORDER},
        "software": dict(sidecar.software),
    }


def provenance_of(described: FloorDescription) -> FloorProvenance:
    """A floor's description as a report keeps it: the JSON the sidecar holds, frozen."""
    written = description_to_json(described)
    return FloorProvenance(**{name: _frozen(written[name]) for name in _PROVENANCE})


def read_provenance(run_path: str, sha256: str) -> FloorProvenance:
    """Method, parameters and tokenizer from a run's sidecar, when it describes these very bytes
    (its ``run.sha256`` is ``sha256``); nothing when there is no such sidecar. A sidecar that is
    not JSON is refused (InputError naming it)."""
    sidecar = meta_path(run_path)
    if not os.path.isfile(sidecar):
        return FloorProvenance()
    meta = read_document(sidecar, "floor sidecar")
    run = meta.get("run") if isinstance(meta, dict) else None
    if not isinstance(run, dict) or run.get("sha256") != sha256:
        return FloorProvenance()
    return FloorProvenance(**{name: _frozen(meta.get(name)) for name in _PROVENANCE})


def _frozen(value: Any) -> Json:
    """A JSON value as the report keeps it: lists as tuples."""
    if isinstance(value, dict):
        return {str(key): _frozen(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(item) for item in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"not JSON: {value!r}")
