"""A re-chunk pull request through the CLI, for every chunker and every outcome: the base
report is scored on the old chunks, ``drift --fix`` moves the labels, and the head is gated
against the base report. The verdict and the deltas must be the truth the scenario was built
with (tests/rechunk_scenarios.py), at the level of the labeled text."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from rechunk_scenarios import CHUNKERS, OUTCOMES, ScenarioFiles, make_scenario
from retrieval_eval import chunk_id

GATE = "recall@5:-0.02"
Ids = dict[tuple[str, int], str]  # chunk id by (document, ordinal)
TOLERANCE = 0.02


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("chunker", CHUNKERS)
def test_a_rechunk_gets_the_verdict_and_the_delta_of_the_labeled_text(
    tmp_path: Path, chunker: str, outcome: str
) -> None:
    scenario = make_scenario(chunker, outcome)
    files = scenario.write(tmp_path)
    base = tmp_path / "base.json"
    scored = run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
        "-k", "5,10", "--report", str(base), "--json",
    )  # fmt: skip
    assert scored.code == 0, scored.stderr
    fixed_path = tmp_path / "judgments.v2.jsonl"
    fixed = run_cli(
        "drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed_path)
    )
    assert fixed.code == 0, fixed.stdout + fixed.stderr  # every label survived by a sound rule
    head = tmp_path / "head.json"
    gated = run_cli(
        "score", "-j", str(fixed_path), "-r", str(files.head_run), "--corpus", str(files.head_corpus),
        "-k", "5,10", "--baseline", str(base), "-g", GATE, "--report", str(head), "--json",
    )  # fmt: skip
    report = gated.json()
    assert report["verdict"]["status"] == scenario.truth.verdict(0.02), report["verdict"]["reasons"]
    compared = run_cli(
        "compare", "--base", str(base), "--head", str(head), "--judgments", str(fixed_path), "--json"
    )  # fmt: skip
    document = json.loads(compared.stdout)
    assert document["yardstick"] == "translated"
    # The corpus note tells the two fingerprints apart (they share their first 12 characters).
    (corpus,) = [f["detail"] for f in document["comparability"] if f["code"] == "corpus-changed"]
    assert "(help-centre/2026-01 in base, help-centre/2026-02 in head)" in corpus
    for metric in ("recall@5", "mrr@10"):
        row = document["metrics"][metric]
        assert row["base"] == pytest.approx(scenario.truth.base[metric], abs=TOLERANCE), metric
        assert row["delta"] == pytest.approx(scenario.truth.delta(metric), abs=TOLERANCE), metric


def _base_report(tmp_path: Path, files: ScenarioFiles) -> Path:
    base = tmp_path / "base.json"
    scored = run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
        "-k", "5,10", "--report", str(base),
    )  # fmt: skip
    assert scored.code == 0, scored.stderr
    return base


def _repaired(tmp_path: Path, files: ScenarioFiles) -> Path:
    """The labels as drift --fix repairs them against the head's corpus, in a file of their own."""
    fixed = tmp_path / "judgments.v2.jsonl"
    done = run_cli("drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed))
    assert done.code == 0, done.stdout + done.stderr
    return fixed


def _gate(files: ScenarioFiles, judgments: Path, base: Path, *extra: str) -> dict[str, Any]:
    gated = run_cli(
        "score", "-j", str(judgments), "-r", str(files.head_run), "-k", "5,10", "--baseline", str(base),
        "-g", GATE, "--json", *extra,
    )  # fmt: skip
    return gated.json()  # type: ignore[no-any-return]


@pytest.mark.parametrize("chunker", ["paragraphs", "merged-paragraphs", "sections"])
def test_without_base_rankings_each_side_keeps_its_own_judgments(tmp_path: Path, chunker: str) -> None:
    scenario = make_scenario(chunker, "worse")
    files = scenario.write(tmp_path)
    base = _base_report(tmp_path, files)
    stripped = json.loads(base.read_text())
    del stripped["rankings"]  # a base report written by another tool, or trimmed
    base.write_text(json.dumps(stripped))
    fixed = _repaired(tmp_path, files)
    report = _gate(files, fixed, base, "--corpus", str(files.head_corpus))
    (gate,) = report["verdict"]["gates"]
    assert report["verdict"]["status"] == "FAIL"
    assert gate["observed"] - gate["baseline"] == pytest.approx(scenario.truth.delta("recall@5"), abs=TOLERANCE)


def test_labels_that_broke_make_the_delta_indeterminate_and_are_named(tmp_path: Path) -> None:
    scenario = make_scenario("sentences", "same")
    files = scenario.write(tmp_path)
    base = _base_report(tmp_path, files)
    labels = [json.loads(line) for line in files.judgments.read_text().splitlines()]
    for record in labels[:3]:
        del record["quote"]  # a paragraph cut into sentences, with nothing to say which holds the answer
    files.judgments.write_text("".join(json.dumps(record) + "\n" for record in labels))
    fixed = tmp_path / "judgments.v2.jsonl"
    assert (
        run_cli("drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed)).code
        == 1
    )
    report = _gate(files, fixed, base, "--corpus", str(files.head_corpus))
    assert report["verdict"]["status"] == "INDETERMINATE"
    (reason,) = [r for r in report["verdict"]["reasons"] if r.startswith("recall@5:-0.02")]
    assert "3 label(s) broke in the re-chunk" in reason
    assert "q00 (line 1, SPLIT), q01 (line 2, SPLIT), q02 (line 3, SPLIT)" in reason
    assert f"list them with 'retrieval-eval drift -j {fixed} -c {files.head_corpus}'" in reason


@pytest.mark.parametrize("outcome", ["better", "worse"])
def test_the_base_run_gated_after_a_rechunk_is_no_measurement_of_the_retriever(tmp_path: Path, outcome: str) -> None:
    # The pull request re-chunks the corpus and repairs the labels, but CI hands the gate the run
    # made before the re-chunk: every key it ranks is an old chunk, none is in the corpus. Whatever
    # the retriever does on the new chunks (better or worse by construction), this run says nothing
    # of it. It read FAIL, recall@5 falling to 0, with a reason to go and label unjudged keys.
    scenario = make_scenario("merged-paragraphs", outcome)
    files = scenario.write(tmp_path)
    base = _base_report(tmp_path, files)
    fixed = tmp_path / "judgments.v2.jsonl"
    drift = ("drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed))
    assert run_cli(*drift).code == 0
    report = run_cli(
        "score", "-j", str(fixed), "-r", str(files.base_run), "--corpus", str(files.head_corpus), "-k", "5,10",
        "--baseline", str(base), "-g", GATE, "--json",
    ).json()  # fmt: skip
    assert report["verdict"]["status"] == "INDETERMINATE", report["verdict"]
    assert any("no key of the run is a chunk of the corpus (--corpus)" in r for r in report["verdict"]["reasons"])
    # The head's own run on the new corpus is decided as before.
    decided = _gate(files, fixed, base, "--corpus", str(files.head_corpus))
    assert decided["verdict"]["status"] == scenario.truth.verdict(0.02)
    assert not any("no key of the run is a chunk" in r for r in decided["verdict"]["reasons"])


def test_the_labels_a_person_must_judge_are_named_before_those_a_fix_repairs(tmp_path: Path) -> None:
    # Unrepaired, every label blocks the translation; the reason names five of them. The three
    # that broke (lines 4-6) are the ones no command repairs, so they are named first, whatever
    # their place in the file; the MERGED ones before them in the file follow.
    scenario = make_scenario("sentences", "same")
    files = scenario.write(tmp_path)
    base = _base_report(tmp_path, files)
    labels = [json.loads(line) for line in files.judgments.read_text().splitlines()]
    for record in labels[3:6]:
        del record["quote"]
    files.judgments.write_text("".join(json.dumps(record) + "\n" for record in labels))
    report = _gate(files, files.judgments, base, "--corpus", str(files.head_corpus))
    assert report["verdict"]["status"] == "INDETERMINATE"
    (reason,) = [r for r in report["verdict"]["reasons"] if r.startswith("recall@5:-0.02")]
    assert "3 label(s) broke in the re-chunk" in reason
    unrepaired = len(labels) - 3
    assert f"{unrepaired} label(s) still name removed chunks" in reason
    # Unrepaired, the labels name the old chunks as the base does; only the head's run is new.
    assert "the base rankings name the old chunks and the head's run the new ones" in reason, reason
    assert (
        "q03 (line 4, SPLIT), q04 (line 5, SPLIT), q05 (line 6, SPLIT), q00 (line 1, MERGED), "
        f"q01 (line 2, MERGED) and {len(labels) - 5} more" in reason
    )


def test_a_head_scored_without_its_corpus_cannot_be_carried_over(tmp_path: Path) -> None:
    scenario = make_scenario("windows", "worse")
    files = scenario.write(tmp_path)
    base = _base_report(tmp_path, files)
    fixed = _repaired(tmp_path, files)
    report = _gate(files, fixed, base)
    assert report["verdict"]["status"] == "INDETERMINATE"
    assert any("score the head with --corpus" in reason for reason in report["verdict"]["reasons"])


def test_the_python_api_gives_the_same_verdict_and_delta(tmp_path: Path) -> None:
    import retrieval_eval

    scenario = make_scenario("merged-paragraphs", "better")
    files = scenario.write(tmp_path)
    base = retrieval_eval.evaluate(files.judgments, files.base_run, k=(5, 10), corpus=files.base_corpus)
    fixed = _repaired(tmp_path, files)
    head = retrieval_eval.evaluate(
        fixed, files.head_run, k=(5, 10), corpus=files.head_corpus, baseline=base, gates=GATE
    )
    assert head.status == scenario.truth.verdict(0.02) == "PASS"
    compared = retrieval_eval.compare(base, head, judgments=fixed)
    assert compared.to_dict()["yardstick"] == "translated"
    change = compared.metric("recall@5").delta
    assert change == pytest.approx(scenario.truth.delta("recall@5"), abs=TOLERANCE) and change > 0.05


def test_a_base_report_without_its_corpus_is_still_carried_over(tmp_path: Path) -> None:
    """No chunker fingerprint to compare: the base rankings name ids the labels record as moved."""
    scenario = make_scenario("sections", "worse")
    files = scenario.write(tmp_path)
    base = tmp_path / "base.json"
    assert run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.base_run), "-k", "5,10", "--report", str(base)
    ).code == 0  # fmt: skip
    fixed = _repaired(tmp_path, files)
    report = _gate(files, fixed, base, "--corpus", str(files.head_corpus))
    assert report["verdict"]["status"] == "FAIL"
    (gate,) = report["verdict"]["gates"]
    assert gate["observed"] - gate["baseline"] == pytest.approx(scenario.truth.delta("recall@5"), abs=TOLERANCE)


# -- small re-chunks written out by hand: the helpers the tests below share ----------------------


def snapshot(
    docs: dict[str, list[str]], chunker: str, revisions: dict[str, str] | None = None, *, fingerprint: str | None = None
) -> dict[str, Any]:
    """A corpus snapshot: each document's paragraphs as chunks with content-addressed ids (revision
    r1 unless ``revisions`` names another), fingerprinted as ``fingerprint`` (the chunker's by default)."""
    chunks = []
    for uri, texts in docs.items():
        revision = (revisions or {}).get(uri, "r1")
        chunks += [
            {"doc_uri": uri, "doc_revision": revision, "ordinal": i, "text": text,
             "chunk_id": chunk_id(uri, revision, i, text, chunker)}
            for i, text in enumerate(texts)
        ]  # fmt: skip
    return {"corpus_fingerprint": fingerprint or chunker, "chunker_fingerprint": chunker, "chunks": chunks}


def write_corpora(tmp_path: Path, old: dict[str, Any], new: dict[str, Any]) -> tuple[Ids, Ids]:
    """old.json and new.json written; each snapshot's chunk ids by (document, ordinal)."""
    for name, snapshot in (("old", old), ("new", new)):
        (tmp_path / f"{name}.json").write_text(json.dumps(snapshot))
    return ids_of(old), ids_of(new)


def ids_of(snapshot: dict[str, Any]) -> Ids:
    return {(c["doc_uri"], c["ordinal"]): c["chunk_id"] for c in snapshot["chunks"]}


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def score_base(tmp_path: Path, labels: list[dict[str, Any]], rankings: dict[str, list[str]], k: str) -> Path:
    """The labels in judgments.jsonl, and the base report scored on the old corpus."""
    judgments = write_rows(tmp_path / "judgments.jsonl", labels)
    run = write_rows(tmp_path / "base_run.jsonl", [{"query_id": q, "ranking": r} for q, r in rankings.items()])
    base = tmp_path / "base.json"
    scored = run_cli(
        "score", "-j", str(judgments), "-r", str(run), "--corpus", str(tmp_path / "old.json"), "-k", k,
        "--report", str(base),
    )  # fmt: skip
    assert scored.code == 0, scored.stderr
    return base


def rejudge(tmp_path: Path, grade: Callable[[dict[str, Any]], int]) -> list[dict[str, Any]]:
    """drift --fix with its queue, the queue filled by ``grade`` (a person reading each line),
    appended to the judgments, and drift --fix again, which must then find every label live."""
    judgments, queue = tmp_path / "judgments.jsonl", tmp_path / "rejudge.jsonl"
    drift = ("drift", "-j", str(judgments), "-c", str(tmp_path / "new.json"), "--fix")
    assert run_cli(*drift, "--queue", str(queue)).code == 1
    filled = [json.loads(line) for line in queue.read_text().splitlines()]
    for line in filled:
        line.update(relevance=grade(line), labeled_by="human:a")
    with judgments.open("a") as appended:
        appended.write("".join(json.dumps(line) + "\n" for line in filled))
    assert run_cli(*drift).code == 0
    return filled


def gate_head(tmp_path: Path, rankings: dict[str, list[str]], k: str, gate: str) -> dict[str, Any]:
    """The head run gated against base.json on the new corpus: its one gate's result."""
    run = write_rows(tmp_path / "head_run.jsonl", [{"query_id": q, "ranking": r} for q, r in rankings.items()])
    gated = run_cli(
        "score", "-j", str(tmp_path / "judgments.jsonl"), "-r", str(run), "--corpus", str(tmp_path / "new.json"),
        "-k", k, "--baseline", str(tmp_path / "base.json"), "-g", gate, "--json",
    ).json()  # fmt: skip
    (result,) = gated["verdict"]["gates"]
    return dict(result)


def test_the_same_text_cut_into_more_pieces_ranked_first_moves_the_answer_down(tmp_path: Path) -> None:
    # docs/rechunk.md: the base ranked an unlabeled paragraph at 1 and the answer at 2 (MRR 1/2).
    # The head cuts that paragraph into two sentences; ranking both before the answer puts it
    # at 3 (MRR 1/3, a true delta of -1/6); ranking one piece before it keeps it at 2 (delta 0).
    pets = ["Lilies harm cats."]
    old = snapshot({"p://light": ["South windows are bright. North ones are dim."], "p://pets": pets}, "para/1",
                   fingerprint="plants/para/1")  # fmt: skip
    new = snapshot({"p://light": ["South windows are bright.", "North ones are dim."], "p://pets": pets}, "sent/2",
                   fingerprint="plants/sent/2")  # fmt: skip
    write_corpora(tmp_path, old, new)
    answer = old["chunks"][1]
    label = {"query_id": "q1", "doc_uri": answer["doc_uri"], "chunk_id": answer["chunk_id"],
             "chunk_text": answer["text"], "relevance": 1}  # fmt: skip
    score_base(tmp_path, [label], {"q1": [c["chunk_id"] for c in old["chunks"]]}, "3")
    assert (
        run_cli("drift", "-j", str(tmp_path / "judgments.jsonl"), "-c", str(tmp_path / "new.json"), "--fix").code == 0
    )
    a, b, hit = (c["chunk_id"] for c in new["chunks"])
    for ranking, delta, status in (([a, b, hit], -1 / 6, "FAIL"), ([a, hit, b], 0.0, "PASS")):
        gate = gate_head(tmp_path, {"q1": ranking}, "3", "mrr@3:-0.02")
        assert gate["status"] == status
        assert abs(gate["observed"] - gate["baseline"] - delta) < 1e-9


def test_a_label_re_judged_on_edited_text_is_no_move_of_the_old_chunk(tmp_path: Path) -> None:
    # One sentence is edited ("27" -> "24"), so its label is ORPHANED and the queue offers every
    # chunk of its document. The person grades the edited sentence 2 and its neighbour 1 (the
    # neighbour answers too; nobody had labeled it). Neither line says where the old text went:
    # carrying the old chunk into both credited the base with the neighbour at the old chunk's
    # rank, though the base ranked the neighbour 4th, and a head ranking the same text in the same
    # order failed recall@2 by -0.5. No translation is sound here: the gate must not decide, and
    # names the re-judged line (line 1 once the fix has dropped the broken label).
    others = {"t://x": ["Unrelated one."], "t://y": ["Unrelated two."]}
    old = snapshot(
        {"t://temp": ["Most plants prefer 18 to 27 degrees.", "Keep plants from cold drafts."], **others}, "para/1",
        fingerprint="c/r1",
    )  # fmt: skip
    new = snapshot(
        {"t://temp": ["Most plants prefer 18 to 24 degrees.", "Keep plants from cold drafts."], **others}, "para/1",
        {"t://temp": "r2"}, fingerprint="c/r2",
    )  # fmt: skip
    o, n = write_corpora(tmp_path, old, new)
    edited = old["chunks"][0]
    label = {"query_id": "q1", "doc_uri": "t://temp", "chunk_id": edited["chunk_id"], "chunk_text": edited["text"],
             "relevance": 2}  # fmt: skip
    order = [("t://temp", 0), ("t://x", 0), ("t://y", 0), ("t://temp", 1)]
    score_base(tmp_path, [label], {"q1": [o[key] for key in order]}, "2,4")
    grades = {n[("t://temp", 0)]: 2, n[("t://temp", 1)]: 1}
    filled = rejudge(tmp_path, lambda line: grades[line["chunk_id"]])
    assert [line["chunk_id"] for line in filled] == [n[("t://temp", 0)], n[("t://temp", 1)]]

    same = [n[key] for key in order]
    worse = [n[("t://x", 0)], n[("t://y", 0)], n[("t://temp", 0)], n[("t://temp", 1)]]
    for ranking, never in ((same, "FAIL"), (worse, "PASS")):
        gate = gate_head(tmp_path, {"q1": ranking}, "2,4", "recall@2:-0.02")
        assert gate["status"] == "INDETERMINATE" != never, gate["reason"]
        assert "re-judged on text that changed" in gate["reason"] and "q1 (line 1)" in gate["reason"]


def test_an_edited_sentence_under_the_same_chunker_does_not_drop_the_base_hit(tmp_path: Path) -> None:
    # The chunker stays; one sentence of four documents is edited, so only that document's chunk
    # ids change. Its label is ORPHANED, re-judged on the edited chunk (no move), and the three
    # other queries keep their ids: nothing else tells the base's ids from the head's. Rescored
    # with the old chunk unlabeled, the base lost the hit it had at rank 1 (recall@1 1.0 -> 0.75),
    # so a head that pushed the edited answer to rank 4 passed with +0.0000. It must not pass.
    old_docs = {f"t://d{i}": [f"Doc {i} answer is {10 + i}.", f"Doc {i} filler."] for i in range(4)}
    new_docs = {**old_docs, "t://d0": ["Doc 0 answer is 99.", "Doc 0 filler."]}
    old, new = (
        snapshot(old_docs, "para/1", fingerprint="c/r1"),
        snapshot(new_docs, "para/1", {"t://d0": "r2"}, fingerprint="c/r2"),
    )
    o, n = write_corpora(tmp_path, old, new)
    labels = [
        {"query_id": f"q{i}", "doc_uri": f"t://d{i}", "chunk_id": o[(f"t://d{i}", 0)],
         "chunk_text": old_docs[f"t://d{i}"][0], "relevance": 1}
        for i in range(4)
    ]  # fmt: skip

    def ranking(ids: Ids, i: int, answer_first: bool = True) -> list[str]:
        rest = [ids[(f"t://d{j}", 1)] for j in range(4) if j != i]
        answer = ids[(f"t://d{i}", 0)]
        return [answer, *rest] if answer_first else [*rest, answer]

    score_base(tmp_path, labels, {f"q{i}": ranking(o, i) for i in range(4)}, "1,4")
    # The person reads the text: the edited sentence still answers.
    filled = rejudge(tmp_path, lambda line: int("answer" in line["chunk_text"]))
    assert [line["chunk_id"] for line in filled] == [n[("t://d0", 0)], n[("t://d0", 1)]]

    gate = gate_head(tmp_path, {f"q{i}": ranking(n, i, answer_first=i != 0) for i in range(4)}, "1,4", "recall@1:-0.02")
    assert gate["status"] == "INDETERMINATE", gate["reason"]
    assert "re-judged on text that changed" in gate["reason"] and "q0 (line 4)" in gate["reason"]


def test_a_text_copied_into_two_documents_is_carried_into_one_copy(tmp_path: Path) -> None:
    # The labeled paragraph's document is gone and its exact text is now in two documents (v2 and
    # latest): ORPHANED, the queue offers both copies, and the person grades both relevant. Each
    # copy is the whole old text, not a piece of it: carried into both, the base was credited with
    # the second copy at rank 2, which it never ranked, and a head ranking the very same texts in
    # the same order (the first copy 1st, the filler 2nd) failed recall@2 by -0.5.
    answer = "The answer is forty two."

    rest = {"t://b": ["Filler b."], "t://c": ["Filler c."]}
    old = snapshot({"t://a": [answer, "Filler a."], **rest}, "para/1")
    new = snapshot({"t://v2/a": [answer, "Filler a."], "t://latest/a": [answer, "Filler a."], **rest}, "para/2")
    o, n = write_corpora(tmp_path, old, new)
    label = {"query_id": "q1", "doc_uri": "t://a", "chunk_id": o[("t://a", 0)], "chunk_text": answer, "relevance": 1}
    order = [("t://a", 0), ("t://b", 0), ("t://c", 0), ("t://a", 1)]
    score_base(tmp_path, [label], {"q1": [o[key] for key in order]}, "2,4")
    filled = rejudge(tmp_path, lambda line: 1)
    assert sorted(line["chunk_id"] for line in filled) == sorted([n[("t://v2/a", 0)], n[("t://latest/a", 0)]])

    first, second = (n[(uri, 0)] for uri in ("t://v2/a", "t://latest/a"))
    same = [first, n[("t://b", 0)], n[("t://c", 0)], second]
    other_copy = [second, n[("t://b", 0)], n[("t://c", 0)], first]  # the very text too
    worse = [n[("t://b", 0)], n[("t://c", 0)], first, second]
    for ranking, status in ((same, "PASS"), (other_copy, "PASS"), (worse, "FAIL")):
        gate = gate_head(tmp_path, {"q1": ranking}, "2,4", "recall@2:-0.02")
        assert gate["status"] == status, gate["reason"]


def test_the_reason_counts_the_moved_chunks_the_base_ranks_once_each(tmp_path: Path) -> None:
    # Three documents of two paragraphs, merged into one chunk each; three queries, each labeling
    # the first paragraph of one document, and each base ranking its own first paragraph first,
    # then the other two first paragraphs. The base is scored without its corpus, so the moves are
    # what tell the ids apart: the base rankings name 3 chunk ids the labels moved (a0, b0, c0),
    # ranked 9 times over. The reason said 9, more chunks than the old corpus had paragraphs.
    docs = {f"t://{d}": [f"{d} answer one.", f"{d} filler two."] for d in "abc"}
    old = snapshot(docs, "para/1")
    new = snapshot({uri: [" ".join(texts)] for uri, texts in docs.items()}, "pairs/1")
    o, n = write_corpora(tmp_path, old, new)
    labels = [
        {"query_id": f"q{d}", "doc_uri": f"t://{d}", "chunk_id": o[(f"t://{d}", 0)],
         "chunk_text": docs[f"t://{d}"][0], "relevance": 1}
        for d in "abc"
    ]  # fmt: skip
    judgments = write_rows(tmp_path / "judgments.jsonl", labels)
    firsts = {d: o[(f"t://{d}", 0)] for d in "abc"}
    rows = [{"query_id": f"q{d}", "ranking": [firsts[d], *(firsts[e] for e in "abc" if e != d)]} for d in "abc"]
    run = write_rows(tmp_path / "base_run.jsonl", rows)
    base = tmp_path / "base.json"
    assert run_cli("score", "-j", str(judgments), "-r", str(run), "-k", "1,3", "--report", str(base)).code == 0
    assert run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "new.json"), "--fix").code == 0
    gate = gate_head(tmp_path, {f"q{d}": [n[(f"t://{d}", 0)]] for d in "abc"}, "1,3", "recall@1:-0.02")
    assert gate["status"] == "PASS", gate["reason"]  # each answer still first: recall@1 1 -> 1
    head = run_cli(
        "score", "-j", str(judgments), "-r", str(tmp_path / "head_run.jsonl"), "--corpus", str(tmp_path / "new.json"),
        "-k", "1,3", "--baseline", str(base),
    )  # fmt: skip
    assert "the base rankings name 3 chunk id(s) that the head's labels record as moved" in head.stdout, head.stdout


def test_the_reason_counts_an_edited_chunk_two_queries_rank_once(tmp_path: Path) -> None:
    # The chunker stays; one labeled sentence is edited. Two queries labeled it and both base
    # rankings hold it: one old chunk whose labels were re-judged on changed text, ranked twice.
    # The reason said 2 chunks, twice; the verdict stays INDETERMINATE (no line says where it went).
    old_docs = {"t://d": ["The answer is 10.", "Filler."], "t://e": ["Other."]}
    old = snapshot(old_docs, "para/1", fingerprint="c/r1")
    edited = {**old_docs, "t://d": ["The answer is 99.", "Filler."]}
    new = snapshot(edited, "para/1", {"t://d": "r2"}, fingerprint="c/r2")
    o, n = write_corpora(tmp_path, old, new)
    labels = [
        {"query_id": q, "doc_uri": "t://d", "chunk_id": o[("t://d", 0)], "chunk_text": "The answer is 10.",
         "relevance": 1}
        for q in ("q1", "q2")
    ]  # fmt: skip
    order = [("t://d", 0), ("t://e", 0), ("t://d", 1)]
    score_base(tmp_path, labels, {q: [o[key] for key in order] for q in ("q1", "q2")}, "1,3")
    rejudge(tmp_path, lambda line: int("answer" in line["chunk_text"]))
    ranking = [n[key] for key in order]
    head = run_cli(
        "score", "-j", str(tmp_path / "judgments.jsonl"), "-r",
        str(write_rows(tmp_path / "head_run.jsonl", [{"query_id": q, "ranking": ranking} for q in ("q1", "q2")])),
        "--corpus", str(tmp_path / "new.json"), "-k", "1,3", "--baseline", str(tmp_path / "base.json"),
        "-g", "recall@1:-0.02",
    )  # fmt: skip
    assert "INDETERMINATE recall@1:-0.02" in head.stdout, head.stdout
    assert "the base rankings name 1 chunk id(s) whose labels the head re-judged" in head.stdout, head.stdout
    assert "1 base-ranked chunk(s) had labels re-judged on text that changed" in head.stdout, head.stdout
    assert "q1 (line 1), q2 (line 3)" in head.stdout, head.stdout  # each query's answer line (after the fix)


def test_a_window_two_labeled_paragraphs_share_carries_the_base_hit_of_each(tmp_path: Path) -> None:
    # Two relevant paragraphs, A ("Alpha one. Alpha two.") and B ("Beta one. Beta two."), are cut
    # into windows w0 "Alpha one.", w1 "Alpha two. Beta one." and w2 "Beta two.": A is SPLIT over
    # w0 and w1, B over w1 and w2, so the queue offers w1 twice (once for each). The person grades
    # every window relevant; drift --fix folds the two w1 lines into one. The base ranked B first,
    # so in the new ids it showed w1 and w2 at rank 1: recall@2 is 2/3. The fold lost B's move into
    # w1, the base was scored 1/3, a head ranking the same text read +0.3333 and a head that pushed
    # w1 to rank 3 (truly 1/3, a drop of 1/3) passed with +0.0000.
    fillers = {"t://f1": ["Filler one."], "t://f2": ["Filler two."]}
    old = snapshot({"t://d": ["Alpha one. Alpha two.", "Beta one. Beta two."], **fillers}, "para/1")
    new = snapshot({"t://d": ["Alpha one.", "Alpha two. Beta one.", "Beta two."], **fillers}, "win/1")
    o, n = write_corpora(tmp_path, old, new)
    labels = [
        {"query_id": "q1", "doc_uri": "t://d", "chunk_id": o[("t://d", i)], "chunk_text": old["chunks"][i]["text"],
         "relevance": 1}
        for i in (0, 1)
    ]  # fmt: skip
    a, b, f1, f2 = o[("t://d", 0)], o[("t://d", 1)], o[("t://f1", 0)], o[("t://f2", 0)]
    score_base(tmp_path, labels, {"q1": [b, f1, f2, a]}, "2,4")
    filled = rejudge(tmp_path, lambda line: 1)
    w0, w1, w2 = (n[("t://d", i)] for i in range(3))
    assert [(line["chunk_id"], line["rejudge"]["from"]) for line in filled] == [(w0, a), (w1, a), (w1, b), (w2, b)]
    g1, g2 = n[("t://f1", 0)], n[("t://f2", 0)]
    for ranking, delta, status in (([w1, w2, g1, g2, w0], 0.0, "PASS"), ([w2, g1, w1, g2, w0], -1 / 3, "FAIL")):
        gate = gate_head(tmp_path, {"q1": ranking}, "2,4", "recall@2:-0.02")
        assert gate["status"] == status, gate["reason"]
        assert abs(gate["baseline"] - 2 / 3) < 1e-9 and abs(gate["observed"] - gate["baseline"] - delta) < 1e-9


@pytest.mark.parametrize(("ids", "status"), [("old", "INDETERMINATE"), ("live", "PASS"), ("wrong", "FAIL")])
def test_a_chunk_run_collapsed_to_documents_must_rank_the_corpus_to_be_measured(
    tmp_path: Path, ids: str, status: str
) -> None:
    # Document labels and a chunk run collapsed through the corpus. The run made before a re-chunk
    # names chunks the corpus lacks: each is kept as a key no label names, every metric is 0 and a
    # gate read FAIL (PASS with no gate) on nothing measured. The same ranking in the corpus's own
    # chunks finds every answer at rank 1 (PASS), and one in its chunks of the wrong documents none
    # (FAIL): the check asks whether the run ranks the corpus, not whether it ranks well.
    from drift_support import cid, write_jsonl, write_snapshot

    docs = {f"help://page-{n}": [f"Page {n} fact one.", f"Page {n} fact two."] for n in range(3)}
    write_snapshot(tmp_path / "corpus.json", docs)
    write_jsonl(tmp_path / "judgments.jsonl",
                [{"query_id": f"q{n}", "doc_uri": f"help://page-{n}", "relevance": 1, "labeled_by": "human:a"}
                 for n in range(3)])  # fmt: skip
    chunker = "paragraph/v1" if ids == "old" else "paragraph/v2"
    rows = []
    for n in range(3):
        page = f"help://page-{(n + 1) % 3 if ids == 'wrong' else n}"
        rows.append({"query_id": f"q{n}", "ranking": [cid(page, k, text, chunker=chunker)
                                                      for k, text in enumerate(docs[page])]})  # fmt: skip
    write_jsonl(tmp_path / "run.jsonl", rows)
    report = run_cli(
        "score", "-j", str(tmp_path / "judgments.jsonl"), "-r", str(tmp_path / "run.jsonl"), "--corpus",
        str(tmp_path / "corpus.json"), "--collapse-to-documents", "-k", "1", "-g", "recall@1:0.5", "--json",
    ).json()  # fmt: skip
    assert report["verdict"]["status"] == status, report["verdict"]
    said = any("no key of the run is a chunk of the corpus" in r for r in report["verdict"]["reasons"])
    assert said == (ids == "old")


def _merged_pairs(tmp_path: Path) -> tuple[Ids, Ids]:
    """Three documents of two paragraphs, each merged into one chunk by the re-chunk; no document
    leaves the corpus. Query q{d} labels the first paragraph of document d."""
    docs = {f"t://{d}": [f"{d} answer one.", f"{d} filler two."] for d in "abc"}
    old = snapshot(docs, "para/1")
    new = snapshot({uri: [" ".join(texts)] for uri, texts in docs.items()}, "pairs/1")
    return write_corpora(tmp_path, old, new)


def test_a_rechunk_that_also_unlabels_the_queries_its_retriever_broke_is_not_passed(tmp_path: Path) -> None:
    # The head's retriever drops qb's answer from rank 1 to rank 3: recall@1 falls from 1 to 1/2
    # over qa and qb, a FAIL. Deleting qb's labels after the repair leaves qa alone (delta 0): a
    # re-chunk moves labels with their chunks, it deletes none, so the delta cannot vouch for qb.
    o, n = _merged_pairs(tmp_path)
    labels = [
        {"query_id": f"q{d}", "doc_uri": f"t://{d}", "chunk_id": o[(f"t://{d}", 0)],
         "chunk_text": f"{d} answer one.", "relevance": 1}
        for d in "ab"
    ]  # fmt: skip
    a, b, c = (o[(f"t://{d}", 0)] for d in "abc")
    score_base(tmp_path, labels, {"qa": [a, b, c], "qb": [b, a, c]}, "1,3")
    judgments = tmp_path / "judgments.jsonl"
    assert run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "new.json"), "--fix").code == 0
    big_a, big_b, big_c = (n[(f"t://{d}", 0)] for d in "abc")
    head = {"qa": [big_a, big_b, big_c], "qb": [big_a, big_c, big_b]}
    assert gate_head(tmp_path, head, "1,3", "recall@1:-0.02")["status"] == "FAIL"
    kept = [line for line in judgments.read_text().splitlines() if json.loads(line)["query_id"] != "qb"]
    judgments.write_text("".join(line + "\n" for line in kept))
    gate = gate_head(tmp_path, head, "1,3", "recall@1:-0.02")
    assert gate["status"] == "INDETERMINATE", gate["reason"]
    assert "no longer score it" in gate["reason"] and "drift --fix --queue" in gate["reason"], gate["reason"]


def test_two_labeled_paragraphs_merged_into_one_chunk_are_no_label_taken(tmp_path: Path) -> None:
    # qa labels both paragraphs of document a (grades 3 and 2); the re-chunk merges them and
    # drift --fix folds the two labels into one. The base credited two hits in its top 2, the
    # translated base ranking one merged chunk: fewer hits, but no label was removed or lowered.
    o, n = _merged_pairs(tmp_path)
    labels = [
        {"query_id": "qa", "doc_uri": "t://a", "chunk_id": o[("t://a", i)], "chunk_text": text, "relevance": grade}
        for i, (text, grade) in enumerate((("a answer one.", 3), ("a filler two.", 2)))
    ]
    base = score_base(tmp_path, labels, {"qa": [o[("t://a", 0)], o[("t://a", 1)], o[("t://b", 0)]]}, "2,3")
    judgments = tmp_path / "judgments.jsonl"
    assert run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "new.json"), "--fix").code == 0
    assert len(judgments.read_text().splitlines()) == 1  # folded into one label
    ranking = [n[("t://a", 0)], n[("t://b", 0)], n[("t://c", 0)]]
    gate = gate_head(tmp_path, {"qa": ranking}, "2,3", "recall@2:-0.02")
    assert gate["status"] == "PASS", gate["reason"]
    head = tmp_path / "head.json"
    assert run_cli(
        "score", "-j", str(judgments), "-r", str(tmp_path / "head_run.jsonl"), "--corpus", str(tmp_path / "new.json"),
        "-k", "2,3", "--report", str(head),
    ).code == 0  # fmt: skip
    compared = run_cli("compare", "--base", str(base), "--head", str(head), "--judgments", str(judgments), "--json")
    document = json.loads(compared.stdout)
    assert document["yardstick"] == "translated"
    assert "labels-lowered" not in [f["code"] for f in document["comparability"]], document["comparability"]


def test_a_query_whose_only_label_broke_keeps_its_stratum_through_the_queue(tmp_path: Path) -> None:
    # q1's only label is on a paragraph the re-chunk splits: a person judges the pieces from the
    # queue, the old label goes. The queue's lines carried the query text but not the stratum, so
    # q1 left "billing" without a word.
    old = snapshot({"t://d": ["Alpha one. Alpha two."], "t://f": ["Filler."]}, "para/1")
    new = snapshot({"t://d": ["Alpha one.", "Alpha two."], "t://f": ["Filler."]}, "sent/1")
    o, n = write_corpora(tmp_path, old, new)
    label = {"query_id": "q1", "query": "alpha?", "doc_uri": "t://d", "chunk_id": o[("t://d", 0)],
             "chunk_text": "Alpha one. Alpha two.", "relevance": 1, "stratum": "billing"}  # fmt: skip
    score_base(tmp_path, [label], {"q1": [o[("t://d", 0)], o[("t://f", 0)]]}, "1,2")
    filled = rejudge(tmp_path, lambda line: 1)
    assert filled and all(line["stratum"] == "billing" for line in filled), filled
    report = tmp_path / "head.json"
    run = write_rows(tmp_path / "head_run.jsonl", [{"query_id": "q1", "ranking": [n[("t://d", 0)]]}])
    assert (
        run_cli(
            "score", "-j", str(tmp_path / "judgments.jsonl"), "-r", str(run), "-k", "1,2", "--report", str(report)
        ).code
        == 0
    )
    assert "billing" in json.loads(report.read_text())["per_stratum"]
