"""``retrieval-eval validate``: is this judgment set sound, and does a run fit it?"""

from __future__ import annotations

import click

from ..core.errors import UsageError
from ..core.judgments import JudgmentSet
from ..core.labelindex import LabelIndex
from ..core.scoring import ScoreConfig
from ..core.sensitivity import Thresholds
from ..core.validate import Issue, RunFacts, Validation, ordered, validate, validate_with_run
from ..formats.fileio import open_binary, reads_once
from ..formats.kinds import says_what_it_is
from ..formats.objects import read_judgment_set
from ..formats.runs import detect_format, iter_run_jsonl, iter_trec_run, no_ranking_error
from ..formats.validation import validation_to_json
from ..pipeline.floor import check_eval_set
from ..pipeline.settings import check_number, parse_answer_in_query, parse_cutoff_option, parse_easy_set
from ..render.terminal import render_validation
from ._common import (
    EXIT_BAD_ANSWER,
    EXIT_OK,
    WHOLE,
    colour_option,
    handles_errors,
    json_option,
    print_json,
    say,
    use_colour,
)


@reads_once
@says_what_it_is("run")
def run_facts(path: str, run_format: str, judged: set[str]) -> RunFacts:
    """Stream the whole run once, keeping each query's key set (validate looks at every key)."""
    fmt = detect_format(path) if run_format == "auto" else run_format
    keys: dict[str, set[str]] = {}
    repeated: set[str] = set()
    with open_binary(path) as handle:
        if fmt == "jsonl":
            for _line, query_id, ranking in iter_run_jsonl(handle, path=path):
                keys[query_id] = set(ranking)
                if len(keys[query_id]) != len(ranking):
                    repeated.add(query_id)
        else:
            for _line, query_id, doc_id, _score in iter_trec_run(handle, path=path):
                seen = keys.setdefault(query_id, set())
                if doc_id in seen:
                    repeated.add(query_id)
                seen.add(doc_id)
    if not keys:
        raise no_ranking_error(path)  # as score refuses it
    return RunFacts(keys, sorted(repeated), sorted(set(keys) - judged))


def _thresholds(easy_set: str, answer_in_query: str) -> Thresholds:

    try:
        return Thresholds(parse_easy_set(easy_set), parse_answer_in_query(answer_in_query))
    except ValueError as exc:
        raise UsageError(str(exc), hint="--easy-set 0.95 --answer-in-query 8 (or off)") from None


def _eval_set_issues(
    judgments: JudgmentSet, corpus_path: str, cutoffs: str, threshold: int, thresholds: Thresholds
) -> tuple[list[Issue], str | None]:
    """The sensitivity warnings as validation issues, and why the easy-set check was skipped."""
    k, full_depth = parse_cutoff_option(cutoffs)
    # As in score: the easy-set check reads hit_rate at the first cutoff; -k all alone skips it.
    config = ScoreConfig(k=k, threshold=threshold, full_depth=full_depth)
    found = check_eval_set(LabelIndex.from_judgments(judgments), corpus_path, config, thresholds)
    issues = [Issue(w.code or "", w.subject or "", w.message or "") for w in found.warnings or ()]
    return issues, found.skipped


@click.command()
@click.option("-j", "--judgments", required=True, metavar="PATH", help="Judgments: JSONL, TREC or BEIR qrels.")
@click.option("-r", "--run", "run_path", metavar="PATH", help="Also check a run against the judgments.")
@click.option("--run-format", type=click.Choice(["auto", "jsonl", "trec"]), default="auto", show_default=True)
@click.option("--threshold", type=WHOLE, default=1, show_default=True, help="Lowest grade that counts as relevant.")
@click.option(
    "--corpus",
    "corpus_path",
    metavar="PATH",
    help="Also check that the set can tell retrievers apart (easy-set, answer-in-query).",
)
@click.option(
    "-k",
    "cutoffs",
    default="10",
    show_default=True,
    help="With --corpus: cutoffs as for score (5,10 or 10,all); the easy-set check reads the first.",
)
@click.option(
    "--easy-set",
    default="0.95",
    show_default=True,
    help="With --corpus: warn when the BM25 floor reaches this hit rate (off: no check).",
)
@click.option(
    "--answer-in-query",
    default="8",
    show_default=True,
    help="With --corpus: warn when a query repeats this many consecutive words of a relevant text (off: no check).",
)
@json_option
@colour_option
@handles_errors
def command(
    judgments: str,
    run_path: str | None,
    run_format: str,
    threshold: int,
    corpus_path: str | None,
    cutoffs: str,
    easy_set: str,
    answer_in_query: str,
    as_json: bool,
    color: str,
) -> None:
    """Report every problem of a judgment set, errors first, in a stable order.

    Exit code 0 when there is no error (warnings allowed), 1 when the set is
    unsound, 2 when a file cannot be read.
    """

    check_number("threshold", threshold, label="--threshold")
    parse_cutoff_option(cutoffs)  # refused before any file is read, as score refuses it
    thresholds = _thresholds(easy_set, answer_in_query) if corpus_path else None
    judgment_set = read_judgment_set(judgments)  # in any format score reads
    if run_path:
        judged = {label.query_id for label in judgment_set.labels} | {m.query_id for m in judgment_set.no_answer}
        result = validate_with_run(judgment_set, run_facts(run_path, run_format, judged), threshold=threshold)
    else:
        result = validate(judgment_set, threshold=threshold)
    if corpus_path and thresholds is not None:
        issues, skipped = _eval_set_issues(judgment_set, corpus_path, cutoffs, threshold, thresholds)
        result = Validation(ordered([*result.issues, *issues]), result.queries, result.labels)
        if skipped:
            say(f"note  {skipped}", err=True)
    if as_json:
        print_json(validation_to_json(result))
    else:
        colour = use_colour(color)
        click.echo(render_validation(result, colour=colour), nl=False, color=colour)
    raise SystemExit(EXIT_OK if result.ok else EXIT_BAD_ANSWER)
