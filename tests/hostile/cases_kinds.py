"""Files given in the wrong place: a run as the judgments, judgments as the run, a report, a
comparison or a corpus where one of those goes. Each is refused (exit 2) saying what the file
is ("this is a run, not judgments"), and a swap of the judgments and the run says so, instead of
sending the user to "fix line 1" of a file that is fine. A file of the right kind with a fault of
its own keeps the reader's own message, with its line.

``item`` is ``K.<n>``.
"""

from __future__ import annotations

import json

from hostile.case import HostileCase

CASES: list[HostileCase] = []

JUDGMENTS = b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n'
COMMENTED_JUDGMENTS = b"// the golden set\n" + JUDGMENTS
RUN = b'{"query_id":"q1","ranking":["d1","d2"]}\n'
TREC_RUN = b"q1 Q0 d1 1 12.5 bm25\nq1 Q0 d2 2 11.0 bm25\n"
TREC_QRELS = b"q1 0 d1 1\n"
REPORT = json.dumps({"spec_version": "1", "metrics": {}}, indent=2).encode()
COMPARISON = json.dumps({"kind": "retrieval-eval comparison", "version": 1}, indent=2).encode()
CORPUS = (
    b'{"corpus_fingerprint": "c/1", "chunker_fingerprint": "p/1"}\n'
    b'{"doc_uri": "d1", "doc_revision": "r1", "ordinal": 0, "chunk_id": "c1:00000000000000000000000000000000", '
    b'"text": "hello"}\n'
)
SWAPPED = "the judgments and the run look swapped"


def score(judgments: bytes, run: bytes, says: str, name: str, lacks: tuple[str, ...] = ("fix line 1",)) -> HostileCase:
    return HostileCase(
        "K.1",
        name,
        ("score", "-j", "{tmp}/j", "-r", "{tmp}/r", "--out", "{tmp}/out.json"),
        files={"j": judgments, "r": run},
        stderr_has=says,
        stdout_lacks=lacks,
    )


CASES += [
    score(RUN, JUDGMENTS, "judgments: this is a run, not judgments", "score-run-as-judgments"),
    score(TREC_RUN, JUDGMENTS, "judgments: this is a run (TREC), not judgments", "score-trec-run-as-judgments"),
    score(JUDGMENTS, JUDGMENTS, "run: this is judgments, not a run", "score-judgments-as-run"),
    score(JUDGMENTS, COMMENTED_JUDGMENTS, "run: this is judgments, not a run", "score-commented-judgments-as-run"),
    score(JUDGMENTS, TREC_QRELS, "run: this is judgments (TREC qrels), not a run", "score-trec-qrels-as-run"),
    score(REPORT, RUN, "judgments: this is a report, not judgments", "score-report-as-judgments"),
    score(JUDGMENTS, REPORT, "run: this is a report, not a run", "score-report-as-run"),
    score(COMPARISON, RUN, "judgments: this is a comparison, not judgments", "score-comparison-as-judgments"),
    score(CORPUS, RUN, "judgments: this is a corpus, not judgments", "score-corpus-as-judgments"),
    score(JUDGMENTS, CORPUS, "run: this is a corpus, not a run", "score-corpus-as-run"),
]
# The swap is named as one, and only a swap is.
CASES += [
    score(RUN, JUDGMENTS, SWAPPED, "score-swap-named"),
    score(JUDGMENTS, TREC_QRELS, SWAPPED, "score-qrels-as-run-swap-named"),
]

# Every command that reads judgments, and the corpus readers.
for _name, _argv, _files, _says in (
    ("validate-run-as-judgments", ("validate", "-j", "{tmp}/r"), {"r": RUN}, "this is a run, not judgments"),
    (
        "drift-run-as-judgments",
        ("drift", "-j", "{tmp}/r", "-c", "{tmp}/c"),
        {"r": RUN, "c": CORPUS},
        "this is a run, not judgments",
    ),
    (
        "drift-run-as-corpus",
        ("drift", "-j", "{tmp}/j", "-c", "{tmp}/r"),
        {"j": JUDGMENTS, "r": RUN},
        "corpus: this is a run, not a corpus",
    ),
    (
        "drift-report-as-corpus",
        ("drift", "-j", "{tmp}/j", "-c", "{tmp}/r"),
        {"j": JUDGMENTS, "r": REPORT},
        "this is a report, not a corpus",
    ),
    (
        "score-judgments-as-corpus",
        ("score", "-j", "{tmp}/j", "-r", "{tmp}/r", "--corpus", "{tmp}/j"),
        {"j": JUDGMENTS, "r": RUN},
        "this is judgments, not a corpus",
    ),
):
    CASES.append(HostileCase("K.2", _name, _argv, files=_files, stderr_has=_says))

# A file of the right kind with a fault of its own keeps the reader's message and its line.
CASES += [
    score(
        JUDGMENTS + b'{"query_id":"q2","doc_uri":"d2","relevance":"high"}\n',
        RUN,
        "judgments:2:",
        "score-judgments-bad-line-2-keeps-its-message",
        ("this is",),
    ),
    score(
        b'{"query_id":"q1","doc_uri":"d1"}\n',  # no relevance: judgments all the same
        RUN,
        "judgments:1:",
        "score-judgments-bad-line-1-keeps-its-message",
        ("this is",),
    ),
    score(
        JUDGMENTS,
        b'{"query_id":"q1","ranking":[1, 2]}\n',
        "run:1:",
        "score-run-bad-entry-keeps-its-message",
        ("this is",),
    ),
]

# Empty judgments name the file they are; a BEIR file without its header is told it lacks one.
CASES += [
    HostileCase(
        "K.3",
        "score-empty-judgments-names-the-file",
        ("score", "-j", "{tmp}/empty.jsonl", "-r", "{tmp}/r"),
        files={"empty.jsonl": b"", "r": RUN},
        stderr_has="empty.jsonl: a judgments file has one JSON object per line",
    ),
    HostileCase(
        "K.3",
        "validate-beir-without-its-header",
        ("validate", "-j", "{tmp}/qrels.tsv"),
        files={"qrels.tsv": b"q1\td1\t1\nq2\td2\t0\n"},
        stderr_has="got 3 (BEIR qrels start with the header line query-id, corpus-id, score)",
    ),
]
