"""Hostile run lines for the fast extra's head reader (formats/run_heads.py).

It builds only a line's head, so what it must never do is accept a line the full
reading refuses past the head, or read a line otherwise than json.loads. Each case
hides its fault where a head-only reading would miss it: past the head, in a key
written twice (json.loads keeps the last), in bytes the head never touches.
``item`` is ``H.<rule>``, the module docstring's rule the case leans on.
"""

from __future__ import annotations

from hostile.case import HostileCase

LABELS = b'{"query_id": "q1", "doc_uri": "d1", "relevance": 1}\n{"query_id": "q2", "doc_uri": "d5", "relevance": 1}\n'
GOOD = b'{"query_id": "q2", "ranking": ["d5", "d6"]}\n'
SCORE = ("score", "-j", "j.jsonl", "-r", "run.jsonl", "-k", "2")


def _refused(item: str, name: str, line: bytes, message: str) -> HostileCase:
    return HostileCase(
        item, name, SCORE, files={"j.jsonl": LABELS, "run.jsonl": GOOD + line + b"\n"}, stderr_has=message
    )


CASES: list[HostileCase] = [
    _refused(
        "H.4",
        "a-number-past-the-head",
        b'{"query_id": "q1", "ranking": ["d1", "d2", "d3", "d4", 12]}',
        "run:2: ranking[4] must be a non-empty string",
    ),
    _refused(
        "H.4",
        "null-past-the-head",
        b'{"query_id":"q1","ranking":["d1","d2","d3",null,"d5"]}',
        "run:2: ranking[3] must be a non-empty string",
    ),
    _refused(
        "H.3",
        "an-array-past-the-head",
        b'{"query_id": "q1", "ranking": ["d1", "d2", "d3", ["d4"]]}',
        "run:2: ranking[3] must be a non-empty string",
    ),
    _refused(
        "H.5",
        "an-empty-id-past-the-head",
        b'{"query_id": "q1", "ranking": ["d1", "d2", "d3", ""]}',
        "run:2: ranking[3] must be a non-empty string",
    ),
    _refused(
        "H.2",
        "the-last-of-two-query-ids-is-a-number",
        b'{"query_id": "q1", "ranking": ["d1"], "query_id": 7}',
        "run:2: query_id must be a non-empty string",
    ),
    _refused(
        "H.2",
        "the-last-of-two-rankings-holds-a-number",
        b'{"query_id": "q1", "ranking": ["d1", "d2"], "ranking": ["d1", 2]}',
        "run:2: ranking[1] must be a non-empty string",
    ),
    _refused(
        "H.1",
        "a-byte-that-is-no-utf-8-past-the-head",
        b'{"query_id": "q1", "ranking": ["d1", "d2", "d3", "bad \xff"]}',
        "run:2: not valid UTF-8",
    ),
    _refused(
        "H.1",
        "a-lone-surrogate-past-the-head",
        b'{"query_id": "q1", "ranking": ["d1", "d2", "d3", "\\udc00"]}',
        "run:2: not valid Unicode (\\udc00",
    ),
    _refused(
        "H.1",
        "nan-past-the-head",
        b'{"query_id": "q1", "ranking": ["d1", "d2", "d3", NaN]}',
        "run:2:",
    ),
    _refused(
        "H.1",
        "a-line-cut-short",
        b'{"query_id": "q1", "ranking": ["d1", "d2", "d3", "d4"',
        "run:2:",
    ),
    _refused(
        "H.1",
        "text-after-the-object",
        b'{"query_id": "q1", "ranking": ["d1", "d2"]} {"query_id": "q3", "ranking": []}',
        "run:2:",
    ),
    # json.loads keeps the last of two equal keys: the ranking scored is ["d1"], so recall is 1.
    HostileCase(
        "H.2",
        "the-last-of-two-rankings-is-the-one-scored",
        (*SCORE, "--json"),
        files={"j.jsonl": LABELS, "run.jsonl": GOOD + b'{"query_id": "q1", "ranking": ["d9"], "ranking": ["d1"]}\n'},
        exit_code=0,
        stdout_has='"recall@2": {\n      "value": 1.0',
    ),
    # An id holding a bracket, a brace or an escaped quote is valid: read, more slowly.
    HostileCase(
        "H.3",
        "ids-with-brackets-and-escapes-are-read",
        (*SCORE, "--json"),
        files={
            "j.jsonl": b'{"query_id": "q1", "doc_uri": "d[1]", "relevance": 1}\n'
            b'{"query_id": "q2", "doc_uri": "d\\"5", "relevance": 1}\n',
            "run.jsonl": b'{"query_id": "q1", "ranking": ["d{0}", "d[1]"]}\n{"query_id": "q2", "ranking": ["d\\"5"]}\n',
        },
        exit_code=0,
        stdout_has='"recall@2": {\n      "value": 1.0',
    ),
]
