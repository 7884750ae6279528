"""Round 6: judgments in qrels form everywhere score reads them, lone surrogates in documents,
the event's payload read with them let through, and the page's labels taken from the index.

``item`` is ``R6.<n>``, the class of defect.
"""

from __future__ import annotations

import json
from pathlib import Path

from hostile.case import HostileCase
from hostile.cases_action import WORKSPACE, runner, with_runner_folder

CASES: list[HostileCase] = []

PULL_PAYLOAD = {"number": 7, "pull_request": {"number": 7, "base": {"sha": "0" * 40, "ref": "main"}}}


def _event(**base: str) -> bytes:
    payload = json.loads(json.dumps(PULL_PAYLOAD))
    payload["pull_request"]["base"].update(base)
    return json.dumps(payload).encode()


def _nothing_unscrubbed(tmp: Path) -> None:
    for path in tmp.rglob("*"):
        if path.is_file():
            path.read_bytes().decode("utf-8")  # every file written is UTF-8 text


CASES.append(
    HostileCase(
        "R6.1",
        "event-base-ref-lone-surrogate",
        ("action",),
        files={**WORKSPACE, "event.json": _event(ref="main\ud800")},
        env=runner(GITHUB_EVENT_PATH="{tmp}/event.json"),
        setup=with_runner_folder,
        exit_code=0,
        check=_nothing_unscrubbed,
        github=True,
        comment_has="retrieval-eval",
    )
)
for _name, _base in (
    ("event-base-sha-lone-surrogate", {"sha": "0" * 39 + "\ud800"}),
    ("event-base-sha-surrogate-only", {"sha": "\udfff"}),
    ("event-base-ref-lone-low-surrogate", {"ref": "\udc00main"}),
):
    CASES.append(
        HostileCase(
            "R6.1",
            _name,
            ("action",),
            files={**WORKSPACE, "event.json": _event(**_base)},
            env=runner(GITHUB_EVENT_PATH="{tmp}/event.json"),
            setup=with_runner_folder,
            exit_code=0,
            check=_nothing_unscrubbed,
            github=True,
            comment_has="retrieval-eval",
        )
    )


# R6.2: a document's lone surrogate is named by the line of its escape, not of another text
# that reads alike: an escaped backslash before "ud800", a paired half, a lowercase fold that
# lengthens the text before it ("İ" is two characters lowercased).
_SURROGATE_LINES = {
    "after-escaped-backslash": (b'{\n "note": "\\\\ud800",\n "name": "x\\ud800"\n}\n', 3),
    "after-its-pair": (b'{\n "ok": "\\ud83d\\ude00",\n "bad": "\\ud83d"\n}\n', 3),
    "after-dotted-capitals": (('{\n "n": "' + "\u0130" * 40 + '",\n "g": "\\uD800"\n}\n').encode(), 3),
    "low-half-after-a-pair": (b'{"a": "\\ud83d\\ude00",\n"b": 1,\n"c": "\\ude00"}', 3),
}
for _name, (_data, _line) in _SURROGATE_LINES.items():
    CASES.append(
        HostileCase(
            "R6.2",
            f"report-lone-surrogate-line-{_name}",
            ("render", "--report", "r.json", "--format", "text"),
            files={"r.json": _data},
            stderr_has=f"report (r.json):{_line}: not valid Unicode",
        )
    )


# R6.3: drift refuses qrels by name, and only qrels: a JSONL file that is not UTF-8 (UTF-16 from
# a shell's redirection, gzip) or whose first line is broken is no TREC qrels, and converting
# it as the refusal said would fail too; it is refused as the judgments reader words it.
_CORPUS = (Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "demo" / "corpus.json").read_bytes()
_LABEL = '{"query_id":"q1","doc_uri":"d1","relevance":1}\n'
_NOT_QRELS = {
    "utf16": (_LABEL.encode("utf-16"), "judgments:1: not valid UTF-8"),
    "gzip": (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\x8b" * 20 + b"\n", "judgments:1: not valid UTF-8"),
    "nul-bytes": (b"\x00\x00\x00\n" + _LABEL.encode(), "judgments:1: not valid JSON"),
    "broken-first-line": (b'query_id: "q1", doc_uri: "d1"\n' + _LABEL.encode(), "judgments:1: not valid JSON"),
}
for _name, (_data, _says) in _NOT_QRELS.items():
    CASES.append(
        HostileCase(
            "R6.3",
            f"drift-{_name}-is-not-called-qrels",
            ("drift", "-j", "j.jsonl", "-c", "corpus.json"),
            files={"j.jsonl": _data, "corpus.json": _CORPUS},
            stderr_has=_says,
            stdout_lacks=("qrels",),
        )
    )
for _name, _data, _says in (
    ("trec-after-comments", b"# made by hand\n\nq1 0 d1 1\n", "j.jsonl holds TREC qrels"),
    ("trec-bad-line-later", b"q1 0 d1 1\nq1 0 d2\n", "j.jsonl holds TREC qrels"),
    ("beir-crlf-bom", b"\xef\xbb\xbfquery-id\tcorpus-id\tscore\r\nq1\td1\t1\r\n", "j.jsonl holds BEIR qrels"),
):
    CASES.append(
        HostileCase(
            "R6.3",
            f"drift-{_name}-is-called-qrels",
            ("drift", "-j", "j.jsonl", "-c", "corpus.json"),
            files={"j.jsonl": _data, "corpus.json": _CORPUS},
            stderr_has=_says,
        )
    )


# R6.5: malformed qrels, refused by every command that now takes them, naming the file's line.
_BAD_QRELS = {
    "trec-three-columns": (b"q1 d1 1\n", "judgments:1: expected 4 columns"),
    "trec-float-grade": (b"q1 0 d1 1\nq1 0 d2 0.5\n", "judgments:2: relevance must be an integer, got '0.5'"),
    "trec-grade-word": (b"q1 0 d1 high\n", "judgments:1: relevance must be an integer, got 'high'"),
    "trec-grade-past-the-most": (b"q1 0 d1 99999999999\n", "judgments:1: relevance must be at most"),
    "trec-not-utf8": (b"q1 0 d1 1\nq\xff 0 d2 1\n", "judgments:2: not valid UTF-8"),
    "trec-encoded-surrogate": (b"q1 0 d\xed\xa0\x80 1\n", "judgments:1: not valid UTF-8"),
    "trec-then-jsonl": (b'q1 0 d1 1\n{"query_id":"q1","doc_uri":"d2","relevance":1}\n', "judgments:2: expected 4"),
    "beir-header-again-later": (
        b"query-id\tcorpus-id\tscore\nq1\td1\t1\nquery-id\tcorpus-id\tscore\n",
        "judgments:3: relevance must be an integer, got 'score'",
    ),
    "beir-spaces-not-tabs": (b"query-id\tcorpus-id\tscore\nq1 d1 1\n", "judgments:2: expected 3 tab-separated"),
    "beir-four-columns": (b"query-id\tcorpus-id\tscore\nq1\td1\t1\tx\n", "judgments:2: expected 3 tab-separated"),
    "beir-header-only": (b"query-id\tcorpus-id\tscore\r\n", "the file holds no label"),
    "beir-negative-float": (b"query-id\tcorpus-id\tscore\nq1\td1\t-1.0\n", "judgments:2: relevance must be an"),
}


def _demo_report() -> bytes:
    from hostile.cases_render import REPORT  # a real report, made by the pipeline once

    return REPORT


def _nothing_written(tmp: Path) -> None:
    assert not (tmp / "f.jsonl").exists() and not (tmp / "p.html").exists()


# validate and floor-run read the judgments with one reader (formats/objects.read_judgment_set):
# each malformed file goes through one of the two, in turn; the page's reader (render/html_inputs)
# takes every one. The suite's time is the limit this keeps to.
_ONE_READER = (
    ("validate", ("validate", "-j", "q.tsv"), {}),
    (
        "floor-run",
        ("floor-run", "--method", "bm25", "--corpus", "corpus.json", "-j", "q.tsv", "--out", "f.jsonl"),
        {},
    ),
)
for _number, (_name, (_data, _says)) in enumerate(_BAD_QRELS.items()):
    for _command, _argv, _extra in (
        _ONE_READER[_number % 2],
        (
            "render-html",
            ("render", "--report", "r.json", "--format", "html", "-j", "q.tsv", "--out", "p.html"),
            {"r.json": _demo_report()},
        ),
    ):
        CASES.append(
            HostileCase(
                "R6.5",
                f"{_command}-{_name}",
                _argv,
                files={"q.tsv": _data, "corpus.json": _CORPUS, **_extra},
                stderr_has=_says,
                check=_nothing_written,
            )
        )
