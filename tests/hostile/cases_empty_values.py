"""Options given an empty value: what a script passes for an unset variable (``-g "$GATES"``).

Read as left out, ``-g ""`` scored with no gate and said PASS, ``--corpus ""`` checked no
drift and ``-k ""`` scored at the default cutoff. Each is refused, naming the option; so is
an empty one beside others (``-g A -g ""``), white space, and a list of separators only.

``item`` is ``R8.<n>``.
"""

from __future__ import annotations

from hostile.case import HostileCase

CASES: list[HostileCase] = []

JUDGMENTS = b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n'
RUN = b'{"query_id":"q1","ranking":["d9","d1"]}\n'


def empty(name: str, flags: tuple[str, ...], says: str, command: str = "score") -> HostileCase:
    return HostileCase(
        "R8.1",
        f"{command}-{name}",
        (command, "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "--out", "{tmp}/report.json", *flags),
        files={"j.jsonl": JUDGMENTS, "r.jsonl": RUN},
        stderr_has=says,
        stdout_lacks=("PASS", "Traceback"),
        check=_no_report,
    )


def _no_report(folder: object) -> None:
    from pathlib import Path

    assert not (Path(str(folder)) / "report.json").exists(), "a refused command wrote its report"


CASES += [
    empty("gate-empty", ("-g", ""), "--gate: given an empty value"),
    empty("gate-blank", ("-g", "  \t"), "--gate: given an empty value"),
    empty("gate-commas-only", ("-g", ", ,"), "--gate: given an empty value"),
    empty("gate-newline-only", ("-g", "\n"), "--gate: given an empty value"),
    empty("gate-empty-beside-another", ("-g", "recall@10:0.5", "-g", ""), "--gate: given an empty value"),
    empty("cutoffs-empty", ("-k", ""), "-k: given an empty value"),
    empty("corpus-empty", ("--corpus", ""), "--corpus: given an empty value"),
    empty("baseline-empty", ("--baseline", " "), "--baseline: given an empty value"),
    empty("floor-empty", ("--floor", ""), "--floor: given an empty value"),
    empty("two-empty-both-named", ("-g", "", "-k", ""), "-k: given an empty value"),
]

# The same slip through the other command that reads the shared settings.
CASES.append(
    HostileCase(
        "R8.1",
        "holes-gate-empty",
        ("holes", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "-k", ""),
        files={"j.jsonl": JUDGMENTS, "r.jsonl": RUN},
        stderr_has="-k: given an empty value",
    )
)
