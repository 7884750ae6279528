"""A lexical floor run (BM25 or TF-IDF) for the judged queries, over a corpus snapshot.

corpus -> collection (chunks, or documents made of their chunks) -> term ids
-> lane -> each judged query's top keys -> run JSONL + ``<run>.meta.json``.

The collection is held in key order (chunk ids, or document uris), so the
lanes break ties by key by comparing positions. Queries are written in
query_id order (code points), one line each, an empty ranking when no query
term occurs in the collection; a query without text is left out and named.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from .._version import __version__
from ..core.errors import InputError, UsageError
from ..core.floor_sidecar import (
    FloorDescription,
    FloorParameters,
    FloorSidecar,
    LaneDescription,
    SidecarCorpus,
    SidecarQueries,
)
from ..core.identity import normalize
from ..core.judgments import JudgmentSet, Label, NoAnswer
from ..core.labelindex import LabelIndex
from ..core.tokenize import TermIds, Tokenizer, TokenizerSpec
from ..formats.corpus import Corpus, read_corpus
from ..formats.fileio import named_as_given, read_once, sha256_file
from ..formats.floor_sidecar import sidecar_to_json
from ..formats.objects import read_judgment_set
from ..formats.runout import refuse_run_over_input, write_meta, write_run
from ..lanes import english_stemmer, require_lanes

METHODS = ("bm25", "tfidf")
GRANULARITIES = ("chunk", "document")
DEFAULT_DEPTH = 100
DEFAULT_K1 = 1.5
DEFAULT_B = 0.75
LIBRARIES = ("bm25s", "numpy", "scipy", "PyStemmer")


@dataclass(frozen=True)
class FloorRunRequest:
    method: str
    corpus_path: str
    judgments_path: str
    out: str
    depth: int = DEFAULT_DEPTH
    granularity: str = "chunk"
    k1: float | None = None  # None: the default, and the only value TF-IDF accepts
    b: float | None = None
    tokenizer: TokenizerSpec = field(default_factory=TokenizerSpec)
    corpus_format: str = "auto"

    def check(self) -> None:
        if self.method not in METHODS:
            raise UsageError(f"unknown method {self.method!r}; use one of {', '.join(METHODS)}")
        if self.granularity not in GRANULARITIES:
            raise UsageError(f"unknown granularity {self.granularity!r}; use one of {', '.join(GRANULARITIES)}")
        if self.depth < 1:
            raise UsageError(f"--depth must be at least 1, got {self.depth}")
        if self.method != "bm25" and (self.k1 is not None or self.b is not None):
            raise UsageError("--k1 and --b are BM25 parameters", hint="drop them, or use --method bm25")
        if self.k1 is not None and not (math.isfinite(self.k1) and self.k1 >= 0):
            raise UsageError(f"--k1 must be a finite number >= 0, got {self.k1}", hint="--k1 1.5")
        if self.b is not None and not 0 <= self.b <= 1:
            raise UsageError(f"--b must be between 0 and 1, got {self.b}", hint="--b 0.75")


@dataclass(frozen=True)
class Collection:
    """What is ranked: keys in code point order, and each key's text."""

    keys: list[str]
    texts: list[str]
    without_text: int  # chunks (or documents) left out because the corpus has no text for them


def collection_of(corpus: Corpus, granularity: str) -> Collection:
    """Chunks keyed by chunk id, or documents keyed by uri (their chunks' texts in reading order, one per line)."""
    if granularity == "chunk":
        pairs = [(key, text) for key, text in zip(corpus.ids, corpus.texts) if text is not None]
        total = len(corpus.ids)
    else:
        texts = corpus.texts
        pairs = []
        for uri in corpus.documents:
            parts = [texts[i] for i in corpus.chunks_of(uri) if texts[i] is not None]
            if parts:
                pairs.append((uri, "\n".join(parts)))  # type: ignore[arg-type]
        total = len(corpus.documents)
    pairs.sort()
    return Collection([key for key, _ in pairs], [text for _, text in pairs], total - len(pairs))


@dataclass(frozen=True)
class QueryTexts:
    """Each judged query's text (its first non-empty ``query``, NFC-normalized), in query_id order."""

    texts: dict[str, str]
    without_text: list[str]
    conflicting: list[str]  # queries whose labels give more than one text; the first is used


def query_texts(judgments: JudgmentSet | LabelIndex) -> QueryTexts:
    """The text of every judged query, no-answer queries included (a floor is asked them too)."""
    seen: dict[str, list[str]] = {}
    if isinstance(judgments, LabelIndex):
        seen = {query_id: list(query.texts) for query_id, query in judgments.queries.items()}
    else:
        lines: list[Label | NoAnswer] = [*judgments.labels, *judgments.no_answer]
        for item in sorted(lines, key=lambda item: item.line):
            texts = seen.setdefault(item.query_id, [])
            text = item.query
            if text and text not in texts:
                texts.append(text)
    order = sorted(seen)
    return QueryTexts(
        {query: normalize(seen[query][0]) for query in order if seen[query]},
        [query for query in order if not seen[query]],
        [query for query in order if len(seen[query]) > 1],
    )


class Lane(Protocol):
    decimals: int

    def scores(self, query: list[int]) -> Any: ...


@dataclass
class FloorRunResult:
    queries: QueryTexts
    meta: FloorSidecar  # the sidecar, as written to ``meta_path``
    meta_path: str
    keys: int
    empty: list[str] = field(default_factory=list)
    ranked: int = 0  # queries written to the run


def _build_lane(
    request: FloorRunRequest, documents: list[list[int]], vocabulary: dict[str, int]
) -> tuple[Lane, LaneDescription]:
    if request.method == "bm25":
        from ..lanes.bm25 import BM25Lane, BM25Params  # bm25s and numpy: the optional lanes extra

        params = BM25Params(
            DEFAULT_K1 if request.k1 is None else request.k1, DEFAULT_B if request.b is None else request.b
        )
        return BM25Lane(documents, vocabulary, params), params.describe()
    from ..lanes import tfidf  # numpy and scipy: the optional lanes extra

    return tfidf.TfidfLane(documents, len(vocabulary)), tfidf.describe()


def _index(request: FloorRunRequest, collection: Collection, term_ids: TermIds) -> tuple[Lane, LaneDescription]:
    documents = [term_ids.document(text) for text in collection.texts]
    if not term_ids.vocabulary:
        raise InputError(
            "corpus", None, "no chunk text holds a word; a floor run needs words to match", path=request.corpus_path
        )
    return _build_lane(request, documents, term_ids.vocabulary)


def _rankings(
    lane: Lane, term_ids: TermIds, queries: QueryTexts, keys: list[str], depth: int, empty: list[str]
) -> Iterator[tuple[str, list[str]]]:
    from ..lanes.topk import top_indices  # numpy: the optional lanes extra

    for query_id, text in queries.texts.items():
        terms = term_ids.query(text)
        if not terms:
            empty.append(query_id)
            yield query_id, []
            continue
        yield query_id, [keys[i] for i in top_indices(lane.scores(terms), depth, lane.decimals)]


def _versions() -> dict[str, str | None]:
    # About 12 ms of start-up (the least of seven python -X importtime runs); `score` imports this
    # module for its floor and only a floor run's sidecar needs the versions.
    import importlib.metadata

    versions: dict[str, str | None] = {"retrieval-eval": __version__}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


@dataclass
class Ranked:
    """A floor's rankings, in query_id order, and what the sidecar says of how they were made."""

    rankings: list[tuple[str, list[str]]]
    parameters: LaneDescription  # the lane's; the floor's add depth and granularity
    keys: int
    without_text: int
    vocabulary: int
    empty: list[str]


def rank_queries(request: FloorRunRequest, queries: QueryTexts, corpus: Corpus) -> Ranked:
    """Rank every query with text over the corpus (the lanes must be importable: see require_lanes)."""
    collection = collection_of(corpus, request.granularity)
    if not collection.keys:
        raise InputError("corpus", None, "no chunk has text; a floor run needs chunk texts", path=request.corpus_path)
    stemmer = english_stemmer() if request.tokenizer.stem else None
    term_ids = TermIds(Tokenizer(request.tokenizer, stemmer))
    lane, parameters = _index(request, collection, term_ids)
    empty: list[str] = []
    rankings = list(_rankings(lane, term_ids, queries, collection.keys, request.depth, empty))
    return Ranked(rankings, parameters, len(collection.keys), collection.without_text, len(term_ids.vocabulary), empty)


def make_floor_run(request: FloorRunRequest) -> FloorRunResult:
    """Write the floor run and its sidecar; refuse bad input before anything is written."""
    request.check()
    refuse_run_over_input(request.out, [("corpus", request.corpus_path), ("judgments", request.judgments_path)])
    require_lanes(stem=request.tokenizer.stem)
    # Read and hashed from one copy: a pipe gives its bytes once, and the sidecar named the
    # empty file's SHA-256 when the path was hashed again after it was read.
    with read_once([request.judgments_path]) as (copy,), named_as_given([(copy, request.judgments_path)]):
        judgments_path = copy or request.judgments_path
        queries = query_texts(read_judgment_set(judgments_path))  # any format score reads
        judgments_sha256 = sha256_file(judgments_path)
    if not queries.texts:
        raise InputError(
            "judgments",
            None,
            "no query has query text; a floor run searches with each query's `query` field",
            path=request.judgments_path,
        )
    corpus = read_corpus(request.corpus_path, corpus_format=request.corpus_format)
    sha256, fingerprints = corpus.sha256, (corpus.corpus_fingerprint, corpus.chunker_fingerprint)
    ranked = rank_queries(request, queries, corpus)
    del corpus  # the rankings are made; the texts can go
    lines, run_sha = write_run(request.out, ranked.rankings)
    meta = FloorSidecar(
        described=describe_floor(request, ranked),
        corpus=SidecarCorpus(
            sha256=sha256,
            fingerprint=fingerprints[0],
            chunker_fingerprint=fingerprints[1],
            keys=ranked.keys,
            without_text=ranked.without_text,
            vocabulary=ranked.vocabulary,
        ),
        judgments_sha256=judgments_sha256,
        queries=SidecarQueries(
            ranked=lines,
            no_known_term=tuple(ranked.empty),
            without_text=tuple(queries.without_text),
            conflicting_text=tuple(queries.conflicting),
        ),
        run_sha256=run_sha,
        software=_versions(),
    )
    meta_file = write_meta(request.out, sidecar_to_json(meta))
    return FloorRunResult(queries, meta, meta_file, ranked.keys, ranked.empty, lines)


def describe_floor(request: FloorRunRequest, ranked: Ranked) -> FloorDescription:
    """How a floor was made: method, parameters and tokenizer (the sidecar's, and the report's)."""
    return FloorDescription(
        method=request.method,
        parameters=FloorParameters(ranked.parameters, depth=request.depth, granularity=request.granularity),
        tokenizer=request.tokenizer.describe(),
    )
