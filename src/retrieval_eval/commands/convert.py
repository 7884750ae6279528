"""``retrieval-eval convert``: move labels and runs between JSONL, TREC and BEIR formats.

Judgments and qrels are small and converted in memory; runs are streamed
line by line (run JSONL to TREC) or grouped per query (TREC to run JSONL,
which must see every line of a query before it can order it).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator

import click

from ..core.errors import UsageError
from ..core.runs import dedupe_head
from ..core.validate import misspelled_fields
from ..formats.beir import convert_beir
from ..formats.fileio import atomic_writer, open_binary, refuse_output_over_input
from ..formats.jsonl import iter_raw_lines
from ..formats.judgment_records import iter_canonical_lines
from ..formats.judgments import parse_judgments
from ..formats.qrels import beir_lines, check_token, qrels_lines, read_beir_qrels, read_trec_qrels
from ..formats.runs import iter_run_jsonl, parse_run
from ..render.terminal import clean, clean_json_text
from ._common import handles_errors, say

LABEL_FORMATS = ("judgments", "trec-qrels", "beir-qrels")
RUN_FORMATS = ("run-jsonl", "trec-run")
FORMATS = LABEL_FORMATS + RUN_FORMATS


def detect_input_format(path: str) -> str:
    """Guess the input format from the name, then from the first line."""

    if path.endswith(".tsv"):
        return "beir-qrels"
    if path.endswith((".qrels", ".qrel")):
        return "trec-qrels"
    with open_binary(path) as handle:
        for raw in iter_raw_lines(handle, path=path):
            line = raw.removeprefix(b"\xef\xbb\xbf").strip()
            if not line or line.startswith((b"#", b"//")):
                continue
            if line.startswith(b"{"):
                return "run-jsonl" if b'"ranking"' in line else "judgments"
            columns = len(line.split())
            if columns == 4:
                return "trec-qrels"
            if columns >= 6:  # a TREC run may carry fields after its tag, which are ignored
                return "trec-run"
            break
    raise UsageError(f"cannot tell the format of {path}", hint=f"say it with --from ({', '.join(FORMATS)})")


def read_labels(path: str, fmt: str):  # type: ignore[no-untyped-def]

    if fmt == "trec-qrels":
        return read_trec_qrels(path, warn=lambda message: say(f"warning  {message}", err=True))
    if fmt == "judgments":
        judgments = parse_judgments(path)
        for issue in misspelled_fields(judgments):  # a misspelled chunk_id converts as a document's label
            say(f"warning  {path}: {issue.message}", err=True)
        return judgments
    return read_beir_qrels(path)


def label_lines(path: str, source: str, target: str) -> Iterator[str]:

    judgments = read_labels(path, source)
    if target == "judgments":
        return iter_canonical_lines(judgments)
    writer = qrels_lines if target == "trec-qrels" else beir_lines
    if judgments.no_answer:  # qrels hold grades of documents; "no answer" has no place there
        count = len(judgments.no_answer)
        say(
            f"warning  {count} no_answer line{'s' if count > 1 else ''} cannot be written as qrels and "
            f"{'are' if count > 1 else 'is'} left out",
            err=True,
        )
    return writer(judgments.labels, source=_source_name(source))


def _source_name(fmt: str) -> str:
    return "run" if fmt in RUN_FORMATS else ("judgments" if fmt == "judgments" else "qrels")


def jsonl_to_trec(path: str, tag: str) -> Iterator[str]:
    """One TREC line per distinct key, scores falling with rank so trec_eval keeps the order."""

    check_token(tag, "tag", "convert", None)
    with open_binary(path) as handle:
        for line, query_id, ranking in iter_run_jsonl(handle, path=path):
            check_token(query_id, "query_id", "run", line)
            keys, _ = dedupe_head(ranking, None)
            for rank, key in enumerate(keys, 1):
                check_token(key, "ranking entry", "run", line)
                yield f"{query_id} Q0 {key} {rank} {len(keys) - rank + 1} {tag}"


def trec_to_jsonl(path: str) -> Iterator[str]:

    run = parse_run(path, run_format="trec")
    for query_id in sorted(run.rankings):
        yield json.dumps(
            {"query_id": query_id, "ranking": run.rankings[query_id]}, ensure_ascii=False, separators=(",", ":")
        )


def run_lines(path: str, source: str, target: str, tag: str) -> Iterable[str]:
    if source == target:
        raise UsageError("the input is already in that format")
    return jsonl_to_trec(path, tag) if source == "run-jsonl" else trec_to_jsonl(path)


def _for_terminal(line: str, number: int) -> str:
    """A line for standard output, through the one cleaner: a JSON line (ours start with ``{``)
    gets JSON escapes, which read back the same; a white-space separated line cannot hold them,
    so one with a character a terminal would obey is refused, pointing at ``--out``."""
    if line.startswith("{"):
        return clean_json_text(line)
    if line.replace("\t", " ").isprintable():  # BEIR's qrels separate by tabs
        return line
    shown = clean(line)
    raise UsageError(
        f"output line {number} holds a character a terminal would obey: {shown[:200]}",
        hint="write it to a file with --out PATH, byte for byte",
    )


def write_lines(lines: Iterable[str], out: str | None) -> int:
    """Write the lines to ``out`` (atomically: a refusal midway leaves it as it was), or to stdout.

    Stdout cannot be taken back, so there every line is read, checked and
    encoded before the first byte is printed.
    """
    if out is None:
        text = "".join(_for_terminal(line, number) + "\n" for number, line in enumerate(lines, 1))
        sys.stdout.buffer.write(text.encode("utf-8"))
        sys.stdout.flush()
        return text.count("\n")
    count = 0
    with atomic_writer(out) as handle:
        for line in lines:
            handle.write(line + "\n")
            count += 1
    return count


@click.command()
@click.argument("input_path", metavar="INPUT", required=False)
@click.option("--from", "source", type=click.Choice(FORMATS), help="Input format (guessed when left out).")
@click.option("--to", "target", type=click.Choice(FORMATS), help="Output format (judgments with --beir).")
@click.option("--out", metavar="PATH", help="Write here (atomically) instead of stdout.")
@click.option("--tag", default="retrieval-eval", show_default=True, help="Run tag for TREC run output.")
@click.option("--beir", metavar="DIR", help="Read a BEIR directory (corpus.jsonl, queries.jsonl, qrels/).")
@click.option("--split", default="test", show_default=True, help="With --beir: the qrels split to read.")
@click.option("--corpus-out", metavar="PATH", help="With --beir: also write a corpus snapshot (JSONL) here.")
@handles_errors
def command(
    input_path: str | None,
    source: str | None,
    target: str | None,
    out: str | None,
    tag: str,
    beir: str | None,
    split: str,
    corpus_out: str | None,
) -> None:
    """Convert judgments <-> TREC/BEIR qrels, and run JSONL <-> TREC run.

    Every input line is checked before anything is written; ids with white
    space are refused on the way out to the white-space separated formats.
    """

    beir_names = ("corpus.jsonl", "queries.jsonl", os.path.join("qrels", f"{split}.tsv"))
    beir_files = [("BEIR", os.path.join(beir, name)) for name in beir_names] if beir else []
    refuse_output_over_input([("--out", out), ("--corpus-out", corpus_out)], [("input", input_path), *beir_files])
    if beir is not None:
        count = write_lines(convert_beir(beir, split, target=target, input_path=input_path, corpus_out=corpus_out), out)
        if out:
            say(f"wrote {count} lines to {out}", err=True)
        return
    if corpus_out is not None:
        raise UsageError("--corpus-out only makes sense with --beir")
    if target is None:
        raise UsageError("say the output format with --to", hint=f"--to one of {', '.join(FORMATS)}")
    if input_path is None:
        raise UsageError("give an INPUT file to convert")
    source = source or detect_input_format(input_path)
    if (source in RUN_FORMATS) != (target in RUN_FORMATS):
        raise UsageError(f"cannot convert {source} to {target}: labels and runs are different things")
    if source in LABEL_FORMATS:
        lines: Iterable[str] = label_lines(input_path, source, target)
    else:
        lines = run_lines(input_path, source, target, tag)
    count = write_lines(lines, out)
    if out:
        say(f"wrote {count} lines to {out}", err=True)
