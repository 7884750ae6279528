"""``retrieval-eval compare``: a head report against a base report, with paired significance."""

from __future__ import annotations

import os

import click

from ..comparison.result import check_head_judgments
from ..core.gates import GRAMMAR_HELP
from ..core.labelindex import LabelIndex
from ..core.power import DEFAULT_POWER
from ..core.report_model import Report
from ..core.significance import DEFAULT_SEED
from ..formats.comparison import comparison_to_json
from ..formats.fileio import refuse_output_over_input, write_atomic
from ..formats.judgments import read_label_index
from ..formats.report import dump_report, load_report
from ..pipeline.collector import collector_paused
from ..pipeline.compare import compare_documents
from ..pipeline.forking import worker_count, workers_override
from ..pipeline.settings import check_number
from ..render.text import comparison_text
from ._common import WHOLE, PlainNumber, handles_errors, json_option, print_json


def load_head_judgments(path: str, head: Report) -> LabelIndex:
    """The head's judgments, refused when they are not the file the head report was scored with."""

    index = read_label_index(path)
    check_head_judgments(index.sha256, head, path)
    return index


@click.command(
    epilog=f"Gates (score -g, with --baseline for delta gates): {GRAMMAR_HELP}. "
    "A delta gate on a confounded delta is INDETERMINATE. See docs/compare.md."
)
@click.option("--base", "base_path", required=True, metavar="PATH", help="Report of the base branch.")
@click.option("--head", "head_path", required=True, metavar="PATH", help="Report of the head (this change).")
@click.option(
    "-j",
    "--judgments",
    metavar="PATH",
    help="The head's judgments: query text for movers, paired strata, and rescoring the base "
    "rankings when the yardstick changed.",
)
@click.option(
    "--resamples",
    type=PlainNumber(whole=True, minimum=100),
    default=10_000,
    show_default=True,
    help="Bootstrap resamples.",
)
@click.option("--seed", type=WHOLE, default=None, help="Bootstrap seed (default: a fixed one, so runs repeat).")
@click.option(
    "--power",
    type=PlainNumber(whole=False, minimum=0.5, maximum=1, max_open=True),
    default=DEFAULT_POWER,
    show_default=True,
    help="The power at which each metric's minimum detectable effect is stated.",
)
@click.option("--out", metavar="PATH", help="Write the comparison JSON here (atomically).")
@json_option
@handles_errors
def command(
    base_path: str,
    head_path: str,
    judgments: str | None,
    resamples: int,
    seed: int | None,
    power: float,
    out: str | None,
    as_json: bool,
) -> None:
    """Compare two reports: deltas with 95% intervals, strata, movers, comparability.

    When the judgments, threshold or gain changed between the reports and
    --judgments is given, the base rankings are scored again under the head's
    yardstick; otherwise the deltas they touch are marked confounded.
    """

    check_number("resamples", resamples, label="--resamples")
    if seed is not None:
        check_number("seed", seed, label="--seed")
    refuse_output_over_input([("--out", out)], [("base", base_path), ("head", head_path), ("judgments", judgments)])
    with collector_paused():  # two reports, the judgments and the comparison hold no cycle
        base = load_report(base_path, source="base")
        head = load_report(head_path, source="head")
        judgment_set = load_head_judgments(judgments, head) if judgments else None
        document = compare_documents(
            base,
            head,
            judgment_set,
            resamples=resamples,
            seed=DEFAULT_SEED if seed is None else seed,
            power=power,
            workers=worker_count(workers_override(os.environ)),
        )
        if out:
            write_atomic(out, dump_report(comparison_to_json(document)))
        if as_json:
            print_json(comparison_to_json(document))
        else:
            click.echo(comparison_text(document), nl=False)
