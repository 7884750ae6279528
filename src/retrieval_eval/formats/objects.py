"""Python objects in, core models out: the library's readers, beside the file readers.

What a notebook holds, read as the matching file would be:

- judgments: ``{"q1": {"d1": 2}}`` (pytrec_eval's and ir_measures' qrels dict); an
  iterable of (query_id, doc_id, relevance), plain tuples or named ones with those fields
  (ir_measures' ``Qrel``, ir_datasets' ``TrecQrel``); an iterable of judgment records (dicts
  with the judgments schema's fields, as the JSONL holds them); a pandas DataFrame with
  columns ``query_id`` (or ``qid``), ``doc_id`` (or ``doc_uri``, ``docno``) and
  ``relevance`` (or ``label``), plus any of the schema's optional fields (other columns are
  ignored). The qrels forms follow the TREC qrels reader: a negative grade reads as 0.
- runs: ``{"q1": ["d3", "d1"]}`` (ranked, as run JSONL); ``{"q1": {"d3": 12.5}}`` or an
  iterable of (query_id, doc_id, score) (scored, as a TREC run: ordered by trec_eval's
  rule, score descending, ties by document id descending); a DataFrame with columns
  ``query_id`` (or ``qid``), ``doc_id`` (or ``docno``) and ``score``.

pandas is never imported here: a DataFrame is recognised by its methods. A refusal names
the row (its position, from 1) the way a file reader names the line.

Content identity: data given in memory is named by the SHA-256 of its canonical file, the
judgments JSONL (or run JSONL) that ``retrieval-eval convert`` writes for it; a file read
from disk by the SHA-256 of its bytes, as the CLI does. The same labels written canonically
and held in memory therefore compare as the same judgments.
"""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from ..core.errors import InputError, UsageError
from ..core.judgments import SCHEMA_ORDER, JudgmentSet, Label
from ..core.runs import RunRows
from .fileio import open_binary, reads_once, sha256_file
from .judgment_records import judgment_from_record, write_judgments
from .judgments import judgments_file_format, parse_judgments
from .kinds import says_what_it_is
from .qrels import read_beir_qrels, read_trec_qrels
from .runout import run_line
from .runs import (
    check_run_format,
    check_run_record,
    detect_format,
    iter_run_jsonl,
    iter_trec_run,
    no_ranking_error,
    run_from_rows,
)

QUERY_COLUMNS = ("query_id", "qid", "q_id")
DOC_COLUMNS = ("doc_id", "doc_uri", "docno")
RELEVANCE_COLUMNS = ("relevance", "label")
SCORE_COLUMNS = ("score",)
_RECORD_FIELDS = frozenset(SCHEMA_ORDER) | {"quote"}


def is_frame(value: object) -> bool:
    """A pandas DataFrame (or anything shaped like one), told without importing pandas."""
    return hasattr(value, "columns") and hasattr(value, "to_dict") and hasattr(value, "itertuples")


# -- judgments -------------------------------------------------------------------------


def judgments_from_object(source: object) -> JudgmentSet:
    """Check and read judgments held in Python (see the module docstring for the forms)."""
    if isinstance(source, (str, bytes)):
        raise UsageError("judgments given as a string: pass a path with load_judgments(), or the labels themselves")
    if is_frame(source):
        records = _frame_records(source, "judgments", {"query_id": QUERY_COLUMNS, "doc_uri": DOC_COLUMNS})
        return _judgment_set(_from_frame_records(records))
    if isinstance(source, Mapping):
        return _judgment_set(_from_qrels_dict(source))
    if not isinstance(source, Iterable):
        raise UsageError(f"cannot read judgments from {type(source).__name__}", hint=JUDGMENTS_HINT)
    return _judgment_set(_from_rows(source))


JUDGMENTS_HINT = (
    'give {"q1": {"d1": 2}}, (query_id, doc_id, relevance) rows, judgment records or a DataFrame '
    "with query_id, doc_id and relevance columns"
)


def _judgment_set(labels: Iterator[Label]) -> JudgmentSet:
    held = tuple(labels)
    if not held:
        raise InputError("judgments", None, "no label was given")
    return JudgmentSet(held)


def _qrels_grade(value: object, row: int) -> int:
    """A grade as the TREC qrels reader reads it: an integer, negative read as 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError("judgments", row, f"relevance must be an integer, got {value!r}", hint=_row_hint(row))
    return max(int(value), 0)


def _row_hint(row: int) -> str:
    return f"fix label {row} of the judgments given (counted from 1, in the order given)"


def _label(record: dict[str, Any], row: int) -> Label:
    try:
        return judgment_from_record(record, row)
    except InputError as error:
        raise InputError("judgments", row, error.problem, hint=_row_hint(row)) from None


def _qrels_label(query_id: object, doc_id: object, relevance: object, row: int) -> Label:
    return _label({"query_id": query_id, "doc_uri": doc_id, "relevance": _qrels_grade(relevance, row)}, row)


def _from_qrels_dict(qrels: Mapping[Any, Any]) -> Iterator[Label]:
    row = 0
    for query_id, docs in qrels.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                "judgments",
                row + 1,
                f"query {query_id!r} maps to {type(docs).__name__}, not to {{doc_id: relevance}}",
                hint=_row_hint(row + 1),
            )
        for doc_id, relevance in docs.items():
            row += 1
            yield _qrels_label(query_id, doc_id, relevance, row)


def _from_rows(rows: Iterable[Any]) -> Iterator[Label]:
    for row, item in enumerate(rows, 1):
        if isinstance(item, Mapping):
            yield _label(dict(item), row)
        elif all(hasattr(item, name) for name in ("query_id", "doc_id", "relevance")):
            yield _qrels_label(item.query_id, item.doc_id, item.relevance, row)
        elif isinstance(item, tuple) and len(item) == 3:
            yield _qrels_label(*item, row)
        else:
            raise InputError(
                "judgments", row, f"expected (query_id, doc_id, relevance), got {item!r}", hint=JUDGMENTS_HINT
            )


def _from_frame_records(records: list[dict[str, Any]]) -> Iterator[Label]:
    for row, record in enumerate(records, 1):
        kept = {name: value for name, value in record.items() if name in _RECORD_FIELDS and not _missing(value)}
        kept["relevance"] = _qrels_grade(record.get("relevance"), row)
        yield _label(kept, row)


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _frame_records(frame: Any, what: str, required: Mapping[str, tuple[str, ...]]) -> list[dict[str, Any]]:
    """The frame's rows as dicts, with the first column of each accepted spelling renamed to ours."""
    columns = [str(name) for name in frame.columns]
    renamed: dict[str, str] = {}
    wanted = {**required, **({"relevance": RELEVANCE_COLUMNS} if what == "judgments" else {"score": SCORE_COLUMNS})}
    for ours, spellings in wanted.items():
        found = next((name for name in spellings if name in columns), None)
        if found is None:
            raise UsageError(
                f"the {what} DataFrame has no {ours} column (columns: {', '.join(columns)})",
                hint=f"name it {' or '.join(spellings)}",
            )
        renamed[found] = ours
    records: list[dict[str, Any]] = frame.to_dict("records")
    return [{renamed.get(str(name), str(name)): value for name, value in record.items()} for record in records]


def canonical_judgments_sha256(judgments: JudgmentSet) -> str:
    """SHA-256 of the judgments JSONL that holds these labels canonically."""
    return hashlib.sha256(write_judgments(judgments).encode("utf-8")).hexdigest()


# -- runs ---------------------------------------------------------------------------------

RUN_HINT = (
    'give {"q1": ["d3", "d1"]}, {"q1": {"d3": 12.5}}, (query_id, doc_id, score) rows or a DataFrame '
    "with query_id, doc_id and score columns"
)


def run_from_object(source: object) -> RunRows:
    """Check and hold a run given in Python (see the module docstring for the forms)."""
    if isinstance(source, (str, bytes)):
        raise UsageError("a run given as a string: pass a path with load_run(), or the rankings themselves")
    if is_frame(source):
        records = _frame_records(source, "run", {"query_id": QUERY_COLUMNS, "doc_id": DOC_COLUMNS})
        return scored_rows(_scored((r["query_id"], r["doc_id"], r["score"]) for r in records))
    if isinstance(source, Mapping):
        if source and all(isinstance(value, Mapping) for value in source.values()):
            return scored_rows(_scored((q, d, s) for q, docs in source.items() for d, s in docs.items()))
        return ranked_rows(_ranked(source))
    if not isinstance(source, Iterable):
        raise UsageError(f"cannot read a run from {type(source).__name__}", hint=RUN_HINT)
    return scored_rows(_scored(_score_rows(source)))


def _ranked(rankings: Mapping[Any, Any]) -> Iterator[tuple[str, tuple[str, ...]]]:
    for row, (query_id, ranking) in enumerate(rankings.items(), 1):
        if isinstance(ranking, (str, bytes, Mapping)) or not isinstance(ranking, Iterable):
            raise InputError(
                "run",
                row,
                f"query {query_id!r} maps to {type(ranking).__name__}, not to a list of ids in rank order",
                hint=RUN_HINT,
            )
        if isinstance(ranking, AbstractSet):  # iterated in hash order, which changes per process
            raise InputError(
                "run",
                row,
                f"query {query_id!r} maps to a {type(ranking).__name__}, which is not ordered; "
                "give a list in rank order",
                hint=RUN_HINT,
            )
        checked_query, checked = check_run_record({"query_id": query_id, "ranking": list(ranking)}, row, None)
        yield checked_query, tuple(checked)


def _score_rows(rows: Iterable[Any]) -> Iterator[tuple[Any, Any, Any]]:
    for row, item in enumerate(rows, 1):
        if all(hasattr(item, name) for name in ("query_id", "doc_id", "score")):
            yield item.query_id, item.doc_id, item.score
        elif isinstance(item, tuple) and len(item) == 3:
            yield item
        else:
            raise InputError("run", row, f"expected (query_id, doc_id, score), got {item!r}", hint=RUN_HINT)


def _scored(rows: Iterable[tuple[Any, Any, Any]]) -> Iterator[tuple[str, str, float]]:
    for row, (query_id, doc_id, score) in enumerate(rows, 1):
        for name, value in (("query_id", query_id), ("doc_id", doc_id)):
            if not isinstance(value, str) or not value:
                raise InputError("run", row, f"{name} must be a non-empty string, got {value!r}", hint=RUN_HINT)
        if isinstance(score, bool) or not isinstance(score, numbers.Real) or not math.isfinite(score):
            raise InputError("run", row, f"score must be a finite number, got {score!r}", hint=RUN_HINT)
        yield query_id, doc_id, float(score)


def ranked_rows(rankings: Iterable[tuple[str, tuple[str, ...]]], sha256: str | None = None) -> RunRows:
    ranked = tuple(rankings)
    if sha256 is None:
        digest = hashlib.sha256()
        for query_id, ranking in ranked:
            digest.update(run_line(query_id, list(ranking)).encode("utf-8"))
        sha256 = digest.hexdigest()
    return RunRows(ranked=ranked, sha256=sha256)


def scored_rows(rows: Iterable[tuple[str, str, float]], sha256: str | None = None) -> RunRows:
    scored = tuple(rows)
    if sha256 is None:
        # The canonical file of a scored run is the run JSONL of its rankings in trec_eval's order.
        ordered = run_from_rows(RunRows(scored=scored, by_score=True)).rankings
        digest = hashlib.sha256()
        for query_id, ranking in ordered.items():
            digest.update(run_line(query_id, ranking).encode("utf-8"))
        sha256 = digest.hexdigest()
    return RunRows(scored=scored, by_score=True, sha256=sha256)


# -- files, read whole (the library holds what it loads) ------------------------------------

JUDGMENT_FORMATS = ("auto", "jsonl", "trec", "beir")


@reads_once
def read_judgments_file(path: str, judgments_format: str = "auto") -> tuple[JudgmentSet, str]:
    """The judgments in a JSONL, TREC qrels or BEIR qrels file, and the SHA-256 of its bytes."""
    if judgments_format not in JUDGMENT_FORMATS:
        raise UsageError(f"unknown judgments format {judgments_format!r}; use one of {', '.join(JUDGMENT_FORMATS)}")
    fmt = judgments_file_format(path) if judgments_format == "auto" else judgments_format
    return _judgments_in(path, fmt), sha256_file(path)


def _judgments_in(path: str, fmt: str) -> JudgmentSet:
    if fmt == "jsonl":
        return parse_judgments(path)
    if fmt == "trec":
        return read_trec_qrels(path, source="judgments")
    return read_beir_qrels(path, source="judgments")


@reads_once
@says_what_it_is("judgments")
def read_judgment_set(path: str) -> JudgmentSet:
    """The judgments in a JSONL, TREC qrels or BEIR qrels file, each read as ``score`` reads it
    (the format told by the first lines), every record kept."""
    return _judgments_in(path, judgments_file_format(path))


@reads_once
@says_what_it_is("run")
def read_run_file(path: str, run_format: str = "auto") -> RunRows:
    """Every line of a run JSONL or TREC run file, checked and held, named by the SHA-256 of its bytes."""
    check_run_format(run_format)
    fmt = detect_format(path) if run_format == "auto" else run_format
    digest = hashlib.sha256()
    with open_binary(path) as handle:
        if fmt == "jsonl":
            ranked = tuple((q, tuple(r)) for _line, q, r in iter_run_jsonl(handle, path=path, digest=digest))
            if not ranked:
                raise no_ranking_error(path)
            return RunRows(ranked=ranked, sha256=digest.hexdigest())
        scored = tuple((q, d, s) for _line, q, d, s in iter_trec_run(handle, path=path, digest=digest))
    if not scored:
        raise no_ranking_error(path)
    return RunRows(scored=scored, by_score=True, sha256=digest.hexdigest())
