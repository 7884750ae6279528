"""Numbers given as command-line options read the one number grammar (core/numbers.py).

click's int and float read "6_0" as 60, "1e0" as 1.0 and other scripts' digits as digits.
"""

from __future__ import annotations

import pytest

from helpers import run_cli


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
