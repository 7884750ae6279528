"""Numbers given as command-line options read the one number grammar (core/numbers.py).

click's int and float read "6_0" as 60, "1e0" as 1.0 and other scripts' digits as digits.
"""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from helpers import run_cli
from retrieval_eval.cli import cli
from retrieval_eval.commands._common import PlainNumber


@pytest.mark.parametrize(
    "argv",
    [
        ("fuse", "a.jsonl", "b.jsonl", "--rrf-k", "6_0", "--out", "f.jsonl"),
        ("fuse", "a.jsonl", "b.jsonl", "--depth", "\u0661\u0660", "--out", "f.jsonl"),
        ("compare", "--base", "b.json", "--head", "h.json", "--seed", "1_0"),
        ("compare", "--base", "b.json", "--head", "h.json", "--resamples", "1e3"),
        ("validate", "-j", "j.jsonl", "--threshold", "0_1"),
        ("drift", "-j", "j.jsonl", "-c", "c.json", "--max-invalid-ratio", "1e-1"),
        ("chunk-id", "--ordinal", "0_1", "--doc-uri", "d", "--text", "t"),
    ],
)
def test_an_option_number_outside_the_grammar_is_refused(argv: tuple[str, ...]) -> None:
    done = run_cli(*argv)
    assert done.code == 2 and "is not a plain" in done.stderr, done.stderr


# Every bounded option added with plan, judge and compare --power: the hostile spellings each
# of them once read through click's FloatRange/IntRange (0_8 as 8, 1e3, an Arabic-Indic three,
# a leading space) and a value that is inside its range, so the refusal is the grammar's.
PLAN = ("plan", "--report", "pilot.json")
COMPARE = ("compare", "--base", "b.json", "--head", "h.json")
JUDGE = ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", "false")
BOUNDED = [
    (PLAN, "--change", "0.05"),
    (PLAN, "--queries", "20"),
    (PLAN, "--power", "0.8"),
    (PLAN, "--alpha", "0.05"),
    (PLAN, "--correlation", "0.5"),
    (COMPARE, "--power", "0.8"),
    (JUDGE, "--samples", "3"),
    (JUDGE, "--temperature", "0.7"),
    (JUDGE, "--threshold", "1"),
    (JUDGE, "--batch", "5"),
    (JUDGE, "--concurrency", "4"),
    (JUDGE, "--retries", "3"),
    (JUDGE, "--max-calls", "3"),
    (JUDGE, "--max-tokens", "3"),
    (JUDGE, "--calibration", "3"),
    (JUDGE, "--kappa-floor", "0.4"),
]
HOSTILE = ["0_8", "\u0663", "1e3", " 0.8", "3_0", "1e0"]


@pytest.mark.parametrize(("argv", "option", "good"), BOUNDED, ids=[f"{a[0]}{o}" for a, o, _ in BOUNDED])
@pytest.mark.parametrize("spelling", HOSTILE)
def test_a_bounded_option_reads_the_one_grammar(argv: tuple[str, ...], option: str, good: str, spelling: str) -> None:
    done = CliRunner().invoke(cli, [*argv, option, spelling])
    assert done.exit_code == 2 and "is not a plain" in done.output, done.output
    assert option in done.output
    # The same option with a plain value gets past the grammar: the refusal was the spelling's.
    accepted = CliRunner().invoke(cli, [*argv, option, good])
    assert "is not a plain" not in accepted.output and "is not in the range" not in accepted.output


@pytest.mark.parametrize(
    ("bounds", "inside", "outside"),
    [
        (dict(whole=False, minimum=0.5, maximum=1, max_open=True), ["0.5", "0.99"], ["1", "0.49", "1.0"]),
        (dict(whole=False, minimum=0, maximum=1, min_open=True), [".01", "1"], ["0", "-0", "1.01"]),
        (dict(whole=True, minimum=2), ["2", "+20"], ["1", "-3"]),
        (dict(whole=True, minimum=1, maximum=3), ["1", "3"], ["0", "4"]),
        (dict(whole=False, minimum=-1, maximum=1), ["-1", "1", "0"], ["-1.5", "1.0001"]),
    ],
)
def test_the_ends_of_a_range_are_open_or_closed_as_declared(
    bounds: dict[str, object], inside: list[str], outside: list[str]
) -> None:
    number = PlainNumber(**bounds)  # type: ignore[arg-type]
    for text in inside:
        assert number.convert(text, None, None) == float(text)
    for text in outside:
        with pytest.raises(click.BadParameter, match="is not in the range"):
            number.convert(text, None, None)


@pytest.mark.parametrize("spelling", ["\u0660.\u0668", "\u0668e-1", "0_8"])
def test_the_power_setting_reads_the_one_grammar(spelling: str) -> None:
    from retrieval_eval.pipeline.settings import parse_power

    with pytest.raises(ValueError, match="must be a power"):
        parse_power(spelling)
    assert parse_power("0.8") == 0.8
