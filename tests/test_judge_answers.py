"""A judge's answers, read in formats/judge.py: a command's answer line and a chat endpoint's body.
Each expected value follows from the protocol (docs/judge.md) by hand."""

from __future__ import annotations

import pytest

from retrieval_eval.formats.judge import CommandLine, read_command_line, read_completion_bytes


def test_an_answer_line_reads_every_kind_of_answer() -> None:
    line = '{"id": "r3", "answers": [2, "refused", {"text": "1: 3"}, 7, true, "2"], "tokens": 120}'
    assert read_command_line(line, 6) == CommandLine(
        "r3", (2, "refused", 3, "unparseable", "unparseable", "unparseable"), 120
    )
    assert read_command_line(line, 2) == CommandLine("r3", (2, "refused"), 120)  # past the passages: not read


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"id": "r1", "answers": "2"}', CommandLine("r1", None, 0)),
        ('{"id": "r1", "answers": [1], "tokens": true}', CommandLine("r1", (1,), 0)),
        ('{"id": "r1", "answers": [1], "tokens": -4}', CommandLine("r1", (1,), 0)),
        ('{"id": "r1", "answers": [], "tokens": 9}', CommandLine("r1", (), 9)),
    ],
)
def test_what_does_not_fit_reads_as_unparseable_or_no_tokens(line: str, expected: CommandLine) -> None:
    assert read_command_line(line, 3) == expected


@pytest.mark.parametrize(
    "line",
    ["", "progress: 40%", "[1, 2]", '{"answers": [1]}', '{"id": 3, "answers": [1]}', '{"id": ["r1"]}', "[" * 100_000],
)
def test_a_line_that_names_no_request_answers_nothing(line: str) -> None:
    assert read_command_line(line, 3) is None


def test_a_chat_body_that_is_not_json_is_unparseable() -> None:
    body = b'{"choices": [{"message": {"content": "1: 2\\n2: 0"}}], "usage": {"total_tokens": 31}}'
    assert read_completion_bytes(body, 2) == ((2, 0), 31)
    for broken in (b"<html>busy</html>", b"\xff\xfe", b"[" * 100_000):
        assert read_completion_bytes(broken, 2) == (("unparseable", "unparseable"), 0)
