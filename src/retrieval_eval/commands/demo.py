"""``retrieval-eval demo``: the whole score output on a bundled example, in one command.

The command it runs is printed first, quoted for a POSIX shell, so it can be pasted as is.
``--out DIR`` writes the example files to DIR first and runs (and prints) the command on
those copies: pasting the printed command then reproduces the output byte for byte.
"""

from __future__ import annotations

import os
import shlex
from importlib.resources import as_file, files
from pathlib import Path

import click

from ..core.errors import UsageError
from ..formats.fileio import write_atomic
from ._common import handles_errors
from .score import command as score

DEMO_FILES = ("judgments.jsonl", "run.jsonl", "baseline.json", "corpus.json")
DEMO_GATES = (
    "recall@5:0.8",
    "recall@5:-0.05",
    "worst-stratum:recall@5:0.6",
    "ndcg@10:0.7",
    "abstention_rate:0.9",
    "false_abstention_rate:<=0.02",
)
DEMO_NOW = "2026-11-29T12:00:00Z"


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report instead of text.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option(
    "--out",
    "out",
    metavar="DIR",
    help="Write the example files (judgments, run, base report, corpus) to DIR and score those copies.",
)
@click.pass_context
@handles_errors
def command(ctx: click.Context, as_json: bool, color: str, out: str | None) -> None:
    """Score the bundled help-centre example against its baseline, with gates.

    The example lives in the package (retrieval_eval/demo/): judgments with
    strata and two no-answer queries, a run, a corpus snapshot and the base
    branch's report. The BM25 floor is computed over the corpus when the lanes
    extra is installed (without it the output says how to install it). The
    command it runs is printed first; with --out DIR the files are copied to
    DIR, so the printed command runs as is on your machine and is a start
    for your own files.
    """

    with as_file(files("retrieval_eval") / "demo") as bundled:
        folder = write_demo_files(bundled, out) if out is not None else str(bundled)
        args = demo_args(folder, color=color, as_json=as_json)
        if not as_json:
            # The bare command, no prompt sign: pasted into a shell, the line runs as is.
            click.echo(shlex.join(["retrieval-eval", "score", *args]) + "\n")
        ctx.invoke(score, **score.make_context("score", args).params)


def demo_args(folder: str, *, color: str, as_json: bool) -> list[str]:
    """The score arguments of the demo, its files in ``folder``. ``--color`` only when asked for:
    the printed command then behaves as a pasted one would."""
    path = {name: os.path.join(folder, name) for name in DEMO_FILES}
    args = ["-j", path["judgments.jsonl"], "-r", path["run.jsonl"], "-k", "5,10"]
    args += ["--baseline", path["baseline.json"], "--corpus", path["corpus.json"], "--floor", "bm25"]
    args += ["--now", DEMO_NOW]
    for gate in DEMO_GATES:
        args += ["-g", gate]
    if color != "auto":
        args += ["--color", color]
    if as_json:
        args.append("--json")
    return args


def write_demo_files(bundled: Path, out: str) -> str:
    """Copy the example files into ``out`` (created if missing); ``out`` as given, for the command.

    A file of the same name with other content is the user's: nothing is written then.
    """
    if not out.strip():
        raise UsageError("--out is empty", hint="give a folder for the example files: --out demo")
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out {out} is a file, not a folder", hint="give a folder for the example files")
    texts = {name: (bundled / name).read_text(encoding="utf-8") for name in DEMO_FILES}
    for name, text in texts.items():
        target = os.path.join(out, name)
        if os.path.lexists(target) and not _holds(target, text):
            raise UsageError(
                f"{target} exists and is not the demo's {name}; nothing was written",
                hint="give --out an empty or new folder",
            )
    for name, text in texts.items():
        write_atomic(os.path.join(out, name), text)
    return out


def _holds(path: str, text: str) -> bool:
    """Whether ``path`` is a regular file whose bytes are ``text`` (a second run rewrites nothing new)."""
    try:
        return os.path.isfile(path) and Path(path).read_bytes() == text.encode("utf-8")
    except OSError:
        return False
