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
from retrieval_eval.formats.judgments import iter_judgment_lines, read_label_index

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
