"""Files of the wrong kind or with nothing in them, through the readers a first trial met.

``validate -r`` given a report said "not valid JSON (Expecting property name...)" where
``score -r`` said "this is a report, not a run"; the library's ``load_run`` likewise. A report
file that is empty, or white space only, was "not valid JSON (Expecting value)" at a line that
holds nothing. Each now says what the file is.

``item`` is ``R8.<n>``.
"""

from __future__ import annotations

from hostile.case import HostileCase

CASES: list[HostileCase] = []

JUDGMENTS = b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n'
RUN = b'{"query_id":"q1","ranking":["d1"]}\n'
# The library's load_run on the path given, its refusal printed as the CLI would exit.
LOAD_RUN = (
    "import sys, retrieval_eval\n"
    "try:\n"
    "    retrieval_eval.load_run(sys.argv[1])\n"
    "except retrieval_eval.InputError as exc:\n"
    "    print(exc, file=sys.stderr); raise SystemExit(2)\n"
)
REPORT = b'{\n  "spec_version": "1",\n  "tool": {"name": "retrieval-eval", "version": "1.0.0"}\n}\n'

CASES += [
    HostileCase(
        "R8.3",
        "validate-run-given-a-report",
        ("validate", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/report.json"),
        files={"j.jsonl": JUDGMENTS, "report.json": REPORT},
        stderr_has="run: this is a report, not a run",
    ),
    HostileCase(
        "R8.3",
        "validate-run-given-the-judgments",
        ("validate", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/j2.jsonl"),
        files={"j.jsonl": JUDGMENTS, "j2.jsonl": JUDGMENTS},
        stderr_has="run: this is judgments, not a run",
    ),
    HostileCase(
        "R8.3",
        "library-load-run-given-a-report",
        ("{tmp}/report.json",),
        files={"report.json": REPORT},
        code=LOAD_RUN,
        stderr_has="run: this is a report, not a run",
    ),
]

for _name, _bytes, _says in (
    ("empty", b"", "the file is empty"),
    ("blank", b"  \n\t\n", "the file holds only white space"),
    ("bom-only", b"\xef\xbb\xbf", "the file is empty"),
):
    CASES += [
        HostileCase(
            "R8.4",
            f"compare-base-{_name}",
            ("compare", "--base", "{tmp}/base.json", "--head", "{tmp}/base.json"),
            files={"base.json": _bytes},
            stderr_has=_says,
            stdout_lacks=("Expecting value",),
        ),
        HostileCase(
            "R8.4",
            f"render-report-{_name}",
            ("render", "--report", "{tmp}/r.json"),
            files={"r.json": _bytes},
            stderr_has=_says,
            stdout_lacks=("Expecting value",),
        ),
        HostileCase(
            "R8.4",
            f"score-baseline-{_name}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "--baseline", "{tmp}/base.json"),
            files={"j.jsonl": JUDGMENTS, "r.jsonl": RUN, "base.json": _bytes},
            stderr_has=_says,
            stdout_lacks=("Expecting value",),
        ),
    ]

# plan with a misspelled metric: "unknown metric", not "the report has no values of it".
CASES.append(
    HostileCase(
        "R8.5",
        "plan-unknown-metric",
        ("plan", "--report", "{tmp}/base.json", "--metric", "recal@5"),
        setup=lambda folder: _scored_report(folder),
        stderr_has="unknown metric 'recal@5'; known metrics: precision@k",
    )
)


def _scored_report(folder: object) -> None:
    from pathlib import Path

    from helpers import run_cli

    where = Path(str(folder))
    (where / "j.jsonl").write_bytes(JUDGMENTS)
    (where / "r.jsonl").write_bytes(RUN)
    judgments, run, out = (str(where / name) for name in ("j.jsonl", "r.jsonl", "base.json"))
    done = run_cli("score", "-j", judgments, "-r", run, "--out", out)
    assert done.code == 0, done.stderr


# Rankings by query in one object (the library's dict shape) given as a run file: told as not a
# run line, with the shape a run line has, not "query_id must be a non-empty string".
for _name, _run in (
    ("dict-of-rankings", b'{"q1": ["d1", "d2"], "q2": ["d3"]}\n'),
    ("dict-of-scores", b'{"q1": {"d1": 1.5}}\n'),
    ("empty-object", b"{}\n"),
    ("many-queries", b'{"a": [], "b": [], "c": [], "d": []}\n'),
):
    CASES.append(
        HostileCase(
            "R8.6",
            f"score-run-{_name}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.json"),
            files={"j.jsonl": JUDGMENTS, "r.json": _run},
            stderr_has='run:1: not a run line: a run has one object per query, {"query_id": "q1", "ranking"',
        )
    )

# A run line without query_id says the field is missing, as a judgments line does.
CASES.append(
    HostileCase(
        "R8.6",
        "score-run-line-without-query-id",
        ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl"),
        files={"j.jsonl": JUDGMENTS, "r.jsonl": b'{"ranking": ["d1"]}\n'},
        stderr_has="run:1: missing required field query_id",
    )
)

# An empty run is refused wherever a run is read, as score refuses it: validate -r and load_run too.
for _name, _bytes in (("empty", b""), ("blank-lines", b"\n\n  \n")):
    CASES += [
        HostileCase(
            "R8.7",
            f"validate-run-{_name}",
            ("validate", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl"),
            files={"j.jsonl": JUDGMENTS, "r.jsonl": _bytes},
            stderr_has="run: the file holds no ranking",
        ),
        HostileCase(
            "R8.7",
            f"library-load-run-{_name}",
            ("{tmp}/r.jsonl",),
            files={"r.jsonl": _bytes},
            code=LOAD_RUN,
            stderr_has="run: the file holds no ranking",
        ),
    ]

# A line cut short: json's message names where ("Unterminated string starting at"), so the refusal
# says the character, not a sentence that stops at "at".
_CUT = b'{"query_id": "q1", "doc_uri": "d'
for _name, _argv, _files in (
    ("judgments", ("validate", "-j", "{tmp}/j.jsonl"), {"j.jsonl": JUDGMENTS + _CUT + b"\n"}),
    ("run", ("validate", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl"), {"j.jsonl": JUDGMENTS, "r.jsonl": _CUT}),
):
    CASES.append(
        HostileCase(
            "R8.7",
            f"{_name}-line-cut-short-says-where",
            _argv,
            files=_files,
            stderr_has="not valid JSON (Unterminated string starting at: character 31)",
        )
    )
