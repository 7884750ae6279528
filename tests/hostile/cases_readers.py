"""Hostile inputs to the readers: lone surrogates, TREC lines trec_eval accepts, numbers it would not read.

18: a ``\\ud800`` escape names no character; every reader refuses it at read time
    with ``file:line``, and ``convert`` prints nothing before it has checked everything.
19: trec_eval ignores any field after a run's tag; so do we, the first six still checked.
21: a TREC score or qrels grade is a number only in the forms trec_eval reads in full.
"""

from __future__ import annotations

from pathlib import Path

from hostile.case import HostileCase

LABEL = b'{"query_id": "q1", "doc_uri": "d1", "relevance": 1}\n'
RUN = b'{"query_id": "q1", "ranking": ["d1"]}\n'
CORPUS = (
    b'{"corpus_fingerprint": "c", "chunker_fingerprint": "k", "chunks": '
    b'[{"chunk_id": "c1:' + b"0" * 32 + b'", "doc_uri": "d1"}]}\n'
)


def _unchanged(name: str, data: bytes):  # type: ignore[no-untyped-def]
    def check(folder: Path) -> None:
        assert (folder / name).read_bytes() == data, f"{name} was changed"

    return check


def _absent(name: str):  # type: ignore[no-untyped-def]
    def check(folder: Path) -> None:
        assert not (folder / name).exists(), f"{name} was written"

    return check


SURROGATE_LABELS = LABEL + b'{"query_id": "q2", "query": "caf\\ud800", "doc_uri": "d2", "relevance": 1}\n'
SURROGATE_KEY = LABEL + b'{"query_id": "q2", "doc_uri": "d2", "relevance": 1, "\\udc00note": "x"}\n'
SURROGATE_ID = LABEL + b'{"query_id": "q\\udfff", "doc_uri": "d2", "relevance": 0}\n'

CASES: list[HostileCase] = [
    # -- 18: lone surrogates, refused where they are read -------------------------------
    HostileCase(
        "18",
        "validate-refuses-a-lone-surrogate",
        ("validate", "-j", "j.jsonl"),
        files={"j.jsonl": SURROGATE_LABELS},
        stderr_has="judgments:2: not valid Unicode (\\ud800 is a lone surrogate",
    ),
    HostileCase(
        "18",
        "score-refuses-a-lone-surrogate",
        ("score", "-j", "j.jsonl", "-r", "run.jsonl", "--out", "report.json"),
        files={"j.jsonl": SURROGATE_ID, "run.jsonl": RUN},
        stderr_has="judgments:2: not valid Unicode (\\udfff",
        check=_absent("report.json"),
    ),
    HostileCase(
        "18",
        "score-refuses-a-lone-surrogate-in-a-field-name",
        ("score", "-j", "j.jsonl", "-r", "run.jsonl"),
        files={"j.jsonl": SURROGATE_KEY, "run.jsonl": RUN},
        stderr_has="judgments:2: not valid Unicode (\\udc00",
    ),
    HostileCase(
        "18",
        "drift-fix-refuses-a-lone-surrogate-and-keeps-the-file",
        ("drift", "-j", "j.jsonl", "-c", "corpus.json", "--fix"),
        files={"j.jsonl": SURROGATE_LABELS, "corpus.json": CORPUS},
        stderr_has="judgments:2: not valid Unicode",
        check=_unchanged("j.jsonl", SURROGATE_LABELS),
    ),
    HostileCase(
        "18",
        "convert-to-qrels-prints-nothing",
        ("convert", "j.jsonl", "--to", "trec-qrels"),
        files={"j.jsonl": SURROGATE_LABELS},
        stderr_has="judgments:2: not valid Unicode",
    ),
    HostileCase(
        "18",
        "convert-to-judgments-writes-nothing",
        ("convert", "j.jsonl", "--from", "judgments", "--to", "judgments", "--out", "out.jsonl"),
        files={"j.jsonl": SURROGATE_ID},
        stderr_has="judgments:2: not valid Unicode",
        check=_absent("out.jsonl"),
    ),
    HostileCase(
        "18",
        "run-jsonl-refuses-a-lone-surrogate",
        ("score", "-j", "j.jsonl", "-r", "run.jsonl"),
        files={"j.jsonl": LABEL, "run.jsonl": RUN + b'{"query_id": "q2", "ranking": ["\\ud800"]}\n'},
        stderr_has="run:2: not valid Unicode (\\ud800",
    ),
    HostileCase(
        "18",
        "an-escaped-pair-is-one-character-and-accepted",
        ("validate", "-j", "j.jsonl"),
        files={"j.jsonl": LABEL + b'{"query_id": "q2", "query": "\\ud83d\\ude00", "doc_uri": "d2", "relevance": 1}\n'},
        exit_code=0,
    ),
    # -- 19: fields after the run tag ---------------------------------------------------
    HostileCase(
        "19",
        "score-ignores-fields-after-the-tag",
        ("score", "-j", "j.jsonl", "-r", "run.trec", "--json"),
        files={"j.jsonl": LABEL, "run.trec": b"q1 Q0 d1 1 2.5 tag extra fields here\nq1 Q0 d2 2 1.5 tag\n"},
        exit_code=0,
        stdout_has='"recall@10": {\n      "value": 1.0',
    ),
    HostileCase(
        "19",
        "validate-ignores-fields-after-the-tag",
        ("validate", "-j", "j.jsonl", "-r", "run.trec"),
        files={"j.jsonl": LABEL, "run.trec": b"q1 Q0 d1 1 2.5 tag 0.93\n"},
        exit_code=0,
    ),
    HostileCase(
        "19",
        "convert-reads-a-run-with-fields-after-the-tag",
        ("convert", "run.trec", "--to", "run-jsonl"),
        files={"run.trec": b"q1 Q0 d1 1 2.5 tag 0.93\n"},
        exit_code=0,
        stdout_has='{"query_id":"q1","ranking":["d1"]}',
    ),
    HostileCase(
        "19",
        "five-fields-are-still-refused",
        ("score", "-j", "j.jsonl", "-r", "run.trec", "--run-format", "trec"),
        files={"j.jsonl": LABEL, "run.trec": b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 tag\n"},
        stderr_has="run:2: expected 6 columns (query Q0 doc rank score tag), got 5",
    ),
    HostileCase(
        "19",
        "a-bad-score-before-the-tag-is-still-refused",
        ("score", "-j", "j.jsonl", "-r", "run.trec"),
        files={"j.jsonl": LABEL, "run.trec": b"q1 Q0 d1 1 high tag 2.5\n"},
        stderr_has="run:1: score must be a finite number, got 'high'",
    ),
]

# -- 21: numbers trec_eval would read otherwise (or not at all) ---------------------------
for name, score in [
    ("underscores", "1_000"),
    ("arabic-indic-digits", "\u0661\u0662"),
    ("fullwidth-digits", "\uff11"),
    ("hex-float", "0x1p3"),
    ("trailing-garbage", "1e5x"),
    ("infinity-spelled-out", "Infinity"),
    ("bare-exponent", "1e"),
]:
    CASES.append(
        HostileCase(
            "21",
            f"trec-score-{name}",
            ("score", "-j", "j.jsonl", "-r", "run.trec", "--run-format", "trec"),
            files={"j.jsonl": LABEL, "run.trec": f"q1 Q0 d1 1 {score} tag\n".encode()},
            stderr_has=f"run:1: score must be a finite number, got {score!r}",
        )
    )
for name, grade in [("underscores", "1_0"), ("arabic-indic-digits", "\u0661"), ("plus-plus", "++1")]:
    CASES.append(
        HostileCase(
            "21",
            f"qrels-grade-{name}",
            ("convert", "q.qrels", "--to", "judgments"),
            files={"q.qrels": f"q1 0 d1 {grade}\n".encode()},
            stderr_has=f"qrels:1: relevance must be an integer, got {grade!r}",
        )
    )
CASES += [
    HostileCase(
        "21",
        "trec-scores-in-every-form-strtod-reads-in-full",
        ("score", "-j", "j.jsonl", "-r", "run.trec", "--json"),
        files={
            "j.jsonl": LABEL,
            "run.trec": b"q1 Q0 d1 1 +1.5E+2 tag\nq1 Q0 d2 2 .5 tag\nq1 Q0 d3 3 7. tag\nq1 Q0 d4 4 -3e-2 tag\n",
        },
        exit_code=0,
        stdout_has='"d1",\n      "d3",\n      "d2",\n      "d4"',
    ),
]

# 12: endless inputs. Every line reader stops at a line limit and a file limit (both settable), so
# /dev/zero (one line that never ends) and an endless stream of lines are refused, never read whole.
SMALL_LIMITS = {"RETRIEVAL_EVAL_MAX_LINE_BYTES": "65536", "RETRIEVAL_EVAL_MAX_INPUT_BYTES": "1048576"}
LINE_PAST = "a line is longer than 65,536 bytes, the most accepted (set RETRIEVAL_EVAL_MAX_LINE_BYTES to raise it)"
ENDLESS = [
    ("judgments", ("validate", "-j", "/dev/zero"), "judgments:1: " + LINE_PAST),
    ("run", ("score", "-j", "j.jsonl", "-r", "/dev/zero"), "run:1: " + LINE_PAST),
    ("trec-run", ("score", "-j", "j.jsonl", "-r", "/dev/zero", "--run-format", "trec"), "run:1: " + LINE_PAST),
    ("corpus", ("drift", "-j", "j.jsonl", "-c", "/dev/zero"), "corpus:1: " + LINE_PAST),
    ("convert-input", ("convert", "/dev/zero", "--to", "trec-qrels"), "input:1: " + LINE_PAST),
    ("qrels", ("convert", "/dev/zero", "--from", "trec-qrels", "--to", "judgments"), "qrels:1: " + LINE_PAST),
    ("validate-run", ("validate", "-j", "j.jsonl", "-r", "/dev/zero"), "run:1: " + LINE_PAST),
]
for name, argv, message in ENDLESS:
    CASES.append(
        HostileCase("12", f"dev-zero-as-{name}", argv, files={"j.jsonl": LABEL}, env=SMALL_LIMITS, stderr_has=message)
    )
CASES += [
    HostileCase(
        "12",
        "many-short-lines-past-the-file-limit",
        ("validate", "-j", "j.jsonl"),
        files={"j.jsonl": LABEL * 40_000},
        env=SMALL_LIMITS,
        stderr_has="judgments: the file is longer than 1,048,576 bytes",
    ),
    HostileCase(
        "12",
        "dev-zero-with-the-default-limits",
        ("validate", "-j", "/dev/zero"),
        stderr_has="judgments:1: a line is longer than 268,435,456 bytes",
    ),
    HostileCase(
        "12",
        "a-long-line-under-the-limit-still-reads",
        ("validate", "-j", "j.jsonl", "--json"),
        files={"j.jsonl": b'{"query_id": "q1", "doc_uri": "d1", "relevance": 1, "notes": "' + b"x" * 60_000 + b'"}\n'},
        env=SMALL_LIMITS,
        exit_code=0,
    ),
]

# 20: the qrels iteration column (subtopics, judgment groups) is never dropped silently.
SUBTOPIC_QRELS = b"q1 0 d1 1\nq1 1 d1 0\nq1 0 d2 1\n"


def _keeps_iteration(tmp: Path) -> None:
    lines = (tmp / "out.jsonl").read_text().splitlines()
    assert [line.count('"qrels_iteration"') for line in lines] == [1, 1, 1], lines


CASES += [
    HostileCase(
        "20",
        "convert-warns-and-keeps-the-iteration-column",
        ("convert", "s.qrels", "--to", "judgments", "--out", "out.jsonl"),
        files={"s.qrels": SUBTOPIC_QRELS},
        exit_code=0,
        stderr_has="warning  qrels: the iteration column holds 2 values (0, 1)",
        check=_keeps_iteration,
    ),
    HostileCase(
        "20",
        "validate-names-the-column-behind-the-duplicates",
        ("validate", "-j", "j.jsonl"),
        files={
            "j.jsonl": b'{"query_id":"q1","doc_uri":"d1","relevance":1,"qrels_iteration":"0"}\n'
            b'{"query_id":"q1","doc_uri":"d1","relevance":0,"qrels_iteration":"1"}\n'
        },
        exit_code=1,
        stdout_has="the labels differ in qrels_iteration (0, 1), the TREC qrels iteration column",
    ),
    HostileCase(
        "20",
        "one-iteration-value-changes-nothing",
        ("convert", "s.qrels", "--to", "judgments"),
        files={"s.qrels": b"q1 0 d1 1\nq1 0 d2 0\n"},
        exit_code=0,
        stdout_has='{"query_id":"q1","doc_uri":"d1","relevance":1}\n{"query_id":"q1","doc_uri":"d2","relevance":0}',
    ),
]

# -- drift reads judgments JSONL (and --fix writes it back): qrels are refused for what they are --
_QRELS_CORPUS = {"corpus.json": CORPUS}
CASES += [
    HostileCase(
        "18",
        f"drift-refuses-{name}-qrels-by-name",
        ("drift", "-j", f"qrels.{suffix}", "-c", "corpus.json", "--fix"),
        files={f"qrels.{suffix}": data, **_QRELS_CORPUS},
        stderr_has=f"holds {name.upper()} qrels: drift checks judgments JSONL",
        stdout_lacks=("not valid JSON",),
        check=_unchanged(f"qrels.{suffix}", data),
    )
    for name, suffix, data in (
        ("trec", "txt", b"q1 0 d1 1\n"),
        ("beir", "tsv", b"query-id\tcorpus-id\tscore\nq1\td1\t1\n"),
    )
]
