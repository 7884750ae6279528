"""Reading judgments strictly and writing them back canonically."""

from __future__ import annotations

from pathlib import Path

from helpers import run_cli
from retrieval_eval.formats.judgment_records import write_judgments
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


def test_a_label_keeps_its_arrays_as_tuples_and_writes_them_back_as_read(tmp_path: Path) -> None:
    # The record is the user's JSON, typed as Json: arrays are tuples inside, arrays again when written.
    lines = [
        '{"query_id":"q1","doc_uri":"d1","relevance":2,"extra":[1,2.50,{"a":[1e400,1e-400]}],"z":{"k":[true,null]}}',
        '{"query_id":"q2","query":"x","expect":"no_answer","tags":["a","b"]}',
        '{"query_id":"q1","doc_uri":"d2","chunk_id":null,"relevance":0,"collapsed_from":[{"relevance":1}],"w":1.0}',
    ]
    source = tmp_path / "j.jsonl"
    source.write_text("\n".join(lines) + "\n")
    judgments = parse_judgments(str(source))
    first, second = judgments.labels
    assert first.get("z") == {"k": (True, None)} and isinstance(first.get("extra"), tuple)
    assert second.get("collapsed_from") == ({"relevance": 1},) and second.chunk_id is None
    assert judgments.no_answer[0].record["tags"] == ("a", "b")
    assert write_judgments(judgments) == "\n".join(lines) + "\n"


def test_a_judgments_line_that_is_not_an_object_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    source = tmp_path / "j.jsonl"
    source.write_text('{"query_id":"q1","doc_uri":"d1","relevance":1}\n["q1","d1",1]\n')
    done = run_cli("convert", "--from", "judgments", "--to", "judgments", str(source))
    assert done.code == 2 and "Traceback" not in done.stderr
    assert "judgments:2: expected a JSON object, got an array" in done.stderr
    assert f"line 2 of {source}" in done.stderr
