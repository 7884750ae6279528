"""Runs that hold no ranking, runs that name none of the judged queries, and gates read on a
run none of whose keys can match a label.

An empty run (the retriever wrote nothing) is refused with exit 2 in every form a file can be
empty in; a run whose queries are none of the judged ones is INDETERMINATE, and so is every
gate read on it: no gate says FAIL or PASS under a verdict it did not decide.

``item`` is ``E.<n>``.
"""

from __future__ import annotations

from hostile.case import HostileCase
from hostile.cases_action import runner, with_runner_folder

CASES: list[HostileCase] = []

JUDGMENTS = (
    b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n'
    b'{"query_id":"q2","query":"y","doc_uri":"d2","relevance":1}\n'
)
EMPTY_RUNS = {
    "zero-bytes": b"",
    "blank-lines": b"\n\n\n",
    "crlf-blank-lines": b"\r\n\r\n",
    "byte-order-mark-only": b"\xef\xbb\xbf",
    "byte-order-mark-and-blank-lines": b"\xef\xbb\xbf\n\n",
}
REFUSED = "run: the file holds no ranking"

for _name, _run in EMPTY_RUNS.items():
    CASES.append(
        HostileCase(
            "E.1",
            f"score-empty-run-{_name}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "--out", "{tmp}/report.json"),
            files={"j.jsonl": JUDGMENTS, "r.jsonl": _run},
            stderr_has=REFUSED,
            stdout_lacks=("PASS", "FAIL"),
        )
    )
    if _name not in ("zero-bytes", "byte-order-mark-and-blank-lines"):
        continue  # the TREC reader's empty files: two forms (the JSONL reader's five cover the rest)
    CASES.append(
        HostileCase(
            "E.1",
            f"score-empty-trec-run-{_name}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.txt", "--run-format", "trec"),
            files={"j.jsonl": JUDGMENTS, "r.txt": _run},
            stderr_has=REFUSED,
        )
    )

# A gate does not make an empty run any less empty, nor does a baseline.
CASES.append(
    HostileCase(
        "E.1",
        "score-empty-run-with-a-gate",
        ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", "recall@10:<=0.5"),
        files={"j.jsonl": JUDGMENTS, "r.jsonl": b""},
        stderr_has=REFUSED,
        stdout_lacks=("PASS",),
    )
)
CASES.append(
    HostileCase(
        "E.1",
        "library-empty-rows",
        ("{tmp}/j.jsonl",),
        code=(
            "import sys, retrieval_eval\n"
            "try:\n"
            "    retrieval_eval.evaluate(judgments=sys.argv[1], run=[])\n"
            "except retrieval_eval.InputError as exc:\n"
            "    print(exc, file=sys.stderr); sys.exit(2)\n"
        ),
        files={"j.jsonl": JUDGMENTS},
        stderr_has="run: the run holds no ranking",
    )
)
# The action publishes the refusal on the pull request, never an old PASS.
CASES.append(
    HostileCase(
        "E.1",
        "action-empty-run",
        ("action",),
        files={"judgments.jsonl": JUDGMENTS, "run.jsonl": b"\n"},
        env=runner(),
        setup=with_runner_folder,
        stdout_has=REFUSED,  # the action speaks through the runner's workflow commands
        github=True,
        comment_has="the file holds no ranking",
    )
)

# Lines, but not one query the judgments name: every judged query scores 0 for a naming slip.
NAMED_APART = {
    "numbers-for-names": b'{"query_id":"1","ranking":["d1"]}\n{"query_id":"2","ranking":["d2"]}\n',
    "another-sets-queries": b'{"query_id":"x1","ranking":["d1","d2"]}\n',
    "empty-rankings-of-other-queries": b'{"query_id":"x1","ranking":[]}\n',
    "case-differs": b'{"query_id":"Q1","ranking":["d1"]}\n{"query_id":"Q2","ranking":["d2"]}\n',
}
for _name, _run in NAMED_APART.items():
    CASES.append(
        HostileCase(
            "E.2",
            f"score-run-names-no-judged-query-{_name}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", "recall@10:0.5", "-g", "recall@10:<=0.5"),
            files={"j.jsonl": JUDGMENTS, "r.jsonl": _run},
            exit_code=1,
            stdout_has="no query of the run is a query the judgments name",
            stdout_lacks=("FAIL", "PASS", "verdict  FAIL"),
        )
    )
# One judged query in the run is enough to score it: a bad retriever FAILs as it should.
CASES.append(
    HostileCase(
        "E.2",
        "score-one-judged-query-among-others-is-scored",
        ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", "recall@10:0.5"),
        files={"j.jsonl": JUDGMENTS, "r.jsonl": b'{"query_id":"q1","ranking":["zz"]}\n{"query_id":"x","ranking":[]}\n'},
        exit_code=1,
        stdout_has="verdict  FAIL",
        stdout_lacks=("no query of the run is a query the judgments name",),
    )
)

# Chunk labels against a run of other ids: the gates are not decided either way.
CHUNK_JUDGMENTS = (
    b'{"query_id":"q1","query":"x","doc_uri":"kb://a","chunk_id":"c1:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","relevance":1}\n'
)
for _gate in ("recall@10:0.5", "recall@10:<=0.5", "precision@10:<=0.5"):
    CASES.append(
        HostileCase(
            "E.3",
            f"score-unmatched-ids-gate-{_gate.replace(':', '-').replace('@', '-')}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", _gate),
            files={"j.jsonl": CHUNK_JUDGMENTS, "r.jsonl": b'{"query_id":"q1","ranking":["doc-0","doc-1"]}\n'},
            exit_code=1,
            stdout_has=f"INDETERMINATE {_gate}",
            stdout_lacks=(f"FAIL          {_gate}", f"PASS          {_gate}", "verdict  FAIL", "verdict  PASS"),
        )
    )
