"""``retrieval-eval summarize``: samples of a judged metric -> mean, stdev, 95% interval."""

from __future__ import annotations

import click

from ..formats.samples import measurement_to_json, read_samples
from ..render.terminal import clean
from ._common import handles_errors, json_option, print_json


@click.command()
@click.argument("samples_path", metavar="SAMPLES.json")
@click.option("--name", default="judged", show_default=True, help="Metric name shown in the text output.")
@json_option
@handles_errors
def command(samples_path: str, name: str, as_json: bool) -> None:
    """Summarize repeated samples (a JSON array of numbers, or {"samples": [...]}).

    The measurement is what `score --judged NAME=SAMPLES.json` puts in the
    report: value (mean), n, stdev (n-1) and a 95% Student-t interval, never
    clamped to [0, 1]. One sample has no interval.
    """

    measurement = read_samples(name, samples_path, source="samples")
    if as_json:
        print_json(measurement_to_json(measurement))
        return

    line = f"{clean(name)}  {measurement.value:.6f}  n={measurement.n}"
    if measurement.ci is not None and measurement.stdev is not None:
        low, high = measurement.ci
        line += f"  stdev={measurement.stdev:.6f}  95% CI [{low:.6f}, {high:.6f}]"
    else:
        line += "  (one sample: no interval)"
    click.echo(line)
