"""A pull request that deletes the labels of the queries its retriever breaks.

The base scored q1..q4; the head's run misses q3 and q4, and the head's judgments drop them
(deleted, graded 0, or one of each). Every delta over the queries left is 0, so the delta gate
PASSed. It is INDETERMINATE now, naming the queries (a drop the queries left do show still
FAILs: tests/test_dropped_queries.py); an absolute gate reads the set as it is.

``item`` is ``R8.<n>``.
"""

from __future__ import annotations

import json

from hostile.case import HostileCase

CASES: list[HostileCase] = []


def _lines(rows: list[dict[str, object]]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


BASE_JUDGMENTS = _lines([{"query_id": f"q{n}", "doc_uri": f"d{n}", "relevance": 1} for n in range(1, 5)])
BASE_RUN = _lines([{"query_id": f"q{n}", "ranking": [f"d{n}"]} for n in range(1, 5)])
HEAD_RUN = _lines([{"query_id": f"q{n}", "ranking": [f"d{n}" if n < 3 else "x"]} for n in range(1, 5)])
HEAD_JUDGMENTS = {
    "deleted": _lines([{"query_id": f"q{n}", "doc_uri": f"d{n}", "relevance": 1} for n in range(1, 3)]),
    "graded-0": _lines([{"query_id": f"q{n}", "doc_uri": f"d{n}", "relevance": int(n < 3)} for n in range(1, 5)]),
    "one-of-each": _lines([{"query_id": f"q{n}", "doc_uri": f"d{n}", "relevance": int(n < 3)} for n in range(1, 4)]),
}


def _base_report(folder: object) -> None:
    from pathlib import Path

    from helpers import run_cli

    where = Path(str(folder))
    (where / "bj.jsonl").write_bytes(BASE_JUDGMENTS)
    (where / "br.jsonl").write_bytes(BASE_RUN)
    judgments, run, out = (str(where / name) for name in ("bj.jsonl", "br.jsonl", "base.json"))
    assert run_cli("score", "-j", judgments, "-r", run, "-k", "1", "--out", out).code == 0


def _head(gate: str, judgments: bytes, name: str, code: int, says: str) -> HostileCase:
    return HostileCase(
        "R8.8",
        name,
        (
            "score",
            "-j",
            "{tmp}/hj.jsonl",
            "-r",
            "{tmp}/hr.jsonl",
            "-k",
            "1",
            "--baseline",
            "{tmp}/base.json",
            "-g",
            gate,
        ),
        files={"hj.jsonl": judgments, "hr.jsonl": HEAD_RUN},
        setup=_base_report,
        exit_code=code,
        stdout_has=says,
        stdout_lacks=("verdict  PASS",) if code else (),
    )


for _name, _judgments in HEAD_JUDGMENTS.items():
    CASES += [
        _head("recall@1:-0.05", _judgments, f"delta-gate-{_name}", 1, "INDETERMINATE recall@1:-0.05"),
        _head("recall@1:-0.05:significant", _judgments, f"significant-gate-{_name}", 1, "not decided"),
    ]
# What the queries left show is still read: an absolute gate on the set as it is, and a drop there.
CASES += [
    _head("recall@1:0.9", HEAD_JUDGMENTS["deleted"], "absolute-gate-reads-the-set-as-it-is", 0, "PASS"),
]

# Labels taken from keys the base ranked, with every query still scored: q3 and q4 keep a label on
# a key nobody ranked, and lose (or see graded 0) the one the base found and the head lost.
LOWERED = {
    "removed": [{"query_id": f"q{n}", "doc_uri": f"d{n}" if n < 3 else f"z{n}", "relevance": 1} for n in range(1, 5)],
    "graded-0": [
        *({"query_id": f"q{n}", "doc_uri": f"d{n}", "relevance": int(n < 3)} for n in range(1, 5)),
        *({"query_id": f"q{n}", "doc_uri": f"z{n}", "relevance": 1} for n in (3, 4)),
    ],
}
for _name, _rows in LOWERED.items():
    CASES.append(
        _head("recall@1:-0.05", _lines(list(_rows)), f"lowered-labels-{_name}", 1, "removed or lowered labels on keys")
    )
