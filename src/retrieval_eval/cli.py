"""The ``retrieval-eval`` command line.

Each subcommand lives in ``retrieval_eval.commands.<name>`` and is imported
only when it runs, so ``retrieval-eval --version`` and ``--help`` stay cheap.
"""

from __future__ import annotations

import importlib

import click

from ._version import __version__

# name -> (module under retrieval_eval.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "score": ("score", "Score a run against judgments; gate the result."),
    "validate": ("validate", "Check a judgment set (and optionally a run against it)."),
    "convert": ("convert", "Convert between judgments, TREC/BEIR qrels and run formats."),
    "summarize": ("summarize", "Summarize samples of a judged metric (mean, stdev, 95% CI)."),
    "drift": ("drift", "Check labels against a live corpus after a re-chunk; --fix re-anchors the safe ones."),
    "chunk-id": ("chunk_id", "Print the chunk_id, text_sha or normalized text of a chunk."),
    "demo": ("demo", "Score the bundled example, with a baseline and gates."),
    "compare": ("compare", "Compare a head report with a base report: deltas, significance, movers."),
    "history": (
        "history",
        "Follow the primary and gated metrics over reports, with breaks where the yardstick changed.",
    ),
    "render": ("render", "Render a report (and its comparison) as a job summary, PR comment, text or an HTML page."),
    "action": ("action", "Run as the GitHub Action (inputs from INPUT_* variables)."),
    "floor-run": ("floor_run", "Write a BM25 or TF-IDF floor run for the judged queries over a corpus."),
    "fuse": ("fuse", "Fuse runs by reciprocal rank fusion into one run."),
    "verify-chain": ("verify_chain", "Check that reports, oldest first, link up by their baseline hashes."),
    "holes": ("holes", "Write the label queue: unjudged keys in the top k, the most useful to label first."),
    "judge": (
        "judge",
        "Label the queue's holes with a calibrated judge; machine labels stay apart from the judgments.",
    ),
    "plan": ("plan", "From a pilot report: the queries a change needs, and the change a set size detects."),
}


# Old names that still run, announced on stderr (CHANGELOG.md): "baseline" means only the base
# branch's report, so the command that writes a floor run is "floor-run".
RENAMED: dict[str, str] = {"baseline": "floor-run"}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in RENAMED:
            click.echo(
                f"note  `retrieval-eval {name}` is now `retrieval-eval {RENAMED[name]}`; the old name will go", err=True
            )
            name = RENAMED[name]
        entry = COMMANDS.get(name)
        if entry is None:
            return None
        module = importlib.import_module(f"retrieval_eval.commands.{entry[0]}")
        command: click.Command = module.command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="retrieval-eval", message="%(prog)s %(version)s")
def cli() -> None:
    """Exact retrieval metrics, label drift repair and merge gates.

    Exit codes: 0 the answer is good; 1 the answer is bad (gate FAIL,
    INDETERMINATE, decayed labels, an unsound judgment set); 2 the question
    could not be answered (usage, unreadable or malformed input).
    """
