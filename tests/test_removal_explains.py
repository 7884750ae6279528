"""Documents removed excuse the labels they took, and no others (more pull requests of this kind
are in tests/hostile/cases_removal.py: an unrelated document removed, a label graded 0 instead of
deleted, document keys, a document in the top k covering a live hit, the honest removals).

A pull request whose corpus lost documents drops the queries only those documents answered; the
gates do not hold that against it. But removing one unrelated document once excused every label
taken beside it: the pull request could then delete the labels of the queries its retriever broke
and PASS. Truth by construction, one chunk per document: the base finds every query's relevant
chunks at the top; the head's retriever loses q3 (or one of q1's two chunks); what the head's
judgments and corpus take decides whether the removal accounts for it.
"""

from __future__ import annotations

import json
from pathlib import Path

from helpers import CliResult, run_cli


def chunk(doc: str) -> str:
    return "c1:" + doc.encode().hex().rjust(32, "0")


DOCS = ["d1", "d2", "d3", "d4", "d5", "unlabeled"]
BASE_LABELS = {"q1": ["d1", "d5"], "q2": ["d2"], "q3": ["d3"]}
BASE_RUN = {"q1": ["d1", "d5", "d4"], "q2": ["d2", "d4", "d1"], "q3": ["d3", "d4", "d1"]}


def _write(path: Path, rows: list[dict[str, object]]) -> str:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def _corpus(path: Path, docs: list[str]) -> str:
    header = {"corpus_fingerprint": "kb/" + "-".join(docs), "chunker_fingerprint": "one-per-doc"}
    return _write(path, [header, *({"chunk_id": chunk(d), "doc_uri": d, "text": f"all about {d}"} for d in docs)])


def _labels(path: Path, labels: dict[str, list[str]], grades: dict[tuple[str, str], int] | None = None) -> str:
    rows = [
        {"query_id": q, "doc_uri": d, "chunk_id": chunk(d), "relevance": (grades or {}).get((q, d), 1)}
        for q, docs in labels.items()
        for d in docs
    ]
    return _write(path, rows)


def _run(path: Path, rankings: dict[str, list[str]]) -> str:
    return _write(path, [{"query_id": q, "ranking": [chunk(d) for d in docs]} for q, docs in rankings.items()])


def _gate(
    tmp_path: Path,
    *,
    head_docs: list[str],
    head_labels: dict[str, list[str]],
    head_run: dict[str, list[str]],
    grades: dict[tuple[str, str], int] | None = None,
) -> tuple[str, str]:
    """score --baseline with recall@2:-0.1 on the head: the gate's status and its reason."""
    base = _scored_base(tmp_path)
    labels = _labels(tmp_path / "head.jsonl", head_labels, grades)
    run, corpus = _run(tmp_path / "head-run.jsonl", head_run), _corpus(tmp_path / "head-corpus.jsonl", head_docs)
    done = _gated(labels, run, corpus, base, "--json")
    (gate,) = done.json()["verdict"]["gates"]
    return gate["status"], gate["reason"]


def _gated(labels: str, run: str, corpus: str, base: Path, *more: str) -> CliResult:
    done = run_cli(
        "score", "-j", labels, "-r", run, "--corpus", corpus, "-k", "2", "--baseline", str(base),
        "-g", "recall@2:-0.1", *more,
    )  # fmt: skip
    assert done.code in (0, 1), done.stderr
    return done


def _scored_base(tmp_path: Path) -> Path:
    """The base report: BASE_LABELS, BASE_RUN and every document, at k=2."""
    base = tmp_path / "base.json"
    labels, run = _labels(tmp_path / "base.jsonl", BASE_LABELS), _run(tmp_path / "base-run.jsonl", BASE_RUN)
    corpus = _corpus(tmp_path / "base-corpus.jsonl", DOCS)
    done = run_cli("score", "-j", labels, "-r", run, "--corpus", corpus, "-k", "2", "--out", str(base))
    assert done.code == 0, done.stderr
    return base


LOSES_Q3 = {**BASE_RUN, "q3": ["d4", "d1", "d2"]}
WITHOUT_Q3 = {q: docs for q, docs in BASE_LABELS.items() if q != "q3"}


def test_one_of_two_hits_removed_with_its_document_passes(tmp_path: Path) -> None:
    # d5 leaves with its label; q1 keeps d1. The base's rescored top 2 holds one hit fewer, on the
    # one key that left: the removal accounts for it.
    labels = {**BASE_LABELS, "q1": ["d1"]}
    run = {**BASE_RUN, "q1": ["d1", "d4", "d2"]}
    status, reason = _gate(tmp_path, head_docs=[d for d in DOCS if d != "d5"], head_labels=labels, head_run=run)
    assert status == "PASS", reason


def test_both_hits_unlabelled_when_only_one_document_left_is_not_excused(tmp_path: Path) -> None:
    # d5 leaves; q1's label on d1, still in the corpus, is deleted too: two hits lost, one key left.
    labels = {**BASE_LABELS, "q1": []}
    run = {**BASE_RUN, "q1": ["d4", "d2", "d1"]}
    status, reason = _gate(tmp_path, head_docs=[d for d in DOCS if d != "d5"], head_labels=labels, head_run=run)
    assert status == "INDETERMINATE", reason


def test_compare_without_the_corpus_says_it_cannot_tell(tmp_path: Path) -> None:
    _gate(tmp_path, head_docs=[d for d in DOCS if d != "unlabeled"], head_labels=WITHOUT_Q3, head_run=LOSES_Q3)
    head = tmp_path / "head.json"
    done = run_cli(
        "score",
        "-j",
        str(tmp_path / "head.jsonl"),
        "-r",
        str(tmp_path / "head-run.jsonl"),
        "--corpus",
        str(tmp_path / "head-corpus.jsonl"),
        "-k",
        "2",
        "--out",
        str(head),
    )
    assert done.code == 0, done.stderr
    done = run_cli(
        "compare",
        "--base",
        str(tmp_path / "base.json"),
        "--head",
        str(head),
        "-j",
        str(tmp_path / "head.jsonl"),
        "--json",
    )
    assert done.code == 0, done.stderr
    codes = {f["code"]: f for f in json.loads(done.stdout)["comparability"]}
    assert "documents-removed" in codes
    assert "without the head's corpus the labels they took cannot be told" in codes["removal-unexplained"]["detail"]
    assert "(q3)" in codes["removal-unexplained"]["detail"]


def test_the_counts_never_hold_a_removal_alone_against_a_pull_request_brute_force() -> None:
    # Every ranking of up to 4 keys: each key relevant in base or not, its document left or not,
    # and (if relevant and still there) its label deleted by the pull request or not; the head's
    # repaired lines record the still-there relevant keys, or none do. Left alone, a removal is
    # always accounted for; an edit with no document gone from the top k never is, nor one a
    # repaired line records; and a count beyond the keys that left is always caught.
    from itertools import product  # noqa: PLC0415 - this test only

    from retrieval_eval.comparison.removal import _accounted_for  # noqa: PLC0415

    for depth in range(1, 5):
        for (relevant, left, edited), recorded in product(product(product((0, 1), repeat=depth), repeat=3), (0, 1)):
            if any(e and (not r or g) for r, g, e in zip(relevant, left, edited)):
                continue  # only a relevant key still in the corpus can have its label edited
            kept = [r and not g and not e for r, g, e in zip(relevant, left, edited)]
            stayed = [bool(recorded and r and not g) for r, g in zip(relevant, left)]
            values = {f"precision@{k}": sum(relevant[:k]) / k for k in range(1, depth + 1)}
            credited = {k: sum(kept[:k]) for k in range(1, depth + 1)}
            answer = _accounted_for(values, credited, [bool(g) for g in left], stayed, whole=False)
            case = (relevant, left, edited, recorded)
            if not any(edited):
                assert answer, case
            elif not any(left) or recorded:
                assert not answer, case
            if any(sum(relevant[:k]) - credited[k] > sum(left[:k]) for k in range(1, depth + 1)):
                assert not answer, case


def chunk2(doc: str) -> str:
    return "c1:" + ("v2" + doc).encode().hex().rjust(32, "0")


def _rechunked(
    tmp_path: Path, *, head_docs: list[str], head_labels: dict[str, list[str]], recorded: bool = True
) -> tuple[str, str]:
    """A re-chunk (every chunk id changes, each label re-anchored with its trail), the head losing q3.
    ``recorded``: the base says where its hits lay (``hit_documents``), as a base from before does not."""
    base = _scored_base(tmp_path)
    if not recorded:
        older = json.loads(base.read_text())
        del older["hit_documents"]
        base.write_text(json.dumps(older))
    header = {"corpus_fingerprint": "kb/v2", "chunker_fingerprint": "one-per-doc/v2"}
    chunks = [{"chunk_id": chunk2(d), "doc_uri": d, "text": f"all about {d}"} for d in head_docs]
    corpus = _write(tmp_path / "head-corpus.jsonl", [header, *chunks])
    labels = [
        {"query_id": q, "doc_uri": d, "chunk_id": chunk2(d), "relevance": 1, "reanchored": {"from": chunk(d)}}
        for q, docs in head_labels.items()
        for d in docs
    ]
    run = [{"query_id": q, "ranking": [chunk2(d) for d in docs if d in head_docs]} for q, docs in LOSES_Q3.items()]
    done = _gated(_write(tmp_path / "head.jsonl", labels), _write(tmp_path / "head-run.jsonl", run), corpus, base)
    return done.stdout, done.stderr


def test_across_a_re_chunk_a_removal_does_not_excuse_a_query_whose_labels_were_deleted(tmp_path: Path) -> None:
    out, _ = _rechunked(tmp_path, head_docs=[d for d in DOCS if d != "unlabeled"], head_labels=WITHOUT_Q3)
    assert "verdict  INDETERMINATE" in out, out
    assert "1 query (q3) lost hits whose documents the head's corpus still holds" in out


def test_across_a_re_chunk_a_query_whose_document_left_with_its_label_is_decided(tmp_path: Path) -> None:
    # d3 leaves with q3's only label: the base's hit there lay in d3, so the removal took it.
    out, _ = _rechunked(tmp_path, head_docs=[d for d in DOCS if d != "d3"], head_labels=WITHOUT_Q3)
    assert "verdict  PASS" in out, out


def test_across_a_re_chunk_an_older_base_cannot_tell_and_says_how_to_decide(tmp_path: Path) -> None:
    # Without hit_documents, which old keys left with d3 cannot be told across a re-chunk.
    removed = [d for d in DOCS if d != "d3"]
    out, _ = _rechunked(tmp_path, head_docs=removed, head_labels=WITHOUT_Q3, recorded=False)
    assert "verdict  INDETERMINATE" in out, out
    assert "documents left the corpus in a re-chunk, and 1 query (q3) lost hits" in out
    assert "score the base's retriever on the head's corpus and judgments" in out


def test_across_a_re_chunk_a_removal_with_nothing_taken_is_decided(tmp_path: Path) -> None:
    # Every label kept (re-anchored), an unlabeled document removed: the gate reads the delta.
    out, _ = _rechunked(tmp_path, head_docs=[d for d in DOCS if d != "unlabeled"], head_labels=BASE_LABELS)
    assert "removal-unexplained" not in out and "in a re-chunk" not in out, out
    assert "verdict  FAIL" in out  # q3 lost by the head's retriever: recall@2 falls by a third


def test_a_report_scored_against_a_corpus_says_where_its_hits_lay(tmp_path: Path) -> None:
    # By construction: q1 ranks d1 (relevant), d5 (relevant), d4; q2 ranks d2 (relevant) first;
    # a ranked key the corpus does not hold gets no document (""); without a corpus, no field.
    run = {**BASE_RUN, "q3": ["ghost", "d3", "d4"]}
    labels = {**BASE_LABELS, "q3": ["d3", "ghost"]}
    out = tmp_path / "r.json"
    args = ("score", "-j", _labels(tmp_path / "j.jsonl", labels), "-r", _run(tmp_path / "run.jsonl", run))
    assert run_cli(*args, "--corpus", _corpus(tmp_path / "c.jsonl", DOCS), "-k", "2", "--out", str(out)).code == 0
    assert json.loads(out.read_text())["hit_documents"] == {
        "q1": {"1": "d1", "2": "d5"},
        "q2": {"1": "d2"},
        "q3": {"1": "", "2": "d3"},
    }
    assert run_cli(*args, "-k", "2", "--out", str(out)).code == 0
    assert "hit_documents" not in json.loads(out.read_text())
