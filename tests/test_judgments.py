"""Reading judgments strictly and writing them back canonically."""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.core.judgments import write_judgments
from retrieval_eval.formats.judgments import parse_judgments


def test_canonical_writer_orders_known_fields_and_keeps_unknown_ones(tmp_path: Path) -> None:
    source = tmp_path / "j.jsonl"
    source.write_text(
        "// labels for the billing suite\n"
        '{"zeta": 1, "relevance": 2, "doc_uri": "d1", "query_id": "q1", "alpha": [1, "x"], "query": "café"}\n'
        "\n"
        "// second block\n"
        '{"query_id": "q2", "doc_uri": "d2", "relevance": 0}\n'
    )
    text = write_judgments(parse_judgments(str(source)))
    assert text == (
        "// labels for the billing suite\n"
        '{"query_id":"q1","query":"café","doc_uri":"d1","relevance":2,"zeta":1,"alpha":[1,"x"]}\n'
        "// second block\n"
        '{"query_id":"q2","doc_uri":"d2","relevance":0}\n'
    )


def test_canonical_text_is_a_fixed_point(tmp_path: Path) -> None:
    source = tmp_path / "j.jsonl"
    source.write_text('{"notes":"n","relevance":1,"stratum":"s","query_id":"q","doc_uri":"d","extra":{"b":1,"a":2}}\n')
    once = write_judgments(parse_judgments(str(source)))
    source.write_text(once)
    assert write_judgments(parse_judgments(str(source))) == once


def test_key_is_the_chunk_when_there_is_one(tmp_path: Path) -> None:
    source = tmp_path / "j.jsonl"
    chunk = "c1:" + "a" * 32
    source.write_text(
        f'{{"query_id":"q","doc_uri":"d","chunk_id":"{chunk}","relevance":1}}\n'
        '{"query_id":"q","doc_uri":"d2","relevance":1}\n'
    )
    keys = [label.key for label in parse_judgments(str(source)).labels]
    assert keys == [chunk, "d2"]
