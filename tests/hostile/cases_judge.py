"""Hostile inputs to ``retrieval-eval judge``: its queue, its cache (the machine labels), its options.

Every refusal comes before the judge is asked anything (no call is paid for a run that
cannot finish), names the file and line, and leaves the machine labels as they were.
"""

from __future__ import annotations

import json
from pathlib import Path

from hostile.case import HostileCase

QUEUE_LINE = {
    "query_id": "q1",
    "query": "a question",
    "doc_uri": "d1",
    "rank": 1,
    "surfaced_by": "head",
    "move": 0.1,
    "chunk_text": "a passage",
    "labeled_by": "todo:human:<your name>",
}
QUEUE = (json.dumps(QUEUE_LINE) + "\n").encode()
LABEL = {
    "query_id": "q1",
    "doc_uri": "d1",
    "role": "hole",
    "status": "labeled",
    "grade": 2,
    "majority": 2,
    "samples": [2, 2, 2],
    "judge": "command",
    "model": "m",
    "prompt_sha256": "0" * 64,
    "temperature": None,
    "query_sha256": "1" * 64,
    "text_sha256": "2" * 64,
    "tokens": 0,
}
NEVER = "python3 -c 'import sys; sys.exit(9)'"  # a judge that must not be reached
SILENT = "python3 -c 'import sys; sys.stdin.read(); print(\"no json here\")'"


def _label(**changes: object) -> bytes:
    return (json.dumps({**LABEL, **changes}) + "\n").encode()


def _unchanged(name: str, data: bytes):  # type: ignore[no-untyped-def]
    def check(folder: Path) -> None:
        assert (folder / name).read_bytes() == data, f"{name} was changed"

    return check


def _absent(name: str):  # type: ignore[no-untyped-def]
    def check(folder: Path) -> None:
        assert not (folder / name).exists(), f"{name} was written"

    return check


def _case(name: str, files: dict[str, bytes], stderr_has: str, *extra: str, **kwargs: object) -> HostileCase:
    argv = ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", *(extra or ("--command", NEVER)))
    return HostileCase("judge", name, argv, files=files, stderr_has=stderr_has, **kwargs)  # type: ignore[arg-type]


CASES: list[HostileCase] = [
    # -- the queue --------------------------------------------------------------------------
    _case("queue-not-json", {"q.jsonl": QUEUE + b"{oops\n"}, "queue:2:", check=_absent("m.jsonl")),
    _case("queue-not-an-object", {"q.jsonl": QUEUE + b"[1, 2]\n"}, "queue:2: expected a JSON object"),
    _case(
        "queue-line-already-labeled",
        {"q.jsonl": (json.dumps({**QUEUE_LINE, "relevance": 2}) + "\n").encode()},
        "queue:1: this line is already labeled (it has relevance)",
    ),
    _case(
        "queue-line-without-query-id",
        {"q.jsonl": (json.dumps({k: v for k, v in QUEUE_LINE.items() if k != "query_id"}) + "\n").encode()},
        "queue:1: query_id is missing",
    ),
    _case(
        "queue-chunk-text-not-a-string",
        {"q.jsonl": (json.dumps({**QUEUE_LINE, "chunk_text": 5}) + "\n").encode()},
        "queue:1: chunk_text is not a non-empty string",
    ),
    _case(
        "queue-lone-surrogate",
        {"q.jsonl": QUEUE + b'{"query_id": "q\\ud800", "doc_uri": "d"}\n'},
        "queue:2: not valid Unicode",
    ),
    _case("queue-missing", {}, "q.jsonl"),
    # -- the machine labels read back as the cache -------------------------------------------
    _case(
        "cache-sample-out-of-scale",
        {"q.jsonl": QUEUE, "m.jsonl": _label(samples=[2, 7, 2])},
        "machine labels:1: samples: 7 is not a grade 0-3, refused, unparseable or null",
        check=_unchanged("m.jsonl", _label(samples=[2, 7, 2])),
    ),
    _case(
        "cache-sample-a-boolean",
        {"q.jsonl": QUEUE, "m.jsonl": _label(samples=[True])},
        "machine labels:1: samples: True is not a grade",
        check=_unchanged("m.jsonl", _label(samples=[True])),
    ),
    _case(
        "cache-unknown-status", {"q.jsonl": QUEUE, "m.jsonl": _label(status="fine")}, "machine labels:1: status 'fine'"
    ),
    _case("cache-unknown-role", {"q.jsonl": QUEUE, "m.jsonl": _label(role="gold")}, "machine labels:1: role 'gold'"),
    _case("cache-grade-a-string", {"q.jsonl": QUEUE, "m.jsonl": _label(grade="2")}, "machine labels:1: grade: '2'"),
    _case("cache-tokens-negative", {"q.jsonl": QUEUE, "m.jsonl": _label(tokens=-1)}, "machine labels:1: tokens must"),
    _case(
        "cache-samples-not-a-list", {"q.jsonl": QUEUE, "m.jsonl": _label(samples=2)}, "machine labels:1: samples must"
    ),
    _case("cache-truncated", {"q.jsonl": QUEUE, "m.jsonl": _label() + b'{"query_id": "q1", "doc'}, "machine labels:2:"),
    # -- the options ------------------------------------------------------------------------
    _case("two-judges", {"q.jsonl": QUEUE}, "give one judge", "--command", NEVER, "--endpoint", "http://127.0.0.1:9"),
    _case("no-judge", {"q.jsonl": QUEUE}, "give one judge", "--samples", "3"),
    _case("endpoint-without-model", {"q.jsonl": QUEUE}, "--endpoint needs --model", "--endpoint", "http://127.0.0.1:9"),
    _case(
        "endpoint-not-http",
        {"q.jsonl": QUEUE},
        "must be an http(s) URL",
        "--endpoint",
        "file:///etc/passwd",
        "--model",
        "m",
    ),
    HostileCase(
        "judge",
        "key-variable-unset",
        (
            "judge",
            "--queue",
            "q.jsonl",
            "--out",
            "m.jsonl",
            "--endpoint",
            "http://127.0.0.1:9",
            "--model",
            "m",
            "--api-key-env",
            "NO_SUCH_JUDGE_KEY_VARIABLE",
        ),
        files={"q.jsonl": QUEUE},
        stderr_has="NO_SUCH_JUDGE_KEY_VARIABLE (--api-key-env) is empty or unset",
    ),  # fmt: skip
    _case(
        "command-not-found", {"q.jsonl": QUEUE}, "the judge command cannot be started", "--command", "no-such-judge-x"
    ),
    _case("command-unbalanced-quote", {"q.jsonl": QUEUE}, "--command", "--command", "judge 'oops"),
    _case(
        "out-is-the-queue",
        {"q.jsonl": QUEUE},
        "is also an input (the queue file",
        "--command",
        NEVER,
        "--out",
        "q.jsonl",
    ),
    _case(
        "out-in-a-missing-folder",
        {"q.jsonl": QUEUE},
        "cannot be written: its folder",
        "--command",
        NEVER,
        "--out",
        "nowhere/m.jsonl",
    ),
    _case(
        "prompt-not-utf8",
        {"q.jsonl": QUEUE, "p.txt": b"\xff\xfe grade"},
        "prompt: not valid UTF-8",
        "--command",
        NEVER,
        "--prompt-file",
        "p.txt",
    ),  # fmt: skip
    _case("samples-zero", {"q.jsonl": QUEUE}, "--samples", "--command", NEVER, "--samples", "0"),
    _case("max-calls-negative", {"q.jsonl": QUEUE}, "--max-calls", "--command", NEVER, "--max-calls", "-1"),
    # -- a judge that answers nothing usable: a run that says so and fails, no grade invented ----
    HostileCase(
        "judge",
        "command-printing-garbage-only",
        ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", SILENT, "--samples", "1"),
        files={"q.jsonl": QUEUE},
        exit_code=2,
        stdout_has="1 request(s) got no answer (no answer for this request); run again to retry",
        stderr_has="the judge answered none of the 1 request(s) it was asked",
    ),
]

# -- score --unjudged machine reads the machine labels: refused with file and line, no report --
SCORED = b'{"query_id": "q1", "query": "a question", "doc_uri": "d1", "relevance": 1}\n'
RANKED = b'{"query_id": "q1", "ranking": ["d1", "d2"]}\n'


def _score_case(name: str, machine: bytes, stderr_has: str) -> HostileCase:
    return HostileCase(
        "judge",
        name,
        ("score", "-j", "j.jsonl", "-r", "run.jsonl", "--unjudged", "machine", "--machine-labels", "m.jsonl",
         "-g", "precision@10:0.5", "--out", "report.json"),
        files={"j.jsonl": SCORED, "run.jsonl": RANKED, "m.jsonl": machine},
        stderr_has=stderr_has,
        check=_absent("report.json"),
    )  # fmt: skip


CASES += [
    _score_case("score-machine-labels-not-json", b"{nope\n", "machine labels:1:"),
    _score_case("score-machine-labels-bad-grade", _label(grade=9), "machine labels:1: grade: 9 is not a grade 0-3"),
    _score_case("score-machine-labels-a-judgments-line", SCORED, "machine labels:1: samples must be a list"),
    _score_case(
        "score-machine-labels-empty-sample-text", _label(judge=""), "machine labels:1: judge is not a non-empty"
    ),
    HostileCase(
        "judge",
        "score-machine-labels-missing",
        ("score", "-j", "j.jsonl", "-r", "run.jsonl", "--unjudged", "machine", "--machine-labels", "nope.jsonl"),
        files={"j.jsonl": SCORED, "run.jsonl": RANKED},
        stderr_has="nope.jsonl",
    ),
    HostileCase(
        "judge",
        "judgments-refuse-a-machine-labels-line",
        ("validate", "-j", "m.jsonl"),
        files={"m.jsonl": _label()},
        stderr_has="relevance",
    ),
]
