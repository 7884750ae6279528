"""Chunk runs against document labels: ``score --corpus C --collapse-to-documents``."""

from __future__ import annotations

from pathlib import Path

import pytest

from drift_support import cid, corpus, write_jsonl, write_snapshot
from helpers import run_cli
from retrieval_eval.core.errors import UsageError
from retrieval_eval.core.report_model import CollapsedQuery
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.pipeline.corpus_stage import collapse_ranking
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

DOCS = {"d1": ["d1 first", "d1 second"], "d2": ["d2 only"], "d3": ["d3 first", "d3 second"]}
D1A, D1B = cid("d1", 0, "d1 first"), cid("d1", 1, "d1 second")
D2 = cid("d2", 0, "d2 only")
D3A, D3B = cid("d3", 0, "d3 first"), cid("d3", 1, "d3 second")
UNKNOWN = "c1:" + "f" * 32


def test_collapse_keeps_each_document_at_its_first_rank() -> None:
    collapsed = collapse_ranking([D3A, D1A, D3B, D1B, D2], corpus(DOCS))
    assert collapsed.documents == ["d3", "d1", "d2"]
    assert collapsed.entry() == CollapsedQuery(received=5, documents=3, collapsed=2, unmapped=0)


def test_an_unknown_chunk_keeps_its_rank_and_is_counted() -> None:
    collapsed = collapse_ranking([UNKNOWN, D1A, "d2"], corpus(DOCS))
    # Dropping the unknown chunk would lift d1 to rank 1; it stays a key nothing matches.
    assert collapsed.documents == [UNKNOWN, "d1", "d2"]
    assert collapsed.unmapped == 1


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    labels = [
        {"query_id": "q1", "query": "one", "doc_uri": "d1", "relevance": 2},
        {"query_id": "q1", "query": "one", "doc_uri": "d2", "relevance": 1},
        {"query_id": "q2", "query": "two", "doc_uri": "d3", "relevance": 1},
    ]
    chunk_run = [{"query_id": "q1", "ranking": [D3A, D3B, D1A, D1B, D2]}, {"query_id": "q2", "ranking": [D3A, D3B]}]
    doc_run = [{"query_id": "q1", "ranking": ["d3", "d1", "d2"]}, {"query_id": "q2", "ranking": ["d3"]}]
    return {
        "judgments": write_jsonl(tmp_path / "j.jsonl", labels),
        "chunks": write_jsonl(tmp_path / "chunks.jsonl", chunk_run),
        "docs": write_jsonl(tmp_path / "docs.jsonl", doc_run),
        "corpus": write_snapshot(tmp_path / "corpus.json", DOCS),
    }


def score(files: dict[str, Path], run: str, *, k: int = 2, corpus_path: bool = True, collapse: bool = True):  # type: ignore[no-untyped-def]
    return run_pipeline(
        EvaluationRequest(
            judgments_path=str(files["judgments"]),
            run_path=str(files[run]),
            scoring=ScoreConfig(k=(k,)),
            corpus_path=str(files["corpus"]) if corpus_path else None,
            collapse_to_documents=collapse,
        )
    )


def test_collapsed_chunk_run_scores_as_the_document_run(files: dict[str, Path]) -> None:
    collapsed = score(files, "chunks").report
    documents = score(files, "docs", corpus_path=False, collapse=False).report
    assert collapsed["metrics"] == documents["metrics"]
    assert collapsed["rankings"] == {"q1": ["d3", "d1"], "q2": ["d3"]}


def test_the_cutoff_counts_documents_not_chunks(files: dict[str, Path]) -> None:
    # Cut at 2 chunks first, q1 would see only d3; collapsed first, it sees d3 and d1.
    report = score(files, "chunks", k=2).report
    assert report["per_query"]["q1"]["recall@2"] == pytest.approx(0.5)


def test_the_report_records_received_and_collapsed_per_query(files: dict[str, Path]) -> None:
    report = score(files, "chunks").report
    assert report["collapse"] == {
        "to": "documents",
        "received": 7,
        "collapsed": 3,
        "unmapped": 0,
        "per_query": {
            "q1": {"received": 5, "documents": 3, "collapsed": 2, "unmapped": 0},
            "q2": {"received": 2, "documents": 1, "collapsed": 1, "unmapped": 0},
        },
    }
    assert any("7 chunks received, 3 folded into a document" in r for r in report["verdict"]["reasons"])
    assert report["corpus"]["documents"] == 3 and report["judgments"]["drift"]["valid"] == 3


def test_without_the_flag_a_chunk_run_gets_a_reason_not_silent_zeros(files: dict[str, Path]) -> None:
    report = score(files, "chunks", corpus_path=False, collapse=False).report
    assert report["metrics"]["recall@2"]["value"] == 0
    assert any("the run returns chunk ids but every label is document-level" in r for r in report["verdict"]["reasons"])
    assert report["verdict"]["status"] == "INDETERMINATE"  # nothing could match: no verdict on zeros
    assert "collapse" not in report


def test_a_document_run_against_chunk_labels_is_never_a_silent_pass(tmp_path: Path, files: dict[str, Path]) -> None:
    labels = [
        {"query_id": "q1", "query": "one", "doc_uri": "d1", "chunk_id": D1A, "relevance": 1},
        {"query_id": "q2", "query": "two", "doc_uri": "d3", "chunk_id": D3B, "relevance": 1},
    ]
    judgments = write_jsonl(tmp_path / "chunk-labels.jsonl", labels)
    result = run_cli("score", "-j", str(judgments), "-r", str(files["docs"]), "-k", "2", "--json")
    report = result.json()
    assert result.code == 1 and report["verdict"]["status"] == "INDETERMINATE"
    (reason,) = [r for r in report["verdict"]["reasons"] if "no key can match" in r]
    assert "no key of the run is a chunk id, but the labels name chunks" in reason
    assert "return the chunk ids of the corpus snapshot" in reason
    # One chunk id the labels name is enough to score: the mismatch is only said when nothing matched.
    partly = write_jsonl(tmp_path / "partly.jsonl", [{"query_id": "q1", "ranking": ["d3", D1A]}])
    reasons = run_cli("score", "-j", str(judgments), "-r", str(partly), "-k", "2", "--json").json()["verdict"][
        "reasons"
    ]
    assert not any("no key can match" in r for r in reasons)
    warned = run_cli("validate", "-j", str(judgments), "-r", str(files["docs"]), "--json").json()
    assert "document-run-vs-chunk-labels" in [issue["code"] for issue in warned["issues"]]


def test_validate_warns_about_the_same_run(files: dict[str, Path]) -> None:
    result = run_cli("validate", "-j", str(files["judgments"]), "-r", str(files["chunks"]), "--json")
    assert "chunk-run-vs-document-labels" in [issue["code"] for issue in result.json()["issues"]]


def test_collapse_needs_a_corpus(files: dict[str, Path]) -> None:
    with pytest.raises(UsageError, match="--collapse-to-documents needs --corpus"):
        score(files, "chunks", corpus_path=False)
    result = run_cli("score", "-j", str(files["judgments"]), "-r", str(files["chunks"]), "--collapse-to-documents")
    assert result.code == 2 and "error  --collapse-to-documents: needs a corpus" in result.stderr


def test_the_cli_collapses_and_passes(files: dict[str, Path]) -> None:
    result = run_cli(
        "score",
        "-j",
        str(files["judgments"]),
        "-r",
        str(files["chunks"]),
        "--corpus",
        str(files["corpus"]),
        "--collapse-to-documents",
        "-k",
        "3",
        "--json",
    )
    assert result.code == 0, result.stderr
    report = result.json()
    assert report["metrics"]["recall@3"]["value"] == 1.0
    assert report["collapse"]["per_query"]["q1"]["collapsed"] == 2
