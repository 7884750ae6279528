"""Every kind of bad input gets exit 2, one `error` line (and maybe a `try` line), no traceback,
and nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import fixture_path, run_cli

GOOD_JUDGMENTS = '{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n'
GOOD_RUN = '{"query_id":"q1","ranking":["d1"]}\n'

# (judgments bytes, run bytes, expected error message)
BAD_INPUTS = {
    "judgment not an object": (
        b'["q1","d1",1]\n',
        GOOD_RUN.encode(),
        "judgments:1: expected a JSON object, got an array",
    ),
    "judgment not JSON": (b'{"query_id": "q1",\n', GOOD_RUN.encode(), "judgments:1: not valid JSON"),
    "invalid UTF-8": (
        GOOD_JUDGMENTS.encode() + b'{"query_id":"q\xff","doc_uri":"d","relevance":1}\n',
        GOOD_RUN.encode(),
        "judgments:2: not valid UTF-8",
    ),
    "relevance negative": (
        b'{"query_id":"q1","doc_uri":"d1","relevance":-1}\n',
        GOOD_RUN.encode(),
        "judgments:1: relevance must be a non-negative integer",
    ),
    "relevance float": (
        b'{"query_id":"q1","doc_uri":"d1","relevance":1.5}\n',
        GOOD_RUN.encode(),
        "judgments:1: relevance must be a non-negative integer",
    ),
    "relevance huge": (
        b'{"query_id":"q1","doc_uri":"d1","relevance":' + b"9" * 400 + b"}\n",
        GOOD_RUN.encode(),
        "judgments:1: relevance must be at most 1000",
    ),
    "relevance NaN": (
        b'{"query_id":"q1","doc_uri":"d1","relevance":NaN}\n',
        GOOD_RUN.encode(),
        "judgments:1: not valid JSON (NaN is not valid JSON)",
    ),
    "relevance infinite": (
        b'{"query_id":"q1","doc_uri":"d1","relevance":1e999}\n',
        GOOD_RUN.encode(),
        "judgments:1: relevance must be a non-negative integer",
    ),
    "missing doc_uri": (
        b'{"query_id":"q1","relevance":1}\n',
        GOOD_RUN.encode(),
        "judgments:1: missing required field doc_uri",
    ),
    "bad chunk_id": (
        b'{"query_id":"q1","doc_uri":"d1","chunk_id":"c1:xyz","relevance":1}\n',
        GOOD_RUN.encode(),
        "judgments:1: chunk_id must be a c1 id (c1:<32 hex digits>, spec/chunk-id.md) or a chunk id of your own",
    ),
    "chunk_id with white space": (
        b'{"query_id":"q1","doc_uri":"d1","chunk_id":"chunk 7","relevance":1}\n',
        GOOD_RUN.encode(),
        "judgments:1: chunk_id must be a c1 id (c1:<32 hex digits>, spec/chunk-id.md) or a chunk id of your own "
        "(up to 512 characters, no white space, control or invisible characters)",
    ),
    "empty judgments": (b"\n\n", GOOD_RUN.encode(), "judgments: the file holds no judgment"),
    "run not an object": (GOOD_JUDGMENTS.encode(), b'"q1"\n', "run:1: expected a JSON object, got a string"),
    "run ranking not a list": (
        GOOD_JUDGMENTS.encode(),
        b'{"query_id":"q1","ranking":"d1"}\n',
        "run:1: ranking must be an array",
    ),
    "run query id a number": (
        GOOD_JUDGMENTS.encode(),
        b'{"query_id":1,"ranking":[]}\n',
        "run:1: query_id must be a non-empty string",
    ),
    "run empty key": (
        GOOD_JUDGMENTS.encode(),
        b'{"query_id":"q1","ranking":["d1",""]}\n',
        "run:1: ranking[1] must be a non-empty string",
    ),
    "run NaN": (
        GOOD_JUDGMENTS.encode(),
        b'{"query_id":"q1","ranking":["d1"],"score":NaN}\n',
        "run:1: not valid JSON (NaN is not valid JSON)",
    ),
    "trec run short line": (
        GOOD_JUDGMENTS.encode(),
        b"q1 Q0 d1 1 0.5\n",
        "run:1: expected 6 columns (query Q0 doc rank score tag), got 5",
    ),
    "trec run score not a number": (
        GOOD_JUDGMENTS.encode(),
        b"q1 Q0 d1 1 high tag\n",
        "run:1: score must be a finite number, got 'high'",
    ),
    "trec run score nan": (
        GOOD_JUDGMENTS.encode(),
        b"q1 Q0 d1 1 nan tag\n",
        "run:1: score must be a finite number, got 'nan'",
    ),
}


def assert_refused(result, message: str) -> None:  # type: ignore[no-untyped-def]
    assert result.code == 2, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert lines and lines[0].startswith(f"error  {message}"), result.stderr
    assert len(lines) <= 2 and all(line.startswith(("error  ", "        try  ")) for line in lines)
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_refused_and_nothing_is_written(name: str, tmp_path: Path) -> None:
    judgments, run, message = BAD_INPUTS[name]
    (tmp_path / "j.jsonl").write_bytes(judgments)
    (tmp_path / "r.txt").write_bytes(run)
    out = tmp_path / "report.json"
    result = run_cli("score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "r.txt"), "--out", str(out))
    assert_refused(result, message)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["j.jsonl", "r.txt"]


def test_an_existing_report_survives_a_refused_run(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    out.write_text("previous report\n")
    (tmp_path / "r.jsonl").write_text('{"query_id":"q1","ranking":[1]}\n')
    result = run_cli(
        "score", "-j", fixture_path("basic", "judgments.jsonl"), "-r", str(tmp_path / "r.jsonl"), "--out", str(out)
    )
    assert_refused(result, "run:1: ranking[0] must be a non-empty string")
    assert out.read_text() == "previous report\n"


def test_bom_and_crlf_are_accepted(tmp_path: Path) -> None:
    (tmp_path / "j.jsonl").write_bytes(b"\xef\xbb\xbf" + GOOD_JUDGMENTS.replace("\n", "\r\n").encode())
    (tmp_path / "r.jsonl").write_bytes(b"\xef\xbb\xbf" + GOOD_RUN.replace("\n", "\r\n").encode())
    result = run_cli("score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "r.jsonl"), "--json")
    assert result.code == 0, result.stderr
    assert result.json()["metrics"]["recall@10"]["value"] == 1.0


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    result = run_cli("score", "-j", str(missing), "-r", fixture_path("basic", "run.jsonl"))
    assert_refused(result, f"cannot read {missing}: no such file or directory")


def test_directory_instead_of_file(tmp_path: Path) -> None:
    result = run_cli("score", "-j", str(tmp_path), "-r", fixture_path("basic", "run.jsonl"))
    assert_refused(result, f"cannot read {tmp_path}: is a directory")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-g", "recal@5:0.5"], "gate 'recal@5:0.5': unknown metric 'recal@5'; known metrics: precision@k"),
        (["-g", "recall@20:0.5"], "gate 'recall@20:0.5': recall@20 is not computed at the cutoffs given"),
        (["-g", "recall@10:high"], "gate 'recall@10:high': 'high' is not a plain decimal number"),
        (["-g", "faithfulness:ci-lower:0.8"], "gate 'faithfulness:ci-lower:0.8': no judged metric named"),
        (["-k", "0"], "-k: '0' must be positive whole numbers"),
        (["-k", "five"], "-k: 'five' must be positive whole numbers"),
        (["-k", "\u00b2"], "-k: '\u00b2' must be positive whole numbers"),
        (["-k", "\u0661"], "-k: '\u0661' must be positive whole numbers"),
        (["-g", "recall@\u00b2:0.5"], "gate 'recall@\u00b2:0.5': unknown metric 'recall@\u00b2'"),
        # Accepted, this gate would look for a metric named recall@010, which no report holds.
        (["-g", "recall@010:0.5"], "gate 'recall@010:0.5': unknown metric 'recall@010'"),
        (["--threshold", "0"], "--threshold: '0' must be a positive whole number"),
        (["--now", "yesterday"], "--now 'yesterday' is not an ISO-8601 time"),
    ],
)
def test_usage_errors(args: list[str], message: str) -> None:
    result = run_cli(
        "score", "-j", fixture_path("basic", "judgments.jsonl"), "-r", fixture_path("basic", "run.jsonl"), *args
    )
    assert_refused(result, message)


def test_baseline_that_is_not_a_report(tmp_path: Path) -> None:
    (tmp_path / "base.json").write_text('{"not": "a report"}')
    result = run_cli(
        "score",
        "-j",
        fixture_path("basic", "judgments.jsonl"),
        "-r",
        fixture_path("basic", "run.jsonl"),
        "--baseline",
        str(tmp_path / "base.json"),
    )
    assert_refused(result, f'baseline ({tmp_path / "base.json"}): not a spec v1 report (spec_version is not "1")')


def test_judged_samples_that_are_not_numbers(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text('["high", "low"]')
    result = run_cli(
        "score",
        "-j",
        fixture_path("basic", "judgments.jsonl"),
        "-r",
        fixture_path("basic", "run.jsonl"),
        "--judged",
        f"faithfulness={tmp_path / 's.json'}",
    )
    assert_refused(result, f"judged faithfulness ({tmp_path / 's.json'}): expected a non-empty JSON array of numbers")


def test_convert_refuses_ids_with_white_space_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "j.jsonl").write_text('{"query_id":"q 1","doc_uri":"d1","relevance":1}\n')
    out = tmp_path / "out.qrels"
    result = run_cli("convert", str(tmp_path / "j.jsonl"), "--to", "trec-qrels", "--out", str(out))
    assert_refused(result, "judgments:1: query_id 'q 1' contains white space")
    assert not out.exists()
    result = run_cli("convert", str(tmp_path / "j.jsonl"), "--to", "trec-qrels")
    assert result.code == 2 and result.stdout == ""


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--now", "9999-12-31T23:59:59-05:00"], {}, "--now '9999-12-31T23:59:59-05:00' is out of range"),
        ([], {"SOURCE_DATE_EPOCH": "9" * 20}, f"SOURCE_DATE_EPOCH '{'9' * 20}' is out of range"),
        ([], {"SOURCE_DATE_EPOCH": "\u00b2"}, "SOURCE_DATE_EPOCH '\u00b2' is not a whole number of seconds"),
    ],
)
def test_time_stamps_out_of_range_are_refused(args: list[str], env: dict[str, str], message: str) -> None:
    import os

    result = run_cli(
        "score",
        "-j",
        fixture_path("basic", "judgments.jsonl"),
        "-r",
        fixture_path("basic", "run.jsonl"),
        *args,
        env={**os.environ, **env},
    )
    assert_refused(result, message)


WRITING_COMMANDS = {
    "score": ["score", "-j", fixture_path("basic", "judgments.jsonl"), "-r", fixture_path("basic", "run.jsonl")],
    "convert": ["convert", fixture_path("basic", "judgments.jsonl"), "--to", "trec-qrels"],
    "drift --fix": [
        "drift",
        "-j",
        fixture_path("drift", "judgments.jsonl"),
        "-c",
        fixture_path("drift", "corpus.json"),
        "--fix",
    ],
}


@pytest.mark.parametrize("name", sorted(WRITING_COMMANDS))
@pytest.mark.parametrize(
    ("where", "reason"),
    [("", "is a directory"), ("a-file/out", "a part of the path is a file, not a directory")],
)
def test_an_output_that_cannot_be_written_is_refused(name: str, where: str, reason: str, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("kept\n")
    out = tmp_path / where if where else tmp_path
    result = run_cli(*WRITING_COMMANDS[name], "--out", str(out))
    assert_refused(result, f"cannot write {out}: {reason}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
    assert (tmp_path / "a-file").read_text() == "kept\n"


@pytest.mark.parametrize(
    ("samples", "problem"),
    [
        ("[1e308, 1e308]", "samples are too large"),
        ("[1e308, -1e308]", "samples are too large"),
        ("[1e200, -1e200]", "samples are too large"),
        ("[1e16, 0.5]", "samples are too large"),
        ("[" + "9" * 400 + "]", "an integer of 400 digits is longer than"),
    ],
)
def test_samples_too_large_to_summarize_are_refused(samples: str, problem: str, tmp_path: Path) -> None:
    (tmp_path / "s.json").write_text(samples)
    result = run_cli("summarize", str(tmp_path / "s.json"), "--name", "faithfulness")
    assert_refused(result, f"samples ({tmp_path / 's.json'}): {problem}")  # a whole document names its file
    result = run_cli(
        "score",
        "-j",
        fixture_path("basic", "judgments.jsonl"),
        "-r",
        fixture_path("basic", "run.jsonl"),
        "--judged",
        f"faithfulness={tmp_path / 's.json'}",
    )
    assert_refused(result, f"judged faithfulness ({tmp_path / 's.json'}): {problem}")


def test_an_option_value_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    import os

    (tmp_path / "s.json").write_text("[0.5, 0.7]")
    out = tmp_path / "out"
    bad = os.fsdecode(b"\xff")  # what Python makes of a non-UTF-8 byte in argv
    cases = [
        ["chunk-id", "--text-sha", "--text", bad],
        ["convert", fixture_path("basic", "run.jsonl"), "--to", "trec-run", "--tag", bad, "--out", str(out)],
        [
            "score",
            "-j",
            fixture_path("basic", "judgments.jsonl"),
            "-r",
            fixture_path("basic", "run.jsonl"),
            "--judged",
            f"{bad}={tmp_path / 's.json'}",
            "--out",
            str(out),
        ],
    ]
    for args in cases:
        result = run_cli(*args)
        assert_refused(result, "an option's value is not valid UTF-8")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"], args
