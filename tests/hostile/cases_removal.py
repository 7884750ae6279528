"""Hostile pull requests that remove documents to hide a regression (``removal-unexplained``).

Each case scores a base (in ``setup``), then the head against it with a delta gate. The head's
retriever loses q3; the pull request takes q3's labels and removes a document from the corpus,
hoping the removal excuses the labels taken. Variants a fix for only one example would miss: the
document removed is labeled for another query; the labels are graded 0 instead of deleted; the
keys are documents, not chunks; two documents removed, neither q3's. Last, the honest pull
request: q3's own document removed with its label, which the gate lets through.
``item`` is ``RM``.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli
from hostile.case import HostileCase

DOCS = ["d1", "d2", "d3", "d4", "d5", "d6"]
LABELED = {"q1": "d1", "q2": "d2", "q3": "d3", "q4": "d4"}
BASE_RUN = {q: [d, "d6", "d5"] for q, d in LABELED.items()}
HEAD_RUN = {**BASE_RUN, "q3": ["d6", "d5", "d1"]}


def _chunk(doc: str) -> str:
    return "c1:" + doc.encode().hex().rjust(32, "0")


def _lines(rows: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def _corpus(docs: list[str], *, chunks: bool = True) -> bytes:
    header = {"corpus_fingerprint": "kb/" + "".join(docs), "chunker_fingerprint": "one"}
    return _lines([header, *({"chunk_id": _chunk(d), "doc_uri": d, "text": f"all about {d}"} for d in docs)])


def _labels(grades: dict[str, int], *, chunks: bool = True) -> bytes:
    rows: list[dict[str, object]] = []
    for query, doc in LABELED.items():
        if query in grades:
            row: dict[str, object] = {"query_id": query, "doc_uri": doc, "relevance": grades[query]}
            if chunks:
                row["chunk_id"] = _chunk(doc)
            rows.append(row)
    return _lines(rows)


def _run(rankings: dict[str, list[str]], *, chunks: bool = True) -> bytes:
    return _lines(
        [{"query_id": q, "ranking": [_chunk(d) if chunks else d for d in docs]} for q, docs in rankings.items()]
    )


def _base(*, chunks: bool = True):  # type: ignore[no-untyped-def]
    def setup(folder: Path) -> None:
        (folder / "base-j.jsonl").write_bytes(_labels(dict.fromkeys(LABELED, 1), chunks=chunks))
        (folder / "base-run.jsonl").write_bytes(_run(BASE_RUN, chunks=chunks))
        (folder / "base-corpus.jsonl").write_bytes(_corpus(DOCS))
        done = run_cli(
            "score", "-j", "base-j.jsonl", "-r", "base-run.jsonl", "--corpus", "base-corpus.jsonl",
            "-k", "2", "--out", "base.json", cwd=folder,
        )  # fmt: skip
        assert done.code == 0, done.stderr

    return setup


HEAD = ("score", "-j", "head-j.jsonl", "-r", "head-run.jsonl", "--corpus", "head-corpus.jsonl", "-k", "2")
GATED = (*HEAD, "--baseline", "base.json", "-g", "recall@2:-0.1")
EVERY_BUT_Q3 = {"q1": 1, "q2": 1, "q4": 1}


def _case(
    name: str, grades: dict[str, int], removed: list[str], *, chunks: bool = True, honest: bool = False
) -> HostileCase:
    return HostileCase(
        "RM",
        name,
        GATED,
        files={
            "head-j.jsonl": _labels(grades, chunks=chunks),
            "head-run.jsonl": _run(HEAD_RUN, chunks=chunks),
            "head-corpus.jsonl": _corpus([d for d in DOCS if d not in removed]),
        },
        setup=_base(chunks=chunks),
        exit_code=0 if honest else 1,
        stdout_has="verdict  PASS" if honest else "verdict  INDETERMINATE",
    )


CASES: list[HostileCase] = [
    _case("another-querys-document-removed-q3-unlabelled", {"q1": 1, "q2": 1}, ["d4"]),
    _case("an-unlabeled-document-removed-q3-graded-0", {**EVERY_BUT_Q3, "q3": 0}, ["d6"]),
    _case("document-keys-an-unlabeled-document-removed", EVERY_BUT_Q3, ["d5"], chunks=False),
    _case("two-documents-removed-neither-q3s", EVERY_BUT_Q3, ["d5", "d6"]),
    _case("q3s-own-document-removed-with-its-label", EVERY_BUT_Q3, ["d3"], honest=True),
]
