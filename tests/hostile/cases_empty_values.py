"""Options given an empty value: what a script passes for an unset variable (``-g "$GATES"``).

Read as left out, ``-g ""`` scored with no gate and said PASS, ``--corpus ""`` checked no
drift, ``-k ""`` scored at the default cutoff, ``compare -j ""`` compared without rescoring and
``holes --out ""`` wrote to the terminal. Each is refused, in every command, naming the option;
so is an empty one beside others (``-g A -g ""``), white space, and a list of separators only.

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
    empty("gate-empty", ("-g", ""), "-g/--gate: given an empty value"),
    empty("gate-blank", ("-g", "  \t"), "-g/--gate: given an empty value"),
    empty("gate-commas-only", ("-g", ", ,"), "-g/--gate: given an empty value"),
    empty("gate-newline-only", ("-g", "\n"), "-g/--gate: given an empty value"),
    empty("gate-empty-beside-another", ("-g", "recall@10:0.5", "-g", ""), "-g/--gate: given an empty value"),
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

# Every command refuses it, not only those of the shared settings.
REPORT = (
    b'{"spec_version": "1", "tool": {"name": "retrieval-eval", "version": "1.0.0"}, "config": {"k": [10]}, '
    b'"metrics": {}, "per_query": {}}\n'
)
for _name, _argv, _says in (
    ("compare-judgments", ("compare", "--base", "{tmp}/b.json", "--head", "{tmp}/b.json", "-j", ""), "-j/--judgments"),
    ("render-compare", ("render", "--report", "{tmp}/b.json", "--compare", " "), "--compare"),
    ("render-out", ("render", "--report", "{tmp}/b.json", "--out", ""), "--out"),
    ("validate-run", ("validate", "-j", "{tmp}/j.jsonl", "-r", ""), "-r/--run"),
    ("holes-out", ("holes", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "--out", ""), "--out"),
    ("plan-baseline", ("plan", "--report", "{tmp}/b.json", "--baseline", ""), "--baseline"),
    ("score-now", ("score", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "--now", ""), "--now"),
):
    CASES.append(
        HostileCase(
            "R8.1",
            f"every-command-{_name}-empty",
            _argv,
            files={"j.jsonl": JUDGMENTS, "r.jsonl": RUN, "b.json": REPORT},
            stderr_has=f"{_says}: given an empty value",
        )
    )

# An output path naming a folder ("q/") is refused before its folders are made.
for _name, _out in (("trailing-slash", "{tmp}/q/"), ("nested-trailing-slash", "{tmp}/a/b/")):
    CASES.append(
        HostileCase(
            "R8.1",
            f"holes-out-{_name}",
            ("holes", "-j", "{tmp}/j.jsonl", "-r", "{tmp}/r.jsonl", "--out", _out),
            files={"j.jsonl": JUDGMENTS, "r.jsonl": RUN},
            stderr_has="is a directory",
            check=lambda folder: _nothing_made(folder),
        )
    )


def _nothing_made(folder: object) -> None:
    from pathlib import Path

    where = Path(str(folder))
    assert not (where / "q").exists() and not (where / "a").exists(), "a refused output made its folders"
