"""Our own reports are readable by every one of our readers, whatever settings wrote them.

Each combination of the settings that shape a report (cutoffs with and without ``all``, the
unjudged policy, a corpus or none, threshold and gain) writes a report with ``score``; then every
reader takes it: render (each format), compare (with itself, and with the report of another
combination), history, verify-chain and score's --baseline. A reader refusing our own output
would make the action exit 2 on every pull request after that report is committed."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from click.testing import CliRunner

from retrieval_eval.cli import cli

DEMO = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
CUTOFFS = ["10", "5,10", "all", "10,all", "all,3"]
POLICIES = ["assume-irrelevant", "bounded", "condensed"]
CORPUS = [False, True]
COMBINATIONS = list(itertools.product(CUTOFFS, POLICIES, CORPUS))


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def _score(out: Path, k: str, unjudged: str, corpus: bool, number: int, *more: str) -> tuple[int, str]:
    args = ["score", "-j", str(DEMO / "judgments.jsonl"), "-r", str(DEMO / "run.jsonl"), "-k", k]
    args += [
        "--unjudged",
        unjudged,
        "--threshold",
        str(1 + number % 2),
        "--gain",
        ("exponential", "linear")[number % 2],
    ]
    args += ["--corpus", str(DEMO / "corpus.json")] if corpus else []
    return _run(*args, "--report", str(out), *more)


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("reports")
    written = []
    for number, (k, unjudged, corpus) in enumerate(COMBINATIONS):
        out = folder / f"r{number}.json"
        code, output = _score(out, k, unjudged, corpus, number)
        assert code in (0, 1) and out.is_file(), (k, unjudged, corpus, output)
        written.append(out)
    return written


@pytest.mark.parametrize("number", range(len(COMBINATIONS)), ids=lambda n: "-".join(map(str, COMBINATIONS[n])))
def test_every_reader_reads_every_report(number: int, reports: list[Path], tmp_path: Path) -> None:
    report, other = reports[number], reports[number - 1]
    for fmt in ("summary", "comment", "text", "html"):
        code, output = _run("render", "--report", str(report), "--format", fmt)
        assert code == 0, (fmt, output)
    for base, head in ((report, report), (other, report)):
        code, output = _run("compare", "--base", str(base), "--head", str(head))
        assert code == 0, output
    assert _run("history", str(other), str(report))[0] == 0
    assert _run("verify-chain", str(report))[0] == 0
    k, unjudged, corpus = COMBINATIONS[number]
    code, output = _score(tmp_path / "next.json", k, unjudged, corpus, number, "--baseline", str(report))
    assert code in (0, 1) and "error" not in output, output
