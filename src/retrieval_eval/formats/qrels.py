"""TREC and BEIR qrels: reading them into judgments and writing judgments back out.

TREC qrels lines are ``query iteration doc relevance`` (``#`` comments
allowed); BEIR qrels are tab-separated ``query-id corpus-id score`` with a
header line. A negative grade (TREC's "judged, not relevant" in some
collections) is read as 0. Ids with white space cannot be written to these
formats and are refused on the way out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..core.errors import InputError
from ..core.judgments import JudgmentSet, Label
from ..core.labelindex import QRELS_ITERATION
from .fileio import open_binary
from .jsonl import iter_lines
from .judgment_records import judgment_from_record


def _decode(raw: bytes, source: str, line: int, path: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(source, line, "not valid UTF-8", path=path) from None


# A grade as trec_eval reads it in full: a sign and ASCII digits. Python's int() reads
# more ("1_0", other scripts' digits), which trec_eval would read differently.
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _grade(text: str, source: str, line: int, path: str) -> int:
    try:
        if not _INTEGER.fullmatch(text):
            raise ValueError(text)
        value = int(text)  # refuses more than 4,300 digits
    except ValueError:
        raise InputError(source, line, f"relevance must be an integer, got {text!r}", path=path) from None
    return max(value, 0)


def _record(query_id: str, doc_id: str, grade: int) -> dict[str, Any]:
    return {"query_id": query_id, "doc_uri": doc_id, "relevance": grade}


def read_trec_qrels(path: str, *, source: str = "qrels", warn: Callable[[str], None] | None = None) -> JudgmentSet:
    """TREC qrels as judgments. The iteration column (the second) means nothing to judgments;
    when it holds more than one value (subtopics, judgment groups), each label keeps it as
    ``qrels_iteration`` and ``warn`` is told, since labels that differ only in it become
    duplicates that validation refuses."""
    rows = []
    with open_binary(path) as handle:
        for line, raw in iter_lines(handle, source=source, path=path):
            text = _decode(raw, source, line, path)
            if text.startswith("#"):
                continue
            fields = text.split()
            if len(fields) != 4:
                # Three columns is BEIR's shape: a BEIR file read as TREC lacks its header line.
                beir = " (BEIR qrels start with the header line query-id, corpus-id, score)" if len(fields) == 3 else ""
                raise InputError(
                    source,
                    line,
                    f"expected 4 columns (query iteration doc relevance), got {len(fields)}{beir}",
                    path=path,
                )
            rows.append((line, fields[1], _record(fields[0], fields[2], _grade(fields[3], source, line, path))))
    iterations = sorted({iteration for _, iteration, _ in rows})
    if len(iterations) > 1:
        shown = ", ".join(iterations[:5]) + (", ..." if len(iterations) > 5 else "")
        if warn is not None:
            warn(
                f"{source}: the iteration column holds {len(iterations)} values ({shown}); judgments have no "
                f"such column, so each label keeps it as {QRELS_ITERATION}, and labels that differ only in it "
                "are duplicates: split the file by that column if they are subtopics or judgment groups"
            )
        for _, iteration, record in rows:
            record[QRELS_ITERATION] = iteration
    labels = [judgment_from_record(record, line, source=source, path=path) for line, _, record in rows]
    return _non_empty(labels, source, path)


def read_beir_qrels(path: str, *, source: str = "qrels") -> JudgmentSet:
    labels: list[Label] = []
    with open_binary(path) as handle:
        for line, raw in iter_lines(handle, source=source, path=path):
            fields = _decode(raw, source, line, path).split("\t")
            if len(labels) == 0 and fields[:2] == ["query-id", "corpus-id"]:
                continue
            if len(fields) != 3:
                raise InputError(
                    source,
                    line,
                    f"expected 3 tab-separated columns (query-id corpus-id score), got {len(fields)}",
                    path=path,
                )
            record = _record(fields[0].strip(), fields[1].strip(), _grade(fields[2].strip(), source, line, path))
            labels.append(judgment_from_record(record, line, source=source, path=path))
    return _non_empty(labels, source, path)


def _non_empty(labels: list[Label], source: str, path: str) -> JudgmentSet:
    if not labels:
        raise InputError(source, None, "the file holds no label", path=path)
    return JudgmentSet(tuple(labels))


def check_token(value: str, what: str, source: str, line: int | None) -> str:
    """Refuse an id that a white-space separated format would split in two."""
    if not value or any(ch.isspace() for ch in value):
        raise InputError(
            source,
            line,
            f"{what} {value!r} contains white space, which this format cannot hold",
            hint="rename the id, or keep this data in JSONL",
        )
    return value


def qrels_lines(labels: Iterable[Label], *, source: str = "judgments") -> Iterator[str]:
    """``query iteration key relevance`` per label, in file order; the key is the chunk id when there is
    one, the iteration ``0`` unless the label kept one from a qrels file (``qrels_iteration``)."""
    for label in labels:
        query_id = check_token(label.query_id, "query_id", source, label.line)
        key = check_token(label.key, "chunk_id" if label.chunk_id else "doc_uri", source, label.line)
        iteration = check_token(str(label.record.get(QRELS_ITERATION, "0")), QRELS_ITERATION, source, label.line)
        yield f"{query_id} {iteration} {key} {label.relevance}"


def beir_lines(labels: Iterable[Label], *, source: str = "judgments") -> Iterator[str]:
    yield "query-id\tcorpus-id\tscore"
    for label in labels:
        query_id = check_token(label.query_id, "query_id", source, label.line)
        key = check_token(label.key, "chunk_id" if label.chunk_id else "doc_uri", source, label.line)
        yield f"{query_id}\t{key}\t{label.relevance}"
