"""One judgments reader for both products; convert checks everything before it prints anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from retrieval_eval.core.errors import InputError
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.formats.judgments import parse_judgments, read_label_index

GOOD = '{"query_id": "q1", "doc_uri": "d1", "relevance": 1}\n'


@pytest.mark.parametrize(
    "bad, problem",
    [
        ('{"query_id": "q2", "query": "a\\ud800", "doc_uri": "d2", "relevance": 1}', "\\ud800 is a lone surrogate"),
        ('{"query_id": "q2", "doc_uri": "d2", "relevance": 1, "\\udc00": 1e400}', "\\udc00 is a lone surrogate"),
        ('{"query_id": "q2", "doc_uri": "d2", "relevance": 1001}', "relevance must be at most 1000"),
    ],
)
def test_the_full_set_and_the_label_index_refuse_alike(tmp_path: Path, bad: str, problem: str) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text("// header\n" + GOOD + bad + "\n", encoding="utf-8")
    messages = []
    for read in (parse_judgments, read_label_index):
        with pytest.raises(InputError) as caught:
            read(str(path))
        messages.append(caught.value.message)
    assert messages[0] == messages[1]
    assert messages[0].startswith("judgments:3: ") and problem in messages[0]


def test_the_label_index_read_from_the_file_is_the_one_built_from_the_full_set(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    lines = [GOOD, '{"query_id": "q1", "doc_uri": "d1", "relevance": 2, "labeled_by": "human:a"}\n', "// note\n"]
    path.write_text("".join(lines), encoding="utf-8")
    streamed = read_label_index(str(path))
    built = LabelIndex.from_judgments(parse_judgments(str(path)))
    assert streamed.queries["q1"].grades == built.queries["q1"].grades == {"d1": 2}
    assert streamed.queries["q1"].repeats == built.queries["q1"].repeats == {"d1": [1, 2]}
    assert (streamed.labels, streamed.human_labels) == (built.labels, built.human_labels) == (2, 1)


def test_convert_prints_nothing_when_a_late_line_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text(GOOD * 3 + '{"query_id": "q\\ud800", "doc_uri": "d", "relevance": 0}\n', encoding="utf-8")
    for target in ("trec-qrels", "beir-qrels", "judgments"):
        done = run_cli("convert", str(path), "--from", "judgments", "--to", target)
        assert (done.code, done.stdout) == (2, ""), done
        assert "judgments:4: not valid Unicode" in done.stderr


def test_convert_prints_nothing_when_an_option_cannot_be_written(tmp_path: Path) -> None:
    # A tag given as bytes that are not UTF-8 reaches Python as a lone surrogate escape.
    path = tmp_path / "run.jsonl"
    path.write_text('{"query_id": "q1", "ranking": ["d1", "d2"]}\n', encoding="utf-8")
    done = run_cli("convert", str(path), "--to", "trec-run", "--tag", "t\udcff")
    assert (done.code, done.stdout) == (2, ""), done
