"""Round 7: files of the right kind whose lines carry fields another kind uses.

A judgments line may carry fields of its own beside its label (a judge's ``score`` and the
retriever's ``doc_id``, a ``ranking`` note): such a file is judgments, and a fault on its first
lines keeps the reader's own message and line, never "this is a run, not judgments".

``item`` is ``R7.<n>``.
"""

from __future__ import annotations

from hostile.case import HostileCase

CASES: list[HostileCase] = []

RUN = b'{"query_id":"q1","ranking":["d1","d2"]}\n'
BAD_SECOND = b'{"query_id":"q2","query":"y","doc_uri":"d2","relevance":"high"}\n'
JUDGE_SCORED = b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1,"doc_id":"D1","score":0.93}\n'
RANKING_NOTE = b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1,"ranking":3}\n'


def score(judgments: bytes, run: bytes, name: str, says: str) -> HostileCase:
    return HostileCase(
        "R7.1",
        name,
        ("score", "-j", "{tmp}/j", "-r", "{tmp}/r", "--out", "{tmp}/out.json"),
        files={"j": judgments, "r": run},
        stderr_has=says,
        stdout_lacks=("this is a run", "look swapped"),
    )


CASES += [
    score(JUDGE_SCORED + BAD_SECOND, RUN, "judge-scored-judgments-bad-line-2", "judgments:2: relevance"),
    score(RANKING_NOTE + BAD_SECOND, RUN, "ranking-note-judgments-bad-line-2", "judgments:2: relevance"),
    score(
        b"\xef\xbb\xbf// labels\r\n" + JUDGE_SCORED.replace(b"\n", b"\r\n") + BAD_SECOND,
        RUN,
        "judge-scored-judgments-bom-comment-crlf",
        "judgments:3: relevance",
    ),
    # A label with chunk text and no relevance is judgments missing a field, not a corpus.
    score(
        b'{"query_id":"q1","query":"x","doc_uri":"d1","chunk_id":"c1","text":"hi","score":1,"doc_id":"d"}\n',
        RUN,
        "judgments-missing-relevance-with-chunk-text",
        "judgments:1: missing required field relevance",
    ),
]
# A judge-scored file is still judgments: given as the run, it is said to be judgments when it
# reads as one kind only (no run field); with a score and a doc_id it reads as both, and the run
# reader's own message stands.
CASES.append(
    HostileCase(
        "R7.1",
        "judge-scored-judgments-as-run-keeps-the-readers-message",
        ("score", "-j", "{tmp}/j", "-r", "{tmp}/r"),
        files={"j": JUDGE_SCORED, "r": JUDGE_SCORED},
        stderr_has="run:1: missing required field ranking",
    )
)
