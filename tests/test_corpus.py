"""Corpus snapshots: both forms, fingerprints, and every refusal with its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drift_support import NEW, chunk_records, cid, write_jsonl, write_snapshot
from helpers import fixture_path, run_cli
from retrieval_eval.core.errors import InputError, UsageError
from retrieval_eval.formats.corpus import corpus_to_json, detect_corpus_format, read_corpus

DOCS = {"wiki://a": ["First chunk of a.", "Second chunk of a."], "wiki://b": ["Only chunk of b."]}


def jsonl_corpus(path: Path, *, header: dict[str, str] | None = None, records: list | None = None) -> Path:
    rows: list = [header] if header else []
    return write_jsonl(path, rows + (records if records is not None else chunk_records(DOCS)))


def refusal(path: Path, **kwargs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as caught:
        read_corpus(str(path), **kwargs)
    return caught.value.message


def test_reads_the_spec_snapshot() -> None:
    corpus = read_corpus(fixture_path("drift", "corpus.json"))
    assert len(corpus.documents) == 1
    assert len(corpus) == 4
    assert corpus.corpus_fingerprint == "recursive/384/64"
    assert corpus.document_of("c1:4e556228a30930f72ad70a7f040abb44") == "notion://page/9f2a"


def test_jsonl_with_a_header_line(tmp_path: Path) -> None:
    path = jsonl_corpus(tmp_path / "c.jsonl", header={"corpus_fingerprint": "v2", "chunker_fingerprint": NEW})
    corpus = read_corpus(str(path))
    assert (corpus.corpus_fingerprint, corpus.chunker_fingerprint) == ("v2", NEW)
    assert corpus_to_json(corpus) | {"sha256": ""} == {
        "fingerprint": "v2",
        "chunker_fingerprint": NEW,
        "documents": 2,
        "chunks": 3,
        "sha256": "",
    }
    assert len(corpus.sha256) == 64


def test_jsonl_fingerprints_from_flags(tmp_path: Path) -> None:
    corpus = read_corpus(str(jsonl_corpus(tmp_path / "c.jsonl")), corpus_fingerprint="v9", chunker_fingerprint="x")
    assert (corpus.corpus_fingerprint, corpus.chunker_fingerprint) == ("v9", "x")


def test_a_flag_that_contradicts_the_header_is_refused(tmp_path: Path) -> None:
    path = jsonl_corpus(tmp_path / "c.jsonl", header={"corpus_fingerprint": "v2"})
    with pytest.raises(UsageError, match="the corpus says corpus_fingerprint 'v2' but --corpus-fingerprint"):
        read_corpus(str(path), corpus_fingerprint="v3")


def test_format_is_detected_from_the_content(tmp_path: Path) -> None:
    pretty = write_snapshot(tmp_path / "pretty.data", DOCS)
    one_line = tmp_path / "one.data"
    one_line.write_text(json.dumps({"chunks": chunk_records(DOCS)}))
    lines = jsonl_corpus(tmp_path / "lines.data")
    assert [detect_corpus_format(str(p)) for p in (pretty, one_line, lines)] == ["json", "json", "jsonl"]
    assert len(read_corpus(str(one_line))) == len(read_corpus(str(lines))) == 3


def test_texts_are_normalized_once_and_text_sha_filled_in(tmp_path: Path) -> None:
    record = {"chunk_id": cid("d", 0, "x"), "doc_uri": "d", "text": "  cafe\u0301\r\n"}
    corpus = read_corpus(str(write_jsonl(tmp_path / "c.jsonl", [record])))
    assert corpus.texts == ["caf\u00e9"]
    assert corpus.shas[0] is not None and corpus.shas[0].startswith("t1:")


def test_chunks_are_read_in_ordinal_order(tmp_path: Path) -> None:
    records = chunk_records({"d": ["zero", "one", "two"]})
    corpus = read_corpus(str(write_jsonl(tmp_path / "c.jsonl", records[::-1])))
    assert [corpus.texts[i] for i in corpus.chunks_of("d")] == ["zero", "one", "two"]


def test_a_bare_chunk_to_document_map_is_a_corpus(tmp_path: Path) -> None:
    records = [{"chunk_id": cid("d", n, str(n)), "doc_uri": "d"} for n in range(3)]
    corpus = read_corpus(str(write_jsonl(tmp_path / "c.jsonl", records)))
    assert len(corpus) == 3 and corpus.texts == [None, None, None]


@pytest.mark.parametrize(
    ("record", "problem"),
    [
        ({"doc_uri": "d", "text": "x"}, "missing required field chunk_id"),
        ({"chunk_id": "c1:" + "0" * 32, "text": "x"}, "missing required field doc_uri"),
        ({"chunk_id": "chunk 7", "doc_uri": "d"}, "no white space, control or invisible characters"),
        ({"chunk_id": "c1:7", "doc_uri": "d"}, "chunk_id must be a c1 id (c1:<32 hex digits>"),
        ({"chunk_id": "doc\u202e#3", "doc_uri": "d"}, "no white space, control or invisible characters"),
        ({"chunk_id": "doc\u200b#3", "doc_uri": "d"}, "no white space, control or invisible characters"),
        ({"chunk_id": "x" * 513, "doc_uri": "d"}, "up to 512 characters"),
        ({"chunk_id": "c1:" + "0" * 32, "doc_uri": ""}, "doc_uri must be a non-empty string"),
        ({"chunk_id": "c1:" + "0" * 32, "doc_uri": "d", "text": 7}, "text must be a string"),
        ({"chunk_id": "c1:" + "0" * 32, "doc_uri": "d", "ordinal": -1}, "ordinal must be a non-negative integer"),
        # A JSON true is no ordinal, though Python's bool is an int: the bulk check must not let it by.
        ({"chunk_id": "c1:" + "0" * 32, "doc_uri": "d", "ordinal": True}, "ordinal must be a non-negative integer"),
        ({"chunk_id": "c1:" + "0" * 32, "doc_uri": "d", "doc_revision": 3}, "doc_revision must be a string"),
        ({"chunk_id": "c1:" + "0" * 32, "doc_uri": ["d"]}, "doc_uri must be a non-empty string"),
        # The first fault in the order of the checks is the one named.
        ({"chunk_id": "c1:" + "0" * 32, "doc_uri": "d", "ordinal": -1, "text": 7}, "ordinal must be"),
        ({"chunk_id": "c1:" + "0" * 32, "doc_uri": "d", "text_sha": "sha"}, "text_sha must look like t1:"),
        (
            {"chunk_id": "c1:" + "0" * 32, "doc_uri": "d", "text": "x", "text_sha": "t1:" + "0" * 32},
            "does not match the chunk's text",
        ),
    ],
)
def test_a_malformed_chunk_is_refused_with_its_line(tmp_path: Path, record: dict, problem: str) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [*chunk_records({"ok": ["fine"]}), record])
    message = refusal(path)
    assert message.startswith("corpus:2: ") and problem in message


def test_not_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(chunk_records({"d": ["x"]})[0]) + "\n{not json\n")
    assert refusal(path).startswith("corpus:2: not valid JSON")


def test_a_duplicate_chunk_id_names_both_lines(tmp_path: Path) -> None:
    record = chunk_records({"d": ["x"]})[0]
    path = write_jsonl(tmp_path / "c.jsonl", [{"corpus_fingerprint": "v"}, record, record])
    assert refusal(path) == f"corpus:3: duplicate chunk_id {record['chunk_id']}, already on line 2"


def test_a_snapshot_chunk_is_refused_with_its_line_in_the_file(tmp_path: Path) -> None:
    path = write_snapshot(tmp_path / "c.json", DOCS)
    data = json.loads(path.read_text())
    del data["chunks"][2]["doc_uri"]
    path.write_text(json.dumps(data, indent=2))
    third = [n for n, text in enumerate(path.read_text().splitlines(), 1) if text == "    {"][2]
    assert refusal(path) == f"corpus:{third}: missing required field doc_uri"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"chunks": [', "corpus:1: not valid JSON"),
        ('[{"chunk_id": 1}]', "corpus:1: a corpus snapshot must be a JSON object"),
        ('{"corpus_fingerprint": "x"}', "corpus:1: missing required field chunks"),
        ('{"chunks": {}}', "corpus:1: chunks must be an array"),
        ('{"chunks": []}', "corpus: the corpus holds no chunk"),
        ('{"chunks": [], "chunks": []}', "member chunks appears twice"),
        ('{"chunks": [NaN]}', "not valid JSON"),
        ('{"chunks": []} trailing', "extra data after the snapshot"),
        ('{"corpus_fingerprint": 3, "chunks": []}', "corpus_fingerprint must be a string"),
    ],
)
def test_snapshot_refusals(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(text)
    assert problem in refusal(path, corpus_format="json")


def test_a_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    lines = [json.dumps(r) for r in chunk_records(DOCS)]
    path = tmp_path / "c.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")
    assert len(read_corpus(str(path))) == 3


def test_cli_refuses_a_malformed_corpus_with_exit_2(tmp_path: Path) -> None:
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"corpus_fingerprint": "v"}, {"doc_uri": "d", "text": "x"}])
    result = run_cli("drift", "-j", fixture_path("drift", "judgments.jsonl"), "-c", str(corpus))
    assert result.code == 2
    assert result.stderr.startswith("error  corpus:2: missing required field chunk_id\n")
    assert "Traceback" not in result.stderr


def test_cli_refuses_a_corpus_that_is_not_json(tmp_path: Path) -> None:
    corpus = tmp_path / "c.json"
    corpus.write_text("chunks:\n  - one\n")
    result = run_cli("drift", "-j", fixture_path("drift", "judgments.jsonl"), "-c", str(corpus))
    assert result.code == 2
    assert f"error  corpus ({corpus}):1: not a JSON document" in result.stderr  # refused at its first bytes
