"""``retrieval-eval plan``: from a pilot report, the queries a change needs and the change a size sees."""

from __future__ import annotations

import click

from ..comparison.plan import DEFAULT_CHANGES, PlanRequest, plan
from ..comparison.result import check_head_judgments
from ..core.power import DEFAULT_CORRELATION, DEFAULT_POWER, NORMAL, STUDENT, Design
from ..core.significance import CONFIDENCE
from ..formats.judgments import read_label_index
from ..formats.plan import plan_to_json
from ..formats.report import load_report
from ..pipeline.settings import OPTION_BOUNDS
from ..render.plan import plan_text
from ._common import PlainNumber, handles_errors, json_option, print_json


@click.command(epilog="The formulas and their assumptions: docs/compare.md, 'What a set can detect'.")
@click.option(
    "--report", "report_path", required=True, metavar="PATH", help="The pilot: a report with per-query values."
)
@click.option(
    "--baseline",
    "baseline_path",
    metavar="PATH",
    help="A base report of the same queries: the spread of the paired differences instead of the proxy.",
)
@click.option("-j", "--judgments", metavar="PATH", help="Judgments with strata: each stratum planned over its queries.")
@click.option("--metric", "metrics", multiple=True, metavar="NAME", help="Metric to plan for [default: the primary].")
@click.option(
    "--change",
    "changes",
    multiple=True,
    type=PlainNumber(whole=False, minimum=0, maximum=1, min_open=True),
    help=f"A change to detect (repeatable) [default: {', '.join(map(str, DEFAULT_CHANGES))}].",
)
@click.option(
    "--queries",
    "sizes",
    multiple=True,
    type=PlainNumber(whole=True, minimum=2, maximum=OPTION_BOUNDS["queries"].high),
    help="A set size: the change it detects.",
)
@click.option(
    "--power",
    type=PlainNumber(whole=False, minimum=0.5, maximum=1, max_open=True),
    default=DEFAULT_POWER,
    show_default=True,
    help="Power.",
)
@click.option(
    "--alpha",
    type=PlainNumber(whole=False, minimum=0, maximum=0.5, min_open=True),
    default=round(1 - CONFIDENCE, 12),
    show_default=True,
    help="The test's level (the gate's: 0.05).",
)
@click.option(
    "--method",
    type=click.Choice([NORMAL, STUDENT]),
    default=NORMAL,
    show_default=True,
    help="normal quantiles (as the gate's bootstrap behaves) or Student's t (more cautious on small sets).",
)
@click.option(
    "--correlation",
    type=PlainNumber(whole=False, minimum=-1, maximum=1),
    default=DEFAULT_CORRELATION,
    show_default=True,
    help="Without --baseline: the assumed correlation of two runs' per-query values.",
)
@json_option
@handles_errors
def command(
    report_path: str,
    baseline_path: str | None,
    judgments: str | None,
    metrics: tuple[str, ...],
    changes: tuple[float, ...],
    sizes: tuple[int, ...],
    power: float,
    alpha: float,
    method: str,
    correlation: float,
    as_json: bool,
) -> None:
    """How many queries a change needs, and what change a set size detects, from a pilot report.

    Overall and per stratum, at the given power and the gate's level, for paired
    per-query differences (docs/compare.md says how, and what it assumes).
    """
    report = load_report(report_path, source="report")
    baseline = load_report(baseline_path, source="baseline") if baseline_path else None
    strata = None
    if judgments:
        index = read_label_index(judgments)
        # Strata read from other judgments would plan each stratum over another's queries.
        check_head_judgments(index.sha256, report, judgments, side="pilot")
        strata = {q: query.stratum for q, query in index.queries.items()}
    request = PlanRequest(
        metrics=metrics,
        changes=changes or DEFAULT_CHANGES,
        sizes=sizes,
        design=Design(power=power, alpha=alpha, method=method),
        correlation=correlation,
    )
    names = (f"--report {report_path}", f"--baseline {baseline_path}")
    found = plan(report, request, baseline=baseline, strata=strata, names=names)
    if as_json:
        print_json(plan_to_json(found))
    else:
        click.echo(plan_text(found), nl=False)
