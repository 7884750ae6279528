"""``demo --out DIR``: the example files go into a folder the user names; what is already
there and is not the demo's own stays as it was, and nothing is written."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hostile.case import HostileCase

MINE = b'{"query_id":"mine","query":"my own labels"}\n'


def untouched(*names: str) -> Callable[[Path], None]:
    def check(tmp: Path) -> None:
        for name in names:
            assert (tmp / name).read_bytes() == MINE, f"{name} was changed"
        assert not (tmp / "out" / "corpus.json").exists(), "a demo file was written despite the refusal"

    return check


def _link_to_mine(tmp: Path) -> None:
    (tmp / "out").mkdir()
    os.symlink(tmp / "mine.jsonl", tmp / "out" / "run.jsonl")


def _folder_named_like_a_file(tmp: Path) -> None:
    (tmp / "out" / "judgments.jsonl").mkdir(parents=True)


CASES = [
    HostileCase(
        "demo",
        "out-is-a-file",
        ("demo", "--out", "out"),
        files={"out": MINE},
        stderr_has="--out out is a file, not a folder",
        check=untouched("out"),
    ),
    HostileCase(
        "demo",
        "out-holds-other-judgments",
        ("demo", "--out", "out"),
        files={"out/judgments.jsonl": MINE},
        stderr_has="out/judgments.jsonl exists and is not the demo's judgments.jsonl; nothing was written",
        check=untouched("out/judgments.jsonl"),
    ),
    HostileCase(
        "demo",
        "out-run-is-a-link-to-a-users-file",
        ("demo", "--out", "out"),
        files={"mine.jsonl": MINE},
        setup=_link_to_mine,
        stderr_has="out/run.jsonl exists and is not the demo's run.jsonl",
        check=untouched("mine.jsonl"),
    ),
    HostileCase(
        "demo",
        "out-holds-a-folder-named-judgments",
        ("demo", "--out", "out"),
        setup=_folder_named_like_a_file,
        stderr_has="out/judgments.jsonl exists and is not the demo's judgments.jsonl",
    ),
    HostileCase("demo", "out-empty", ("demo", "--out", ""), stderr_has="--out: given an empty value"),
    HostileCase("demo", "out-blank", ("demo", "--out", "  "), stderr_has="--out: given an empty value"),
]
