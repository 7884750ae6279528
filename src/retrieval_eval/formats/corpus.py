"""Corpus snapshots: the live chunks that labels are checked against.

Two forms are read:

- the JSON snapshot of the spec, one object
  ``{"corpus_fingerprint", "chunker_fingerprint", "chunks": [...]}``;
- JSONL, one chunk object per line, for corpora too large to hold as one JSON
  document. The fingerprints come from an optional first header line (an
  object with ``corpus_fingerprint`` and/or ``chunker_fingerprint`` and no
  ``chunk_id``) or from the caller (the ``--corpus-fingerprint`` and
  ``--chunker-fingerprint`` flags); a header and a flag that disagree are
  refused rather than one of them silently winning.

A chunk needs ``chunk_id`` (a ``c1:`` id, spec/chunk-id.md) and ``doc_uri``;
``text``, ``text_sha``, ``ordinal`` and ``doc_revision`` are optional, so that
a bare chunk-to-document map is a valid corpus. A ``text_sha`` that does not hash the chunk's own text
is refused: drift would otherwise re-anchor labels to text that is not there.

Texts are normalized once, here, and kept normalized: every later stage
compares normalized text and never normalizes a chunk again. Chunks are held
in columns (parallel lists) rather than one object each, which keeps a
million-chunk corpus cheap to build and to hold.
"""

from __future__ import annotations

import array
import hashlib
import json
import operator
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C scanner, exported at run time
from typing import Any, BinaryIO

from ..core.corpus import Corpus as Corpus  # the model, named here for the readers' callers
from ..core.errors import InputError, UsageError
from ..core.field_names import slip_hint
from ..core.identity import (
    CHUNK_ID_PATTERN,
    CHUNK_ID_RULE,
    OPAQUE_ID_PATTERN,
    TEXT_SHA_PATTERN,
    is_chunk_key,
    is_text_sha,
    normalize,
    text_sha_of_normalized,
)
from .fileio import open_binary, reads_once
from .jsondoc import read_document_bytes
from .jsonl import BOM, PLAIN_TYPES, decode_line, expect_object, iter_lines, iter_raw_lines, loose_loads
from .kinds import says_what_it_is

CORPUS_FORMATS = ("auto", "json", "jsonl")
FINGERPRINTS = ("corpus_fingerprint", "chunker_fingerprint")

# Called with (bytes or characters done, total) while a corpus is read; for a large JSONL
# file, from the thread that reads it ahead.
Progress = Callable[[int, int], None]


@dataclass
class _Where:
    """Where a chunk came from, for messages: ``corpus:LINE:``."""

    path: str | None
    source: str = "corpus"

    def error(self, line: int | None, problem: str) -> InputError:
        return InputError(self.source, line, problem, path=self.path)


def _optional_string(record: dict[str, Any], name: str, line: int, where: _Where) -> str | None:
    value = record.get(name)
    if value is not None and not isinstance(value, str):
        raise where.error(line, f"{name} must be a string")
    return value


def _required_string(record: dict[str, Any], name: str, line: int, where: _Where) -> str:
    value = record.get(name)
    if isinstance(value, str) and value:
        return value
    problem = (
        f"missing required field {name}" + slip_hint(record, name, _CHUNK_FIELDS)
        if value is None
        else f"{name} must be a non-empty string"
    )
    raise where.error(line, problem)


def _ordinal(record: dict[str, Any], line: int, where: _Where) -> int | None:
    value = record.get("ordinal")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise where.error(line, "ordinal must be a non-negative integer")
    return value


def _text_and_sha(record: dict[str, Any], line: int, where: _Where) -> tuple[str | None, str | None]:
    raw = _optional_string(record, "text", line, where)
    given = _optional_string(record, "text_sha", line, where)
    if given is not None and not is_text_sha(given):
        raise where.error(line, "text_sha must look like t1:<32 hex digits>")
    if raw is None:
        return None, given
    text = normalize(raw)
    computed = text_sha_of_normalized(text)
    if given is not None and given != computed:
        raise where.error(line, f"text_sha {given} does not match the chunk's text (its hash is {computed})")
    return text, computed


def _common_chunk(record: Any) -> tuple[str, str, int | None] | None:
    """(chunk_id, doc_uri, ordinal) of a chunk object that passes every check made before its
    text, else None (then :meth:`CorpusBuilder._checked` finds and words the fault).

    The same checks with one call where the one-by-one path makes six: a million chunks
    showed them in the profile of ``drift``.
    """
    if type(record) is not dict:
        return None
    get = record.get
    chunk_id, doc_uri, revision, ordinal = get("chunk_id"), get("doc_uri"), get("doc_revision"), get("ordinal")
    if (
        type(chunk_id) is str
        and type(doc_uri) is str
        and doc_uri
        and (revision is None or type(revision) is str)
        and (ordinal is None or (type(ordinal) is int and ordinal >= 0))
        and is_chunk_key(chunk_id)
    ):
        return chunk_id, doc_uri, ordinal
    return None


_CHUNK_FIELDS = frozenset(("chunk_id", "doc_uri", "doc_revision", "ordinal", "text", "text_sha"))
_SIX_FIELDS = operator.itemgetter("chunk_id", "doc_uri", "doc_revision", "ordinal", "text", "text_sha")


class CorpusBuilder:
    """Checks chunk objects one by one and appends them to a :class:`Corpus`."""

    def __init__(self, where: _Where) -> None:
        self.where = where
        self.corpus = Corpus()
        self.lines = array.array("q")  # line of each chunk, only kept to name a duplicate's first line
        self._doc_names: dict[str, str] = {}

    def add(self, record: Any, line: int) -> None:
        fields = _common_chunk(record)
        if fields is None:
            fields = self._checked(record, line)
        chunk_id, doc_uri, ordinal = fields
        where = self.where
        text, sha = _text_and_sha(record, line, where)
        corpus = self.corpus
        index = len(corpus.ids)
        previous = corpus.position.setdefault(chunk_id, index)
        if previous != index:
            first = self.lines[previous]
            raise where.error(line, f"duplicate chunk_id {chunk_id}, already on line {first}")
        self.lines.append(line)
        # One string object per document: a million chunks share a few thousand uris.
        doc_uri = self._doc_names.setdefault(doc_uri, doc_uri)
        corpus.ids.append(chunk_id)
        corpus.docs.append(doc_uri)
        corpus.texts.append(text)
        corpus.shas.append(sha)
        corpus.ordinals.append(ordinal)
        members = corpus.documents.get(doc_uri)
        if members is None:
            corpus.documents[doc_uri] = [index]
        else:
            members.append(index)

    def add_lines(self, lines: Iterable[tuple[int, bytes]]) -> None:
        """Decode, check and add each (line number, stripped line) of a JSONL corpus.

        What :meth:`add` does for a line's object, with the common case made in this one
        frame: a line that the fast decoder reads as an object of plain values (strings,
        integers, booleans, null: what ``json.loads`` reads alike) holding a chunk whose
        fields all pass their checks is added here; any other line is read exactly and goes
        through :meth:`add`, which finds and words its fault. The checks are the same
        either way, so which path a line takes changes nothing but the time.
        """
        where, corpus = self.where, self.corpus
        loads, plain = loose_loads(), PLAIN_TYPES.__contains__
        chunk_key, opaque_key = CHUNK_ID_PATTERN.fullmatch, OPAQUE_ID_PATTERN.fullmatch
        sha_form = TEXT_SHA_PATTERN.fullmatch
        sha256, normalize_text = hashlib.sha256, normalize
        position, documents = corpus.position, corpus.documents
        keep_position, keep_name, get_members = position.setdefault, self._doc_names.setdefault, documents.get
        add_line, add_id, add_doc = self.lines.append, corpus.ids.append, corpus.docs.append
        add_text, add_sha, add_ordinal = corpus.texts.append, corpus.shas.append, corpus.ordinals.append
        index = len(corpus.ids)
        last_uri, last_members = None, []
        for line, raw in lines:
            try:
                record = loads(raw)
            except ValueError:
                self.add(_decode_chunk_line(raw, line, where), line)
                index = len(corpus.ids)
                continue
            try:  # one call for the six fields when all are there, as in most corpora
                chunk_id, doc_uri, revision, ordinal, raw_text, given = _SIX_FIELDS(record)
                only_these = len(record) == len(_CHUNK_FIELDS)
            except (KeyError, TypeError):
                if type(record) is not dict:
                    self.add(_decode_chunk_line(raw, line, where), line)
                    index = len(corpus.ids)
                    continue
                get = record.get
                chunk_id, doc_uri, revision = get("chunk_id"), get("doc_uri"), get("doc_revision")
                ordinal, raw_text, given = get("ordinal"), get("text"), get("text_sha")
                only_these = False
            # Six fields that pass the checks below are plain values; other fields must be too.
            if not only_these and not all(map(plain, map(type, record.values()))):
                self.add(_decode_chunk_line(raw, line, where), line)
                index = len(corpus.ids)
                continue
            if not (
                type(chunk_id) is str
                and type(doc_uri) is str
                and doc_uri
                and (revision is None or type(revision) is str)
                and (ordinal is None or (type(ordinal) is int and ordinal >= 0))
                and type(raw_text) is str
                and (given is None or (type(given) is str and sha_form(given)))
                and (chunk_key(chunk_id) if chunk_id.startswith("c1:") else opaque_key(chunk_id))
            ):
                if only_these and not all(map(plain, map(type, record.values()))):
                    record = _decode_chunk_line(raw, line, where)  # what json alone reads
                self.add(record, line)  # a fault, or a chunk without text
                index = len(corpus.ids)
                continue
            # ASCII is its own NFC: only line ends and the ends' white space could change.
            text = raw_text.strip() if raw_text.isascii() and "\r" not in raw_text else normalize_text(raw_text)
            sha = "t1:" + sha256(text.encode()).hexdigest()[:32]
            if given is not None and given != sha:
                self.add(record, line)  # refuses the hash, in add's words
                continue
            previous = keep_position(chunk_id, index)
            if previous != index:
                raise where.error(line, f"duplicate chunk_id {chunk_id}, already on line {self.lines[previous]}")
            add_line(line)
            add_id(chunk_id)
            add_text(text)
            add_sha(sha)
            add_ordinal(ordinal)
            if doc_uri == last_uri:  # a document's chunks mostly come together
                add_doc(last_uri)
                last_members.append(index)
            else:
                doc_uri = keep_name(doc_uri, doc_uri)
                add_doc(doc_uri)
                members = get_members(doc_uri)
                if members is None:
                    members = documents[doc_uri] = []
                members.append(index)
                last_uri, last_members = doc_uri, members
            index += 1

    def _checked(self, record: Any, line: int) -> tuple[str, str, int | None]:
        """The checks one by one, in order: the first fault is the one refused."""
        where = self.where
        record = expect_object(record, where.source, line, where.path)
        chunk_id = _required_string(record, "chunk_id", line, where)
        if not is_chunk_key(chunk_id):
            raise where.error(line, CHUNK_ID_RULE)
        doc_uri = _required_string(record, "doc_uri", line, where)
        _optional_string(record, "doc_revision", line, where)
        return chunk_id, doc_uri, _ordinal(record, line, where)

    def header(self, record: dict[str, Any], line: int | None) -> None:
        for name in FINGERPRINTS:
            value = record.get(name)
            if value is not None and not isinstance(value, str):
                raise self.where.error(line, f"{name} must be a string")
            setattr(self.corpus, name, value)

    def finish(self, fingerprints: dict[str, str | None], sha256: str) -> Corpus:
        corpus = self.corpus
        for name, flag in fingerprints.items():
            if flag is None:
                continue
            stored = getattr(corpus, name)
            if stored is not None and stored != flag:
                option = "--" + name.replace("_", "-")
                raise UsageError(
                    f"the corpus says {name} {stored!r} but {option} says {flag!r}",
                    hint=f"drop {option}, or fix the corpus header",
                )
            setattr(corpus, name, flag)
        if not corpus.ids:
            raise self.where.error(None, "the corpus holds no chunk")
        corpus.sha256 = sha256
        self.lines = array.array("q")
        return corpus


# --- JSONL -------------------------------------------------------------------


class _CountingReader:
    """A binary handle that reports how many bytes were read, for the progress bar."""

    def __init__(self, handle: BinaryIO, total: int, progress: Progress) -> None:
        self.handle, self.total, self.progress, self.done = handle, total, progress, 0

    def read(self, size: int = -1) -> bytes:
        block = self.handle.read(size)
        self.done += len(block)
        self.progress(self.done, self.total)
        return block

    def fileno(self) -> int:
        """The file's: the line reader sizes the file by it, and reads a large one ahead on a
        second thread (hashing and splitting there), as it does without a progress bar."""
        return self.handle.fileno()


def _is_header(record: dict[str, Any]) -> bool:
    return "chunk_id" not in record and any(name in record for name in FINGERPRINTS)


def _decode_chunk_line(raw: bytes, line: int, where: _Where) -> dict[str, Any]:
    """A corpus line's object, read exactly (``json.loads`` decides), or its refusal."""
    if raw.startswith(b"//"):
        raise where.error(line, "comments are not allowed in a corpus")
    return expect_object(decode_line(raw, where.source, line, where.path), where.source, line, where.path)


def read_jsonl_corpus(handle: BinaryIO, where: _Where) -> tuple[CorpusBuilder, str]:
    builder = CorpusBuilder(where)
    digest = hashlib.sha256()
    lines = iter_lines(handle, digest, source=where.source, path=where.path)
    for line, raw in lines:  # the first line: a header, or the first chunk
        record = _decode_chunk_line(raw, line, where)
        if _is_header(record):
            builder.header(record, line)
        else:
            builder.add(record, line)
        break
    builder.add_lines(lines)
    return builder, digest.hexdigest()


# --- JSON snapshot -------------------------------------------------------------

_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class _SnapshotParser:
    """Walks a snapshot's top-level object by hand so that each chunk has a line number.

    ``json.loads`` would give the objects but not where they were; decoding
    each member and each chunk with ``raw_decode`` gives both, at the speed
    of the C decoder.
    """

    def __init__(self, text: str, builder: CorpusBuilder, progress: Progress | None) -> None:
        self.text = text
        self.builder = builder
        self.progress = progress
        self.decoder = json.JSONDecoder(parse_constant=_refuse_constant)
        self._line_pos = 0
        self._line_no = 1

    def line_at(self, pos: int) -> int:
        if pos < self._line_pos:
            self._line_pos, self._line_no = 0, 1
        self._line_no += self.text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line_no

    def fail(self, pos: int, problem: str) -> InputError:
        return self.builder.where.error(self.line_at(min(pos, len(self.text))), problem)

    def skip(self, pos: int) -> int:
        return _WHITESPACE.match(self.text, pos).end()  # type: ignore[union-attr]

    def expect(self, pos: int, char: str, what: str) -> int:
        pos = self.skip(pos)
        if self.text[pos : pos + 1] != char:
            found = self.text[pos : pos + 1] or "the end of the file"
            raise self.fail(pos, f"not valid JSON (expected {what}, found {found!r})")
        return pos + 1

    def value(self, pos: int) -> tuple[Any, int]:
        try:
            return self.decoder.raw_decode(self.text, pos)
        except json.JSONDecodeError as exc:
            raise self.fail(exc.pos, f"not valid JSON ({exc.msg})") from None
        except ValueError as exc:
            raise self.fail(pos, f"not valid JSON ({exc})") from None
        except RecursionError:
            raise self.fail(pos, "not valid JSON (nested too deeply)") from None

    def key(self, pos: int) -> tuple[str, int]:
        pos = self.expect(pos, '"', "a member name in double quotes")
        try:
            member: tuple[str, int] = scanstring(self.text, pos, True)
            return member
        except json.JSONDecodeError as exc:
            raise self.fail(exc.pos, f"not valid JSON ({exc.msg})") from None

    def parse(self) -> None:
        pos = self.skip(0)
        first = self.text[pos : pos + 1]
        if first != "{":
            problem = (
                "a corpus snapshot must be a JSON object with a chunks array"
                if first in '["0123456789-tfn'
                else "not valid JSON (a corpus snapshot is a JSON object with a chunks array)"
            )
            raise self.fail(pos, problem)
        pos = self.skip(pos + 1)
        seen: set[str] = set()
        if self.text[pos : pos + 1] == "}":
            pos += 1
        else:
            pos = self.members(pos, seen)
        if self.skip(pos) != len(self.text):
            raise self.fail(self.skip(pos), "not valid JSON (extra data after the snapshot)")
        if "chunks" not in seen:
            raise self.fail(
                0,
                'missing required field chunks: a JSON snapshot must hold a "chunks" array of chunk objects '
                "(a JSONL corpus holds one chunk object a line)",
            )

    def members(self, pos: int, seen: set[str]) -> int:
        header: dict[str, Any] = {}
        while True:
            start = self.skip(pos)
            name, pos = self.key(pos)
            if name in seen:
                raise self.fail(start, f"member {name} appears twice")
            seen.add(name)
            pos = self.expect(pos, ":", "':'")
            if name == "chunks":
                pos = self.chunks(self.skip(pos))
            else:
                header[name], pos = self.value(self.skip(pos))
            pos = self.skip(pos)
            if self.text[pos : pos + 1] == "}":
                self.builder.header(header, None)
                return pos + 1
            pos = self.expect(pos, ",", "',' or '}'")

    def chunks(self, pos: int) -> int:
        if self.text[pos : pos + 1] != "[":
            raise self.fail(pos, "chunks must be an array")
        pos = self.skip(pos + 1)
        if self.text[pos : pos + 1] == "]":
            return pos + 1
        total = len(self.text)
        while True:
            record, end = self.value(pos)
            self.builder.add(record, self.line_at(pos))
            if self.progress is not None:
                self.progress(end, total)
            pos = self.skip(end)
            if self.text[pos : pos + 1] == "]":
                return pos + 1
            pos = self.skip(self.expect(pos, ",", "',' or ']'"))


def read_snapshot(data: bytes, where: _Where, progress: Progress | None = None) -> CorpusBuilder:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise where.error(line, "not valid UTF-8") from None
    builder = CorpusBuilder(where)
    _SnapshotParser(text.removeprefix("\ufeff"), builder, progress).parse()
    return builder


# --- entry points --------------------------------------------------------------


def corpus_from_records(
    records: Iterable[Mapping[str, Any]],
    *,
    corpus_fingerprint: str | None = None,
    chunker_fingerprint: str | None = None,
) -> Corpus:
    """Build a corpus from chunk objects in memory, checked as a file's would be (line = position)."""
    builder = CorpusBuilder(_Where(None))
    for line, record in enumerate(records, 1):
        builder.add(dict(record), line)
    flags = {"corpus_fingerprint": corpus_fingerprint, "chunker_fingerprint": chunker_fingerprint}
    return builder.finish(flags, "")


def detect_corpus_format(path: str) -> str:
    """``jsonl`` when the first line is a whole object that looks like a chunk, else ``json``.

    A pretty-printed snapshot starts with a lone ``{``, which is not a whole
    object; a one-line snapshot is a whole object that has ``chunks``; an
    object with no chunk field at all (``{}``) is taken for a snapshot, whose
    refusal says what a snapshot must hold. A header line is JSONL's.
    """
    with open_binary(path) as handle:
        for raw in iter_raw_lines(handle, source="corpus", path=path):
            line = raw.removeprefix(BOM).strip()
            if not line:
                continue
            try:
                first = json.loads(line)
            except (ValueError, RecursionError):
                return "json"
            if not isinstance(first, dict) or "chunks" in first:
                return "json"
            return "jsonl" if _is_header(first) or not _CHUNK_FIELDS.isdisjoint(first) else "json"
    return "jsonl"


@reads_once
@says_what_it_is("corpus")
def read_corpus(
    path: str,
    *,
    corpus_format: str = "auto",
    corpus_fingerprint: str | None = None,
    chunker_fingerprint: str | None = None,
    progress: Progress | None = None,
    source: str = "corpus",
) -> Corpus:
    """Read and check a corpus file; refuse it whole on the first bad chunk."""
    if corpus_format not in CORPUS_FORMATS:
        raise UsageError(f"unknown corpus format {corpus_format!r}; use one of {', '.join(CORPUS_FORMATS)}")
    fmt = detect_corpus_format(path) if corpus_format == "auto" else corpus_format
    where = _Where(path, source)
    flags = {"corpus_fingerprint": corpus_fingerprint, "chunker_fingerprint": chunker_fingerprint}
    if fmt == "json":
        data = read_document_bytes(path, source)  # bounded: a snapshot is one document
        builder = read_snapshot(data, where, progress)
        return builder.finish(flags, hashlib.sha256(data).hexdigest())
    with open_binary(path) as handle:
        reader: Any = handle
        if progress is not None:
            reader = _CountingReader(handle, os.fstat(handle.fileno()).st_size, progress)
        builder, sha256 = read_jsonl_corpus(reader, where)
    return builder.finish(flags, sha256)


def corpus_to_json(corpus: Corpus) -> dict[str, Any]:
    """What a corpus is, as ``drift --json`` names it: fingerprints, size and the file's digest."""
    return {
        "fingerprint": corpus.corpus_fingerprint,
        "chunker_fingerprint": corpus.chunker_fingerprint,
        "documents": len(corpus.documents),
        "chunks": len(corpus.ids),
        "sha256": corpus.sha256,
    }
