"""Reading a judgments JSONL file: one reader, two products.

Every line goes through :func:`iter_judgment_lines`, which checks it as the
schema requires and refuses the file on its first bad line. What is built
from the lines is the caller's choice: the full :class:`JudgmentSet` (every
record kept, for drift, conversion and rewriting) or the compact
:class:`LabelIndex` the score path reads. Both see the same lines, so both
give the same refusals, word for word.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

from ..core.errors import InputError
from ..core.judgments import JudgmentFields, JudgmentSet, Label, NoAnswer
from ..core.labelindex import LabelIndex
from .fileio import open_binary, reads_once, sha256_file
from .jsonl import BOM, decode_keeping_numbers, decode_line, expect_object, iter_lines, loose_loads
from .judgment_records import (
    canonical_line,
    check_judgment_line,
    common_judgment_fields,
    frozen_record,
    holds,
    no_judgment_error,
)
from .kinds import says_what_it_is
from .qrels import read_beir_qrels, read_trec_qrels

# (line, record, its checked fields or its NoAnswer), or (line, comment text, None) for a ``//`` line.
JudgmentLine = tuple[int, Any, JudgmentFields | NoAnswer | None]


def iter_judgment_lines(
    handle: BinaryIO,
    *,
    source: str = "judgments",
    path: str | None = None,
    digest: Any = None,
    exact_numbers: bool = False,
) -> Iterator[JudgmentLine]:
    """Each label line checked, and each comment line, in file order (``digest`` sees every byte).

    ``exact_numbers``: the records will be written back, so a number no rule reads keeps its
    text (``1e400`` stays ``1e400``), see :class:`~retrieval_eval.core.judgments.ExactNumber`."""
    loads = loose_loads()  # bound once: the per-line frames showed in the profile
    for line, raw in iter_lines(handle, digest, source=source, path=path):
        yield judgment_line(raw, line, loads, source, path, exact_numbers)


def judgment_line(
    raw: bytes, line: int, loads: Callable[[bytes], Any], source: str, path: str | None, exact_numbers: bool = False
) -> JudgmentLine:
    """One line of a judgments file, checked (see :func:`iter_judgment_lines`)."""
    if raw.startswith(b"//"):  # comments are allowed in judgments files
        return line, raw.decode("utf-8", errors="replace"), None
    # Read first on the fast path with numbers unchecked: a record of strings and one
    # in-range integer reads the same whatever the parser. Anything else is read again
    # exactly and checked field by field, for the exact refusal.
    try:
        record = loads(raw)
    except ValueError:
        record = decode_line(raw, source, line, path, numbers_matter=False)
    fields: JudgmentFields | NoAnswer | None = common_judgment_fields(record)
    if fields is None:
        record = expect_object(decode_line(raw, source, line, path), source, line, path)
        fields = check_judgment_line(record, line, source=source, path=path)
        try:
            if exact_numbers and holds(record, float):
                record = decode_keeping_numbers(raw, source, line, path)
            record = frozen_record(record)  # its arrays as tuples, as a label keeps them
        except RecursionError:
            # orjson reads 1,024 levels; walking them in Python runs out of stack far sooner.
            raise InputError(source, line, "not valid JSON (nested too deeply)", path=path) from None
    return line, record, fields


@says_what_it_is("judgments")
def parse_judgments(path: str, *, source: str = "judgments") -> JudgmentSet:
    """Read and check a judgments JSONL file, keeping every record and comment."""
    labels: list[Label] = []
    comments: dict[int, list[str]] = {}
    no_answer: list[NoAnswer] = []
    with open_binary(path) as handle:
        for line, item, fields in iter_judgment_lines(handle, source=source, path=path, exact_numbers=True):
            if fields is None:
                comments.setdefault(len(labels), []).append(item)
            elif isinstance(fields, NoAnswer):
                no_answer.append(fields)
                comments.setdefault(len(labels), []).append(canonical_line(item))
            else:
                labels.append(Label(fields[0], fields[1], fields[2], fields[3], item, line))
    if not labels and not no_answer:
        raise no_judgment_error(source, path)
    return JudgmentSet(tuple(labels), {at: tuple(lines) for at, lines in comments.items()}, tuple(no_answer))


def judgments_file_format(path: str) -> str:
    """``jsonl`` when the first non-blank line starts like a JSON object or array (or is a ``//`` comment),
    ``beir`` when it is BEIR's header, else ``trec``."""
    with open_binary(path) as handle:
        # Bounded: a line with no end (/dev/zero) is judged by its first bytes, and the reader
        # chosen then refuses it by its own limits; blank lines are looked through for a while only.
        for _ in range(_PROBE_LINES):
            raw = handle.readline(_PROBE_BYTES)
            if not raw:
                break
            stripped = raw.removeprefix(BOM).strip()
            if stripped:
                if stripped[:1] in (b"{", b"[") or stripped[:2] == b"//":
                    return "jsonl"
                return "beir" if stripped.split(b"\t")[:2] == [b"query-id", b"corpus-id"] else "trec"
    return "jsonl"


_PROBE_LINES, _PROBE_BYTES = 10_000, 1 << 16


@reads_once
@says_what_it_is("judgments")
def read_label_index(path: str, *, source: str = "judgments") -> LabelIndex:
    """Stream a judgments file into a :class:`LabelIndex`; records are not kept.

    The file's SHA-256 is taken on the way, so it is read once (twice when a
    key is labeled more than once, to name every line of the repeat). TREC and
    BEIR qrels are read as ``load_judgments`` reads them (one reader per format).
    """
    fmt = judgments_file_format(path)
    if fmt != "jsonl":
        read = read_trec_qrels if fmt == "trec" else read_beir_qrels
        qrels = LabelIndex.from_judgments(read(path, source=source))
        qrels.sha256 = sha256_file(path)
        return qrels
    index = LabelIndex()
    add = index.add
    digest = hashlib.sha256()
    loads = loose_loads()
    with open_binary(path) as handle:
        for line, raw in iter_lines(handle, digest, source=source, path=path):
            # The common label, written out: the fast path of judgment_line (no JSON text starts
            # with "//", so a comment never parses here). Any other line goes through it whole.
            try:
                record = loads(raw)
            except ValueError:
                record = None
            fields: JudgmentFields | NoAnswer | None = None if record is None else common_judgment_fields(record)
            if fields is None:
                _line, record, fields = judgment_line(raw, line, loads, source, path)
            if type(fields) is tuple:  # a label (a NoAnswer is a class of its own), tested first: most lines
                add(fields, record, line)
            elif isinstance(fields, NoAnswer):
                index.add_no_answer(fields)
    if not index.queries:
        raise no_judgment_error(source, path)
    index.sha256 = digest.hexdigest()
    index.finish(lambda: _keys_by_line(path, source))
    return index


def _keys_by_line(path: str, source: str) -> Iterator[tuple[int, str, str]]:
    with open_binary(path) as handle:
        for line, _record, fields in iter_judgment_lines(handle, source=source, path=path):
            if fields is not None and not isinstance(fields, NoAnswer):
                query_id, doc_uri, _relevance, chunk_id = fields
                yield line, query_id, chunk_id if chunk_id is not None else doc_uri
