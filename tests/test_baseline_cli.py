"""`retrieval-eval baseline` and `retrieval-eval fuse` as a user meets them."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import CliResult, run_cli

pytest.importorskip("bm25s")
pytest.importorskip("scipy")
pytest.importorskip("Stemmer")

C = {name: f"c1:{digit * 32}" for name, digit in (("cat", "a"), ("dog", "b"), ("cats", "c"), ("twin", "d"))}
CHUNKS = [
    {"chunk_id": C["cat"], "doc_uri": "doc://pets", "ordinal": 0, "text": "The cat sat."},
    {"chunk_id": C["dog"], "doc_uri": "doc://yard", "ordinal": 0, "text": "the dog sat on THE mat"},
    {"chunk_id": C["cats"], "doc_uri": "doc://pets", "ordinal": 1, "text": "cats and dogs"},
]
LABELS = [
    {"query_id": "q1", "query": "cat sat", "doc_uri": "doc://pets", "chunk_id": C["cat"], "relevance": 1},
    {"query_id": "q2", "doc_uri": "doc://yard", "relevance": 1},
    {"query_id": "q3", "query": "zebra", "doc_uri": "doc://yard", "relevance": 1},
    {"query_id": "q0", "query": "Dogs", "doc_uri": "doc://pets", "relevance": 1},
]


def write_inputs(tmp_path: Path, chunks: list[dict] = CHUNKS, labels: list[dict] = LABELS) -> tuple[str, str]:
    corpus, judgments = tmp_path / "corpus.json", tmp_path / "judgments.jsonl"
    corpus.write_text(json.dumps({"chunks": chunks}), encoding="utf-8")
    judgments.write_text("".join(json.dumps(label) + "\n" for label in labels), encoding="utf-8")
    return str(corpus), str(judgments)


def baseline(tmp_path: Path, *options: str, chunks: list[dict] = CHUNKS, labels: list[dict] = LABELS) -> CliResult:
    corpus, judgments = write_inputs(tmp_path, chunks, labels)
    return run_cli("baseline", "--corpus", corpus, "-j", judgments, "--out", str(tmp_path / "run.jsonl"), *options)


def run_lines(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "run.jsonl").read_text(encoding="utf-8").splitlines()]


def test_bm25_floor_run_names_what_it_skipped_and_records_how_it_was_made(tmp_path: Path) -> None:
    result = baseline(tmp_path, "--method", "bm25")
    assert result.code == 0, result.stderr
    # q1 "cat sat": the cat chunk 0.654, the dog chunk 0.153 (see test_lanes); q3 knows no term;
    # q0 "Dogs" matches only "dogs"; q2 has no text and is left out. Lines in query_id order.
    assert (tmp_path / "run.jsonl").read_bytes() == (
        f'{{"query_id":"q0","ranking":["{C["cats"]}"]}}\n'
        f'{{"query_id":"q1","ranking":["{C["cat"]}","{C["dog"]}"]}}\n'
        '{"query_id":"q3","ranking":[]}\n'
    ).encode()
    assert "warning  1 judged query has no query text and is left out of the run: q2" in result.stderr
    meta = json.loads((tmp_path / "run.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["method"] == "bm25"
    assert meta["parameters"] == {
        "variant": "lucene",
        "k1": 1.5,
        "b": 0.75,
        "score_decimals": 4,
        "depth": 100,
        "granularity": "chunk",
    }
    assert meta["tokenizer"] == {
        "lowercase": "str.lower",
        "word_pattern": "\\w+",
        "stopwords": "none",
        "stopword_count": 0,
        "stemmer": None,
    }
    assert meta["queries"] == {"ranked": 3, "no_known_term": ["q3"], "without_text": ["q2"], "conflicting_text": []}
    assert meta["run"]["sha256"] == hashlib.sha256((tmp_path / "run.jsonl").read_bytes()).hexdigest()
    assert meta["corpus"]["keys"] == 3 and meta["corpus"]["vocabulary"] == 9


def test_documents_stemming_and_tfidf(tmp_path: Path) -> None:
    result = baseline(tmp_path, "--method", "tfidf", "--granularity", "document", "--stem", "--stopwords", "english")
    assert result.code == 0, result.stderr
    rankings = {line["query_id"]: line["ranking"] for line in run_lines(tmp_path)}
    # doc://pets = "The cat sat." + "cats and dogs" -> cat sat cat dog; doc://yard -> dog sat mat.
    # N = 2: idf(dog) = idf(sat) = ln(3/3) + 1 = 1, idf(cat) = idf(mat) = ln(3/2) + 1 = 1.405.
    # "Dogs" -> dog: pets 1 / |(2 * 1.405, 1, 1)| = 0.318, yard 1 / |(1, 1, 1.405)| = 0.502.
    assert rankings == {"q0": ["doc://yard", "doc://pets"], "q1": ["doc://pets", "doc://yard"], "q3": []}
    meta = json.loads((tmp_path / "run.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["parameters"]["idf"] == "ln((1 + N) / (1 + df)) + 1"
    assert meta["tokenizer"]["stemmer"] == "snowball-english" and meta["tokenizer"]["stopword_count"] == 33


def test_equal_scores_are_ordered_by_key_and_depth_cuts(tmp_path: Path) -> None:
    # Two chunks with the same text, the larger id first in the file: the smaller id ranks first.
    # avgdl = 5/3: "cat" scores idf / (1 + 1.5 * (0.25 + 0.75 * 0.6)) = idf / 2.05, above
    # "cat cat dog" at 2 idf / (2 + 1.5 * (0.25 + 0.75 * 1.8)) = idf / 2.2, which depth 2 cuts.
    chunks = [
        {"chunk_id": C["twin"], "doc_uri": "doc://b", "text": "cat"},
        {"chunk_id": C["cats"], "doc_uri": "doc://a", "text": "cat"},
        {"chunk_id": C["dog"], "doc_uri": "doc://c", "text": "cat cat dog"},
    ]
    labels = [{"query_id": "q", "query": "cat", "doc_uri": "doc://a", "relevance": 1}]
    assert baseline(tmp_path, "--method", "bm25", "--depth", "2", chunks=chunks, labels=labels).code == 0
    assert run_lines(tmp_path) == [{"query_id": "q", "ranking": [C["cats"], C["twin"]]}]


def test_without_the_extra_it_exits_2_with_the_install_line(tmp_path: Path) -> None:
    corpus, judgments = write_inputs(tmp_path)
    blocked = "import sys; sys.modules['bm25s'] = None; from retrieval_eval.entry import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", blocked, "baseline", "--method", "bm25", "--corpus", corpus, "-j", judgments]
        + ["--out", str(tmp_path / "run.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "bm25s cannot be imported" in done.stderr
    assert "try  pip install 'retrieval-eval[lanes]'" in done.stderr
    assert not (tmp_path / "run.jsonl").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--method", "bm25", "--depth", "0"), "--depth: 0 is out of range: give 1 to 1,000,000"),
        (("--method", "tfidf", "--k1", "1.2"), "--k1 and --b are BM25 parameters"),
        (("--method", "bm25", "--b", "1.5"), "--b: 1.5 is out of range: give 0 to 1"),
        (("--method", "bm25", "--k1", "nan"), "--k1: nan is out of range: give 0 to 100"),
        (
            (
                "--method",
                "bm42",
            ),
            "Invalid value for '--method'",
        ),
        (("--method", "bm25", "--stopwords", "french"), "Invalid value for '--stopwords'"),
    ],
)
def test_bad_options_exit_2_with_a_clear_message(tmp_path: Path, options: tuple[str, ...], message: str) -> None:
    result = baseline(tmp_path, *options)
    assert result.code == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_judgments_without_any_query_text_are_refused(tmp_path: Path) -> None:
    result = baseline(tmp_path, "--method", "bm25", labels=[LABELS[1]])
    assert result.code == 2
    assert "error  judgments: no query has query text" in result.stderr


def test_a_corpus_without_text_is_refused(tmp_path: Path) -> None:
    chunks = [{"chunk_id": C["cat"], "doc_uri": "doc://pets"}]
    result = baseline(tmp_path, "--method", "bm25", chunks=chunks)
    assert result.code == 2
    assert "error  corpus: no chunk has text" in result.stderr


# -- fuse ---------------------------------------------------------------------------------


def test_fuse_reads_jsonl_and_trec_and_writes_a_sidecar(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(
        '{"query_id":"q1","ranking":["a","b","c"]}\n{"query_id":"q2","ranking":["m"]}\n', encoding="utf-8"
    )
    (tmp_path / "b.trec").write_text("q1 Q0 b 1 9.0 x\nq1 Q0 d 2 8.0 x\n", encoding="utf-8")
    out = tmp_path / "fused.jsonl"
    result = run_cli("fuse", str(tmp_path / "a.jsonl"), str(tmp_path / "b.trec"), "--out", str(out))
    assert result.code == 0, result.stderr
    # q1: b 1/62 + 1/61, a 1/61, d 1/62, c 1/63; q2 only in the first run
    assert out.read_text(encoding="utf-8") == (
        '{"query_id":"q1","ranking":["b","a","d","c"]}\n{"query_id":"q2","ranking":["m"]}\n'
    )
    meta = json.loads((tmp_path / "fused.jsonl.meta.json").read_text(encoding="utf-8"))
    assert meta["parameters"] == {"k": 60, "weights": [1.0, 1.0], "depth": None, "score_decimals": 12}
    assert [source["format"] for source in meta["inputs"]] == ["jsonl", "trec"]
    weighted = run_cli(
        "fuse", str(tmp_path / "a.jsonl"), str(tmp_path / "b.trec"), "--weights", "3,1", "--rrf-k", "0", "--depth", "2"
    )
    assert weighted.code == 2 and "Missing option '--out'" in weighted.stderr
    result = run_cli(
        "fuse",
        str(tmp_path / "a.jsonl"),
        str(tmp_path / "b.trec"),
        "--weights",
        "3,1",
        "--rrf-k",
        "0",
        "--depth",
        "2",
        "--out",
        str(out),
    )
    assert result.code == 0, result.stderr
    # k = 0: a 3/1 = 3, b 3/2 + 1/1 = 2.5, c 3/3 = 1, d 1/2
    assert out.read_text(encoding="utf-8").splitlines()[0] == '{"query_id":"q1","ranking":["a","b"]}'


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("one.jsonl",), "fuse needs at least two runs, got 1"),
        (("one.jsonl", "one.jsonl", "--weights", "1"), "--weights '1': 1 weights for 2 runs"),
        (("one.jsonl", "one.jsonl", "--weights", "1,-2"), "'-2' is not a positive finite number"),
        (("one.jsonl", "one.jsonl", "--rrf-k", "-1"), "--rrf-k: -1 is out of range: give 0 to 1,000,000"),
        (("one.jsonl", "missing.jsonl"), "cannot read missing.jsonl"),
    ],
)
def test_fuse_refuses_bad_usage_with_exit_2(tmp_path: Path, arguments: tuple[str, ...], message: str) -> None:
    (tmp_path / "one.jsonl").write_text('{"query_id":"q","ranking":["a"]}\n', encoding="utf-8")
    result = run_cli("fuse", *arguments, "--out", "fused.jsonl", cwd=tmp_path)
    assert result.code == 2
    assert message in result.stderr
    assert not (tmp_path / "fused.jsonl").exists()
