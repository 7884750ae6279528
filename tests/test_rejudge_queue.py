"""The re-judge queue: the labels a re-chunk broke, as lines a person completes; filled in,
appended and repaired, the re-chunk pull request gets its decided verdict and true delta."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from rechunk_scenarios import make_scenario

BROKEN = 3


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_broken_labels_are_queued_then_re_judged_into_a_decided_verdict(tmp_path: Path) -> None:
    scenario = make_scenario("sentences", "worse")
    files = scenario.write(tmp_path)
    labels = _lines(files.judgments)
    for record in labels[:BROKEN]:
        del record["quote"]  # nothing says which sentence holds the answer: a person must say
    files.judgments.write_text("".join(json.dumps(r) + "\n" for r in labels), encoding="utf-8")
    base = tmp_path / "base.json"
    assert run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
        "-k", "5,10", "--report", str(base),
    ).code == 0  # fmt: skip

    fixed, queue = tmp_path / "judgments.v2.jsonl", tmp_path / "rejudge.jsonl"
    drift = run_cli(
        "drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed),
        "--queue", str(queue),
    )  # fmt: skip
    assert drift.code == 1  # three labels still need a person
    assert f"wrote 9 lines for 3 labels to {queue}" in drift.stdout
    queued = _lines(queue)
    for line, query in zip(queued, [q for q in scenario.queries[:BROKEN] for _ in range(3)]):
        # One line per sentence the paragraph was cut into, with the old text beside the new.
        assert line["query_id"] == query.id and "relevance" not in line
        assert line["chunk_text"] in query.paragraph and line["rejudge"]["chunk_text"] == query.paragraph
        assert line["rejudge"]["status"] == "SPLIT" and line["rejudge"]["from"] == query.base_answer
    assert [line["chunk_id"] for line in queued[:3]] == [
        c.id
        for c in scenario.head_chunks
        if c.doc == scenario.queries[0].doc and c.text in scenario.queries[0].paragraph
    ]

    # Appended unfilled, validate says what the lines are.
    unfilled = tmp_path / "unfilled.jsonl"
    unfilled.write_text(fixed.read_text() + queue.read_text())
    refused = run_cli("validate", "-j", str(unfilled))
    assert refused.code == 2 and "this is a re-judge queue line ('retrieval-eval drift --queue')" in refused.stderr
    assert "label-queue" not in refused.stderr and "holes" not in refused.stderr

    # The person reads each candidate: the sentence that answers is relevant, the others are not.
    answers = {q.id: q.quote for q in scenario.queries}
    for line in queued:
        line["relevance"] = int(answers[line["query_id"]] in line["chunk_text"])
        line["labeled_by"] = "human:re-judge"
    filled = "".join(json.dumps(line) + "\n" for line in queued)
    (tmp_path / "filled.jsonl").write_text(filled)
    assert run_cli("validate", "-j", str(tmp_path / "filled.jsonl")).code == 0
    fixed.write_text(fixed.read_text() + filled)
    repaired = run_cli("drift", "-j", str(fixed), "-c", str(files.head_corpus), "--fix", "--json")
    assert repaired.code == 0, repaired.stdout
    replaced = repaired.json()["fix"]["replaced"]
    assert [(r["query_id"], r["status"]) for r in replaced] == [(q.id, "SPLIT") for q in scenario.queries[:BROKEN]]

    gated = run_cli(
        "score", "-j", str(fixed), "-r", str(files.head_run), "--corpus", str(files.head_corpus), "-k", "5,10",
        "--baseline", str(base), "-g", "recall@5:-0.02", "--json",
    ).json()  # fmt: skip
    assert gated["verdict"]["status"] == scenario.truth.verdict(0.02) == "FAIL"
    (gate,) = gated["verdict"]["gates"]
    assert abs(gate["observed"] - gate["baseline"] - scenario.truth.delta("recall@5")) <= 0.02


def test_the_summary_and_the_comment_point_at_the_queue(tmp_path: Path) -> None:
    scenario = make_scenario("windows", "same")
    files = scenario.write(tmp_path)
    labels = _lines(files.judgments)
    del labels[0]["quote"], labels[0]["chunk_text"]  # only text_sha: the text is gone for drift
    files.judgments.write_text("".join(json.dumps(r) + "\n" for r in labels), encoding="utf-8")
    report = tmp_path / "head.json"
    run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.head_run), "--corpus", str(files.head_corpus),
        "-k", "5,10", "--report", str(report),
    )  # fmt: skip
    for kind in ("summary", "comment"):
        shown = run_cli("render", "--report", str(report), "--format", kind).stdout
        assert "write them as a queue" in shown
        assert f"retrieval-eval drift -j {files.judgments} -c {files.head_corpus} --queue rejudge.jsonl" in shown


def test_a_re_judged_line_that_meets_a_repaired_label_collapses_into_it(tmp_path: Path) -> None:
    # Two paragraphs cut by windows: the answer (labeled 2, no quote) spans windows A and B; the
    # neighbour (labeled 1, with a quote inside B) is re-anchored to B. The queue asks for A and B,
    # so the filled line for B meets the repaired neighbour's label: one query, one key, twice.
    from retrieval_eval import chunk_id

    answer = "Refunds are sent to the card that paid. They arrive within five business days of approval."
    neighbour = "Gift cards cannot be refunded. Store credit never expires."
    windows = [
        "Refunds are sent to the card that paid.",
        "They arrive within five business days of approval. Gift cards cannot be refunded.",
        "Store credit never expires.",
    ]

    def corpus(texts: list[str], chunker: str) -> dict[str, Any]:
        chunks = [
            {"doc_uri": "help://refunds", "doc_revision": "r1", "ordinal": i, "text": text,
             "chunk_id": chunk_id("help://refunds", "r1", i, text, chunker)}
            for i, text in enumerate(texts)
        ]  # fmt: skip
        return {"corpus_fingerprint": "help/1", "chunker_fingerprint": chunker, "chunks": chunks}

    old, new = corpus([answer, neighbour], "paragraph/v1"), corpus(windows, "window/v1")
    (tmp_path / "corpus.json").write_text(json.dumps(new))
    labels = [
        {"query_id": "q1", "query": "when does my refund arrive", "doc_uri": "help://refunds",
         "chunk_id": old["chunks"][0]["chunk_id"], "chunk_text": answer, "relevance": 2},
        {"query_id": "q1", "query": "when does my refund arrive", "doc_uri": "help://refunds",
         "chunk_id": old["chunks"][1]["chunk_id"], "chunk_text": neighbour,
         "quote": "Gift cards cannot be refunded.", "relevance": 1},
    ]  # fmt: skip
    judgments, queue = tmp_path / "judgments.jsonl", tmp_path / "rejudge.jsonl"
    judgments.write_text("".join(json.dumps(r) + "\n" for r in labels))
    first = run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "corpus.json"), "--fix", "--queue", str(queue))
    assert first.code == 1, first.stdout  # the answer needs a person
    queued = _lines(queue)
    ids = [chunk["chunk_id"] for chunk in new["chunks"]]
    assert [line["chunk_id"] for line in queued] == ids[:2]
    for line in queued:  # the person: the window holding "five business days" answers
        line["relevance"] = 2 if "five business days" in line["chunk_text"] else 0
        line["labeled_by"] = "human:re-judge"
    # B holds the answer (2) and the neighbour (1); A only the card sentence (0).
    assert [line["relevance"] for line in queued] == [0, 2]
    with judgments.open("a") as appended:
        appended.write("".join(json.dumps(line) + "\n" for line in queued))

    second = run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "corpus.json"), "--fix", "--json")
    assert second.code == 0, second.stdout
    assert run_cli("validate", "-j", str(judgments)).code == 0  # no key labeled twice for q1
    kept = {(r["query_id"], r["chunk_id"]): r for r in _lines(judgments)}
    assert len(kept) == len(_lines(judgments)) == 2
    assert kept[("q1", ids[1])]["relevance"] == 2  # the highest grade of the two labels of B
    assert kept[("q1", ids[0])]["relevance"] == 0
    (collapse,) = second.json()["fix"]["collapsed"]
    assert collapse["query_id"] == "q1"


def test_labels_whose_document_is_gone_are_named_not_sent_to_an_empty_queue(tmp_path: Path) -> None:
    # A re-chunk that also deletes a document: its labels are ORPHANED with no live chunk to judge
    # them against, so the queue can hold no line for them. Re-judging through the queue cannot
    # clear them, so drift must name them and say what to do, instead of sending the user round
    # the queue again (the gate stays INDETERMINATE while they stay).
    from retrieval_eval import chunk_id

    docs = {"help://returns": "Items can be returned within 30 days.", "help://legacy": "Fax us your receipt."}

    def corpus(uris: list[str], chunker: str) -> dict[str, Any]:
        chunks = [
            {"doc_uri": uri, "doc_revision": "r1", "ordinal": 0, "text": docs[uri],
             "chunk_id": chunk_id(uri, "r1", 0, docs[uri], chunker)}
            for uri in uris
        ]  # fmt: skip
        return {"corpus_fingerprint": "help/1", "chunker_fingerprint": chunker, "chunks": chunks}

    old, new = corpus(list(docs), "paragraph/v1"), corpus(["help://returns"], "paragraph/v2")
    corpus_path = tmp_path / "corpus.json"
    corpus_path.write_text(json.dumps(new))
    labels = [
        {"query_id": q, "doc_uri": c["doc_uri"], "chunk_id": c["chunk_id"], "chunk_text": c["text"], "relevance": 1}
        for q, c in zip(["q1", "q2"], old["chunks"])
    ]
    judgments, queue = tmp_path / "judgments.jsonl", tmp_path / "rejudge.jsonl"
    judgments.write_text("".join(json.dumps(r) + "\n" for r in labels))

    listed = run_cli("drift", "-j", str(judgments), "-c", str(corpus_path))
    assert listed.code == 1
    assert "--queue" not in listed.stdout  # nothing a queue could hold
    assert "1 label has no live chunk to re-judge against (its document is gone): line 2 (q2)" in listed.stdout

    fixed = run_cli("drift", "-j", str(judgments), "-c", str(corpus_path), "--fix", "--queue", str(queue))
    assert fixed.code == 1, fixed.stdout
    assert _lines(queue) == []
    assert "set relevance" not in fixed.stdout  # no line to fill
    assert f"wrote 0 lines to {queue}" in fixed.stdout
    assert "1 label has no live chunk to re-judge against (its document is gone): line 2 (q2)" in fixed.stdout
    assert f"delete it from {judgments}" in fixed.stdout

    # Doing what it says decides the set: the repaired label is all that is left, and it is live.
    kept = [line for line in judgments.read_text().splitlines() if '"q2"' not in line]
    judgments.write_text("\n".join(kept) + "\n")
    assert run_cli("drift", "-j", str(judgments), "-c", str(corpus_path)).code == 0


def test_a_label_whose_document_is_gone_is_named_by_its_line_in_the_file_the_fix_wrote(tmp_path: Path) -> None:
    # Two labels of q1 on one paragraph fold into one when the fix re-anchors them, so the label
    # whose document is gone moves up a line in the file written: named by its input line, a
    # person deleting it there would delete another label.
    from retrieval_eval import chunk_id

    docs = {"help://returns": "Items can be returned within 30 days.", "help://legacy": "Fax us your receipt."}

    def chunk(uri: str, chunker: str) -> dict[str, Any]:
        return {"doc_uri": uri, "doc_revision": "r1", "ordinal": 0, "text": docs[uri],
                "chunk_id": chunk_id(uri, "r1", 0, docs[uri], chunker)}  # fmt: skip

    new = {"corpus_fingerprint": "help/2", "chunker_fingerprint": "p/v2", "chunks": [chunk("help://returns", "p/v2")]}
    corpus_path = tmp_path / "corpus.json"
    corpus_path.write_text(json.dumps(new))
    returns, legacy = chunk("help://returns", "p/v1"), chunk("help://legacy", "p/v1")
    labels = [
        {"query_id": q, "doc_uri": c["doc_uri"], "chunk_id": c["chunk_id"], "chunk_text": c["text"], "relevance": g}
        for q, c, g in [("q1", returns, 1), ("q1", returns, 2), ("q2", legacy, 1)]
    ]
    judgments, written = tmp_path / "judgments.jsonl", tmp_path / "fixed.jsonl"
    judgments.write_text("".join(json.dumps(r) + "\n" for r in labels))
    fixed = run_cli("drift", "-j", str(judgments), "-c", str(corpus_path), "--fix", "--out", str(written))
    lines = written.read_text().splitlines()
    assert len(lines) == 2 and '"q2"' in lines[1], lines  # the fold took a line
    assert f"(its document is gone): line 2 (q2); delete it from {written}" in fixed.stdout, fixed.stdout


def test_a_chunk_the_queue_offers_for_two_broken_labels_validates_when_graded_once(tmp_path: Path) -> None:
    # Paragraphs A and B, both labeled relevant, are cut into windows w0 "Alpha one.", w1 "Alpha
    # two. Beta one." and w2 "Beta two.": A is SPLIT over w0 and w1, B over w1 and w2, so the queue
    # offers w1 twice, once for each (lines 2 and 3). Filled with one grade it is what the docs say
    # it is, a judgments file validate calls ok: it said "keep one label", and deleting the line
    # for B forgets that B went into w1. Two grades for one chunk are a conflict a person settles.
    from retrieval_eval import chunk_id

    def snapshot(texts: list[str], chunker: str) -> dict[str, Any]:
        return {"corpus_fingerprint": chunker, "chunker_fingerprint": chunker, "chunks": [
            {"doc_uri": "t://d", "doc_revision": "r1", "ordinal": i, "text": text,
             "chunk_id": chunk_id("t://d", "r1", i, text, chunker)}
            for i, text in enumerate(texts)
        ]}  # fmt: skip

    old = snapshot(["Alpha one. Alpha two.", "Beta one. Beta two."], "para/1")
    new = snapshot(["Alpha one.", "Alpha two. Beta one.", "Beta two."], "win/1")
    (tmp_path / "new.json").write_text(json.dumps(new))
    judgments = tmp_path / "judgments.jsonl"
    judgments.write_text("".join(
        json.dumps({"query_id": "q1", "query": "alpha beta", "doc_uri": "t://d", "chunk_id": c["chunk_id"],
                    "chunk_text": c["text"], "relevance": 1, "labeled_by": "human:a"}) + "\n"
        for c in old["chunks"]
    ))  # fmt: skip
    queue = tmp_path / "rejudge.jsonl"
    assert run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "new.json"), "--queue", str(queue)).code == 1
    lines = _lines(queue)
    w1 = new["chunks"][1]["chunk_id"]
    assert [line["chunk_id"] == w1 for line in lines] == [False, True, True, False]

    for grades, code, said in (
        ((1, 1, 1, 1), 0, "warning  rejudge-shared-chunk  query q1 grades " + w1 + " on lines 2, 3, re-judge lines "
         "for 2 broken labels: keep every line; drift --fix folds them"),
        ((1, 1, 2, 1), 1, "error    duplicate-label  query q1 grades " + w1 + " on lines 2, 3, re-judge lines for 2 "
         "broken labels, graded 1 and 2: give the lines one grade and keep every line"),
    ):  # fmt: skip
        filled = tmp_path / "filled.jsonl"
        filled.write_text("".join(json.dumps({**line, "relevance": g, "labeled_by": "human:a"}) + "\n"
                                  for line, g in zip(lines, grades)))  # fmt: skip
        checked = run_cli("validate", "-j", str(filled))
        assert checked.code == code and said in checked.stdout, checked.stdout

    # The filled queue appended twice: w1 is graded on lines 2, 3, 6 and 7, for two broken labels.
    # "Keep one label" would drop B's move with the copies; the lines to delete are the repeats.
    filled = tmp_path / "filled.jsonl"
    once = "".join(json.dumps({**line, "relevance": 1, "labeled_by": "human:a"}) + "\n" for line in lines)
    filled.write_text(once + once)
    checked = run_cli("validate", "-j", str(filled))
    said = (f"error    duplicate-label  query q1 grades {w1} on lines 2, 3, 6, 7, re-judge lines for 2 broken "
            "labels; lines 6, 7 repeat a line for the same broken label (rejudge.from): delete them and keep "
            "the others")  # fmt: skip
    assert checked.code == 1 and said in checked.stdout, checked.stdout
    assert f"labels {w1} more than once" not in checked.stdout
    # Doing what each issue says (the other two chunks: keep one label) leaves the queue filled once.
    kept = [row for n, row in enumerate(filled.read_text().splitlines(), 1) if n not in (5, 6, 7, 8)]
    filled.write_text("\n".join(kept) + "\n")
    checked = run_cli("validate", "-j", str(filled))
    assert checked.code == 0 and "rejudge-shared-chunk" in checked.stdout, checked.stdout

    # Two labels of one query on one chunk that no queue wrote are still one label too many.
    twice = tmp_path / "twice.jsonl"
    twice.write_text(judgments.read_text().splitlines()[0] + "\n" + judgments.read_text().splitlines()[0] + "\n")
    checked = run_cli("validate", "-j", str(twice))
    assert checked.code == 1 and "more than once (lines 1, 2); keep one label" in checked.stdout, checked.stdout


def test_a_re_judged_piece_that_keeps_the_paragraphs_slot_is_kept(tmp_path: Path) -> None:
    # Slot ids: a paragraph at help://refunds#0 is cut into its three sentences, #0 to #2, so the
    # first sentence keeps the paragraph's slot. The person grades that sentence 2 (it answers)
    # and the others 0. Its filled line names the broken label's very key; the repaired file must
    # hold the person's three grades and not the broken label.
    sentences = ["Refunds arrive in five days.", "Gift cards are not refunded.", "Credit never expires."]
    paragraph = " ".join(sentences)

    def corpus(texts: list[str], chunker: str) -> dict[str, Any]:
        chunks = [{"doc_uri": "help://refunds", "doc_revision": "r1", "ordinal": i, "text": text,
                   "chunk_id": f"help://refunds#{i}"} for i, text in enumerate(texts)]  # fmt: skip
        return {"corpus_fingerprint": "help/1", "chunker_fingerprint": chunker, "chunks": chunks}

    (tmp_path / "corpus.json").write_text(json.dumps(corpus(sentences, "sentence/v1")))
    label = {"query_id": "q1", "doc_uri": "help://refunds", "chunk_id": "help://refunds#0",
             "chunk_text": paragraph, "relevance": 2, "labeled_by": "human:a"}  # fmt: skip
    judgments, queue = tmp_path / "judgments.jsonl", tmp_path / "rejudge.jsonl"
    judgments.write_text(json.dumps(label) + "\n")
    drift = ("drift", "-j", str(judgments), "-c", str(tmp_path / "corpus.json"), "--fix")
    assert run_cli(*drift, "--queue", str(queue)).code == 1  # SPLIT: a person must judge it
    queued = _lines(queue)
    assert [line["chunk_id"] for line in queued] == [f"help://refunds#{i}" for i in range(3)]
    for line in queued:
        line["relevance"] = 2 if "five days" in line["chunk_text"] else 0
        line["labeled_by"] = "human:b"
    with judgments.open("a") as appended:
        appended.write("".join(json.dumps(line) + "\n" for line in queued))
    fixed = run_cli(*drift)
    assert fixed.code == 0, fixed.stdout
    kept = _lines(judgments)
    assert {r["chunk_id"]: r["relevance"] for r in kept} == {f"help://refunds#{i}": 2 * (i == 0) for i in range(3)}
    assert len(kept) == 3 and all(r["labeled_by"] == "human:b" for r in kept)


def test_a_quote_anchored_label_whose_document_moved_whole_is_queued_at_its_copies(tmp_path: Path) -> None:
    # A paragraph was cut into sentences and its label moved by its quote into the first sentence
    # (drift --fix keeps the paragraph as chunk_text: what the person read). Then the document moves
    # whole to two new addresses: the quoted sentence is a chunk of each. The queue offers both,
    # where it said the document was gone and the label should be deleted (its query would then
    # have lost its only answer). Without a quote nothing names the sentence: still stranded.
    from retrieval_eval import chunk_id

    sentences = ["Refunds arrive in five days.", "Gift cards are not refunded."]
    chunks = [
        {"doc_uri": uri, "doc_revision": "r1", "ordinal": i, "text": text,
         "chunk_id": chunk_id(uri, "r1", i, text, "sentence/v1")}
        for uri in ("help://refunds/v2", "help://refunds/latest") for i, text in enumerate(sentences)
    ]  # fmt: skip
    snapshot = {"corpus_fingerprint": "help/2", "chunker_fingerprint": "sentence/v1", "chunks": chunks}
    (tmp_path / "corpus.json").write_text(json.dumps(snapshot))
    old = chunk_id("help://refunds", "r1", 0, sentences[0], "sentence/v1")
    trail = {"rule": "quote", "from": "c1:" + "0" * 32}
    label = {"query_id": "q1", "doc_uri": "help://refunds", "chunk_id": old, "chunk_text": " ".join(sentences),
             "relevance": 2, "labeled_by": "human:a", "reanchored": trail}  # fmt: skip
    judgments, queue = tmp_path / "judgments.jsonl", tmp_path / "rejudge.jsonl"
    for quoted in (True, False):
        judgments.write_text(json.dumps({**label, "quote": sentences[0]} if quoted else label) + "\n")
        checked = run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "corpus.json"), "--json").json()
        (finding,) = checked["labels"]
        assert finding["status"] == "ORPHANED"
        if quoted:
            assert finding["rule"] == "quote_elsewhere"
            copies = {c["chunk_id"] for c in chunks if c["text"] == sentences[0]}
            assert set(finding["candidates"]) == copies and len(copies) == 2
            run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "corpus.json"), "--queue", str(queue))
            assert {line["chunk_id"] for line in _lines(queue)} == copies
        else:
            assert finding["rule"] == "document_gone" and not finding.get("candidates")


def test_a_merged_label_whose_document_moved_whole_is_queued_where_its_siblings_went(tmp_path: Path) -> None:
    # Pairs of paragraphs: the answer paragraph was merged into the chunk "A B" (the label keeps
    # A, what the person read); the lone paragraph C is its own chunk and labeled 0. The document
    # then moves whole to two new addresses. C is a whole chunk of each copy, which shows where the
    # document went; A lies inside "A B" in each: the queue offers those two chunks, where drift
    # said the document was gone and the label should be deleted.
    from retrieval_eval import chunk_id

    a, b, c = "Refunds arrive in five days.", "Gift cards are not refunded.", "Credit never expires."
    texts = [f"{a}\n\n{b}", c]
    uris = ("help://refunds/v2", "help://refunds/latest")
    chunks = [
        {"doc_uri": uri, "doc_revision": "r1", "ordinal": i, "text": text,
         "chunk_id": chunk_id(uri, "r1", i, text, "pairs/v1")}
        for uri in uris for i, text in enumerate(texts)
    ]  # fmt: skip
    (tmp_path / "corpus.json").write_text(
        json.dumps({"corpus_fingerprint": "help/2", "chunker_fingerprint": "pairs/v1", "chunks": chunks})
    )
    old = [chunk_id("help://refunds", "r1", i, text, "pairs/v1") for i, text in enumerate(texts)]
    trail = {"rule": "chunk_text_contained", "from": "c1:" + "0" * 32}
    labels = [
        {"query_id": "q1", "doc_uri": "help://refunds", "chunk_id": old[0], "chunk_text": a, "relevance": 2,
         "labeled_by": "human:a", "reanchored": trail},
        {"query_id": "q1", "doc_uri": "help://refunds", "chunk_id": old[1], "chunk_text": c, "relevance": 0,
         "labeled_by": "human:a"},
    ]  # fmt: skip
    judgments, queue = tmp_path / "judgments.jsonl", tmp_path / "rejudge.jsonl"
    for siblings in (labels, labels[:1]):
        judgments.write_text("".join(json.dumps(r) + "\n" for r in siblings))
        checked = run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "corpus.json"), "--json").json()
        finding = checked["labels"][0]
        assert finding["status"] == "ORPHANED"
        if len(siblings) == 2:
            assert finding["rule"] == "document_moved"
            holders = {x["chunk_id"] for x in chunks if a in x["text"]}
            assert set(finding["candidates"]) == holders and len(holders) == 2
            run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "corpus.json"), "--queue", str(queue))
            assert {line["chunk_id"] for line in _lines(queue) if line["rejudge"]["line"] == 1} == holders
        else:  # nothing shows where the document went: still stranded
            assert finding["rule"] == "document_gone"


def _first_finding(tmp_path: Path, labels: list[dict[str, object]]) -> dict[str, Any]:
    """drift's finding for the first of ``labels``, written to judgments.jsonl beside corpus.json."""
    from drift_support import write_jsonl

    write_jsonl(tmp_path / "judgments.jsonl", labels)
    checked = run_cli("drift", "-j", str(tmp_path / "judgments.jsonl"), "-c", str(tmp_path / "corpus.json"), "--json")
    return checked.json()["labels"][0]  # type: ignore[no-any-return]


@pytest.mark.parametrize(("pages", "rule"), [(8, "document_moved"), (9, "document_gone")])
def test_a_gone_documents_text_found_in_many_places_does_not_say_where_it_went(
    tmp_path: Path, pages: int, rule: str
) -> None:
    # As above, but the sibling's text ("Credit never expires.") is a chunk of `pages` live
    # documents, each also holding a chunk with the merged label's text. Eight places are searched
    # (a document moved whole lands in a few); nine are a footer every page shares, which shows no
    # move: the label stays stranded rather than queued at nine guesses.
    from drift_support import write_snapshot
    from retrieval_eval import chunk_id

    a, c = "Refunds arrive in five days.", "Credit never expires."
    docs = {f"help://page-{n}": [f"{a}\n\nPage {n}.", c] for n in range(pages)}
    write_snapshot(tmp_path / "corpus.json", docs)
    old = [chunk_id("help://refunds", "r1", i, text, "pairs/v1") for i, text in enumerate([a, c])]
    finding = _first_finding(
        tmp_path,
        [
            {"query_id": "q1", "doc_uri": "help://refunds", "chunk_id": old[0], "chunk_text": a, "relevance": 2},
            {"query_id": "q1", "doc_uri": "help://refunds", "chunk_id": old[1], "chunk_text": c, "relevance": 0},
        ],
    )
    assert (finding["status"], finding["rule"]) == ("ORPHANED", rule)


@pytest.mark.parametrize(("pages", "rule"), [(8, "quote_elsewhere"), (9, "document_gone")])
def test_a_gone_documents_quote_found_in_many_places_does_not_say_where_it_went(
    tmp_path: Path, pages: int, rule: str
) -> None:
    # A deleted page's label quotes "Contact support.", a chunk every live page ends with. Eight
    # copies may be where the page moved whole; nine are a sentence many pages share, which shows
    # no move: the label stays stranded (delete it, as drift says) instead of being queued at
    # every page (10,000 pages made 10,000 queue lines per such label, 4.7 GB to list them).
    from drift_support import write_snapshot
    from retrieval_eval import chunk_id

    footer, text = "Contact support.", "Refunds arrive in five days."
    docs = {f"help://page-{n}": [f"Page {n} says {n}.", footer] for n in range(pages)}
    write_snapshot(tmp_path / "corpus.json", docs)
    label = {"query_id": "q1", "doc_uri": "help://refunds", "chunk_id": chunk_id("help://refunds", "r1", 0, text, "p"),
             "chunk_text": f"{text} {footer}", "quote": footer, "relevance": 2}  # fmt: skip
    finding = _first_finding(tmp_path, [label])
    assert (finding["status"], finding["rule"]) == ("ORPHANED", rule)
    assert len(finding.get("candidates") or ()) == (pages if rule == "quote_elsewhere" else 0)


def test_pages_folded_into_one_large_page_index_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Forty pages folded into one archive page: each page's first paragraph is a whole chunk of
    # the archive (which shows where it went), its second merged there with a third. Each page's
    # merged label is searched in the archive and found in its pair; the archive is indexed once,
    # not once a page (on a 150,000-chunk archive that was 0.7 s a page: 100 pages 71 s, not 2 s).
    from drift_support import corpus, judgments, label
    from retrieval_eval.core import drift

    pages = 40
    firsts = [f"Page {n} opens with fact {n}." for n in range(pages)]
    seconds = [f"Page {n} then states rule {n * 7}." for n in range(pages)]
    archive = [text for n in range(pages) for text in (firsts[n], f"{seconds[n]} It closes on note {n}.")]
    built: list[str] = []
    real = drift.DocumentIndex.__init__

    def counted(self: drift.DocumentIndex, corpus: Any, doc_uri: str) -> None:
        built.append(doc_uri)
        real(self, corpus, doc_uri)

    monkeypatch.setattr(drift.DocumentIndex, "__init__", counted)
    records = [
        label(f"q{n}", f"help://page-{n}", text, ordinal=k)
        for n in range(pages)
        for k, text in enumerate((firsts[n], seconds[n]))
    ]
    result = drift.check_drift(judgments(records), corpus({"help://archive": archive}))
    moved = [f for f in result.findings if f.rule == "document_moved"]
    assert len(moved) == pages
    for n, finding in enumerate(sorted(moved, key=lambda f: f.index)):
        assert finding.candidates == (corpus({"help://archive": archive}).ids[2 * n + 1],)
    assert built == ["help://archive"]
