"""``retrieval-eval history``: metrics over a line of reports, with breaks where the yardstick changed."""

from __future__ import annotations

import os

import click

from ..comparison.history import Point, history_metrics, history_of
from ..formats.fileio import refuse_output_over_input, write_atomic
from ..formats.history import history_to_json
from ..formats.jsonout import indented
from ..formats.report import load_report
from ..render.kinds import render_history
from ._common import handles_errors, json_option, print_json


@click.command()
@click.argument("report_paths", metavar="REPORT...", nargs=-1, required=True)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    metavar="M",
    help="A metric to follow (repeatable). Default: the last report's primary metric and every gated one.",
)
@click.option(
    "--format",
    "kind",
    type=click.Choice(["text", "summary"]),
    default="text",
    show_default=True,
    help="text for a terminal; summary for the job summary's Markdown (Mermaid chart and table).",
)
@click.option("--out", metavar="PATH", help="Write here (atomically) instead of standard output.")
@json_option
@handles_errors
def command(report_paths: tuple[str, ...], metrics: tuple[str, ...], kind: str, out: str | None, as_json: bool) -> None:
    """Follow metrics over REPORT... given oldest first (the last is the one under review).

    Each report is named by its file name and dated by its generated_at. A
    report measured with another yardstick than the one before it (judgments,
    threshold, gain or policy) starts a new line: the chart stops and the table
    marks the break, so two rulers are never joined.
    """
    refuse_output_over_input([("--out", out)], [("report", path) for path in report_paths])
    # An argument, not --report: a run given here is refused naming what history takes.
    reports = [load_report(path, source="report", option="a REPORT argument of history") for path in report_paths]
    names = [os.path.basename(path) for path in report_paths]
    labels = names if len(set(names)) == len(names) else list(report_paths)
    points = [Point(label, _date(report.generated_at), report) for label, report in zip(labels, reports)]
    history = history_of(points, list(metrics) or history_metrics(reports[-1]))
    if as_json:  # the points and their breaks as data, as every reporting command gives them
        if out:
            write_atomic(out, indented(history_to_json(history)) + "\n")
        else:
            print_json(history_to_json(history))
        return
    text = render_history(history, kind)
    text = text if text.endswith("\n") else text + "\n"
    if out:
        write_atomic(out, text)
    else:
        click.echo(text, nl=False)


def _date(value: object) -> str | None:
    return str(value)[:10] if isinstance(value, str) and value else None
