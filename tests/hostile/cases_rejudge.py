"""Filled re-judge lines appended to the judgments, then ``drift --fix``: a line that names
itself in ``rejudge.from``, or two broken lines naming each other, stand in for nothing. Both
stay in the repaired file and still need a person; no label is dropped for a stand-in that is
itself broken. Chunk ids are opaque (``doc#3``)."""

from __future__ import annotations

import json
from pathlib import Path

from hostile.case import HostileCase

CORPUS = "".join(
    json.dumps(line) + "\n"
    for line in [
        {"corpus_fingerprint": "h", "chunker_fingerprint": "k"},
        {"doc_uri": "d1", "doc_revision": "v2", "ordinal": 0, "chunk_id": "doc#1", "text": "Refunds take five days."},
        {"doc_uri": "d1", "doc_revision": "v2", "ordinal": 1, "chunk_id": "doc#2", "text": "Shipping is free."},
    ]
).encode()


def _label(chunk_id: str, came_from: str | None, query: str = "q1") -> dict[str, object]:
    line: dict[str, object] = {"query_id": query, "query": "refund", "doc_uri": "d1", "chunk_id": chunk_id}
    line["relevance"] = 2
    if came_from is not None:
        line["rejudge"] = {"from": came_from, "line": 1, "status": "ORPHANED", "relevance": 2}
    return line


def _jsonl(*lines: dict[str, object]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _kept(*chunk_ids: str):  # type: ignore[no-untyped-def]
    def check(folder: Path) -> None:
        fixed = [json.loads(line) for line in (folder / "fixed.jsonl").read_text().splitlines() if line.strip()]
        assert [line.get("chunk_id") for line in fixed] == list(chunk_ids), fixed

    return check


def _case(name: str, judgments: bytes, says: str, kept: tuple[str, ...]) -> HostileCase:
    return HostileCase(
        "rejudge",
        name,
        ("drift", "-j", "j.jsonl", "-c", "corpus.jsonl", "--fix", "--out", "fixed.jsonl"),
        files={"j.jsonl": judgments, "corpus.jsonl": CORPUS},
        exit_code=1,
        stdout_has=says,
        check=_kept(*kept),
    )


CASES: list[HostileCase] = [
    _case(
        "rejudge-from-itself",
        _jsonl(_label("doc#9", "doc#9"), _label("doc#2", None, "q2")),
        "after the fix 1 of 2 labels need a human",
        ("doc#9", "doc#2"),
    ),
    _case(
        "rejudge-cycle-of-two",
        _jsonl(_label("doc#8", "doc#9"), _label("doc#9", "doc#8")),
        "after the fix 2 of 2 labels need a human",
        ("doc#8", "doc#9"),
    ),
    # the working case beside them: a live re-judged line stands in for the broken label it names
    _case(
        "rejudge-live-line-stands-in",
        _jsonl(_label("doc#9", None), _label("doc#1", "doc#9"), _label("doc#8", "doc#8", "q2")),
        "1 broken label dropped",
        ("doc#1", "doc#8"),
    ),
]


# A deleted page's label quoting a sentence every live page ends with: no move is shown, so the
# label is stranded (delete it), not queued at every page; with 10,000 pages the queue had 10,000
# lines for it and drift took 4.7 GB.
_FOOTER = "Contact support."
_PAGES = "".join(
    json.dumps(line) + "\n"
    for line in [
        {"corpus_fingerprint": "h", "chunker_fingerprint": "k"},
        *(
            {"doc_uri": f"p{n}", "doc_revision": "v2", "ordinal": k, "chunk_id": f"p{n}#{k}", "text": text}
            for n in range(40)
            for k, text in enumerate((f"Page {n} says {n}.", _FOOTER))
        ),
    ]
).encode()
CASES.append(
    HostileCase(
        "rejudge",
        "quote-every-page-shares-queues-nothing",
        ("drift", "-j", "j.jsonl", "-c", "corpus.jsonl", "--queue", "queue.jsonl"),
        files={
            "j.jsonl": _jsonl(
                {
                    "query_id": "q1",
                    "doc_uri": "gone",
                    "chunk_id": "gone#0",
                    "relevance": 2,
                    "chunk_text": f"Refunds take five days. {_FOOTER}",
                    "quote": _FOOTER,
                }  # fmt: skip
            ),
            "corpus.jsonl": _PAGES,
        },
        exit_code=1,
        stdout_has="(its document is gone): line 1 (q1); delete it from ",
        check=lambda folder: None if not (folder / "queue.jsonl").exists() else _no_lines(folder / "queue.jsonl"),
    )
)


def _no_lines(path: Path) -> None:
    assert not path.read_text().strip(), path.read_text()[:200]


# A filled queue appended twice, one chunk graded for two broken labels: validate names the
# repeated lines to delete, never "keep one label" (which dropped the other label's move).
_TWICE = [_label("doc#1", old) for old in ("doc#8", "doc#9")] * 2
CASES.append(
    HostileCase(
        "rejudge",
        "queue-appended-twice-names-the-repeats",
        ("validate", "-j", "j.jsonl"),
        files={"j.jsonl": _jsonl(*_TWICE)},
        exit_code=1,
        stdout_has="lines 3, 4 repeat a line for the same broken label (rejudge.from): delete them",
        stdout_lacks=("keep one label",),
    )
)


def _deep_trail(depth: int) -> bytes:
    """A label whose ``collapsed_from`` nests ``depth`` folded labels, each inside the last."""
    inner: dict[str, object] = {"chunk_id": "doc#0", "relevance": 1, "reanchored": {"rule": "quote", "from": "doc#9"}}
    for n in range(depth):
        inner = {"chunk_id": f"doc#{n}", "relevance": 1, "collapsed_from": [inner]}
    return _jsonl({**_label("doc#1", None), "collapsed_from": [inner]})


# A repair trail nested 300 labels deep reads as JSON (orjson takes 1,024 levels), and walking it
# in Python ran out of stack: a traceback from validate, score and drift alike.
for _command in (("validate", "-j", "j.jsonl"), ("drift", "-j", "j.jsonl", "-c", "corpus.jsonl")):
    CASES.append(
        HostileCase(
            "rejudge",
            f"trail-nested-too-deeply-{_command[0]}",
            _command,
            files={"j.jsonl": _deep_trail(300), "corpus.jsonl": CORPUS},
            stderr_has="judgments:1: not valid JSON (nested too deeply)",
        )
    )
