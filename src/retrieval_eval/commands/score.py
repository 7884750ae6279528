"""``retrieval-eval score``: the whole pipeline, from files to a verdict and an exit code."""

from __future__ import annotations

from typing import Any

import click

from ..core.errors import InputError, UsageError
from ..core.gates import GRAMMAR_HELP, split_gate_list
from ..core.summarize import summarize_samples
from ..formats.runs import RUN_FORMATS
from ._common import (
    EXIT_BAD_ANSWER,
    EXIT_OK,
    colour_option,
    generated_at,
    handles_errors,
    json_option,
    now_option,
    parse_k_list,
    print_json,
    use_colour,
)


def read_samples(name: str, path: str, *, source: str | None = None) -> dict[str, Any]:
    """A judged metric's samples file: a JSON array of numbers, or {"samples": [...]}.

    Messages name ``source``, ``judged NAME`` unless given.
    """
    from ..formats.jsondoc import read_document

    source = source or f"judged {name}"
    data = read_document(path, source)
    samples = data.get("samples") if isinstance(data, dict) else data
    if (
        not isinstance(samples, list)
        or not samples
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in samples)
    ):
        raise InputError(source, None, 'expected a non-empty JSON array of numbers (or {"samples": [...]})', path=path)
    try:
        return summarize_samples(samples)
    except ValueError as exc:
        raise InputError(source, None, str(exc), path=path) from None


def parse_judged(options: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    judged: dict[str, dict[str, Any]] = {}
    for option in options:
        name, sep, path = option.partition("=")
        if not sep or not name or not path:
            raise UsageError(f"--judged {option!r} must be NAME=PATH", hint="--judged faithfulness=samples.json")
        judged[name] = read_samples(name, path)
    return judged


@click.command(epilog=f"Gates: {GRAMMAR_HELP}. Several gates: repeat --gate or separate with commas.")
@click.option("-j", "--judgments", required=True, metavar="PATH", help="Judgments JSONL.")
@click.option("-r", "--run", "run_path", required=True, metavar="PATH", help="Run: JSONL or TREC run file.")
@click.option("-k", "k_text", default="10", show_default=True, metavar="K[,K...]", help="Cutoffs, e.g. 5,10,20.")
@click.option("--threshold", type=int, default=1, show_default=True, help="Lowest grade that counts as relevant.")
@click.option(
    "--gain",
    type=click.Choice(["exponential", "linear"]),
    default="exponential",
    show_default=True,
    help="nDCG gain: 2^g-1, or g as trec_eval's ndcg_cut.",
)
@click.option("--run-format", type=click.Choice(RUN_FORMATS), default="auto", show_default=True)
@click.option("-g", "--gate", "gates", multiple=True, metavar="EXPR", help="A gate expression (repeatable).")
@click.option("--baseline", metavar="PATH", help="Report of the base branch, for delta gates.")
@click.option(
    "--judged",
    "judged_options",
    multiple=True,
    metavar="NAME=PATH",
    help="Samples of a judged metric (JSON array), for ci-lower gates.",
)
@click.option("--out", metavar="PATH", help="Write the JSON report here (atomically).")
@click.option(
    "--corpus",
    "corpus_path",
    metavar="PATH",
    help="Live corpus snapshot: adds label drift to the report (and maps chunks to documents).",
)
@click.option(
    "--collapse-to-documents",
    is_flag=True,
    help="With --corpus: score a chunk run against document labels, each document at its first rank.",
)
@json_option
@now_option
@colour_option
@handles_errors
def command(
    judgments: str,
    run_path: str,
    k_text: str,
    threshold: int,
    gain: str,
    run_format: str,
    gates: tuple[str, ...],
    baseline: str | None,
    judged_options: tuple[str, ...],
    out: str | None,
    as_json: bool,
    now: str | None,
    color: str,
    corpus_path: str | None,
    collapse_to_documents: bool,
) -> None:
    """Score a run against judgments, apply gates, print the verdict.

    Exit code 0 on PASS, 1 on FAIL or INDETERMINATE, 2 when an input is refused.
    """
    from ..core.report import load_report, write_report
    from ..core.scoring import ScoreConfig
    from ..formats.fileio import refuse_output_over_input
    from ..pipeline.evaluate import ScoreRequest, evaluate
    from ..render.terminal import render_score

    samples = [("samples", option.partition("=")[2]) for option in judged_options]
    inputs = [("judgments", judgments), ("run", run_path), ("baseline", baseline), ("corpus", corpus_path), *samples]
    refuse_output_over_input([("--out", out)], inputs)
    request = ScoreRequest(
        judgments_path=judgments,
        run_path=run_path,
        config=ScoreConfig(k=parse_k_list(k_text), threshold=threshold, gain=gain),
        gates=[g for text in gates for g in split_gate_list(text)],
        run_format=run_format,
        baseline=load_report(baseline) if baseline else None,
        judged=parse_judged(judged_options),
        generated_at=generated_at(now),
        corpus_path=corpus_path,
        collapse_to_documents=collapse_to_documents,
    )
    evaluation = evaluate(request)
    if out:
        write_report(out, evaluation.report)
    if as_json:
        print_json(evaluation.report)
    else:
        colour = use_colour(color)
        click.echo(render_score(evaluation.report, colour=colour), nl=False, color=colour)
    raise SystemExit(EXIT_OK if evaluation.verdict.status == "PASS" else EXIT_BAD_ANSWER)
