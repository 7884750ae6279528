"""Judgments whose field names are one slip away from a known one.

``"chunk_Id"`` was read as a field of the team's own, so the label graded its whole document
and the numbers moved without a word; ``"stratm"`` put its query in no stratum. The field is
still kept (the format never refuses one), but ``score`` is INDETERMINATE, naming it, and
``validate`` lists it. Variants a fix for the one example would miss: another case, a hyphen,
the underscore dropped, two letters swapped, a letter from another script, trailing space, a
no-answer line, and names that must not be taken for slips.

``item`` is ``R8.<n>``.
"""

from __future__ import annotations

import json

from hostile.case import HostileCase

CASES: list[HostileCase] = []

CHUNK_A = "c1:" + "a" * 32
CHUNK_B = "c1:" + "b" * 32
RUN = "".join(json.dumps({"query_id": q, "ranking": [k]}) + "\n" for q, k in (("q1", CHUNK_A), ("q2", CHUNK_B)))
RUN_BYTES = RUN.encode()


def _judgments(second: dict[str, object]) -> bytes:
    first = {"query_id": "q1", "doc_uri": "kb://a", "chunk_id": CHUNK_A, "relevance": 1, "stratum": "s"}
    rest = {"query_id": "q2", "doc_uri": "kb://b", "relevance": 1, **second}
    return (json.dumps(first) + "\n" + json.dumps(rest) + "\n").encode()


def slip(name: str, second: dict[str, object], says: str) -> HostileCase:
    return HostileCase(
        "R8.2",
        f"score-field-slip-{name}",
        ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", "recall@10:0.5"),
        files={"j.jsonl": _judgments(second), "r.jsonl": RUN_BYTES},
        exit_code=1,
        stdout_has=says,
        stdout_lacks=("verdict  PASS", "Traceback"),
    )


SCORED = "misspelled-scored-field"
CASES += [
    slip("chunk-id-case", {"chunk_Id": CHUNK_B, "stratum": "s"}, SCORED),
    slip("chunk-id-hyphen", {"chunk-id": CHUNK_B, "stratum": "s"}, SCORED),
    slip("chunk-id-no-underscore", {"chunkid": CHUNK_B, "stratum": "s"}, SCORED),
    slip("chunk-id-swapped", {"chnuk_id": CHUNK_B, "stratum": "s"}, SCORED),
    slip("chunk-id-cyrillic-i", {"chunk_\u0456d": CHUNK_B, "stratum": "s"}, SCORED),
    slip("stratum-dropped-letter", {"chunk_id": CHUNK_B, "stratm": "s"}, SCORED),
    slip("stratum-trailing-space", {"chunk_id": CHUNK_B, "stratum ": "s"}, SCORED),
]

# validate names the line and the field it looks like.
CASES.append(
    HostileCase(
        "R8.2",
        "validate-field-slip-names-line-and-field",
        ("validate", "-j", "{tmp}/j.jsonl"),
        files={"j.jsonl": _judgments({"chunk_Id": CHUNK_B})},
        exit_code=1,
        stdout_has="line 2 carries 'chunk_Id' and no chunk_id: 'chunk_Id' is no field but looks like 'chunk_id'",
    )
)

# A no-answer line's stratum, misspelled, is told as well.
CASES.append(
    HostileCase(
        "R8.2",
        "validate-field-slip-on-a-no-answer-line",
        ("validate", "-j", "{tmp}/j.jsonl"),
        files={
            "j.jsonl": _judgments({"chunk_id": CHUNK_B, "stratum": "s"})
            + b'{"query_id": "n1", "query": "x", "expect": "no_answer", "Stratum": "s"}\n'
        },
        exit_code=1,
        stdout_has="line 3 carries 'Stratum'",
    )
)

# Fields of the team's own that are no slip, and a slip of a field scoring does not read: PASS.
for _name, _second in {
    "judge-fields": {"chunk_id": CHUNK_B, "score": 0.9, "doc_id": "D2"},
    "note-for-notes": {"chunk_id": CHUNK_B, "note": "checked"},
    "chunk-idx-a-number": {"chunk_idx": 1},
    "chunk-ids-a-list": {"chunk_ids": [CHUNK_B]},
    "expert-not-expect": {"chunk_id": CHUNK_B, "expert": "alice"},
    "doc-url-beside-doc-uri": {"chunk_id": CHUNK_B, "doc_url": "https://example.com"},
    "slip-beside-the-field": {"chunk_id": CHUNK_B, "chunk_Id": CHUNK_B},
    "long-invented-name": {"chunk_id": CHUNK_B, "x" * 5000: 1},
}.items():
    CASES.append(
        HostileCase(
            "R8.2",
            f"score-no-slip-{_name}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", "recall@10:0.5"),
            files={"j.jsonl": _judgments(_second), "r.jsonl": RUN_BYTES},
            exit_code=0,
            stdout_has="verdict  PASS",
            stdout_lacks=(SCORED,),
        )
    )

# A required field under a slip of its name is still refused (it is missing), and the refusal
# names the slip it found on the line.
for _name, _line, _says in (
    ("relevance", b'{"query_id":"q1","doc_uri":"d1","relevence":1}\n', "has 'relevence': a slip of relevance?)"),
    ("query-id", b'{"query_Id":"q1","doc_uri":"d1","relevance":1}\n', "(the line has 'query_Id': a slip of query_id?)"),
    ("doc-uri", b'{"query_id":"q1","doc-uri":"d1","relevance":1}\n', "(the line has 'doc-uri': a slip of doc_uri?)"),
    ("no-slip", b'{"query_id":"q1","doc_uri":"d1","grade":1}\n', "judgments:1: missing required field relevance"),
):
    CASES.append(
        HostileCase(
            "R8.2",
            f"score-required-field-slip-{_name}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl"),
            files={"j.jsonl": _line, "r.jsonl": RUN_BYTES},
            stderr_has=_says,
        )
    )

# A no-answer line whose "expect" is misspelled is read as a label: its refusal names the slip.
CASES.append(
    HostileCase(
        "R8.2",
        "score-no-answer-expect-slip",
        ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl"),
        files={"j.jsonl": b'{"query_id":"n1","query":"x","expct":"no_answer"}\n', "r.jsonl": RUN_BYTES},
        stderr_has="missing required field doc_uri (the line has 'expct': a slip of expect",
    )
)

# ... and so is one whose "expect" value is not "no_answer": any spelling of it, any other word.
for _value in ("no-answer", "No_Answer", "none", "no answer", ""):
    CASES.append(
        HostileCase(
            "R8.2",
            f"score-no-answer-expect-value-{_value or 'empty'}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl"),
            files={
                "j.jsonl": json.dumps({"query_id": "n1", "query": "x", "expect": _value}).encode() + b"\n",
                "r.jsonl": RUN_BYTES,
            },
            stderr_has=f"missing required field doc_uri (its expect is {_value!r}: "
            + 'a no-answer line says "expect": "no_answer")',
        )
    )

# A run line or a corpus chunk whose required field is misspelled: the refusal names the slip, as a
# judgments line's does. A name no slip away (a team's own) gets the plain refusal.
_RUN_SLIPS = {
    "run-queryid": (
        b'{"queryid": "q1", "ranking": ["d1"]}\n',
        "missing required field query_id (the line has 'queryid'",
    ),
    "run-Query-Id": (b'{"Query-Id": "q1", "ranking": ["d1"]}\n', "(the line has 'Query-Id': a slip of query_id?)"),
    "run-rankings": (
        b'{"query_id": "q1", "rankings": ["d1"]}\n',
        "missing required field ranking (the line has 'rankings'",
    ),
    "run-rnaking": (b'{"query_id": "q1", "rnaking": ["d1"]}\n', "(the line has 'rnaking': a slip of ranking?)"),
    "run-results-no-slip": (b'{"query_id": "q1", "results": ["d1"]}\n', "run:1: missing required field ranking\n"),
}
for _name, (_line, _says) in _RUN_SLIPS.items():
    CASES.append(
        HostileCase(
            "R8.2",
            _name,
            ("validate", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl"),
            files={"j.jsonl": b'{"query_id": "q1", "doc_uri": "d1", "relevance": 1}\n', "r.jsonl": _line},
            stderr_has=_says,
        )
    )
_CHUNK = '{"chunk_id": "c1:0123456789abcdef0123456789abcdef", "%s": "d1", "text": "x"}\n'
for _field, _says in (
    ("doc_URI", "missing required field doc_uri (the line has 'doc_URI': a slip of doc_uri?)"),
    ("docuri", "(the line has 'docuri': a slip of doc_uri?)"),
    ("document", "corpus:1: missing required field doc_uri\n"),
):
    CASES.append(
        HostileCase(
            "R8.2",
            f"corpus-{_field}",
            ("drift", "-j", "{tmp}/j.jsonl", "-c", "{tmp}/c.jsonl"),
            files={
                "j.jsonl": b'{"query_id": "q1", "doc_uri": "d1", "relevance": 1}\n',
                "c.jsonl": (_CHUNK % _field).encode(),
            },
            stderr_has=_says,
        )
    )
