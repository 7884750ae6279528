"""How a floor run was made: its method, parameters and tokenizer, and the sidecar
``<run>.meta.json`` that records them beside the run (docs/floors.md).

These are records only; formats/floor_sidecar.py writes them as JSON and reads a sidecar's
description back as the report keeps it (:class:`FloorProvenance`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias, Union

from .report_model import Json


@dataclass(frozen=True, slots=True)
class TokenizerDescription:
    """The tokenizer's four steps (core/tokenize.py) as a floor records them."""

    lowercase: str
    word_pattern: str
    stopwords: str
    stopword_count: int
    stemmer: str | None  # None: no stemming (written as null)


@dataclass(frozen=True, slots=True)
class BM25Description:
    variant: str
    k1: float
    b: float
    score_decimals: int


@dataclass(frozen=True, slots=True)
class TfidfDescription:
    tf: str
    idf: str
    norm: str
    score: str
    score_decimals: int


LaneDescription: TypeAlias = Union[BM25Description, TfidfDescription]  # noqa: UP007 (Python 3.10 evaluates the alias)


@dataclass(frozen=True, slots=True)
class FloorParameters:
    """A lane's parameters, then how deep and over what a floor ranks."""

    lane: LaneDescription
    depth: int
    granularity: str


@dataclass(frozen=True, slots=True)
class FloorDescription:
    """How a floor was made: method, parameters and tokenizer (the sidecar's, and the report's)."""

    method: str
    parameters: FloorParameters
    tokenizer: TokenizerDescription


@dataclass(frozen=True, slots=True)
class SidecarCorpus:
    sha256: str
    fingerprint: str | None
    chunker_fingerprint: str | None
    keys: int
    without_text: int
    vocabulary: int


@dataclass(frozen=True, slots=True)
class SidecarQueries:
    ranked: int
    no_known_term: tuple[str, ...]
    without_text: tuple[str, ...]
    conflicting_text: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FloorSidecar:
    """The whole sidecar of a ``floor-run``: its rankings are in query_id order."""

    described: FloorDescription
    corpus: SidecarCorpus
    judgments_sha256: str
    queries: SidecarQueries
    run_sha256: str
    software: Mapping[str, str | None]  # package -> version, None when not installed


@dataclass(frozen=True, slots=True)
class FloorProvenance:
    """A floor's method, parameters and tokenizer as a report keeps them: whatever the sidecar
    beside a floor run file said (another version's fields included), or nothing."""

    method: Json = None
    parameters: Json = None
    tokenizer: Json = None
