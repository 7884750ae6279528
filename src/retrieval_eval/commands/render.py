"""``retrieval-eval render``: a report (and its comparison) as Markdown or text."""

from __future__ import annotations

import os

import click

from ..core.comparison_document import ComparisonDocument
from ..core.errors import InputError, UsageError
from ..core.report_model import Report
from ..formats.comparison import read_comparison
from ..formats.fileio import refuse_output_over_input, write_atomic
from ..formats.report import load_report
from ..render.kinds import render
from ._common import handles_errors


def load_comparison(path: str, report: Report) -> ComparisonDocument:
    """A comparison document written by ``compare``, refused when it belongs to another head report."""
    inputs = report.inputs

    document = read_comparison(path)
    head_run = document.head.run_sha256
    if head_run and head_run != (inputs.run_sha256 if inputs is not None else None):
        raise InputError(
            "comparison",
            None,
            "it was made for another head report (run sha256 differs)",
            path=path,
            hint="compare again with --head set to the report you render",
        )
    return document


def template_inputs(template_dir: str | None) -> list[tuple[str, str | None]]:
    """The templates a render may read, as inputs an output must not replace."""
    if not template_dir:
        return []
    try:
        names = os.listdir(template_dir)
    except OSError:
        return []  # the renderer refuses the folder itself, in its own words
    return [("template", os.path.join(template_dir, name)) for name in names]


def load_base(path: str, comparison: ComparisonDocument | None) -> Report:
    """The base report, refused when the comparison was made against another one."""

    base = load_report(path, source="base")
    compared = None if comparison is None else comparison.base.run_sha256
    if compared and compared != (base.inputs.run_sha256 if base.inputs is not None else None):
        raise InputError(
            "base",
            None,
            "the comparison was made against another base report (run sha256 differs)",
            path=path,
            hint="pass the base report the comparison was made with",
        )
    return base


def refuse_misplaced_options(kind: str, **given: str | None) -> None:
    """--base, -j and --corpus feed the HTML page only; --template-dir the Markdown kinds only."""

    html_only = [name for name in ("base_path", "judgments", "corpus") if given[name]]
    if kind != "html" and html_only:
        flag = {"base_path": "--base", "judgments": "--judgments", "corpus": "--corpus"}[html_only[0]]
        raise UsageError(f"{flag} is read by --format html only", hint="add --format html, or leave it out")
    if kind == "html" and given["template_dir"]:
        raise UsageError(
            "--template-dir applies to the Markdown formats (summary, comment), not to html",
            hint="leave out --template-dir",
        )


@click.command()
@click.option("--report", "report_path", required=True, metavar="PATH", help="The report to render (the head).")
@click.option("--compare", "compare_path", metavar="PATH", help="Comparison JSON from 'retrieval-eval compare'.")
@click.option(
    "--format",
    "kind",
    type=click.Choice(["summary", "comment", "text", "html"]),
    default="summary",
    show_default=True,
    help="Job summary (full), PR comment (compact), terminal text, or a self-contained HTML page.",
)
@click.option(
    "--base",
    "base_path",
    metavar="PATH",
    help="html: the base report, whose rankings are shown beside the head's.",
)
@click.option("-j", "--judgments", metavar="PATH", help="html: the head's judgments, for query text and labels.")
@click.option("--corpus", metavar="PATH", help="html: a corpus snapshot, for the text of each chunk shown.")
@click.option("--out", metavar="PATH", help="Write here (atomically) instead of standard output.")
@click.option(
    "--template-dir",
    metavar="DIR",
    help="Directory of templates (comment.md.j2, summary.md.j2) extending the built-in ones.",
)
@click.option(
    "--comment-id",
    default="default",
    show_default=True,
    help="Id in the comment's hidden marker, to keep several comments apart.",
)
@handles_errors
def command(
    report_path: str,
    compare_path: str | None,
    kind: str,
    base_path: str | None,
    judgments: str | None,
    corpus: str | None,
    out: str | None,
    template_dir: str | None,
    comment_id: str,
) -> None:
    """Render a report as GitHub Markdown (summary or comment) or terminal text.

    Every string that came from a file is escaped; a comment stays under
    65,536 characters and a summary under 1 MiB by leaving out whole
    sections, with a note saying which. The HTML page shows the queries that
    moved most one by one, base and head rankings side by side.
    """

    refuse_misplaced_options(kind, base_path=base_path, judgments=judgments, corpus=corpus, template_dir=template_dir)
    refuse_output_over_input(
        [("--out", out)],
        [
            ("report", report_path),
            ("comparison", compare_path),
            ("base", base_path),
            ("judgments", judgments),
            ("corpus", corpus),
            *template_inputs(template_dir),
        ],
    )
    report = load_report(report_path, source="report")
    comparison = load_comparison(compare_path, report) if compare_path else None
    if kind == "html":
        from ..render.html import html_report  # the page's modules, for this format only

        base = load_base(base_path, comparison) if base_path else None
        text = html_report(report, comparison, base=base, judgments=judgments, corpus=corpus)
    else:
        text = render(kind, report=report, comparison=comparison, template_dir=template_dir, comment_id=comment_id)
    if out:
        write_atomic(out, text)
    else:
        click.echo(text, nl=False)
