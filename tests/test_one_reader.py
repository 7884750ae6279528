"""One reader per format: what load_judgments reads, every command reads, and a report is
never mistaken for anything but a report."""

from __future__ import annotations

import json
from pathlib import Path

import retrieval_eval
from helpers import run_cli

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n"
JSONL = [
    {"query_id": "q1", "doc_uri": "a", "relevance": 1},
    {"query_id": "q1", "doc_uri": "b", "relevance": 0},
    {"query_id": "q2", "doc_uri": "c", "relevance": 2},
]
RUN = [{"query_id": "q1", "ranking": ["b", "a"]}, {"query_id": "q2", "ranking": ["c"]}]


def write(tmp: Path) -> tuple[Path, Path, Path]:
    qrels = tmp / "qrels.txt"
    qrels.write_text(QRELS)
    jsonl = tmp / "judgments.jsonl"
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in JSONL))
    run = tmp / "run.jsonl"
    run.write_text("".join(json.dumps(line) + "\n" for line in RUN))
    return qrels, jsonl, run


def test_score_reads_trec_qrels_as_load_judgments_does(tmp_path: Path) -> None:
    qrels, jsonl, run = write(tmp_path)
    assert retrieval_eval.load_judgments(qrels).to_dict() == retrieval_eval.load_judgments(jsonl).to_dict()
    reports = []
    for judgments in (qrels, jsonl):
        out = tmp_path / f"{judgments.stem}.report.json"
        done = run_cli("score", "-j", str(judgments), "-r", str(run), "-k", "1,2", "--report", str(out))
        assert done.code == 0, done.stderr
        reports.append(json.loads(out.read_text()))
    assert reports[0]["metrics"] == reports[1]["metrics"]
    assert reports[0]["per_query"] == reports[1]["per_query"]


def test_a_run_given_as_the_baseline_is_named_a_run(tmp_path: Path) -> None:
    _, jsonl, run = write(tmp_path)
    done = run_cli("score", "-j", str(jsonl), "-r", str(run), "--baseline", str(run))
    assert done.code == 2
    assert "is a run" in done.stderr and "--baseline takes a report" in done.stderr, done.stderr
    assert "Extra data" not in done.stderr


def test_the_html_page_reads_every_label_score_reads(tmp_path: Path) -> None:
    """A line whose top-level key is written with an escape, and which names another query in a
    nested object, labels q1: the page must read it as score does, not skip it by its bytes."""
    import hashlib

    from retrieval_eval.formats.judgments import read_label_index
    from retrieval_eval.render.html_inputs import read_page_labels

    lines = [
        '{"query\\u005fid": "q1", "doc_uri": "a", "relevance": 1, "meta": {"query_id": "q2"}}',
        '{"query_id": "q1", "doc_uri": "b", "relevance": 0}',
        '{"query_id": "q2", "doc_uri": "c", "relevance": 1}',
    ]
    path = tmp_path / "judgments.jsonl"
    path.write_text("\n".join(lines) + "\n")
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    index = read_label_index(str(path))
    page = read_page_labels(str(path), {"q1"}, expected_sha256=sha)
    assert page["q1"].grades == dict(index.queries["q1"].grades) == {"a": 1, "b": 0}
