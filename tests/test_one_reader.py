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


# -- the HTML page's labels, taken from the judgments scoring read ---------------------------

_KEYS = ("a", "b", "c1:0a", "c1:0b", "doc/é")
_TEXTS = ("", "how do I pay?", "How do I pay?", "x")


def _judgment_line(query: int, key: int, grade: int, text: int, stratum: int, chunk: bool, kind: int) -> str:
    """One line of a judgments file: a label (doc_uri, or doc_uri and chunk_id), a no-answer line,
    or a comment; query text and stratum present, empty or left out."""
    query_id = f"q{query}"
    if kind == 0:
        return "// a comment"
    record: dict[str, object] = {"query_id": query_id}
    if kind == 1:
        record["expect"] = "no_answer"
    else:
        record["doc_uri"] = _KEYS[key].removeprefix("c1:")
        if chunk:
            record["chunk_id"] = _KEYS[key]
        record["relevance"] = grade
    if text:
        record["query"] = _TEXTS[text % len(_TEXTS)]
    if stratum:
        record["stratum"] = ("", "billing", "api")[stratum % 3]
    line = json.dumps(record, ensure_ascii=kind == 3)  # kind 3: non-ASCII written as \\u escapes
    return line


def _lines() -> object:
    from hypothesis import strategies as st

    one = st.tuples(
        st.integers(0, 3),
        st.integers(0, len(_KEYS) - 1),
        st.integers(0, 3),
        st.integers(0, 4),
        st.integers(0, 3),
        st.booleans(),
        st.sampled_from((0, 1, 2, 2, 2, 3)),
    )
    return st.lists(one, min_size=1, max_size=25)


def test_the_pages_labels_from_the_index_are_the_files_own() -> None:
    """The action's HTML page takes its labels from the judgments scoring read
    (``index_page_labels``); ``render`` reads them from the file (``read_page_labels``). Over
    generated files (repeated keys at other grades, grade 0, chunk ids, no-answer lines, comments,
    texts and strata given, empty or repeated, escaped or not), both give the same labels, in the
    same order, for every subset of queries."""
    import hashlib
    import tempfile

    from hypothesis import given, settings

    from retrieval_eval.core.errors import InputError
    from retrieval_eval.formats.judgments import read_label_index
    from retrieval_eval.render.html_inputs import index_page_labels, read_page_labels

    @settings(max_examples=100, deadline=None)
    @given(_lines(), _lines().map(lambda found: {f"q{line[0]}" for line in found}))
    def check(lines: list[tuple[int, int, int, int, int, bool, int]], wanted: set[str]) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "judgments.jsonl"
            path.write_text("".join(_judgment_line(*line) + "\n" for line in lines), encoding="utf-8")
            try:
                index = read_label_index(str(path))
            except InputError:  # only comments and no-answer lines: no judgments to show
                return
            sha = hashlib.sha256(path.read_bytes()).hexdigest()
            for queries in (wanted, set(index.queries)):
                from_file = read_page_labels(str(path), queries, expected_sha256=sha)
                from_index = index_page_labels(index, queries)
                assert list(from_index) == list(from_file)
                for query_id, labels in from_file.items():
                    assert from_index[query_id] == labels
                    assert list(from_index[query_id].grades) == list(labels.grades)

    check()


def test_the_html_page_reads_trec_and_beir_qrels_as_score_does(tmp_path: Path) -> None:
    """``render --format html -j`` takes the judgments ``score`` took, in any format: TREC qrels
    were refused line 1 as "not valid JSON" before. The page's labels are those of the same
    judgments written as JSONL; a qrels file that is not the one scored is refused as such."""
    import hashlib

    from retrieval_eval.render.html_inputs import read_labels_for_page, read_page_labels

    qrels, jsonl, run = write(tmp_path)
    beir = tmp_path / "qrels.tsv"
    beir.write_text(
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t{g}\n" for q, _, d, g in map(str.split, QRELS.splitlines()))
    )
    for judgments in (qrels, beir):
        report = tmp_path / f"{judgments.name}.report.json"
        done = run_cli("score", "-j", str(judgments), "-r", str(run), "--report", str(report))
        assert done.code == 0, done.stderr
        page = tmp_path / f"{judgments.name}.html"
        done = run_cli("render", "--report", str(report), "--format", "html", "-j", str(judgments), "--out", str(page))
        assert done.code == 0, done.stderr
        sha = hashlib.sha256(judgments.read_bytes()).hexdigest()
        wanted = {"q1", "q2"}
        from_qrels = read_labels_for_page(str(judgments), wanted, expected_sha256=sha)
        from_jsonl = read_page_labels(str(jsonl), wanted)
        assert {q: labels.grades for q, labels in from_qrels.items()} == {
            q: labels.grades for q, labels in from_jsonl.items()
        }
    other = run_cli("render", "--report", str(tmp_path / "qrels.txt.report.json"), "--format", "html", "-j", str(beir))
    assert other.code == 2 and "not the judgments file the report was scored with" in other.stderr, other.stderr


def test_validate_reads_trec_and_beir_qrels_as_score_does(tmp_path: Path) -> None:
    """``validate -j`` takes the judgments ``score`` takes: TREC qrels were refused line 1 as
    "not valid JSON". The same judgments in each format give the same issues."""
    qrels, jsonl, run = write(tmp_path)
    beir = tmp_path / "qrels.tsv"
    beir.write_text(
        "query-id\tcorpus-id\tscore\n"
        + "".join(f"{q}\t{d}\t{g}\n" for q, _, d, g in map(str.split, QRELS.splitlines()))
    )
    found = []
    for judgments in (jsonl, qrels, beir):
        done = run_cli("validate", "-j", str(judgments), "-r", str(run), "--json")
        assert done.code == 0, done.stderr
        found.append(json.loads(done.stdout)["issues"])
    assert found[0] == found[1] == found[2]


def test_score_with_a_corpus_and_floor_run_read_qrels_as_score_does(tmp_path: Path) -> None:
    """With a corpus, ``score`` read the judgments a second time, for drift, as JSONL only:
    TREC qrels were refused line 1 as "not valid JSON" (and so was ``floor-run``, which needs
    each query's text, which qrels do not hold: it now says so)."""
    qrels, jsonl, run = write(tmp_path)
    corpus = tmp_path / "corpus.json"
    chunks = [{"chunk_id": f"c1:{i:032d}", "doc_uri": doc, "text": f"text of {doc}"} for i, doc in enumerate("abc")]
    corpus.write_text(json.dumps({"corpus_fingerprint": "c", "chunker_fingerprint": "k", "chunks": chunks}))
    metrics = []
    for judgments in (jsonl, qrels):
        done = run_cli("score", "-j", str(judgments), "-r", str(run), "--corpus", str(corpus), "--json")
        assert done.code == 0, done.stderr
        metrics.append(json.loads(done.stdout)["metrics"])
    assert metrics[0] == metrics[1]
    done = run_cli(
        "floor-run", "-j", str(qrels), "--corpus", str(corpus), "--method", "bm25", "--out", str(tmp_path / "f")
    )
    assert done.code == 2 and "no query has query text" in done.stderr, done.stderr
