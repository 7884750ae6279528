"""``retrieval-eval drift``: which labels still point at the live corpus, and a safe repair."""

from __future__ import annotations

import os

import click

from ..core.drift import check_drift
from ..core.drift_check import DriftCheck, FixRun, QueueWritten
from ..core.drift_fix import plan_fix
from ..core.errors import InputError, UsageError
from ..core.rejudge import queue_lines
from ..core.validate import misspelled_fields
from ..formats.corpus import CORPUS_FORMATS, read_corpus
from ..formats.drift import drift_to_json
from ..formats.fileio import open_binary, refuse_output_over_input, write_atomic
from ..formats.jsonl import iter_lines
from ..formats.judgment_records import write_judgments
from ..formats.judgments import judgments_file_format, parse_judgments
from ..formats.queue import write_queue
from ..pipeline.collector import collector_paused
from ..render.drift import render_drift
from ._common import (
    DECIMAL,
    EXIT_BAD_ANSWER,
    EXIT_OK,
    colour_option,
    handles_errors,
    json_option,
    print_json,
    say,
    use_colour,
)
from ._progress import ProgressBar


def check_options(fix: bool, dry_run: bool, out: str | None, max_invalid_ratio: float) -> None:
    if (dry_run or out) and not fix:
        flag = "--dry-run" if dry_run else "--out"
        raise UsageError(f"{flag} only makes sense with --fix", hint=f"retrieval-eval drift ... --fix {flag}")
    if not 0.0 <= max_invalid_ratio <= 1.0:
        raise UsageError(
            f"--max-invalid-ratio {max_invalid_ratio:g} must be between 0 and 1",
            hint="--max-invalid-ratio 0.05 tolerates 5% of labels needing attention",
        )


def refuse_qrels(path: str) -> None:
    """drift reads judgments JSONL, and --fix writes it back: qrels are refused for what they are
    (they name documents, not chunks, and hold no text), not as JSON that does not parse. A pipe
    is not looked at first (its first line would be gone): its reader refuses it as it reads."""
    if not os.path.isfile(path):
        return
    found = judgments_file_format(path)
    if found != "jsonl" and _reads_as_qrels(path, found):
        raise InputError(
            "judgments",
            None,
            f"{path} holds {'TREC' if found == 'trec' else 'BEIR'} qrels: drift checks judgments JSONL, whose "
            "labels name chunks (chunk_id) and their text",
            path=path,
            hint=f"retrieval-eval convert {path} --to judgments --out judgments.jsonl, then label chunks",
        )


def _reads_as_qrels(path: str, found: str) -> bool:
    """Whether the first line is one the qrels reader takes: BEIR's header, or a TREC label (four
    columns, an integer last). What the format probe calls TREC is any file whose first line does
    not start like JSON: UTF-16 or gzipped judgments, a broken first line. Those are no qrels, and
    converting them as the refusal says would fail too: the judgments reader refuses them."""
    with open_binary(path) as handle:
        for _line, raw in iter_lines(handle, source="judgments", path=path):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                return False
            if found == "beir":  # the probe read its header
                return True
            if not text.startswith("#"):  # a TREC comment
                fields = text.split()
                return len(fields) == 4 and fields[3].lstrip("+-").isdigit()
    return False


@click.command()
@click.option(
    "-j",
    "--judgments",
    "judgments_path",
    required=True,
    metavar="PATH",
    help="Judgments JSONL (qrels: convert them first).",
)
@click.option(
    "-c",
    "--corpus",
    "corpus_path",
    required=True,
    metavar="PATH",
    help="Live corpus: a JSON snapshot, or JSONL with one chunk per line.",
)
@click.option("--corpus-format", type=click.Choice(CORPUS_FORMATS), default="auto", show_default=True)
@click.option("--corpus-fingerprint", metavar="TEXT", help="Corpus fingerprint, for a JSONL corpus without a header.")
@click.option("--chunker-fingerprint", metavar="TEXT", help="Chunker fingerprint, likewise.")
@click.option("--fix", is_flag=True, help="Re-anchor the recoverable labels and rewrite the judgments (atomically).")
@click.option("--dry-run", is_flag=True, help="With --fix: show what would change and write nothing.")
@click.option("--out", metavar="PATH", help="With --fix: write the repaired judgments here instead.")
@click.option(
    "--queue",
    "queue_path",
    metavar="PATH",
    help="Write the re-judge queue: a judgments line, without relevance, per candidate chunk of each "
    "SPLIT or ORPHANED label.",
)
@click.option(
    "--max-invalid-ratio",
    type=DECIMAL,
    default=0.0,
    show_default=True,
    metavar="R",
    help="Exit 0 while the share of labels needing attention is at most R.",
)
@json_option
@colour_option
@handles_errors
def command(
    judgments_path: str,
    corpus_path: str,
    corpus_format: str,
    corpus_fingerprint: str | None,
    chunker_fingerprint: str | None,
    fix: bool,
    dry_run: bool,
    out: str | None,
    queue_path: str | None,
    max_invalid_ratio: float,
    as_json: bool,
    color: str,
) -> None:
    """Classify every label against a live corpus: VALID, RE_ANCHORABLE, MERGED, SPLIT, ORPHANED.

    With --fix, RE_ANCHORABLE and MERGED labels are pointed at their new
    chunk; SPLIT and ORPHANED ones are left for a person (--queue writes
    them as lines to re-judge; filled in and appended, --fix drops the labels
    they replace). Exit code 0 when
    the share of labels needing attention (after the fix, with --fix) is at
    most --max-invalid-ratio, 1 when it is above, 2 when an input is refused.
    """

    check_options(fix, dry_run, out, max_invalid_ratio)
    # --out is the copy that leaves the input alone: naming the judgments (or the corpus) would
    # replace it, as naming --queue's file would; the in-place repair is --fix without --out.
    refuse_output_over_input(
        [("--out", out), ("--queue", queue_path)], [("corpus", corpus_path), ("judgments", judgments_path)]
    )
    refuse_qrels(judgments_path)
    with collector_paused():
        judgments = parse_judgments(judgments_path)
        for issue in misspelled_fields(judgments):  # such a label is no chunk's to drift: say so
            say(f"warning  {judgments_path}: {issue.message}", err=True)
        with ProgressBar("reading corpus") as bar:
            corpus = read_corpus(
                corpus_path,
                corpus_format=corpus_format,
                corpus_fingerprint=corpus_fingerprint,
                chunker_fingerprint=chunker_fingerprint,
                progress=bar,
            )
        with ProgressBar("checking labels") as bar:
            result = check_drift(judgments, corpus, progress=bar)
        plan = plan_fix(result, judgments.comments) if fix else None
        written = None
        if plan is not None and not dry_run and (plan.changed or out):
            written = out or judgments_path
            write_atomic(written, write_judgments(plan.judgments))
        queue = queue_lines(result, corpus) if queue_path else None
        if queue_path and queue is not None:
            write_queue(queue_path, queue)
        check = DriftCheck(
            result,
            corpus,
            judgments_path=judgments_path,
            corpus_path=corpus_path,
            max_invalid_ratio=max_invalid_ratio,
            fix=None if plan is None else FixRun(plan, dry_run=dry_run, written=written),
            queue=None if queue is None else QueueWritten(queue_path or "", len(queue)),
        )
        if as_json:
            print_json(drift_to_json(check))
        else:
            click.echo(render_drift(check, colour=use_colour(color)), nl=False)
    raise SystemExit(EXIT_OK if check.ok else EXIT_BAD_ANSWER)
