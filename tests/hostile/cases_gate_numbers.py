"""Gates no value can decide, and gates given twice: refused before anything is read, on the
command line and in the action (which publishes the refusal on the pull request).

``item`` is ``G.<n>``.
"""

from __future__ import annotations

from pathlib import Path

from hostile.case import HostileCase
from hostile.cases_action import WORKSPACE, runner, with_runner_folder

CASES: list[HostileCase] = []

JUDGMENTS = b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n'
RUN = b'{"query_id":"q1","ranking":["d1"]}\n'


def _no_report(tmp: Path) -> None:
    assert not (tmp / "report.json").exists()  # refused before anything was scored or written


# One of each kind of gate through the command line; every form is parsed in tests/test_gates.py.
for _gate, _says in (
    ("recall@10:80", "so a threshold of 80 is never met"),
    ("recall@10:<=5", "so a threshold of 5 is always met"),
    ("recall@10:+1.1:significant", "a change of +1.1 is past what recall@10 can move"),
    ("floor:recall@10:+50", "a margin over the floor of +50 is past what recall@10 can move"),
):
    CASES.append(
        HostileCase(
            "G.1",
            f"score-gate-{_gate.replace(':', '-').replace('@', '-').replace('<=', 'le')}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", _gate, "--out", "{tmp}/report.json"),
            files={"j.jsonl": JUDGMENTS, "r.jsonl": RUN},
            stderr_has=_says,
            check=_no_report,
        )
    )

for _gates in (
    ("recall@10:0.5", "recall@10:0.5"),
    ("recall@10:0.5", "recall@10:0.500"),
    ("P@10:0.2", "precision@10:0.2"),
):
    CASES.append(
        HostileCase(
            "G.2",
            f"score-gate-twice-{'-'.join(_gates).replace(':', '').replace('@', '')}",
            ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-g", _gates[0], "-g", _gates[1]),
            files={"j.jsonl": JUDGMENTS, "r.jsonl": RUN},
            stderr_has="is given twice",
        )
    )

CASES.append(
    HostileCase(
        "G.1",
        "action-gate-as-a-percentage",
        ("action",),
        files=WORKSPACE,
        env=runner(INPUT_GATES="recall@10:80"),
        setup=with_runner_folder,
        stdout_has="so a threshold of 80 is never met",
        github=True,
        comment_has="never met",
    )
)
