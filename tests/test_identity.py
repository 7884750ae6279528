"""The chunk-id fixture through the library and the ``chunk-id`` command."""

from __future__ import annotations

import pytest

from helpers import expected, run_cli
from retrieval_eval.core.identity import chunk_id, is_chunk_id, is_text_sha, normalize, text_sha

CASE = expected("chunk-id")


@pytest.mark.parametrize("vector", CASE["normalize"])
def test_normalize_vectors(vector: dict[str, str]) -> None:
    assert normalize(vector["in"]) == vector["out"]


def test_normalize_keeps_case_punctuation_and_inner_space() -> None:
    assert normalize("  A  b,\tC \r\r") == "A  b,\tC"
    # NFC: a decomposed é becomes the composed one.
    assert normalize("cafe\u0301") == "caf\u00e9"


def test_text_sha_and_chunk_id_vectors() -> None:
    for vector in CASE["text_sha"]:
        assert text_sha(vector["text"]) == vector["out"]
    for vector in CASE["chunk_id"]:
        args = {k: v for k, v in vector.items() if k != "out"}
        assert chunk_id(**args) == vector["out"]
        assert is_chunk_id(vector["out"])


def test_text_sha_hashes_the_normalized_text() -> None:
    assert text_sha("  hello world\r\n") == text_sha("hello world")
    assert is_text_sha(text_sha("x"))


def test_chunk_id_refuses_a_negative_ordinal() -> None:
    with pytest.raises(ValueError):
        chunk_id("d", "r", -1, "x", "c")


def test_cli_prints_the_fixture_chunk_id() -> None:
    vector = CASE["chunk_id"][0]
    result = run_cli(
        "chunk-id",
        "--text",
        vector["text"],
        "--doc-uri",
        vector["doc_uri"],
        "--doc-revision",
        vector["doc_revision"],
        "--ordinal",
        str(vector["ordinal"]),
        "--chunker",
        vector["chunker_fingerprint"],
    )
    assert result.code == 0, result.stderr
    assert result.stdout == vector["out"] + "\n"


def test_cli_json_gives_every_vector(tmp_path) -> None:  # type: ignore[no-untyped-def]
    for vector in CASE["normalize"]:
        source = tmp_path / "text.txt"
        source.write_bytes(vector["in"].encode("utf-8"))
        result = run_cli("chunk-id", "--file", str(source), "--json")
        assert result.code == 0, result.stderr
        assert result.json()["normalized"] == vector["out"]
    result = run_cli("chunk-id", "--text", CASE["text_sha"][0]["text"], "--text-sha")
    assert result.stdout.strip() == CASE["text_sha"][0]["out"]


def test_cli_names_what_a_chunk_id_needs() -> None:
    result = run_cli("chunk-id", "--text", "x", "--doc-uri", "d")
    assert result.code == 2
    assert "error  a chunk_id needs --doc-revision, --ordinal, --chunker" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_refuses_text_that_is_not_utf8(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "bad.txt"
    source.write_bytes(b"caf\xe9")
    result = run_cli("chunk-id", "--file", str(source), "--text-sha")
    assert result.code == 2
    assert "text: not valid UTF-8" in result.stderr


def test_the_python_api_gives_the_spec_vectors() -> None:
    import hashlib

    import retrieval_eval

    for vector in CASE["text_sha"]:
        assert retrieval_eval.text_sha(vector["text"]) == vector["out"]
    for vector in CASE["chunk_id"]:
        args = {k: v for k, v in vector.items() if k != "out"}
        assert retrieval_eval.chunk_id(**args) == vector["out"]
    # Worked by hand from spec/chunk-id.md: five fields joined by U+001F, SHA-256, first 128 bits.
    canonical = "\x1f".join(["help://a", "r1", "0", "Hello", "para/v1"]).encode()
    assert retrieval_eval.chunk_id("help://a", "r1", 0, " Hello\r\n", "para/v1") == (
        "c1:" + hashlib.sha256(canonical).hexdigest()[:32]
    )
