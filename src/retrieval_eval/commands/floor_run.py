"""``retrieval-eval floor-run`` (formerly ``baseline``): a BM25 or TF-IDF floor run for the judged queries."""

from __future__ import annotations

import click

from ..core.tokenize import TokenizerSpec
from ..pipeline.floor_run import FloorRunRequest, make_floor_run
from ..pipeline.settings import check_number
from ._common import DECIMAL, WHOLE, handles_errors, say

# Queries named on stderr before the rest are left to the sidecar.
LISTED = 10


def _names(queries: list[str]) -> str:
    shown = ", ".join(queries[:LISTED])
    return shown if len(queries) <= LISTED else f"{shown} and {len(queries) - LISTED} more"


@click.command()
@click.option("--method", required=True, type=click.Choice(["bm25", "tfidf"]), help="The lexical lane.")
@click.option("--corpus", "corpus_path", required=True, metavar="PATH", help="Corpus snapshot (JSON or JSONL).")
@click.option(
    "-j", "--judgments", "judgments_path", required=True, metavar="PATH", help="Judgments: JSONL, TREC or BEIR qrels."
)
@click.option("--out", required=True, metavar="PATH", help="Write the run here (atomically), and PATH.meta.json.")
@click.option("--depth", default=100, show_default=True, type=WHOLE, help="Keys ranked per query.")
@click.option(
    "--granularity",
    type=click.Choice(["chunk", "document"]),
    default="chunk",
    show_default=True,
    help="Rank chunks (keys = chunk ids) or documents (keys = doc uris).",
)
@click.option("--k1", type=DECIMAL, help="BM25 term-frequency saturation.  [default: 1.5]")
@click.option("--b", type=DECIMAL, help="BM25 length normalisation, 0 to 1.  [default: 0.75]")
@click.option("--stem/--no-stem", default=False, show_default=True, help="Snowball English stemming.")
@click.option(
    "--stopwords",
    type=click.Choice(["none", "english"]),
    default="none",
    show_default=True,
    help="Stop words to drop (english: Lucene's 33 words).",
)
@click.option("--corpus-format", type=click.Choice(["auto", "json", "jsonl"]), default="auto", show_default=True)
@handles_errors
def command(
    method: str,
    corpus_path: str,
    judgments_path: str,
    out: str,
    depth: int,
    granularity: str,
    k1: float | None,
    b: float | None,
    stem: bool,
    stopwords: str,
    corpus_format: str,
) -> None:
    """Write a BM25 or TF-IDF floor run for the judged queries over a corpus.

    Query text comes from the judgments' `query` field; a query without text
    is left out (and named on stderr). Needs the lanes extra:
    pip install 'retrieval-eval[lanes]'.
    """

    check_number("depth", depth, label="--depth")
    for name, value in (("k1", k1), ("b", b)):
        if value is not None:
            check_number(name, value, label=f"--{name}")
    request = FloorRunRequest(
        method=method,
        corpus_path=corpus_path,
        judgments_path=judgments_path,
        out=out,
        depth=depth,
        granularity=granularity,
        k1=k1,
        b=b,
        tokenizer=TokenizerSpec(stem=stem, stopwords=stopwords),
        corpus_format=corpus_format,
    )
    result = make_floor_run(request)
    queries = result.queries
    if queries.without_text:
        count = len(queries.without_text)
        say(
            f"warning  {count} judged {'query has' if count == 1 else 'queries have'} no query text and "
            f"{'is' if count == 1 else 'are'} left out of the run: {_names(queries.without_text)}",
            err=True,
        )
    if queries.conflicting:
        say(
            f"warning  labels give more than one query text for {_names(queries.conflicting)}; the first is used",
            err=True,
        )
    ranked = result.ranked
    unit = "chunks" if granularity == "chunk" else "documents"
    say(
        f"wrote {ranked} queries (top {depth} of {result.keys} {unit}, {method}) to {out}"
        + (f", and how they were made to {result.meta_path}" if result.meta_path else " (no sidecar beside a stream)"),
        err=True,
    )
