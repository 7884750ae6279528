"""No string from a file reaches a terminal with its control characters obeyed.

Query ids, doc uris, chunk ids and corpus fingerprints come from files a pull request can
change. An ESC sequence can clear the screen or write the clipboard (OSC 52), CR can
overwrite a line already printed, C1 controls act as ESC on some terminals, and bidi marks
reorder what is read. Every command shows them by code, in text and in JSON alike.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from drift_support import OLD, label, write_jsonl, write_snapshot
from helpers import run_cli
from retrieval_eval.render.terminal import clean

HOSTILE = [
    "\x1b[2J\x1b[H",  # clear the screen
    "\x1b]52;c;cm0gLXJmIH4=\x07",  # OSC 52: write the clipboard
    "ok\rFAKE",  # CR: overwrite the line
    "\x9b31m",  # C1 CSI
    "\x85next",  # C1 NEL
    "\x7fdel",
    "\u202eexe.txt",  # right-to-left override
    "\u2066isolate\u2069",
]
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_clean_shows_every_control_by_code() -> None:
    for text in HOSTILE:
        assert not UNSAFE.search(clean(text)), repr(clean(text))
    assert clean("ok\rFAKE") == "ok\\rFAKE" and clean("a\u202eb") == "a\\u202eb"
    assert clean("plain café 中文") == "plain café 中文"


@pytest.fixture
def hostile_drift(tmp_path: Path) -> tuple[Path, Path]:
    docs = {f"doc{index}{text}": ["Alpha text one.", "Beta text two."] for index, text in enumerate(HOSTILE)}
    corpus = write_snapshot(tmp_path / "corpus.json", docs)
    data = json.loads(corpus.read_text())
    data["corpus_fingerprint"] = "v2" + "".join(HOSTILE)
    corpus.write_text(json.dumps(data))
    labels = [label(f"q{index}{text}", doc, "Alpha text one.") for index, (doc, text) in enumerate(zip(docs, HOSTILE))]
    # Labels on documents that are gone list their doc uri; their query ids are listed too.
    labels += [label(f"gone{text}", f"removed{text}", "Gamma.") for text in HOSTILE]
    judgments = write_jsonl(tmp_path / "judgments.jsonl", labels)
    return judgments, corpus


@pytest.mark.parametrize("mode", [[], ["--fix", "--dry-run"], ["--json"]])
def test_drift_output_carries_no_control_character(hostile_drift: tuple[Path, Path], mode: list[str]) -> None:
    judgments, corpus = hostile_drift
    result = run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--color", "never", *mode)
    assert result.code in (0, 1), result.stderr
    assert "gone" in result.stdout and "removed" in result.stdout
    assert not UNSAFE.search(result.stdout), [m.group() for m in UNSAFE.finditer(result.stdout)][:5]
    assert not UNSAFE.search(result.stderr)
    if mode == ["--json"]:
        assert json.loads(result.stdout)["corpus"]["fingerprint"] == "v2" + "".join(HOSTILE)


def test_error_messages_carry_no_control_character(tmp_path: Path) -> None:
    bad = tmp_path / "judgments.jsonl"
    bad.write_text(json.dumps({"query_id": "q\x1b[2J\u202e", "unknown\x1b]52;c;x\x07": 1}) + "\n")
    result = run_cli("validate", str(bad))
    assert result.code == 2 and not UNSAFE.search(result.stderr), repr(result.stderr)


def test_paths_and_names_given_on_the_command_line_are_cleaned_too(tmp_path: Path) -> None:
    samples = tmp_path / "s.json"
    samples.write_text("[0.5, 0.7]")
    result = run_cli("summarize", str(samples), "--name", "judged\x1b[2J\u202e")
    assert result.code == 0 and not UNSAFE.search(result.stdout) and "judged" in result.stdout
    missing = run_cli("drift", "-j", str(tmp_path / "no\x1b[2Jsuch.jsonl"), "-c", str(tmp_path / "c.json"))
    assert missing.code == 2 and not UNSAFE.search(missing.stderr), repr(missing.stderr)


def test_the_old_chunker_fingerprint_is_what_the_labels_were_made_on() -> None:
    assert OLD == "paragraph/v1"  # the fixture's labels are stale on purpose: every one is listed


def test_the_comparison_in_the_terminal_carries_no_control_character(tmp_path: Path) -> None:
    """score --baseline prints the comparison: movers' ids, texts and strata, stratum names, findings
    and drift changes come from files, and reach the terminal shown by code."""
    from from_json import render
    from render_cases import CASES

    report, comparison = CASES["no_gates"](tmp_path)
    assert comparison is not None
    hostile = "".join(HOSTILE)
    mover = {"query_id": hostile, "query": hostile, "stratum": hostile, "base": 1.0, "head": 0.0, "delta": -1.0}
    comparison["movers"] = {"metric": hostile, "drops": [mover], "gains": [], "down": 1, "up": 0}
    comparison["per_stratum"][hostile] = {"base": 1.0, "head": 0.5, "delta": -0.5, "n": 1}
    report["per_stratum"][hostile] = {"n": 1, "metrics": {"recall@5": {"value": 0.5, "n": 1}}}
    comparison["comparability"] = [{"code": "x", "effect": hostile, "detail": hostile, "meaning": hostile}]
    report["judgments"]["drift"] = {"valid": 1, "orphaned": 1, "invalid_ratio": 0.5, "changes": [hostile]}
    text = render("text", report=report, comparison=comparison)
    assert not UNSAFE.search(text.replace("\n", "")), repr(UNSAFE.search(text.replace("\n", "")))
    assert "\\x1b[2J" in text and text.count("\\u202eexe.txt") >= 5  # shown, not dropped
