"""Re-chunk pull requests whose right answer is known by construction.

A help centre of documents (a title, sections under ``##`` headers, paragraphs of
three sentences) is chunked by paragraphs on the base branch and labeled there:
each query's answer is one sentence of one paragraph (the label's ``quote``;
its ``chunk_text`` is the paragraph). The pull request re-chunks the corpus with
one of the chunkers teams use, and runs a retriever that is worse, the same or
better *at the level of the labeled text*: for every query the generator decides
the rank at which each side retrieves the chunk holding the answer sentence, and
fills the rest of the ranking with chunks that hold no labeled text. The truth
(recall@5 and MRR@10 on both sides, and their deltas) is computed here from those
ranks alone, never by the code under test.

Chunkers (each names itself in its fingerprint, so every chunk id changes):

- ``paragraphs``: the same blocks as the base, from a new chunker version;
- ``merged-paragraphs``: two consecutive blocks per chunk;
- ``windows``: 240-character windows with 60 characters of overlap, cutting sentences;
- ``sentences``: one sentence per chunk;
- ``sections``: one chunk per ``##`` section, header and paragraphs.

Queries are kept only where the answer sentence lies inside exactly one head chunk
and no other head chunk holds the whole paragraph, so "the chunk that holds the
answer" has one meaning in the head's corpus too.
"""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrieval_eval.core.identity import chunk_id, normalize, text_sha

CHUNKERS = ("paragraphs", "merged-paragraphs", "windows", "sentences", "sections")
OUTCOMES = ("worse", "same", "better")
BASE_CHUNKER = "paragraphs/v1"
DEPTH = 10
WINDOW, OVERLAP = 240, 60

TOPICS = ("billing", "accounts", "devices", "shipping", "privacy", "exports", "teams", "alerts")
VERBS = ("opens", "resets", "renews", "archives", "exports", "pauses", "verifies", "restores")
OBJECTS = ("invoice", "password", "watch face", "parcel", "consent form", "backup", "seat", "reminder")


@dataclass(frozen=True)
class Document:
    uri: str
    blocks: tuple[str, ...]  # the title, headers and paragraphs, in reading order

    @property
    def text(self) -> str:
        return "\n\n".join(self.blocks)


def sentence(doc: int, section: int, paragraph: int, n: int) -> str:
    topic, verb, thing = TOPICS[doc % len(TOPICS)], VERBS[(section + n) % len(VERBS)], OBJECTS[(paragraph + n) % 8]
    return f"In {topic} guide {doc}, step {section}.{paragraph}.{n} {verb} the {thing} within {3 + n + paragraph} days."


def help_centre(documents: int = 12, sections: int = 3, paragraphs: int = 2) -> list[Document]:
    docs = []
    for d in range(documents):
        blocks = [f"# {TOPICS[d % len(TOPICS)].title()} guide {d}"]
        for s in range(sections):
            blocks.append(f"## Part {s} of guide {d}")
            for p in range(paragraphs):
                blocks.append(" ".join(sentence(d, s, p, n) for n in range(3)))
        docs.append(Document(f"help://guide-{d}", tuple(blocks)))
    return docs


# -- chunkers: a document in, its chunk texts out -------------------------------------


def by_paragraph(doc: Document) -> list[str]:
    return list(doc.blocks)


def by_merged_paragraphs(doc: Document) -> list[str]:
    return ["\n\n".join(doc.blocks[i : i + 2]) for i in range(0, len(doc.blocks), 2)]


def by_window(doc: Document) -> list[str]:
    text, step = doc.text, WINDOW - OVERLAP
    return [text[start : start + WINDOW] for start in range(0, max(len(text) - OVERLAP, 1), step)]


def by_sentence(doc: Document) -> list[str]:
    pieces = []
    for block in doc.blocks:
        parts = block.split(". ")
        pieces.extend(part if part.endswith(".") or i == len(parts) - 1 else part + "." for i, part in enumerate(parts))
    return pieces


def by_section(doc: Document) -> list[str]:
    sections: list[list[str]] = [[doc.blocks[0]]]
    for block in doc.blocks[1:]:
        if block.startswith("## "):
            sections.append([])
        sections[-1].append(block)
    return ["\n\n".join(blocks) for blocks in sections]


CHUNK: dict[str, Callable[[Document], list[str]]] = {
    "paragraphs": by_paragraph,
    "merged-paragraphs": by_merged_paragraphs,
    "windows": by_window,
    "sentences": by_sentence,
    "sections": by_section,
}


@dataclass(frozen=True)
class Chunk:
    id: str
    doc: str
    ordinal: int
    text: str


# How chunks are named: c1 ids (spec/chunk-id.md), a vector store's UUIDs (new ones for every
# chunking), or slots (``help://guide-3#4``) that a re-chunk reuses for other text.
ID_KINDS = ("c1", "uuid", "slot")


def name_chunk(kind: str, doc: str, ordinal: int, c1: str) -> str:
    if kind == "uuid":
        return str(uuid.uuid5(uuid.NAMESPACE_URL, c1))
    if kind == "slot":
        return f"{doc}#{ordinal}"
    return c1


def chunk_corpus(docs: list[Document], chunker: str, fingerprint: str, revision: str, ids: str = "c1") -> list[Chunk]:
    chunks = []
    for doc in docs:
        texts = [normalize(text) for text in CHUNK[chunker](doc)]
        for ordinal, text in enumerate(t for t in texts if t):
            c1 = chunk_id(doc.uri, revision, ordinal, text, fingerprint)
            chunks.append(Chunk(name_chunk(ids, doc.uri, ordinal, c1), doc.uri, ordinal, text))
    return chunks


def snapshot(chunks: list[Chunk], fingerprint: str, corpus_fingerprint: str) -> dict[str, Any]:
    return {
        "corpus_fingerprint": corpus_fingerprint,
        "chunker_fingerprint": fingerprint,
        "chunks": [
            {
                "chunk_id": c.id,
                "doc_uri": c.doc,
                "doc_revision": "r1",
                "ordinal": c.ordinal,
                "text": c.text,
                "text_sha": text_sha(c.text),
            }
            for c in chunks
        ],
    }


# -- queries and the truth ------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    id: str
    doc: str
    paragraph: str  # the base chunk's text, the label's chunk_text
    quote: str  # the answer sentence
    base_answer: str  # its chunk id in the base corpus
    head_answer: str  # the one head chunk that holds the quote


def _holders(chunks: list[Chunk], doc: str, text: str) -> list[Chunk]:
    return [c for c in chunks if c.doc == doc and text in c.text]


def pick_queries(base: list[Chunk], head: list[Chunk], *, every: int = 2) -> list[Query]:
    """Every other paragraph becomes a query, where its answer has one home in the head corpus."""
    paragraphs = [c for c in base if not c.text.startswith("#")]
    queries = []
    for number, chunk in enumerate(paragraphs[::every]):
        for quote in chunk.text.split(". "):
            quote = quote if quote.endswith(".") else quote + "."
            homes = _holders(head, chunk.doc, quote)
            whole = _holders(head, chunk.doc, chunk.text)
            if len(homes) == 1 and all(c.id == homes[0].id for c in whole):
                queries.append(Query(f"q{number:02d}", chunk.doc, chunk.text, quote, chunk.id, homes[0].id))
                break
    return queries


# The base retriever's rank of the answer, cycled over the queries (None: not in the top ten).
BASE_RANKS: tuple[int | None, ...] = (1, 2, 1, 3, 4, 6, 1, 8, None, 2, 5, 7)


def head_rank(outcome: str, i: int, base_rank: int | None) -> int | None:
    """Worse: every fourth query found in the top five falls to rank 9. Better: every other
    query missed in the top five is found at rank 2. Same: the same rank."""
    if outcome == "worse" and base_rank is not None and base_rank <= 5 and i % 4 == 0:
        return 9
    if outcome == "better" and (base_rank is None or base_rank > 5) and i % 2 == 0:
        return 2
    return base_rank


@dataclass(frozen=True)
class Truth:
    base: dict[str, float]
    head: dict[str, float]

    def delta(self, metric: str) -> float:
        return self.head[metric] - self.base[metric]

    def verdict(self, allowed_drop: float) -> str:
        return "FAIL" if self.delta("recall@5") < -allowed_drop else "PASS"


def truth_of(ranks: list[int | None]) -> dict[str, float]:
    n = len(ranks)
    return {
        "recall@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "mrr@10": sum(1 / r for r in ranks if r is not None and r <= 10) / n,
    }


def ranking(answer: str, rank: int | None, fillers: list[str], rng: random.Random) -> list[str]:
    keys = rng.sample(fillers, DEPTH)
    if rank is not None:
        keys[rank - 1] = answer
    return keys


@dataclass
class Scenario:
    chunker: str
    outcome: str
    docs: list[Document]
    base_chunks: list[Chunk]
    head_chunks: list[Chunk]
    queries: list[Query]
    base_runs: dict[str, list[str]] = field(default_factory=dict)
    head_runs: dict[str, list[str]] = field(default_factory=dict)
    truth: Truth = field(default_factory=lambda: Truth({}, {}))

    def head_runs_fillers(self) -> list[str]:
        """Head chunks that hold no answer sentence."""
        quotes = [q.quote for q in self.queries]
        return [c.id for c in self.head_chunks if not any(quote in c.text for quote in quotes)]

    @property
    def head_fingerprint(self) -> str:
        return f"{self.chunker}/v2"

    def labels(self) -> list[dict[str, Any]]:
        return [
            {
                "query_id": q.id,
                "query": f"question {q.id} about {q.doc}",
                "doc_uri": q.doc,
                "chunk_id": q.base_answer,
                "text_sha": text_sha(q.paragraph),
                "chunk_text": q.paragraph,
                "relevance": 1,
                "labeled_by": "human:support-team",
                "quote": q.quote,
            }
            for q in self.queries
        ]

    def write(self, where: Path) -> ScenarioFiles:
        files = ScenarioFiles(where)
        where.mkdir(parents=True, exist_ok=True)
        _dump(files.base_corpus, snapshot(self.base_chunks, BASE_CHUNKER, "help-centre/2026-01"))
        _dump(files.head_corpus, snapshot(self.head_chunks, self.head_fingerprint, "help-centre/2026-02"))
        _lines(files.judgments, self.labels())
        _lines(files.base_run, [{"query_id": q, "ranking": keys} for q, keys in self.base_runs.items()])
        _lines(files.head_run, [{"query_id": q, "ranking": keys} for q, keys in self.head_runs.items()])
        return files


@dataclass(frozen=True)
class ScenarioFiles:
    root: Path

    @property
    def base_corpus(self) -> Path:
        return self.root / "corpus.v1.json"

    @property
    def head_corpus(self) -> Path:
        return self.root / "corpus.v2.json"

    @property
    def judgments(self) -> Path:
        return self.root / "judgments.jsonl"

    @property
    def base_run(self) -> Path:
        return self.root / "run.v1.jsonl"

    @property
    def head_run(self) -> Path:
        return self.root / "run.v2.jsonl"


def _dump(path: Path, document: dict[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def _lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def make_scenario(chunker: str, outcome: str, *, seed: int = 7, ids: str = "c1") -> Scenario:
    docs = help_centre()
    base = chunk_corpus(docs, "paragraphs", BASE_CHUNKER, "r1", ids)
    head = chunk_corpus(docs, chunker, f"{chunker}/v2", "r1", ids)
    queries = pick_queries(base, head)
    scenario = Scenario(chunker, outcome, docs, base, head, queries)
    # Fillers hold no labeled text on either side, so nothing but the answer can score.
    labeled = {q.paragraph for q in queries}
    quotes = [q.quote for q in queries]
    base_fillers = [c.id for c in base if c.text not in labeled]
    head_fillers = [c.id for c in head if not any(quote in c.text for quote in quotes)]
    rng = random.Random(f"{chunker}:{outcome}:{seed}")
    base_ranks, head_ranks = [], []
    for i, q in enumerate(queries):
        rank = BASE_RANKS[i % len(BASE_RANKS)]
        moved = head_rank(outcome, i, rank)
        base_ranks.append(rank)
        head_ranks.append(moved)
        scenario.base_runs[q.id] = ranking(q.base_answer, rank, base_fillers, rng)
        scenario.head_runs[q.id] = ranking(q.head_answer, moved, head_fillers, rng)
    scenario.truth = Truth(truth_of(base_ranks), truth_of(head_ranks))
    return scenario


# -- labels a re-chunk folds together or cuts apart ---------------------------------------


def neighbour_labels(scenario: Scenario) -> dict[str, Chunk]:
    """For each query of a merged-paragraphs scenario, the other base block that now shares the
    answer's head chunk: it gets a grade-0 label (a person read it and found no answer), and the
    base retriever ranks it first wherever the answer is not first. Its grade says nothing of the
    answer, so the base's recall is what its answer's rank says (``truth_of``), the neighbour or not.
    """
    by_id = {c.id: c for c in scenario.head_chunks}
    neighbours = {}
    for q in scenario.queries:
        home = by_id[q.head_answer]
        others = [c for c in scenario.base_chunks if c.doc == q.doc and c.text != q.paragraph and c.text in home.text]
        if others:
            neighbours[q.id] = others[0]
    return neighbours


def with_neighbours(scenario: Scenario, files: ScenarioFiles, grade: int = 0) -> dict[str, Chunk]:
    """Rewrite the scenario's judgments and base run with each query's neighbour, labeled ``grade``."""
    neighbours = neighbour_labels(scenario)
    labels = scenario.labels()
    for q in scenario.queries:
        n = neighbours.get(q.id)
        if n is None:
            continue
        labels.append(
            {
                "query_id": q.id,
                "query": f"question {q.id} about {q.doc}",
                "doc_uri": q.doc,
                "chunk_id": n.id,
                "text_sha": text_sha(n.text),
                "chunk_text": n.text,
                "relevance": grade,
                "labeled_by": "human:support-team",
            }
        )
        keys = scenario.base_runs[q.id]
        if keys[0] != q.base_answer:
            if n.id in keys:
                keys[keys.index(n.id)] = keys[0]
            keys[0] = n.id
    _lines(files.judgments, labels)
    _lines(files.base_run, [{"query_id": q, "ranking": keys} for q, keys in scenario.base_runs.items()])
    return neighbours


def pieces_of(scenario: Scenario, query: Query) -> list[str]:
    """The head chunks a query's paragraph was cut into, in order."""
    return [c.id for c in scenario.head_chunks if c.doc == query.doc and c.text in query.paragraph]


def split_head_runs(scenario: Scenario, broken: list[Query], rng: random.Random) -> None:
    """A head that returns every piece of each broken paragraph, one after the other, from the rank
    the base returned the paragraph: the same labeled text at the same place. (Ranks are chosen so
    the pieces sit wholly inside or wholly below the top five, where one chunk and three agree.)"""
    pieces = {q.id: pieces_of(scenario, q) for q in broken}
    taken = {key for keys in pieces.values() for key in keys}
    fillers = [key for key in scenario.head_runs_fillers() if key not in taken]
    for q in broken:
        rank = scenario.base_runs[q.id].index(q.base_answer) + 1 if q.base_answer in scenario.base_runs[q.id] else None
        keys = rng.sample(fillers, DEPTH)
        if rank is not None:
            keys[rank - 1 : rank - 1] = pieces[q.id]
        scenario.head_runs[q.id] = keys[:DEPTH]
