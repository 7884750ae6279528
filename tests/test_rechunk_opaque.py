"""A team's own chunk ids (a vector store's UUIDs, slots like ``help://guide-3#4`` that a
re-chunk reuses for other text) through score, drift, --fix, holes and the gate: the same
truth as with c1 ids (tests/rechunk_scenarios.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from rechunk_scenarios import make_scenario
from retrieval_eval.core.identity import text_sha
from test_rechunk_cli import _base_report, _repaired

TOLERANCE = 0.02


@pytest.mark.parametrize(
    ("ids", "chunker", "outcome"),
    [("uuid", "merged-paragraphs", "worse"), ("slot", "sentences", "worse"), ("slot", "windows", "better")],
)
def test_opaque_ids_end_to_end(tmp_path: Path, ids: str, chunker: str, outcome: str) -> None:
    scenario = make_scenario(chunker, outcome, ids=ids)
    assert not any(c.id.startswith("c1:") for c in scenario.head_chunks)
    files = scenario.write(tmp_path)
    base = tmp_path / "base.json"
    assert run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
        "-k", "5,10", "--report", str(base),
    ).code == 0  # fmt: skip
    checked = run_cli("drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--json").json()
    # A slot that now holds other text is not VALID: the label's text decides.
    assert checked["summary"]["valid"] == 0 and checked["summary"]["needs_human"] == 0
    fixed = _repaired(tmp_path, files)
    repaired = {json.loads(line)["query_id"]: json.loads(line)["chunk_id"] for line in fixed.read_text().splitlines()}
    assert repaired == {q.id: q.head_answer for q in scenario.queries}
    gated = run_cli(
        "score", "-j", str(fixed), "-r", str(files.head_run), "--corpus", str(files.head_corpus), "-k", "5,10",
        "--baseline", str(base), "-g", "recall@5:-0.02", "--json",
    ).json()  # fmt: skip
    assert gated["verdict"]["status"] == scenario.truth.verdict(0.02), gated["verdict"]["reasons"]
    (gate,) = gated["verdict"]["gates"]
    assert gate["observed"] - gate["baseline"] == pytest.approx(scenario.truth.delta("recall@5"), abs=TOLERANCE)
    queue = tmp_path / "holes.jsonl"
    holes = run_cli(
        "holes", "-j", str(fixed), "-r", str(files.head_run), "--corpus", str(files.head_corpus), "-k", "5",
        "--out", str(queue),
    )  # fmt: skip
    assert holes.code in (0, 1), holes.stderr
    lines = [json.loads(line) for line in queue.read_text().splitlines()]
    live = {c.id: c for c in scenario.head_chunks}
    assert lines and all(line["chunk_id"] in live and line["doc_uri"] == live[line["chunk_id"]].doc for line in lines)


def test_a_mistyped_c1_id_is_still_refused(tmp_path: Path) -> None:
    judgments = tmp_path / "j.jsonl"
    judgments.write_text('{"query_id": "q1", "doc_uri": "d", "chunk_id": "c1:abc", "relevance": 1}\n')
    result = run_cli("validate", "-j", str(judgments))
    assert result.code == 2 and "chunk_id must be a c1 id (c1:<32 hex digits>" in result.stderr


@pytest.mark.parametrize("refreshed", [False, True])
@pytest.mark.parametrize("chunker", ["sentences", "windows", "merged-paragraphs"])
def test_a_later_pull_request_on_the_repaired_corpus_reads_no_old_trail(
    tmp_path: Path, chunker: str, refreshed: bool
) -> None:
    """The re-chunk landed: the base branch holds the repaired labels (each with the slot it left in
    ``reanchored.from``) and a report scored on the new corpus. A later pull request keeps the labels
    as they are and changes the retriever; its corpus is the same file, or (``refreshed``) one where
    a chunk no label names was edited since. Slots are reused by the new chunking, so the base ranks
    today's ``doc#3`` while an old trail says a label left ``doc#3``: the delta must be the runs'
    own, worked out from the ranks the scenarios placed (``truth``)."""
    same, worse = make_scenario(chunker, "same", ids="slot"), make_scenario(chunker, "worse", ids="slot")
    assert [q.id for q in same.queries] == [q.id for q in worse.queries]
    files = same.write(tmp_path)
    fixed = _repaired(tmp_path, files)
    trails = [json.loads(line).get("reanchored", {}).get("from") for line in fixed.read_text().splitlines()]
    head_slots = {c.id for c in same.head_chunks}
    assert any(old in head_slots for old in trails)  # an old slot names other text today
    base = tmp_path / "base.json"
    inputs = ("-j", str(fixed), "--corpus", str(files.head_corpus), "-k", "5,10")
    assert run_cli("score", *inputs, "-r", str(files.head_run), "--report", str(base)).code == 0
    if refreshed:
        snapshot = json.loads(files.head_corpus.read_text())
        labeled = {json.loads(line)["chunk_id"] for line in fixed.read_text().splitlines()}
        chunk = next(c for c in snapshot["chunks"] if c["chunk_id"] not in labeled)
        chunk["text"] += " Updated in March."
        chunk["text_sha"] = text_sha(chunk["text"])
        refreshed_corpus = tmp_path / "corpus.v3.json"
        refreshed_corpus.write_text(json.dumps(snapshot))
        inputs = ("-j", str(fixed), "--corpus", str(refreshed_corpus), "-k", "5,10")
    worse_run = tmp_path / "worse.run.jsonl"
    worse_run.write_text("".join(json.dumps({"query_id": q, "ranking": r}) + "\n" for q, r in worse.head_runs.items()))
    for run, truth, status in ((files.head_run, same.truth.head, "PASS"), (worse_run, worse.truth.head, "FAIL")):
        gated = run_cli(*("score", *inputs, "-r", str(run), "--baseline", str(base), "-g", "recall@5:-0.02", "--json"))
        verdict = gated.json()["verdict"]
        (gate,) = verdict["gates"]
        assert gate["baseline"] == pytest.approx(same.truth.head["recall@5"], abs=1e-9), verdict
        assert gate["observed"] == pytest.approx(truth["recall@5"], abs=1e-9), verdict
        assert verdict["status"] == status, verdict


def test_a_new_chunker_version_that_keeps_every_slot_is_not_scored_as_a_gain(tmp_path: Path) -> None:
    """paragraphs/v1 to paragraphs/v2 with slot ids: every slot holds the very text it held, so no
    label moves, yet the chunker's name says the ids changed. The worse head (by construction 0.667
    to 0.5, ``truth``) passed: the base's hits on the unchanged slots were dropped as old ids
    (baseline 0). Whether a slot kept its text is not in the reports: the gate cannot decide."""
    scenario = make_scenario("paragraphs", "worse", ids="slot")
    assert scenario.truth.verdict(TOLERANCE) == "FAIL"
    files = scenario.write(tmp_path)
    base = _base_report(tmp_path, files)
    fixed = _repaired(tmp_path, files)
    assert "reanchored" not in fixed.read_text()  # every label is VALID where it was
    gated = run_cli(
        "score", "-j", str(fixed), "-r", str(files.head_run), "--corpus", str(files.head_corpus), "-k", "5,10",
        "--baseline", str(base), "-g", "recall@5:-0.02", "--json",
    ).json()  # fmt: skip
    verdict = gated["verdict"]
    assert verdict["status"] == "INDETERMINATE", verdict
    reasons = " ".join(verdict["reasons"])
    assert "labeled relevant by the head with no move recorded" in reasons
    assert "score the base's retriever on the head's corpus" in reasons


def test_a_slot_many_queries_label_is_counted_once_in_the_reason(tmp_path: Path) -> None:
    # A new chunker version cuts the guide as before: every slot holds what it held, and no label
    # moved, so the base's hits on them cannot be carried (docs/rechunk.md). Three queries rank
    # and label the one slot help://guide#0 relevant: one chunk id, named for each query (it read
    # "3 base-ranked chunk id(s)"). Seven queries: past the five named, the rest are counted as
    # what they are, (query, id) pairs, not chunk ids (it read "1 ... chunk id(s) ... and 2 more").
    texts = ["Refunds arrive in five days.", "Gift cards are not refunded."]

    def corpus(chunker: str) -> str:
        chunks = [{"doc_uri": "help://guide", "doc_revision": "r1", "ordinal": i, "text": text,
                   "chunk_id": f"help://guide#{i}"} for i, text in enumerate(texts)]  # fmt: skip
        return json.dumps({"corpus_fingerprint": "help", "chunker_fingerprint": chunker, "chunks": chunks})

    (tmp_path / "base.json").write_text(corpus("para/1"))
    (tmp_path / "head.json").write_text(corpus("para/2"))
    queries = ("q1", "q2", "q3", "q4", "q5", "q6", "q7")
    (tmp_path / "j.jsonl").write_text("".join(
        json.dumps({"query_id": q, "doc_uri": "help://guide", "chunk_id": "help://guide#0", "chunk_text": texts[0],
                    "relevance": 1, "labeled_by": "human:a"}) + "\n" for q in queries
    ))  # fmt: skip
    (tmp_path / "run.jsonl").write_text("".join(
        json.dumps({"query_id": q, "ranking": ["help://guide#0", "help://guide#1"]}) + "\n" for q in queries
    ))  # fmt: skip
    score = ("score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "run.jsonl"), "-k", "1")
    assert run_cli(*score, "--corpus", str(tmp_path / "base.json"), "--report", str(tmp_path / "r.json")).code == 0
    head = run_cli(*score, "--corpus", str(tmp_path / "head.json"), "--baseline", str(tmp_path / "r.json"),
                   "-g", "recall@1:-0.01", "--json").json()  # fmt: skip
    reason = " | ".join(head["verdict"]["reasons"] + [g["reason"] for g in head["verdict"]["gates"]])
    assert head["verdict"]["status"] == "INDETERMINATE", reason
    assert "1 base-ranked chunk id(s) of your own" in reason and "q1 (help://guide#0), q2 (help://guide#0)" in reason
    assert "q5 (help://guide#0) and 2 more (query, id) pairs;" in reason


@pytest.mark.parametrize("change", ["nothing", "page-added", "label-added", "no-corpus"])
@pytest.mark.parametrize("outcome", ["worse", "better"])
def test_slot_ids_with_nothing_re_chunked_are_decided(tmp_path: Path, change: str, outcome: str) -> None:
    # Slot ids (help://page-3#1), two commits, no page re-chunked: the pull request only changes
    # the retriever (and may add a page to the corpus, or a label). Six queries, each answered by
    # one paragraph; the base ranks each answer at rank 1-3; the worse head pushes two of them to
    # rank 9, the better head lifts the base's two rank-9 answers into the top 3. Undecided slots
    # are for slots a re-chunk may have refilled: here every slot holds what it held, so the worse
    # head must FAIL and the better one PASS, not INDETERMINATE on every pull request.
    def text(page: int, para: int) -> str:
        return f"Page {page} paragraph {para} says {10 * page + para}."

    def corpus(pages: int) -> str:
        chunks = [{"doc_uri": f"help://page-{p}", "doc_revision": "r1", "ordinal": k, "text": text(p, k),
                   "chunk_id": f"help://page-{p}#{k}"} for p in range(pages) for k in range(4)]  # fmt: skip
        return json.dumps({"corpus_fingerprint": "help", "chunker_fingerprint": "para/1", "chunks": chunks})

    answers = {f"q{q}": (q % 4, (3 * q) % 4) for q in range(6)}
    keys = [f"help://page-{p}#{k}" for p in range(4) for k in range(4)]

    def label(query: str, page: int, para: int, grade: int) -> dict[str, object]:
        return {"query_id": query, "doc_uri": f"help://page-{page}", "chunk_id": f"help://page-{page}#{para}",
                "chunk_text": text(page, para), "relevance": grade, "labeled_by": "human:a"}  # fmt: skip

    def run(path: Path, ranks: dict[str, int]) -> Path:
        rows = []
        for n, (query, (page, para)) in enumerate(answers.items()):
            answer = f"help://page-{page}#{para}"
            rest = [key for key in keys if key != answer]
            rest = rest[n:] + rest[:n]  # another order for each query
            rows.append({"query_id": query, "ranking": rest[: ranks[query]] + [answer] + rest[ranks[query] :]})
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        return path

    top = {query: n % 3 for n, query in enumerate(answers)}
    pushed = {**top, "q0": 8, "q1": 8}
    base_ranks, head_ranks = (top, pushed) if outcome == "worse" else (pushed, top)
    labels = [label(q, page, para, 1) for q, (page, para) in answers.items()]
    (tmp_path / "base.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels))
    head_labels = labels + ([label("q0", 3, 3, 0)] if change == "label-added" else [])
    (tmp_path / "head.jsonl").write_text("".join(json.dumps(r) + "\n" for r in head_labels))
    (tmp_path / "base.corpus.json").write_text(corpus(4))
    (tmp_path / "head.corpus.json").write_text(corpus(5 if change == "page-added" else 4))
    with_corpus = change != "no-corpus"
    base = ("score", "-j", str(tmp_path / "base.jsonl"), "-r", str(run(tmp_path / "base.run.jsonl", base_ranks)),
            "-k", "3", "--report", str(tmp_path / "base.json"))  # fmt: skip
    corpus_args = ("--corpus", str(tmp_path / "base.corpus.json")) if with_corpus else ()
    assert run_cli(*base, *corpus_args).code == 0
    head = ("score", "-j", str(tmp_path / "head.jsonl"), "-r", str(run(tmp_path / "head.run.jsonl", head_ranks)),
            "-k", "3", "--baseline", str(tmp_path / "base.json"), "-g", "recall@3:-0.01", "--json")  # fmt: skip
    corpus_args = ("--corpus", str(tmp_path / "head.corpus.json")) if with_corpus else ()
    verdict = run_cli(*head, *corpus_args).json()["verdict"]
    assert verdict["status"] == ("FAIL" if outcome == "worse" else "PASS"), verdict
