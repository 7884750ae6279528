"""BEIR import: judgments with query text and a corpus snapshot; every trap refused, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from retrieval_eval.core.drift import check_drift
from retrieval_eval.core.errors import InputError, UsageError
from retrieval_eval.formats.beir import id_problem, load_beir
from retrieval_eval.formats.corpus import read_corpus
from retrieval_eval.formats.judgments import parse_judgments

CORPUS = [
    {"_id": "d1", "title": "Refunds", "text": "Annual plans refund within 30 days."},
    {"_id": "d2", "title": "", "text": "Monthly plans are not refunded."},
    {"_id": "d3", "text": "Unrelated page.", "metadata": {"url": "https://example.com"}},
]
QUERIES = [
    {"_id": "q1", "text": "annual refund"},
    {"_id": "q2", "text": "monthly refund"},
    {"_id": "q9", "text": "a query of another split"},
]
QRELS = ["q1\td1\t1", "q2\td2\t2", "q2\td3\t0"]


def make(
    root: Path,
    *,
    corpus: list | None = None,
    queries: list | None = None,
    qrels: list | None = None,
    split: str = "test",
) -> Path:
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (corpus or CORPUS)))
    (root / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (queries or QUERIES)))
    rows = ["query-id\tcorpus-id\tscore", *(QRELS if qrels is None else qrels)]
    (root / "qrels" / f"{split}.tsv").write_text("\n".join(rows) + "\n")
    return root


def refusal(root: Path, split: str = "test") -> str:
    with pytest.raises(InputError) as caught:
        load_beir(root, split)
    return caught.value.message


def test_judgments_carry_the_query_text(tmp_path: Path) -> None:
    dataset = load_beir(make(tmp_path))
    assert [label.record for label in dataset.judgments.labels] == [
        {"query_id": "q1", "query": "annual refund", "doc_uri": "d1", "relevance": 1},
        {"query_id": "q2", "query": "monthly refund", "doc_uri": "d2", "relevance": 2},
        {"query_id": "q2", "query": "monthly refund", "doc_uri": "d3", "relevance": 0},
    ]
    assert dataset.documents == 3


def test_the_cli_writes_judgments_and_a_corpus_snapshot_drift_can_read(tmp_path: Path) -> None:
    root = make(tmp_path / "scifact")
    out, corpus_out = tmp_path / "judgments.jsonl", tmp_path / "corpus.jsonl"
    result = run_cli(
        "convert", "--beir", str(root), "--split", "test", "--out", str(out), "--corpus-out", str(corpus_out)
    )
    assert result.code == 0, result.stderr
    judgments = parse_judgments(str(out))
    assert len(judgments.labels) == 3
    corpus = read_corpus(str(corpus_out))
    assert corpus.chunker_fingerprint == "beir/document" and corpus.corpus_fingerprint.startswith("beir:")
    assert len(corpus.documents) == 3
    assert corpus.texts[0] == "Refunds\n\nAnnual plans refund within 30 days."
    assert check_drift(judgments, corpus).invalid_ratio == 0


def test_judgments_go_to_stdout_without_out(tmp_path: Path) -> None:
    result = run_cli("convert", "--beir", str(make(tmp_path)))
    assert result.code == 0
    assert [json.loads(line)["query_id"] for line in result.stdout.splitlines()] == ["q1", "q2", "q2"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"corpus": [*CORPUS, {"_id": "d1", "text": "again"}]}, "corpus.jsonl:4: duplicate _id d1, already on line 1"),
        (
            {"queries": [*QUERIES, {"_id": "q2", "text": "again"}]},
            "queries.jsonl:4: duplicate _id q2, already on line 2",
        ),
        ({"qrels": [*QRELS, "q1\td7\t1"]}, "qrels/test.tsv:5: corpus-id d7 is not in corpus.jsonl"),
        ({"qrels": [*QRELS, "q5\td1\t1"]}, "qrels/test.tsv:5: query-id q5 is not in queries.jsonl"),
        ({"qrels": [*QRELS, "q1\td1\t2"]}, "qrels/test.tsv:5: query q1 labels d1 again (first on line 2)"),
        ({"corpus": [*CORPUS, {"_id": "../../etc/passwd", "text": "x"}]}, "contains a path separator"),
        ({"corpus": [*CORPUS, {"_id": "..", "text": "x"}]}, "'.' and '..' name directories"),
        ({"corpus": [*CORPUS, {"_id": "doc 4", "text": "x"}]}, "contains white space"),
        ({"queries": [*QUERIES, {"_id": "q\u0007", "text": "x"}]}, "contains a control character"),
        ({"corpus": [*CORPUS, {"_id": 4, "text": "x"}]}, "corpus.jsonl:4: _id must be a string"),
        ({"corpus": [*CORPUS, {"_id": "d4"}]}, "corpus.jsonl:4: missing required field text"),
        ({"queries": [*QUERIES, {"_id": "q4"}]}, "queries.jsonl:4: missing required field text"),
    ],
)
def test_traps_are_refused_with_file_and_line(tmp_path: Path, change: dict, message: str) -> None:
    assert message in refusal(make(tmp_path, **change))


def test_a_refused_dataset_writes_nothing(tmp_path: Path) -> None:
    root = make(tmp_path / "beir", qrels=[*QRELS, "q1\td7\t1"])
    out, corpus_out = tmp_path / "judgments.jsonl", tmp_path / "corpus.jsonl"
    out.write_text("previous content\n")
    result = run_cli("convert", "--beir", str(root), "--out", str(out), "--corpus-out", str(corpus_out))
    assert result.code == 2 and "error  qrels/test.tsv:5: corpus-id d7 is not in corpus.jsonl" in result.stderr
    assert out.read_text() == "previous content\n" and not corpus_out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["beir", "judgments.jsonl"]


def test_an_unsafe_split_or_missing_file_is_refused(tmp_path: Path) -> None:
    root = make(tmp_path)
    with pytest.raises(UsageError, match="is not a plain name"):
        load_beir(root, "../test")
    assert "no such file" in refusal(root, "dev")
    result = run_cli("convert", "--beir", str(root), "--split", "dev")
    assert result.code == 2 and "qrels/dev.tsv" in result.stderr


def test_usage_around_beir(tmp_path: Path) -> None:
    root = str(make(tmp_path))
    assert "--beir converts to judgments" in run_cli("convert", "--beir", root, "--to", "trec-qrels").stderr
    assert "drop the INPUT argument" in run_cli("convert", "x.tsv", "--beir", root).stderr
    assert (
        "--corpus-out only makes sense with --beir"
        in run_cli("convert", "x.tsv", "--to", "judgments", "--corpus-out", "c.jsonl").stderr
    )


@pytest.mark.parametrize("value", ["MED-10", "q_1", "c67482ba-2019-04-18T13:32:05Z-00000-000", "4983"])
def test_real_beir_ids_are_safe(value: str) -> None:
    assert id_problem(value) is None
