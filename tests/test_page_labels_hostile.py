"""The HTML page's labels taken from the index scoring built equal those read from the file again,
for every judgments file the scorer accepts: repeats, grades, no-answer lines, texts and strata
in odd orders, escaped keys, duplicate keys, BOM and CRLF, comments, Unicode, TREC and BEIR."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from retrieval_eval.formats.judgments import read_label_index
from retrieval_eval.render.html_inputs import index_page_labels, read_labels_for_page


def _lines(*records: dict[str, object]) -> bytes:
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


FILES = {
    "repeats-falling-grade": _lines(
        {"query_id": "q1", "doc_uri": "d1", "relevance": 2}, {"query_id": "q1", "doc_uri": "d1", "relevance": 0}
    ),
    "repeats-rising-grade": _lines(
        {"query_id": "q1", "doc_uri": "d1", "relevance": 0}, {"query_id": "q1", "doc_uri": "d1", "relevance": 3}
    ),
    "no-answer-only-query": _lines(
        {"query_id": "q2", "expect": "no_answer", "query": "why", "stratum": "s"},
        {"query_id": "q1", "doc_uri": "d1", "relevance": 1},
    ),
    "no-answer-gives-the-text": _lines(
        {"query_id": "q1", "doc_uri": "d1", "relevance": 1, "query": ""},
        {"query_id": "q1", "expect": "no_answer", "query": "t2", "stratum": "late"},
    ),
    "empty-text-first": _lines(
        {"query_id": "q1", "doc_uri": "d1", "relevance": 1, "query": "", "stratum": ""},
        {"query_id": "q1", "doc_uri": "d2", "relevance": 1, "query": "b", "stratum": "s"},
        {"query_id": "q1", "doc_uri": "d3", "relevance": 1, "query": "c", "stratum": "t"},
    ),
    "chunk-and-document-keys": _lines(
        {"query_id": "q1", "doc_uri": "d1", "chunk_id": "c1:" + "a" * 32, "relevance": 1},
        {"query_id": "q1", "doc_uri": "d1", "relevance": 3},
    ),
    "duplicate-json-keys": b'{"query_id":"q1","query_id":"q2","doc_uri":"d","relevance":1,"query":"a","query":"b"}\n',
    "escaped-query-id-key": b'{"query\\u005fid":"q1","doc_uri":"d","relevance":1}\n'
    b'{"query_id":"q2","doc_uri":"d","relevance":1}\n',
    "nested-query-id": b'{"x":{"query_id":"q9"},"query_id":"q1","doc_uri":"d","relevance":1}\n',
    "escaped-slash-in-id": b'{"query_id":"q\\/1","doc_uri":"d","relevance":1}\n',
    "spaced-colon": b'{"query_id" : "q1" , "doc_uri":"d","relevance":1}\n'
    b'{"query_id":"q2","doc_uri":"d","relevance":2}\n',
    "bom-crlf-comment": b"\xef\xbb\xbf// made by hand\r\n"
    + _lines({"query_id": "q\u00e9", "doc_uri": "d1", "relevance": 1}).replace(b"\n", b"\r\n"),
    "nfc-and-nfd-ids": _lines(
        {"query_id": "caf\u00e9", "doc_uri": "d", "relevance": 1},
        {"query_id": "cafe\u0301", "doc_uri": "d", "relevance": 2},
    ),
    "trec-repeats-negative-iterations": b"q1 0 d1 2\nq1 1 d1 1\nq2 0 d2 -1\n# note\nq1\t0\td3\t0\n",
    "beir-doubled-header-bom-crlf": b"\xef\xbb\xbfquery-id\tcorpus-id\tscore\r\n"
    b"query-id\tcorpus-id\tscore\r\nq1\td1\t1\r\n",
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_the_index_gives_the_page_the_labels_the_file_gives(name: str, tmp_path: Path) -> None:
    path = tmp_path / "judgments"
    path.write_bytes(FILES[name])
    index = read_label_index(str(path))
    queries = list(index.queries)
    for wanted in ({*queries}, {queries[0]}, {queries[-1], "absent"}):
        from_index = index_page_labels(index, wanted)
        for expected in (index.sha256, None):
            from_file = read_labels_for_page(str(path), wanted, expected_sha256=expected)
            assert from_index == from_file
            assert list(from_index) == list(from_file)
            assert all(list(from_index[q].grades) == list(from_file[q].grades) for q in from_index)
