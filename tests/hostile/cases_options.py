"""Options a new user's first trial got wrong: numbers outside the one grammar (``0_8``, an
Arabic-Indic digit, ``1e3``, a leading space) given to the options added with plan, judge and
compare's power, and an output path that is one of the command's own inputs.

``item`` is ``N`` for the number grammar, ``O`` for an output that would overwrite an input.
"""

from __future__ import annotations

import os
from pathlib import Path

from hostile.case import HostileCase
from hostile.cases_io import (
    CMP_BYTES,
    DRIFT_CORPUS,
    DRIFT_JUDGMENTS,
    JUDGMENTS,
    REPORT,
    REPORT_BYTES,
    RUN,
    absent,
    doc,
    unchanged,
)

PILOT = doc(REPORT)
SPELLINGS = {"underscore": "0_8", "arabic-indic": "\u0663", "exponent": "1e3", "leading-space": " 0.8"}
PLAN = ("plan", "--report", "pilot.json")
COMPARE = ("compare", "--base", "b.json", "--head", "b.json")
JUDGE = ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", "false")


def _nothing_written(tmp: Path) -> None:
    assert not (tmp / "m.jsonl").exists()


def _number(name: str, argv: tuple[str, ...], option: str, spelling: str) -> HostileCase:
    return HostileCase(
        "N",
        name,
        (*argv, option, spelling),
        {"pilot.json": PILOT, "b.json": PILOT, "q.jsonl": b""},
        stderr_has=f"Invalid value for '{option}'",
        check=_nothing_written,
    )


NUMBERS = [
    *(_number(f"plan-power-{k}", PLAN, "--power", v) for k, v in SPELLINGS.items()),
    *(_number(f"compare-power-{k}", COMPARE, "--power", v) for k, v in SPELLINGS.items()),
    *(_number(f"judge-samples-{k}", JUDGE, "--samples", v) for k, v in SPELLINGS.items()),
    _number("plan-change-underscore", PLAN, "--change", "0_05"),
    _number("plan-queries-exponent", PLAN, "--queries", "1e3"),
    _number("plan-alpha-leading-space", PLAN, "--alpha", " 0.05"),
    _number("plan-correlation-arabic-indic", PLAN, "--correlation", "\u0660"),
    _number("judge-temperature-exponent", JUDGE, "--temperature", "7e-1"),
    _number("judge-threshold-arabic-indic", JUDGE, "--threshold", "\u0662"),
    _number("judge-batch-underscore", JUDGE, "--batch", "1_0"),
    _number("judge-concurrency-leading-space", JUDGE, "--concurrency", " 4"),
    _number("judge-retries-exponent", JUDGE, "--retries", "1e0"),
    _number("judge-max-calls-underscore", JUDGE, "--max-calls", "1_000"),
    _number("judge-max-tokens-arabic-indic", JUDGE, "--max-tokens", "\u0665"),
    _number("judge-calibration-exponent", JUDGE, "--calibration", "2e1"),
    _number("judge-kappa-floor-leading-space", JUDGE, "--kappa-floor", " 0.4"),
]

DEMO = Path(__file__).resolve().parents[2] / "src" / "retrieval_eval" / "demo"
JUDGED = (DEMO / "judgments.jsonl").read_bytes()
CORPUS = (DEMO / "corpus.json").read_bytes()


def _cutoffs(name: str, spelling: str) -> HostileCase:
    argv = ("validate", "-j", "j.jsonl", "--corpus", "c.json", "-k", spelling)
    return HostileCase("N", f"validate-k-{name}", argv, {"j.jsonl": JUDGED, "c.json": CORPUS}, stderr_has="-k")


CUTOFFS = [
    _cutoffs("underscore", "5_0"),
    _cutoffs("arabic-indic", "\u0665,10"),
    _cutoffs("exponent", "1e1"),
    _cutoffs("zero", "0,10"),
    _cutoffs("empty-item", "5,,10"),
    _cutoffs("past-the-range", "5,1000001"),
    _cutoffs("word", "all,most"),
]

# drift --fix --out is the copy that leaves the judgments alone: naming the judgments themselves
# (a fixture whose repair changes two labels, so an overwrite would show) is refused.
DRIFT = ("drift", "-j", "j.jsonl", "-c", "corpus.json", "--fix")
DRIFT_FILES = {"j.jsonl": DRIFT_JUDGMENTS, "corpus.json": DRIFT_CORPUS}


def _hard_link(tmp: Path) -> None:
    os.link(tmp / "j.jsonl", tmp / "linked.jsonl")


def _symlink(tmp: Path) -> None:
    (tmp / "alias.jsonl").symlink_to("j.jsonl")


def _drift_out(name: str, out: str, says: str, **kwargs: object) -> HostileCase:
    return HostileCase(
        "O",
        f"drift-fix-out-{name}",
        (*DRIFT, "--out", out),
        DRIFT_FILES,
        stderr_has=says,
        check=unchanged("j.jsonl", DRIFT_JUDGMENTS),
        **kwargs,  # type: ignore[arg-type]
    )


OUTPUTS = [
    _drift_out("is-the-judgments", "j.jsonl", "--out j.jsonl is also an input (the judgments file j.jsonl)"),
    _drift_out("is-the-judgments-other-spelling", "./j.jsonl", "--out ./j.jsonl is also an input"),
    _drift_out("is-the-judgments-absolute", "{tmp}/j.jsonl", "is also an input (the judgments file j.jsonl)"),
    _drift_out("is-a-hard-link-to-the-judgments", "linked.jsonl", "--out linked.jsonl", setup=_hard_link),
    _drift_out("is-a-link-to-the-judgments", "alias.jsonl", "--out alias.jsonl", setup=_symlink),
    HostileCase(
        "O",
        "drift-fix-out-with-dry-run-is-the-judgments",
        (*DRIFT, "--dry-run", "--out", "j.jsonl"),
        DRIFT_FILES,
        stderr_has="--out j.jsonl",
        check=unchanged("j.jsonl", DRIFT_JUDGMENTS),
    ),
    HostileCase(
        "O",
        "drift-out-and-queue-one-file",
        (*DRIFT, "--out", "x.jsonl", "--queue", "./x.jsonl"),
        DRIFT_FILES,
        stderr_has="--queue ./x.jsonl is the same file as --out x.jsonl",
        check=absent("x.jsonl"),
    ),
]

# The same class in the other writing commands: each output over an input none of the older
# rows names, the victim checked byte for byte afterwards.
BEIR = {
    "beir/corpus.jsonl": b'{"_id": "d1", "title": "t", "text": "hello"}\n',
    "beir/queries.jsonl": b'{"_id": "q1", "text": "hello"}\n',
    "beir/qrels/test.tsv": b"query-id\tcorpus-id\tscore\nq1\td1\t1\n",
}
HOLES = ("holes", "-j", "j.jsonl", "-r", "run.jsonl", "-k", "3")
SCORED = {"j.jsonl": JUDGMENTS, "run.jsonl": RUN, "b.json": REPORT_BYTES, "c.json": DRIFT_CORPUS}
for name, argv, files, victim in (
    ("convert-beir-qrels", ("convert", "--beir", "beir", "--to", "judgments", "--out", "beir/qrels/test.tsv"), BEIR,
     "beir/qrels/test.tsv"),
    ("convert-beir-corpus-out-over-queries",
     ("convert", "--beir", "beir", "--to", "judgments", "--out", "x.jsonl", "--corpus-out", "beir/queries.jsonl"),
     BEIR, "beir/queries.jsonl"),
    ("holes-judgments", (*HOLES, "--out", "j.jsonl"), SCORED, "j.jsonl"),
    ("holes-baseline", (*HOLES, "--baseline", "b.json", "--out", "./b.json"), SCORED, "b.json"),
    ("holes-corpus", (*HOLES, "--corpus", "c.json", "--out", "{tmp}/c.json"), SCORED, "c.json"),
    ("judge-human-queue-over-judgments",
     ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "-j", "j.jsonl", "--human-queue", "j.jsonl",
      "--command", "false"), {"q.jsonl": b"", "j.jsonl": JUDGMENTS}, "j.jsonl"),
    ("judge-out-over-corpus", ("judge", "--queue", "q.jsonl", "--out", "c.json", "--corpus", "c.json",
                               "--command", "false"), {"q.jsonl": b"", "c.json": DRIFT_CORPUS}, "c.json"),
    ("render-html-judgments",
     ("render", "--report", "b.json", "--format", "html", "-j", "j.jsonl", "--out", "j.jsonl"), SCORED, "j.jsonl"),
    ("render-html-base", ("render", "--report", "b.json", "--format", "html", "--base", "r.json", "--out", "r.json"),
     {**SCORED, "r.json": REPORT_BYTES}, "r.json"),
    ("compare-head", ("compare", "--base", "b.json", "--head", "h.json", "--out", "./h.json"),
     {"b.json": REPORT_BYTES, "h.json": CMP_BYTES}, "h.json"),
    ("history-report", ("history", "b.json", "--out", "b.json"), {"b.json": REPORT_BYTES}, "b.json"),
):  # fmt: skip
    OUTPUTS.append(
        HostileCase(
            "O",
            f"{name}-output-is-an-input",
            argv,
            files,
            stderr_has="is also an input",
            check=unchanged(victim, files[victim]),
        )  # fmt: skip
    )

CASES = [*NUMBERS, *CUTOFFS, *OUTPUTS]
