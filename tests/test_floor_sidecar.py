"""The floor run's sidecar: its records written as the JSON floor-run has always written, and
its description read back, from the file, as the very provenance a report keeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compare_data import labels, run, write_jsonl
from helpers import run_cli
from retrieval_eval.core.errors import InputError
from retrieval_eval.core.floor_sidecar import (
    BM25Description,
    FloorDescription,
    FloorParameters,
    FloorProvenance,
    FloorSidecar,
    SidecarCorpus,
    SidecarQueries,
    TfidfDescription,
)
from retrieval_eval.core.tokenize import TokenizerSpec
from retrieval_eval.formats.floor_sidecar import provenance_of, read_provenance, sidecar_to_json
from retrieval_eval.formats.runout import write_meta

BM25 = FloorDescription(
    method="bm25",
    parameters=FloorParameters(BM25Description("lucene", 1.2, 0.5, 4), depth=50, granularity="document"),
    tokenizer=TokenizerSpec(stem=True, stopwords="english").describe(),
)
TFIDF = FloorDescription(
    method="tfidf",
    parameters=FloorParameters(TfidfDescription("raw count", "idf", "l2", "cosine", 6), depth=10, granularity="chunk"),
    tokenizer=TokenizerSpec().describe(),
)


def sidecar(described: FloorDescription, run_sha256: str = "a" * 64) -> FloorSidecar:
    return FloorSidecar(
        described=described,
        corpus=SidecarCorpus(
            sha256="c" * 64, fingerprint="v1", chunker_fingerprint=None, keys=7, without_text=1, vocabulary=30
        ),
        judgments_sha256="j" * 64,
        queries=SidecarQueries(ranked=3, no_known_term=("q9",), without_text=(), conflicting_text=("q2",)),
        run_sha256=run_sha256,
        software={"retrieval-eval": "1.0.0", "PyStemmer": None},
    )


def test_the_sidecar_is_written_key_for_key_as_documented() -> None:
    written = sidecar_to_json(sidecar(BM25))
    assert json.dumps(written) == json.dumps(
        {
            "command": "floor-run",
            "method": "bm25",
            "parameters": {
                "variant": "lucene",
                "k1": 1.2,
                "b": 0.5,
                "score_decimals": 4,
                "depth": 50,
                "granularity": "document",
            },
            "tokenizer": {
                "lowercase": "str.lower",
                "word_pattern": r"\w+",
                "stopwords": "english",
                "stopword_count": 33,
                "stemmer": "snowball-english",
            },
            "corpus": {
                "sha256": "c" * 64,
                "fingerprint": "v1",
                "chunker_fingerprint": None,
                "keys": 7,
                "without_text": 1,
                "vocabulary": 30,
            },
            "judgments": {"sha256": "j" * 64},
            "queries": {"ranked": 3, "no_known_term": ["q9"], "without_text": [], "conflicting_text": ["q2"]},
            "run": {"sha256": "a" * 64, "query_order": "query_id"},
            "software": {"retrieval-eval": "1.0.0", "PyStemmer": None},
        }
    )
    tfidf = sidecar_to_json(sidecar(TFIDF))["parameters"]
    assert list(tfidf) == ["tf", "idf", "norm", "score", "score_decimals", "depth", "granularity"]
    assert sidecar_to_json(sidecar(TFIDF))["tokenizer"]["stemmer"] is None  # written as null, not left out


@pytest.mark.parametrize("described", [BM25, TFIDF])
def test_a_written_sidecar_reads_back_as_the_provenance_of_its_description(
    described: FloorDescription, tmp_path: Path
) -> None:
    floor = tmp_path / "floor.jsonl"
    floor.write_text("")
    write_meta(str(floor), sidecar_to_json(sidecar(described, run_sha256="b" * 64)))
    read = read_provenance(str(floor), "b" * 64)
    assert read == provenance_of(described)
    assert read.method == described.method and isinstance(read.parameters, dict)
    assert read.parameters["depth"] == described.parameters.depth
    # A sidecar of other bytes, or none at all, says nothing.
    assert read_provenance(str(floor), "0" * 64) == FloorProvenance()
    assert read_provenance(str(tmp_path / "other.jsonl"), "b" * 64) == FloorProvenance()


def test_a_sidecar_that_is_not_json_is_refused_naming_it(tmp_path: Path) -> None:
    floor = tmp_path / "floor.jsonl"
    floor.write_text("")
    (tmp_path / "floor.jsonl.meta.json").write_text("{not json")
    with pytest.raises(InputError) as caught:
        read_provenance(str(floor), "b" * 64)
    assert "floor.jsonl.meta.json" in str(caught.value)


def test_the_cli_refuses_a_broken_floor_sidecar_with_exit_2(tmp_path: Path) -> None:
    judgments = write_jsonl(tmp_path / "j.jsonl", labels())
    head = write_jsonl(tmp_path / "h.jsonl", run())
    floor = write_jsonl(tmp_path / "floor.jsonl", run(misses=[3]))
    (tmp_path / "floor.jsonl.meta.json").write_text("[1, 2")
    done = run_cli("score", "-j", str(judgments), "-r", str(head), "-k", "5", "--floor", str(floor))
    assert done.code == 2, done.stderr
    assert "floor.jsonl.meta.json" in done.stderr and "Traceback" not in done.stderr
