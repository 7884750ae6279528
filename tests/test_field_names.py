"""A misspelled field is kept (the format never refuses an unknown field) but told: an unknown
name one slip away from a known one. One that stands for a field scoring reads makes the set
unsound, since the label is read without it and the numbers move (core/field_names.py)."""

from __future__ import annotations

import itertools
import json
from functools import cache
from pathlib import Path

import pytest

from helpers import run_cli
from retrieval_eval.core.field_names import KNOWN_FIELDS, _distance, misspelling_of
from retrieval_eval.core.validate import validate
from retrieval_eval.formats.judgments import parse_judgments, read_label_index


@pytest.mark.parametrize(
    ("name", "known"),
    [
        ("chunk_Id", "chunk_id"),  # another case
        ("Chunk-ID", "chunk_id"),  # another case, - for _
        ("chunkid", "chunk_id"),  # the _ left out
        ("chnuk_id", "chunk_id"),  # two neighbours swapped
        ("stratm", "stratum"),  # a letter dropped
        ("relevence", "relevance"),  # a letter changed
        ("doc_url", "doc_uri"),
        ("query_ids", "query_id"),  # a letter added
        ("labeled_b", "labeled_by"),  # the closest of two alike, not the first by name
        ("Expect", "expect"),  # short names: another case only
        ("corpus_fingerprnt", "corpus_fingerprint"),  # long names allow two slips: one here
        ("corpusfingreprnt", "corpus_fingerprint"),  # and two
    ],
)
def test_a_slip_of_a_known_field_is_named(name: str, known: str) -> None:
    assert misspelling_of(name) == known


@pytest.mark.parametrize(
    "name",
    ["doc_id", "score", "ranking", "grade", "qid", "judge", "note", "mode", "votes", "quota", "relevant", "labeled"]
    + ["x" * 60, "chunk_id", ""],
)
def test_a_field_of_the_teams_own_or_a_known_one_is_no_slip(name: str) -> None:
    # doc_id and score are what a judge writes beside a label (tests/hostile/cases_round7.py); a
    # name under six letters is a slip only in case or separators (note is no slip of notes).
    assert misspelling_of(name) is None


@cache
def _edits(a: str, b: str) -> int:
    """The same distance by its definition, recursively: the independent reference."""
    if not a or not b:
        return len(a) + len(b)
    best = min(_edits(a[1:], b) + 1, _edits(a, b[1:]) + 1, _edits(a[1:], b[1:]) + (a[0] != b[0]))
    if len(a) > 1 and len(b) > 1 and a[0] == b[1] and a[1] == b[0]:
        best = min(best, _edits(a[2:], b[2:]) + 1)
    return best


def test_the_distance_agrees_with_its_definition_on_every_short_pair() -> None:
    words = ["".join(w) for n in range(5) for w in itertools.product("abc", repeat=n)]
    for a, b in itertools.product(words, repeat=2):
        exact = _edits(a, b)
        for limit in (1, 2):
            assert _distance(a, b, limit) == min(exact, limit + 1), (a, b, limit)


def _lines(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


CHUNK_A = "c1:" + "a" * 32
CHUNK_B = "c1:" + "b" * 32


def _judgments(tmp_path: Path, second: dict[str, object]) -> Path:
    first = {"query_id": "q1", "doc_uri": "kb://a", "chunk_id": CHUNK_A, "relevance": 1, "stratum": "s"}
    return _lines(tmp_path / "j.jsonl", [first, {"query_id": "q2", "doc_uri": "kb://b", "relevance": 2, **second}])


def test_a_misspelled_chunk_id_makes_the_set_unsound_in_both_readings(tmp_path: Path) -> None:
    path = _judgments(tmp_path, {"chunk_Id": CHUNK_B, "stratum": "s"})
    for judgments in (read_label_index(str(path)), parse_judgments(str(path))):
        issues = validate(judgments).issues
        assert [(i.code, i.subject) for i in issues if "misspelled" in i.code] == [
            ("misspelled-scored-field", "chunk_Id")
        ]
        (issue,) = [i for i in issues if i.code == "misspelled-scored-field"]
        assert "line 2 carries 'chunk_Id' and no chunk_id: 'chunk_Id' is no field but looks like 'chunk_id'" in (
            issue.message
        )
        assert "such a label grades its document (doc_uri), not the chunk" in issue.message


def test_a_misspelled_stratum_counts_the_lines_that_lack_stratum(tmp_path: Path) -> None:
    records = [{"query_id": f"q{n}", "doc_uri": f"kb://{n}", "relevance": 1, "Stratum ": "s"} for n in range(3)]
    records[0]["stratum"] = "s"  # line 1 has the field too: the slip there is no slip
    issues = validate(read_label_index(str(_lines(tmp_path / "j.jsonl", records)))).issues
    (issue,) = [i for i in issues if "misspelled" in i.code]
    assert issue.code == "misspelled-scored-field"
    assert issue.message.startswith("2 lines (the first: 2) carry 'Stratum ' and no stratum")


@pytest.mark.parametrize(
    "second",
    [
        {"chunk_id": CHUNK_B, "chunk-id": CHUNK_B},  # beside the field it resembles
        {"doc_url": "https://example.com/b"},  # beside doc_uri
        {"chunk_idx": 1},  # no value a chunk_id holds
        {"chunk_ids": [CHUNK_B]},
        {"expert": "alice"},  # expect holds no_answer only
        {"relevant": True},  # relevance is an integer
        {"Stratum": ""},  # stratum is a non-empty string
    ],
)
def test_a_field_of_the_teams_own_that_merely_looks_alike_is_not_told(
    tmp_path: Path, second: dict[str, object]
) -> None:
    issues = validate(read_label_index(str(_judgments(tmp_path, second)))).issues
    assert not [i for i in issues if "misspelled" in i.code]


def test_a_slip_of_a_field_scoring_does_not_read_only_warns(tmp_path: Path) -> None:
    path = _judgments(tmp_path, {"chunk_id": CHUNK_B, "labeled_b": "human:ann", "Notes": "checked"})
    found = {i.subject: i.code for i in validate(read_label_index(str(path))).issues if "misspelled" in i.code}
    assert found == {"labeled_b": "misspelled-field", "Notes": "misspelled-field"}


def test_a_lookalike_letter_is_shown_escaped(tmp_path: Path) -> None:
    path = _judgments(tmp_path, {"chunk_\u0456d": CHUNK_B})
    (issue,) = [i for i in validate(read_label_index(str(path))).issues if "misspelled" in i.code]
    assert "'chunk_\\u0456d'" in issue.message


def test_score_says_indeterminate_and_why_on_a_misspelled_chunk_id(tmp_path: Path) -> None:
    path = _judgments(tmp_path, {"chunk_Id": CHUNK_B})
    rows = [{"query_id": "q1", "ranking": [CHUNK_A]}, {"query_id": "q2", "ranking": ["kb://b"]}]
    run = _lines(tmp_path / "run.jsonl", rows)
    result = run_cli("score", "-j", str(path), "-r", str(run), "-g", "recall@10:0.5", "--json")
    report = result.json()
    assert report["verdict"]["status"] == "INDETERMINATE"
    assert result.code == 1
    assert "misspelled-scored-field" in report["verdict"]["reasons"][0]


def test_a_slip_after_thousands_of_invented_names_is_still_told(tmp_path: Path) -> None:
    records = [{"query_id": "q1", "doc_uri": f"kb://{n}", "relevance": 1, f"field{n:05d}": 1} for n in range(3000)]
    records.append({"query_id": "q1", "doc_uri": "kb://last", "relevance": 1, "stratm": "s"})
    index = read_label_index(str(_lines(tmp_path / "j.jsonl", records)))
    assert index.slips.found["stratm"].first_line == 3001


def test_known_fields_are_the_schemas_and_the_extensions() -> None:
    schema = json.loads(Path(__file__).parents[1].joinpath("spec", "judgments.schema.json").read_text())
    assert set(schema["properties"]) <= KNOWN_FIELDS


def test_drift_and_convert_say_which_label_they_read_without_its_misspelled_chunk_id(tmp_path: Path) -> None:
    # Neither validates the set, and to both such a label is a document's: drift checked it as
    # VALID and convert wrote it as a document's grade, without a word.
    demo = tmp_path / "demo"
    assert run_cli("demo", "--out", str(demo)).code == 0
    rows = [json.loads(line) for line in (demo / "judgments.jsonl").read_text().splitlines() if line.strip()]
    first = next(i for i, row in enumerate(rows) if "chunk_id" in row)
    rows[first]["chunk_Id"] = rows[first].pop("chunk_id")
    judgments = _lines(tmp_path / "j.jsonl", rows)
    said = "carries 'chunk_Id' and no chunk_id"
    drift = run_cli("drift", "-j", str(judgments), "--corpus", str(demo / "corpus.json"))
    assert said in drift.stderr and drift.stderr.startswith("warning  "), drift.stderr
    converted = run_cli("convert", str(judgments), "--to", "trec-qrels")
    assert converted.code == 0 and said in converted.stderr, converted.stderr
