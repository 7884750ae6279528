"""What a set can detect: ``retrieval-eval plan``'s pilots, base reports and judgments, and the
``power`` and ``require-detectable`` settings, refused cleanly.

Nothing here writes a file, so every case checks the refusal alone: exit 2, the input named,
no traceback.
"""

from __future__ import annotations

from hostile.case import HostileCase
from hostile.cases_io import REPORT, SCORE, SCORE_FILES, damaged, doc

ARGV = ("plan", "--report", "pilot.json")
PILOT = doc(REPORT)
OTHER_QUERIES = damaged(REPORT, "per_query", {"elsewhere": {"recall@3": 1.0}})

CASES = [
    HostileCase("5", "plan-pilot-missing", ARGV, {}, stderr_has="pilot.json"),
    HostileCase("5", "plan-pilot-not-json", ARGV, {"pilot.json": b"{not json"}, stderr_has="pilot.json"),
    HostileCase("5", "plan-pilot-not-a-report", ARGV, {"pilot.json": b"[1, 2]"}, stderr_has="pilot.json"),
    HostileCase(
        "5",
        "plan-pilot-value-not-a-number",
        ARGV,
        {"pilot.json": damaged(REPORT, "per_query", {"q1": {"recall@3": "high"}})},
        stderr_has="per_query",
    ),
    HostileCase(
        "5",
        "plan-pilot-without-per-query-values",
        ARGV,
        {"pilot.json": damaged(REPORT, "per_query", {})},
        stderr_has="--report pilot.json holds no per-query values",
    ),
    HostileCase(
        "5",
        "plan-baseline-of-other-queries",
        (*ARGV, "--baseline", "base.json"),
        {"pilot.json": PILOT, "base.json": OTHER_QUERIES},
        stderr_has="--baseline base.json shares no scored query",
    ),
    HostileCase(
        "5",
        "plan-judgments-malformed",
        (*ARGV, "-j", "j.jsonl"),
        {"pilot.json": PILOT, "j.jsonl": b'{"query_id": 3}\n'},
        stderr_has="judgments:1",
    ),
    HostileCase(
        "5", "plan-unknown-metric", (*ARGV, "--metric", "recall@99"), {"pilot.json": PILOT}, stderr_has="recall@99"
    ),
    HostileCase("5", "plan-power-out-of-range", (*ARGV, "--power", "1"), {"pilot.json": PILOT}, stderr_has="--power"),
    HostileCase(
        "5", "plan-power-not-a-number", (*ARGV, "--power", "high"), {"pilot.json": PILOT}, stderr_has="--power"
    ),
    HostileCase(
        "5",
        "compare-power-out-of-range",
        ("compare", "--base", "b.json", "--head", "b.json", "--power", "0.2"),
        {"b.json": PILOT},
        stderr_has="--power",
    ),
    HostileCase("5", "score-power-out-of-range", (*SCORE, "--power", "1.5"), SCORE_FILES, stderr_has="--power"),
    HostileCase("5", "score-power-not-a-number", (*SCORE, "--power", "nan"), SCORE_FILES, stderr_has="--power"),
    HostileCase(
        "5",
        "score-power-in-the-config-file",
        (*SCORE, "--config", "c.yml"),
        {**SCORE_FILES, "c.yml": b"power: 80%\n"},
        stderr_has="power",
    ),
    HostileCase(
        "5",
        "score-require-detectable-not-a-boolean",
        (*SCORE, "--config", "c.yml"),
        {**SCORE_FILES, "c.yml": b"require-detectable: maybe\n"},
        stderr_has="require-detectable",
    ),
]
