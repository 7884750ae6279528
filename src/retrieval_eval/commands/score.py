"""``retrieval-eval score``: the whole pipeline, from files to a verdict and an exit code.

Its options are the shared settings (pipeline/settings.py): the same names, meanings and
defaults as the action's inputs and the config file's keys.
"""

from __future__ import annotations

import os

import click

from ..core.exits import exit_code
from ..core.gates import GRAMMAR_HELP
from ..formats.fileio import refuse_output_over_input
from ..formats.report import write_report
from ..pipeline.collector import collector_paused
from ..pipeline.evaluate import run_pipeline
from ..pipeline.forking import worker_count, workers_override
from ..pipeline.request import local_baseline, request_from_settings
from ..pipeline.settings import inputs_of
from ..render.terminal import render_score
from ._common import (
    colour_option,
    generated_at,
    handles_errors,
    json_option,
    now_option,
    print_json,
    settings_from_options,
    settings_options,
    use_colour,
)

SCORE_SETTINGS = (
    "judgments",
    "run",
    "k",
    "threshold",
    "gain",
    "run-format",
    "unjudged",
    "machine-labels",
    "gates",
    "baseline",
    "judged",
    "report",
    "corpus",
    "floor",
    "easy-set",
    "answer-in-query",
    "collapse-to-documents",
    "max-drift",
    "power",
    "require-detectable",
    "bounds",
    "fail-on-indeterminate",
    "config",
)


@click.command(epilog=f"Gates: {GRAMMAR_HELP}. Several gates: repeat --gate or separate with commas.")
@settings_options(SCORE_SETTINGS)
@json_option
@now_option
@colour_option
@handles_errors
def command(as_json: bool, now: str | None, color: str, **options: str | None) -> None:
    """Score a run against judgments, apply gates, print the verdict.

    Exit code 0 on PASS, 1 on FAIL or INDETERMINATE (0 with --no-fail-on-indeterminate),
    2 when an input is refused.
    """
    settings = settings_from_options(options)
    refuse_output_over_input([("--out", settings.report)], inputs_of(settings))
    baseline, baseline_sha256 = local_baseline(settings)
    request = request_from_settings(
        settings, baseline=baseline, generated_at=generated_at(now), baseline_sha256=baseline_sha256
    )
    with collector_paused():  # the index, heads and report it builds hold no cycle
        evaluation = run_pipeline(request, workers=worker_count(workers_override(os.environ)))
        if settings.report:
            write_report(str(settings.resolve(settings.report)), evaluation.typed_report)
    if as_json:
        print_json(evaluation.report)
    else:
        colour = use_colour(color)
        compared = evaluation.comparison
        document = None if compared is None else compared.document
        click.echo(render_score(evaluation.typed_report, document, colour=colour), nl=False, color=colour)
    raise SystemExit(exit_code(evaluation.verdict.status, fail_on_indeterminate=settings.fail_on_indeterminate))
