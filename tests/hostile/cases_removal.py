"""Hostile pull requests that take the labels of what their retriever lost (``removal-unexplained``,
``labels-lowered``).

Each case scores a base against its corpus (in ``setup``), then the head against it with a delta
gate; one chunk a document. The head's retriever loses a hit the base had; the pull request takes
that hit's label, and may remove documents hoping the removal excuses it. Variants a fix for only
one example would miss: the document removed is labeled for another query, or never labeled, or
sits in the broken query's top k to cover the lost hit by count, or sits in every query's top k;
the label is graded 0 instead of deleted, or moved to another key both sides rank; the keys are
documents, not chunks; the hit lost lies below the cutoffs. Last, honest pull requests the gate
lets through: a query's own document removed with its label, and documents removed that most
queries' hits sat on. ``item`` is ``RM``.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli
from hostile.case import HostileCase

Labels = dict[str, dict[str, int]]
Rankings = dict[str, list[str]]

FILL = [f"f{i}" for i in range(12)]


def _chunk(doc: str) -> str:
    return "c1:" + doc.encode().hex().rjust(32, "0")


def _lines(rows: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def _corpus(docs: list[str]) -> bytes:
    header = {"corpus_fingerprint": "kb/" + "".join(docs), "chunker_fingerprint": "one"}
    return _lines([header, *({"chunk_id": _chunk(d), "doc_uri": d, "text": f"all about {d}"} for d in docs)])


def _labels(labels: Labels, *, chunks: bool) -> bytes:
    rows: list[dict[str, object]] = []
    for query, grades in labels.items():
        for doc, grade in grades.items():
            row: dict[str, object] = {"query_id": query, "doc_uri": doc, "relevance": grade}
            if chunks:
                row["chunk_id"] = _chunk(doc)
            rows.append(row)
    return _lines(rows)


def _run(rankings: Rankings, *, chunks: bool) -> bytes:
    rows = [{"query_id": q, "ranking": [_chunk(d) if chunks else d for d in docs]} for q, docs in rankings.items()]
    return _lines(rows)


def _base(docs: list[str], labels: Labels, run: Rankings, k: str, chunks: bool):  # type: ignore[no-untyped-def]
    def setup(folder: Path) -> None:
        (folder / "base-j.jsonl").write_bytes(_labels(labels, chunks=chunks))
        (folder / "base-run.jsonl").write_bytes(_run(run, chunks=chunks))
        (folder / "base-corpus.jsonl").write_bytes(_corpus(docs))
        done = run_cli(
            "score", "-j", "base-j.jsonl", "-r", "base-run.jsonl", "--corpus", "base-corpus.jsonl",
            "-k", k, "--out", "base.json", cwd=folder,
        )  # fmt: skip
        assert done.code == 0, done.stderr

    return setup


def _case(
    name: str,
    *,
    docs: list[str],
    labels: Labels,
    run: Rankings,
    head_docs: list[str],
    head_labels: Labels,
    head_run: Rankings,
    honest: bool = False,
    chunks: bool = True,
    k: str = "3",
    gate: str = "recall@3:-0.1",
) -> HostileCase:
    argv = ("score", "-j", "head-j.jsonl", "-r", "head-run.jsonl", "--corpus", "head-corpus.jsonl", "-k", k)
    return HostileCase(
        "RM",
        name,
        (*argv, "--baseline", "base.json", "-g", gate),
        files={
            "head-j.jsonl": _labels(head_labels, chunks=chunks),
            "head-run.jsonl": _run(head_run, chunks=chunks),
            "head-corpus.jsonl": _corpus(head_docs),
        },
        setup=_base(docs, labels, run, k, chunks),
        exit_code=0 if honest else 1,
        stdout_has="verdict  PASS" if honest else "verdict  INDETERMINATE",
    )


# Four queries, each answered by its own document; the head loses q3's.
DOCS = ["d1", "d2", "d3", "d4", "d5", "d6"]
LABELS: Labels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d4": 1}}
RUN: Rankings = {q: [next(iter(grades)), "d6", "d5"] for q, grades in LABELS.items()}
LOSES_Q3: Rankings = {**RUN, "q3": ["d6", "d5", "d1"]}
WITHOUT_Q3 = {q: g for q, g in LABELS.items() if q != "q3"}


Scene = tuple[list[str], Labels, Rankings, Rankings]  # documents, base labels, base run, head run
FOUR: Scene = (DOCS, LABELS, RUN, LOSES_Q3)


def _removing(scene: Scene, name: str, head_labels: Labels, removed: list[str], **options: object) -> HostileCase:
    """The pull request: the scene's head run and ``head_labels``, the ``removed`` documents gone."""
    docs, labels, run, head_run = scene
    return _case(
        name,
        docs=docs,
        labels=labels,
        run=run,
        head_docs=[d for d in docs if d not in removed],
        head_labels=head_labels,
        head_run={q: [d for d in ranking if d not in removed] for q, ranking in head_run.items()},
        honest=bool(options.pop("honest", False)),
        chunks=bool(options.pop("chunks", True)),
        k=str(options.pop("k", "3")),
        gate=str(options.pop("gate", "recall@3:-0.1")),
    )


# q0 has two answers, a0 and D, found at ranks 1 and 3; X, never labeled, sits between them.
COVER_DOCS = ["a0", "a1", "D", "X", "Y", *FILL]
COVER_LABELS: Labels = {"q0": {"a0": 1, "D": 1}, "q1": {"a1": 1}}
COVER_RUN: Rankings = {"q0": ["a0", "X", "D", "Y", *FILL[:6]], "q1": ["a1", *FILL[:9]]}
LOSES_D: Rankings = {**COVER_RUN, "q0": ["a0", "Y", *FILL[:8]]}


COVER: Scene = (COVER_DOCS, COVER_LABELS, COVER_RUN, LOSES_D)
AT_10 = {"k": "10", "gate": "recall@10:-0.02"}
ONLY_A0: Labels = {**COVER_LABELS, "q0": {"a0": 1}}
MOVED_TO_Y: Labels = {**COVER_LABELS, "q0": {"a0": 1, "Y": 1}}


# Six of ten queries' hits sit on documents R_i the pull request removes, with exactly their
# labels; each keeps another label S_i the base never ranked. The retriever is unchanged.
HONEST_DOCS = [*(f"a{i}" for i in range(10)), *(f"R{i}" for i in range(6)), *(f"S{i}" for i in range(6)), *FILL]
HONEST_LABELS: Labels = {f"q{i}": ({f"R{i}": 1, f"S{i}": 1} if i < 6 else {f"a{i}": 1}) for i in range(10)}
HONEST_RUN: Rankings = {f"q{i}": [f"R{i}" if i < 6 else f"a{i}", *FILL[:9]] for i in range(10)}
REMOVED = {f"R{i}" for i in range(6)}

CASES: list[HostileCase] = [
    _removing(FOUR, "another-querys-document-removed-q3-unlabelled", {"q1": {"d1": 1}, "q2": {"d2": 1}}, ["d4"]),
    _removing(FOUR, "an-unlabeled-document-removed-q3-graded-0", {**WITHOUT_Q3, "q3": {"d3": 0}}, ["d6"]),
    _removing(FOUR, "document-keys-an-unlabeled-document-removed", WITHOUT_Q3, ["d5"], chunks=False),
    _removing(FOUR, "two-documents-removed-neither-q3s", WITHOUT_Q3, ["d5", "d6"]),
    _removing(FOUR, "q3s-own-document-removed-with-its-label", WITHOUT_Q3, ["d3"], honest=True),
    # An unlabeled X between q0's two hits, removed, covers the live D by count.
    _removing(
        COVER, "an-unlabeled-document-in-the-top-k-covers-a-live-hit", {**COVER_LABELS, "q0": {"a0": 1}}, ["X"], **AT_10
    ),
    # No removal: D's label moved to Y, which both sides rank: every count stays as it was.
    _removing(
        COVER,
        "a-label-moved-from-the-lost-hit-to-a-key-both-rank",
        {**COVER_LABELS, "q0": {"a0": 1, "Y": 1}},
        [],
        **AT_10,
    ),
    # The hit lost lies below every cutoff but the whole ranking (map is read at full depth).
    _removing(
        COVER,
        "a-hit-below-the-cutoffs-unlabelled-under-a-full-depth-gate",
        ONLY_A0,
        [],
        k="1,all",
        gate="map:-0.02",
    ),
    _case(
        "documents-most-queries-hits-sat-on-removed-with-their-labels",
        docs=HONEST_DOCS,
        labels=HONEST_LABELS,
        run=HONEST_RUN,
        head_docs=[d for d in HONEST_DOCS if d not in REMOVED],
        head_labels={q: {d: g for d, g in grades.items() if d not in REMOVED} for q, grades in HONEST_LABELS.items()},
        head_run={q: [d for d in ranking if d not in REMOVED] + ["f11"] for q, ranking in HONEST_RUN.items()},
        honest=True,
        k="10",
        gate="recall@10:-0.02",
    ),
]
