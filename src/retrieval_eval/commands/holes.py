"""``retrieval-eval holes``: the label queue, the unjudged keys worth labeling first.

One judgments line per unjudged (query, key) in the top k of the run (and of the base
report's rankings, with --baseline), without ``relevance`` and with a ``labeled_by``
placeholder: fill in both and append the line to the judgments. The order is how far
labeling the key alone could move the primary metric's mean (core/unjudged.py).
"""

from __future__ import annotations

import click

from ..formats.fileio import refuse_output_over_input
from ..formats.queue import queue_text, write_queue
from ..pipeline.evaluate import run_pipeline
from ..pipeline.request import local_baseline, request_from_settings
from ..pipeline.settings import inputs_of
from ..render.terminal import clean_json_text
from ._common import generated_at, handles_errors, say, settings_from_options, settings_options

HOLES_SETTINGS = ("judgments", "run", "k", "threshold", "gain", "run-format", "baseline", "corpus", "config")


@click.command()
@settings_options(HOLES_SETTINGS)
@click.option("--out", "out", metavar="PATH", help="Write the queue here (JSONL); default: standard output.")
@handles_errors
def command(out: str | None, **options: str | None) -> None:
    """Write the label queue: the unjudged keys in the top k, most useful to label first."""
    settings = settings_from_options(options)
    if out:
        refuse_output_over_input([("--out", out)], inputs_of(settings))
    baseline, baseline_sha256 = local_baseline(settings)
    request = request_from_settings(
        settings, baseline=baseline, generated_at=generated_at(None), baseline_sha256=baseline_sha256
    )
    evaluation = run_pipeline(request.with_queue())
    if out:
        write_queue(out, evaluation.queue)
        say(f"{len(evaluation.queue)} unjudged key(s) written to {out}", err=True)
    else:
        click.echo(clean_json_text(queue_text(evaluation.queue)), nl=False)
