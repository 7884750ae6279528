"""The label index's reader takes the common label on a path of its own: every kind of line
still gives what the one checked reader (``iter_judgment_lines``) gives, line for line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from retrieval_eval.core.errors import InputError
from retrieval_eval.core.judgments import NoAnswer
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.formats import jsonl
from retrieval_eval.formats.judgments import _keys_by_line, iter_judgment_lines, read_label_index

CHUNK = "c1:0123456789abcdef0123456789abcdef"
LINES = [
    "\ufeff// a comment first, after a byte order mark",
    '{"query_id": "q1", "query": "reset", "doc_uri": "d1", "relevance": 2, "labeled_by": "human:a"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 0, "labeled_by": "synthetic:m", "stratum": "s"}',
    '{"query_id": "q1", "doc_uri": "d3", "relevance": 1, "labeled_by": "someone"}',
    '{"query_id": "q1", "doc_uri": "d3", "relevance": 3}',  # the key again: repeats, highest grade
    '{"query_id": "q2", "doc_uri": "d4", "relevance": 1, "extra": 7}',  # a second number: the full checks
    '{"query_id": "q2", "doc_uri": "d5", "relevance": 1, "note": {"why": "nested"}}',
    f'{{"query_id": "q2", "doc_uri": "d6", "chunk_id": "{CHUNK}", "relevance": 1, "corpus_fingerprint": "f"}}',
    '{"query_id": "q3", "expect": "no_answer", "query": "nothing here"}',
    "// a comment between labels",
    "",
    '{"query_id": "q4", "doc_uri": "d7", "relevance": 1, "labeled_by": 5}',
]


def fields(index: LabelIndex) -> dict[str, Any]:
    return {
        "queries": {
            q: (dict(e.grades), e.labels, e.texts, e.strata, e.repeats, e.unknown_provenance, e.no_answer)
            for q, e in index.queries.items()
        },
        "counts": (index.labels, index.human_labels, index.synthetic_labels),
        "fingerprints": index.fingerprints,
        "chunk_ids": (index.chunk_ids, index.opaque_keys),
    }


def by_the_checked_reader(path: Path) -> LabelIndex:
    index = LabelIndex()
    with path.open("rb") as handle:
        for line, record, checked in iter_judgment_lines(handle, path=str(path)):
            if isinstance(checked, NoAnswer):
                index.add_no_answer(checked)
            elif checked is not None:
                index.add(checked, record, line)
    return index


@pytest.mark.parametrize("use_orjson", [True, False])
def test_every_kind_of_line_indexes_as_the_checked_reader_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_orjson: bool
) -> None:
    if not use_orjson:
        monkeypatch.setattr(jsonl, "_orjson", None)
    path = tmp_path / "judgments.jsonl"
    good = LINES[:-1]
    path.write_text("\n".join(good) + "\n", encoding="utf-8")
    streamed = read_label_index(str(path))
    expected = by_the_checked_reader(path)
    expected.finish(lambda: iter([(4, "q1", "d3"), (5, "q1", "d3")]))
    assert fields(streamed) == fields(expected)
    # Written out by hand: what the lines say.
    assert streamed.queries["q1"].grades == {"d1": 2, "d2": 0, "d3": 3}
    assert streamed.queries["q1"].repeats == {"d3": [4, 5]}
    assert streamed.queries["q1"].unknown_provenance == [4]
    assert (streamed.labels, streamed.human_labels, streamed.synthetic_labels) == (7, 1, 1)  # four on q1, three on q2
    assert set(streamed.queries["q2"].grades) == {"d4", "d5", CHUNK}
    assert streamed.queries["q3"].no_answer and streamed.queries["q3"].texts == ("nothing here",)

    # A labeled_by that is not a string is refused on its line, as before.
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="judgments:12: labeled_by must be a string"):
        read_label_index(str(path))


PLAIN = '{"query_id": "q1", "query": "reset", "doc_uri": "d1", "relevance": 2, "labeled_by": "human:a"}'
# Lines that look like the common label (the reader's own path) but are not quite it:
# each must index, or be refused, exactly as the checked reader has it.
NEAR_PLAIN = [
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "corpus_fingerprint": "f1", "stratum": "s"}',
    '{"query_id": "q2", "doc_uri": "d1", "relevance": 1000, "query": "", "stratum": ""}',
    '{"query_id": "q1", "doc_uri": "d1", "relevance": 0, "labeled_by": "human:b"}',  # a repeat, lower grade
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "labeled_by": ""}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "labeled_by": "Human:x"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "labeled_by": "synthetic:m"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "labeled_by": null}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "labeled_by": ["human:a"]}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "query": null}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "query": 3}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "stratum": null}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "stratum": {"a": "b"}}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "corpus_fingerprint": null}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "corpus_fingerprint": 1}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "qrels_iteration": "0"}',
    f'{{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "chunk_id": "{CHUNK}"}}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "text_sha": "t1:0123456789abcdef0123456789abcdef"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "expect": "no_answer"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "note": "a field of the team\'s own"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": true}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1.0}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": -1}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1001}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": "1"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": null}',
    '{"query_id": "q1", "doc_uri": "d2"}',
    '{"query_id": "q1", "relevance": 1}',
    '{"query_id": "", "doc_uri": "d2", "relevance": 1}',
    '{"query_id": "q1", "doc_uri": "", "relevance": 1}',
    '{"query_id": 1, "doc_uri": "d2", "relevance": 1}',
    '{"query_id": "q1", "doc_uri": null, "relevance": 1}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "query": "\\ud800"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1, "query_id": "q3"}',
    '{"query_id": "q1", "doc_uri": "d2", "relevance": 1}{"query_id": "q1"}',
    '["query_id", "doc_uri", "relevance"]',
    '"q1"',
]


def read_or_refusal(read: Any, path: Path) -> Any:
    try:
        index = read(path)
    except InputError as error:
        return str(error)
    return fields(index)


def checked_and_finished(path: Path) -> LabelIndex:
    """The checked reader's index, its repeats gathered as ``read_label_index`` gathers them."""
    index = by_the_checked_reader(path)
    index.finish(lambda: _keys_by_line(str(path), "judgments"))
    return index


@pytest.mark.parametrize("use_orjson", [True, False])
@pytest.mark.parametrize("near", NEAR_PLAIN)
def test_a_line_near_the_plainest_label_indexes_or_is_refused_as_the_checked_reader_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_orjson: bool, near: str
) -> None:
    if not use_orjson:
        monkeypatch.setattr(jsonl, "_orjson", None)
    path = tmp_path / "judgments.jsonl"
    # The plain label before and after it: the query kept at hand must not leak into the next line.
    path.write_text("\n".join([PLAIN, near, PLAIN.replace("d1", "d9")]) + "\n", encoding="utf-8")

    assert read_or_refusal(lambda p: read_label_index(str(p)), path) == read_or_refusal(checked_and_finished, path)


def test_the_plainest_labels_are_indexed_and_counted_as_written(tmp_path: Path) -> None:
    """Hand-counted: the common label's sums and grades, with queries interleaved."""
    lines = [
        '{"query_id": "a", "doc_uri": "x", "relevance": 1, "labeled_by": "human:p", "stratum": "s1"}',
        '{"query_id": "b", "doc_uri": "x", "relevance": 0, "query": "bee"}',
        '{"query_id": "a", "doc_uri": "x", "relevance": 3, "labeled_by": "human:q", "stratum": "s2"}',
        '{"query_id": "a", "doc_uri": "y", "relevance": 2, "corpus_fingerprint": "f"}',
        '{"query_id": "b", "doc_uri": "z", "relevance": 2, "query": "bee", "labeled_by": "synthetic:m"}',
    ]
    path = tmp_path / "judgments.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    index = read_label_index(str(path))
    assert list(index.queries) == ["a", "b"]
    a, b = index.queries["a"], index.queries["b"]
    assert (a.grades, a.labels, a.strata, a.texts, a.repeats) == ({"x": 3, "y": 2}, 3, ("s1", "s2"), (), {"x": [1, 3]})
    assert (b.grades, b.labels, b.strata, b.texts) == ({"x": 0, "z": 2}, 2, (), ("bee",))
    assert (index.labels, index.human_labels, index.synthetic_labels) == (5, 2, 1)
    assert index.repeated == {("a", "x")}
    assert index.fingerprints == {None, "f"}
