"""Hostile whole documents: a report or a comparison holding a lone surrogate.

18 (again, for documents): ``"\\ud800"`` names no character. A report, a base report or a
comparison read whole is refused at read time with its file and line, as every line reader
refuses it; nothing is written. Before, such a string was read, and writing a comparison that
quoted it ended in a traceback (orjson refuses to write it) or in a message blaming an option.
"""

from __future__ import annotations

from pathlib import Path

from hostile.case import HostileCase

DEMO = Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "demo"
REPORT = (DEMO / "baseline.json").read_bytes()


def _with(old: bytes, new: bytes) -> bytes:
    assert old in REPORT, old
    return REPORT.replace(old, new, 1)


IN_A_VALUE = _with(b'"2026-11-01T09:00:00Z"', b'"2026-11-01\\ud800"')
IN_A_KEY = _with(b'"a1"', b'"a\\uDC01"')  # a query id, written with capitals: a low surrogate alone
HIGH_THEN_PLAIN = _with(b'"2026-11-01T09:00:00Z"', b'"\\ud83d\\u0041"')  # a high surrogate, then no low one
A_PAIR = _with(b'"2026-11-01T09:00:00Z"', b'"\\ud83d\\ude00"')  # one character: read as the report's time


def _absent(name: str):  # type: ignore[no-untyped-def]
    def check(folder: Path) -> None:
        assert not (folder / name).exists(), f"{name} was written"

    return check


CASES: list[HostileCase] = [
    HostileCase(
        "18",
        "compare-refuses-a-base-report-with-a-lone-surrogate",
        ("compare", "--base", "base.json", "--head", "head.json", "--out", "cmp.json"),
        files={"base.json": IN_A_VALUE, "head.json": REPORT},
        stderr_has="base (base.json):",
        stdout_lacks=("Traceback", "an option's value"),
        check=_absent("cmp.json"),
    ),
    HostileCase(
        "18",
        "compare-names-the-line-of-a-lone-surrogate-in-a-key",
        ("compare", "--base", "base.json", "--head", "head.json", "--json"),
        files={"base.json": REPORT, "head.json": IN_A_KEY},
        stderr_has="not valid Unicode (\\udc01 is a lone surrogate, not a character)",
        stdout_lacks=("Traceback",),
    ),
    HostileCase(
        "18",
        "a-high-surrogate-without-its-low-one-is-refused",
        ("render", "--report", "r.json", "--format", "comment"),
        files={"r.json": HIGH_THEN_PLAIN},
        stderr_has="report (r.json):",
        stdout_lacks=("Traceback",),
    ),
    HostileCase(
        "18",
        "score-refuses-a-baseline-with-a-lone-surrogate",
        ("score", "-j", "j.jsonl", "-r", "run.jsonl", "--baseline", "base.json", "--report", "out.json"),
        files={
            "j.jsonl": (DEMO / "judgments.jsonl").read_bytes(),
            "run.jsonl": (DEMO / "run.jsonl").read_bytes(),
            "base.json": IN_A_VALUE,
        },
        stderr_has="not valid Unicode (\\ud800",
        check=_absent("out.json"),
    ),
    HostileCase(
        "18",
        "an-escaped-pair-in-a-report-is-one-character",
        ("compare", "--base", "base.json", "--head", "head.json", "--out", "cmp.json"),
        files={"base.json": A_PAIR, "head.json": REPORT},
        exit_code=0,
    ),
]
