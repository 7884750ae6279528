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


# Gates no value can decide, below 0: an "at most" under 0 is never met, and an "at least"
# (a worst stratum's) under 0 always is, as one past 1 is. A signed number is a change, not this.
JUDGMENTS = b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n'
RANKED = b'{"query_id":"q1","ranking":["d1"]}\n'


def gate_case(gate: str, says: str, exit_code: int = 2, name: str = "") -> HostileCase:
    return HostileCase(
        "R7.2",
        name or f"score-gate-{gate.replace(':', '-').replace('@', '-').replace('<=', 'le')}",
        ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", gate),
        files={"j.jsonl": JUDGMENTS, "r.jsonl": RANKED},
        exit_code=exit_code,
        stderr_has=says if exit_code == 2 else "",
        stdout_has="" if exit_code == 2 else says,
    )


CASES += [
    gate_case("recall@10:<=-0.02", "so a threshold of -0.02 is never met"),
    gate_case("false_abstention_rate:<=-0.5", "so a threshold of -0.5 is never met"),
    gate_case("worst-stratum:recall@10:-0.5", "so a threshold of -0.5 is always met"),
    # Still allowed: at most 0, in either spelling. A gate every value meets is refused.
    gate_case("recall@10:<=-0", "FAIL", exit_code=1, name="score-gate-at-most-minus-zero-allowed"),
    gate_case("recall@10:-1", "is the largest drop recall@10 can make, so the gate is always met"),
    gate_case("recall@10:0", "so at least 0 is always met"),
    gate_case("recall@10:<=1", "so at most 1 is always met"),
    # Values are compared after rounding to 12 decimals: 1 and a hair is 1, and is reached.
    gate_case("recall@10:1.0000000000001", "PASS", exit_code=0, name="score-gate-one-and-a-hair-is-one"),
    # A refusal names the number as given, not rounded to one that is allowed.
    gate_case("recall@10:1.0000001", "threshold of 1.0000001 is never met", name="score-gate-names-its-number"),
]
