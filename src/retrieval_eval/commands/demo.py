"""``retrieval-eval demo``: the whole score output on a bundled example, in one command."""

from __future__ import annotations

from importlib.resources import as_file, files

import click

from ._common import handles_errors
from .score import command as score

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
@click.pass_context
@handles_errors
def command(ctx: click.Context, as_json: bool, color: str) -> None:
    """Score the bundled help-centre example against its baseline, with gates.

    The example lives in the package (retrieval_eval/demo/): judgments with
    strata and two no-answer queries, a run, a corpus snapshot and the base
    branch's report. The BM25 floor is computed over the corpus when the lanes
    extra is installed (without it the output says how to install it). The
    command it runs is printed first so you can run it on your own files.
    """

    with as_file(files("retrieval_eval") / "demo") as folder:
        args = [
            "-j",
            str(folder / "judgments.jsonl"),
            "-r",
            str(folder / "run.jsonl"),
            "-k",
            "5,10",
            "--baseline",
            str(folder / "baseline.json"),
            "--corpus",
            str(folder / "corpus.json"),
            "--floor",
            "bm25",
            "--now",
            DEMO_NOW,
            "--color",
            color,
        ]
        for gate in DEMO_GATES:
            args += ["-g", gate]
        if as_json:
            args.append("--json")
        else:
            click.echo("$ retrieval-eval score " + " ".join(_shorten(a, str(folder)) for a in args) + "\n")
        ctx.invoke(score, **score.make_context("score", args).params)


def _shorten(arg: str, folder: str) -> str:
    return arg.replace(folder, "<demo>")
