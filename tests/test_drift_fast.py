"""drift's fast paths give what the one-by-one paths give: the same corpus, the same refusals,
the same chunks found.

The JSONL corpus reader adds a common chunk in one frame (orjson when it is installed, the
standard library's scanner otherwise) and sends any other line through the checks one at a
time; here both decoders and a reference reader that takes every line through ``json.loads``
and :meth:`CorpusBuilder.add` read the same normal and hostile files. The per-document index
searches a text chunk by chunk or through its head index, and names the chunks a quote
straddles from one white-space-blind view when no two chunks share an edge: both are held to
brute force and to the two-view search they replace.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left, bisect_right
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.core.corpus import Corpus
from retrieval_eval.core.drift import DocumentIndex, overlap, squeeze
from retrieval_eval.core.errors import InputError
from retrieval_eval.core.identity import chunk_id, text_sha
from retrieval_eval.formats import jsonl
from retrieval_eval.formats.corpus import CorpusBuilder, _is_header, _Where, corpus_from_records, read_corpus
from retrieval_eval.formats.jsonl import decode_exactly, expect_object, iter_lines


def cid(doc: str, ordinal: int, text: str) -> str:
    return chunk_id(doc, "r1", ordinal, text, "test/chunker")


def chunk(doc: str, ordinal: int, text: str, **extra: Any) -> dict[str, Any]:
    record = {"chunk_id": cid(doc, ordinal, text), "doc_uri": doc, "doc_revision": "r1", "ordinal": ordinal}
    record.update(text=text, text_sha=text_sha(text))
    record.update(extra)
    return record


def line(record: Any) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


GOOD = [line(chunk("d1", k, f"Text number {k} of the first document.")) for k in range(3)]
NFD = "Cafe\u0301 cre\u0300me"  # NFC joins the accents: the hash is of the joined text

HOSTILE_LINES: list[bytes] = [
    line(chunk("d2", 0, NFD)),
    line(chunk("d2", 1, "  line\r\nends\rinside  ")),
    line(chunk("d2", 2, "  outer space  ")),
    line({**chunk("d2", 3, "no revision"), "doc_revision": None}),
    line({k: v for k, v in chunk("d2", 4, "no ordinal").items() if k != "ordinal"}),
    line({k: v for k, v in chunk("d2", 5, "no hash").items() if k != "text_sha"}),
    line({k: v for k, v in chunk("d2", 6, "no text").items() if k != "text"}),
    line(chunk("d2", 7, "extra plain", extra="x", n=3, flag=True)),
    line(chunk("d2", 8, "extra nested", meta={"a": [1, 2.5]})),
    line(chunk("d2", 9, "a float elsewhere", score=0.25)),
    # Deeper than json reads, not than orjson does: refused, though the chunk itself is whole.
    line(chunk("d2", 10, "nested deep", x=[])).replace(b"[]", b"[" * 1020 + b"]" * 1020),
    line(chunk("d2", 11, "past 64 bits elsewhere", n=2**70)),
    line({**chunk("d3", 0, "huge ordinal"), "ordinal": 2**70}),  # json reads it: a valid ordinal
    line({**chunk("d3", 1, "float ordinal"), "ordinal": 1.0}),
    line({**chunk("d3", 2, "bool ordinal"), "ordinal": True}),
    line({**chunk("d3", 3, "negative"), "ordinal": -1}),
    line({**chunk("d3", 4, "bad hash"), "text_sha": text_sha("other text")}),
    line({**chunk("d3", 5, "bad hash form"), "text_sha": "t1:XYZ"}),
    line({**chunk("d3", 6, "truncated id"), "chunk_id": "c1:abc"}),
    line({**chunk("d3", 7, "opaque id"), "chunk_id": "my-store/doc#7"}),
    line({**chunk("d3", 8, "invisible id"), "chunk_id": "doc\u200b8"}),
    line({**chunk("d3", 9, "empty uri"), "doc_uri": ""}),
    line({**chunk("d3", 10, "numeric uri"), "doc_uri": 10}),
    line({**chunk("d3", 11, "numeric revision"), "doc_revision": 3}),
    line({**chunk("d3", 12, "text not a string"), "text": ["a"]}),
    line({**chunk("d3", 13, "id not a string"), "chunk_id": 13}),
    GOOD[0],  # a duplicate chunk id
    b"// a comment",
    b"[1, 2]",
    b'"a string"',
    b'{"chunk_id": NaN}',
    b'{"chunk_id": "c1:' + b"0" * 32 + b'", "doc_uri": "d4", "text": "\\ud800"}',  # a lone surrogate
    b'{"chunk_id": "c1:' + b"1" * 32 + b'", "doc_uri": "d4", "x": ' + b"[" * 3000 + b"]" * 3000 + b"}",
    b'{"chunk_id": "c1:' + b"2" * 32 + b'", "doc_uri": "d4", "text": "bad \xff byte"}',
    b'{"chunk_id": "c1:' + b"3" * 32 + b'", "doc_uri": "d4", "text": "caf\xc3\xa9"}',
    b'{"chunk_id": "c1:' + b"4" * 32 + b'", "doc_uri": "d4", "text": 1e400}',
    b'{"chunk_id": "c1:' + b"5" * 32 + b'", "doc_uri": "d4", "doc_uri": "d5", "text": "twice"}',
    b'{"a": 1} {"b": 2}',
    b"{}",
]


def reference(path: Path) -> Corpus:
    """The reader one line at a time: json.loads decides every value, add() every check."""
    where = _Where(str(path))
    builder = CorpusBuilder(where)
    digest = hashlib.sha256()
    first = True
    with path.open("rb") as handle:
        for lineno, raw in iter_lines(handle, digest, source="corpus", path=str(path)):
            if raw.startswith(b"//"):
                raise where.error(lineno, "comments are not allowed in a corpus")
            record = expect_object(decode_exactly(raw, "corpus", lineno, str(path)), "corpus", lineno, str(path))
            if first and _is_header(record):
                builder.header(record, lineno)
            else:
                builder.add(record, lineno)
            first = False
    return builder.finish({"corpus_fingerprint": None, "chunker_fingerprint": None}, digest.hexdigest())


def outcome(read: Any, path: Path) -> tuple[str, Any]:
    try:
        corpus = read(path)
    except InputError as exc:
        return ("refused", (exc.message, exc.line))
    columns = (corpus.ids, corpus.docs, corpus.texts, corpus.shas, corpus.ordinals)
    return ("read", (columns, corpus.position, corpus.documents, corpus.sha256, corpus.corpus_fingerprint))


def every_path(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    results = [outcome(reference, path), outcome(lambda p: read_corpus(str(p), corpus_format="jsonl"), path)]
    with monkeypatch.context() as patch:
        patch.setattr(jsonl, "_orjson", None)
        results.append(outcome(lambda p: read_corpus(str(p), corpus_format="jsonl"), path))
    return results


@pytest.mark.parametrize("bad", HOSTILE_LINES, ids=range(len(HOSTILE_LINES)))
def test_a_corpus_line_reads_the_same_on_every_path(
    bad: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    header = line({"corpus_fingerprint": "f1", "chunker_fingerprint": "test/chunker"})
    for where in range(3):  # after the header, as the first chunk line, among chunks
        lines = [header, *GOOD[:where], bad, *GOOD[where:]] if where else [bad, *GOOD]
        path = tmp_path / f"corpus{where}.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
        reference_outcome, *fast = every_path(path, monkeypatch)
        assert fast == [reference_outcome, reference_outcome]


def test_a_whole_hostile_file_reads_the_same_on_every_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Only the lines each path accepts, so that the file is read to its end: what is kept is compared.
    accepted = [raw for raw in HOSTILE_LINES if raw != GOOD[0]]
    path = tmp_path / "all.jsonl"
    kept: list[bytes] = []
    for raw in accepted:
        path.write_bytes(b"\n".join([*GOOD, *kept, raw]) + b"\n")
        if every_path(path, monkeypatch)[0][0] == "read":
            kept.append(raw)
    assert len(kept) >= 10  # the normal and unusual chunks above, not only the good three
    path.write_bytes(b"\r\n".join([*GOOD, *kept]) + b"\r\n")
    first, *others = every_path(path, monkeypatch)
    assert first[0] == "read" and others == [first, first]


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["c1:" + "a" * 32, "c1:" + "A" * 32, "doc#1", "d1", "t1:" + "0" * 32, " x\r\n", "e\u0301"]),
    st.lists(st.integers(), max_size=2),
)
FIELDS = st.sampled_from(["chunk_id", "doc_uri", "doc_revision", "ordinal", "text", "text_sha", "other"])


@settings(max_examples=200, deadline=None)
@given(records=st.lists(st.dictionaries(FIELDS, VALUES, max_size=7), min_size=1, max_size=4), seed=st.integers(0, 3))
def test_random_chunk_objects_read_the_same_on_every_path(records: list[dict[str, Any]], seed: int) -> None:
    # Half the time the record is made whole first, so that the checks past the first pass too.
    lines = []
    for n, record in enumerate(records):
        if (n + seed) % 2 == 0:
            text = record.get("text") if isinstance(record.get("text"), str) else f"text {n}"
            record = {**chunk("d", n, text), **{k: v for k, v in record.items() if k in ("other", "ordinal")}}
        lines.append(line(record))
    with pytest.MonkeyPatch.context() as patch:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "c.jsonl"
            path.write_bytes(b"\n".join(lines) + b"\n")
            reference_outcome, *fast = every_path(path, patch)
    assert fast == [reference_outcome, reference_outcome]


# --- the per-document index ------------------------------------------------------------


def corpus(texts: list[str]) -> Corpus:
    return corpus_from_records(
        [{"chunk_id": cid("d", k, t), "doc_uri": "d", "ordinal": k, "text": t} for k, t in enumerate(texts)]
    )


TEXT = st.text(alphabet="ab", min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=12), probe=st.text(alphabet="ab", min_size=1, max_size=120))
def test_both_ways_of_finding_chunks_inside_a_text_agree_with_a_scan(texts: list[str], probe: str) -> None:
    index = DocumentIndex(corpus(texts), "d")
    brute = [k for k, text in enumerate(index.texts) if text in probe]
    assert index.inside_by_scan(probe) == brute
    assert index.inside_by_heads(probe) == brute
    assert index.inside(probe) == brute


def test_a_document_of_many_chunks_is_probed_and_one_of_few_is_scanned() -> None:
    words = [f"word{n:04d} " * 5 for n in range(400)]
    index = DocumentIndex(corpus(words), "d")
    text = words[10] + words[11]
    assert index.inside(text) == [10, 11]
    assert index._heads is not None  # 400 chunks against a text of about 30 probes
    small = DocumentIndex(corpus(words[:3]), "d")
    assert small.inside(words[0] + words[1]) == [0, 1] and small._heads is None


def two_views(texts: list[str], needle: str) -> list[int]:
    """The search before: both views built in full, the second searched when the first finds nothing."""
    probe = squeeze(needle)
    for dedupe in (False, True):
        parts: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        length, previous = 0, ""
        for text in texts:
            piece = squeeze(text)
            shared = overlap(previous, piece) if dedupe else 0
            starts.append(length - shared)
            parts.append(piece[shared:])
            length += len(piece) - shared
            ends.append(length)
            previous = piece
        squeezed = "".join(parts)
        found: set[int] = set()
        pos = squeezed.find(probe) if probe else -1
        while pos != -1:
            found.update(range(bisect_right(ends, pos), bisect_left(starts, pos + len(probe))))
            pos = squeezed.find(probe, pos + 1)
        if found:
            return sorted(found)
    return []


SPACED = st.text(alphabet="ab \n\x00", min_size=1, max_size=30).filter(lambda t: t.strip())


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(SPACED, min_size=1, max_size=8), needle=st.text(alphabet="ab \n", max_size=60))
def test_the_chunks_a_quote_touches_are_those_the_two_views_named(texts: list[str], needle: str) -> None:
    index = DocumentIndex(corpus(texts), "d")
    assert index.touched(needle) == two_views(index.texts, needle)


@settings(max_examples=300, deadline=None)
@given(
    base=st.text(alphabet="ab ", min_size=8, max_size=80),
    step=st.integers(2, 10),
    extra=st.integers(0, 6),
    cut=st.tuples(st.integers(0, 80), st.integers(1, 40)),
)
def test_windows_that_overlap_are_read_through_the_second_view(
    base: str, step: int, extra: int, cut: tuple[int, int]
) -> None:
    # An overlapping chunker: windows of step + extra characters every step characters, and a
    # needle cut from the text they came from, so that it often needs the overlaps removed.
    texts = [base[i : i + step + extra] for i in range(0, len(base), step)]
    texts = [text for text in texts if text.strip()]
    if not texts:
        return
    needle = base[cut[0] : cut[0] + cut[1]]
    index = DocumentIndex(corpus(texts), "d")
    assert index.touched(needle) == two_views(index.texts, needle)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=40) | st.text(alphabet=[chr(c) for c in range(128)], max_size=40))
def test_squeeze_drops_what_split_splits_on(text: str) -> None:
    assert squeeze(text) == "".join(text.split())


def test_squeeze_drops_every_ascii_space_and_nothing_else() -> None:
    every = "".join(map(chr, range(128)))
    assert squeeze(every) == "".join(every.split())
