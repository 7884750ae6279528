"""A base report scored again with its old run after the labels were repaired in place.

``drift --fix`` rewrites the judgments file where it is; a base report scored from that very file
afterwards (its old run on its old corpus) records the same judgments SHA-256 as the head's. The
labels' trails then record the move between the two sides, not an older one: with c1 ids the base
ranks the old chunks the trails name. The cases and their truth are those of
tests/test_rechunk_bruteforce.py (built at the level of the text, never from the code): the head
that keeps every answer where the base had it must never FAIL, the one that pushes a query's
answers below k must never PASS. Unread, the trails left every base hit a miss (a base of 0), and
the worse head passed in 9 of 12 seeds. The same base run scored with the head's very corpus file
(the base branch's corpus re-chunked, its retriever not run again) is no more one id space with
the head than its run is: it ranks the old chunks, and the trails carry them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from retrieval_eval import chunk_id
from test_rechunk_bruteforce import GATE, K, cli_run, make_case, run_case, write_jsonl


def _verdict(tmp: Path, name: str, base: Path) -> tuple[str, str]:
    code, out = cli_run("score", "-j", str(tmp / "judgments.jsonl"), "-r", str(tmp / f"{name}.run.jsonl"),
                        "--corpus", str(tmp / "head.corpus.json"), "-k", f"{K},10", "--baseline", str(base),
                        "-g", GATE, "--json")  # fmt: skip
    verdict = json.loads(out)["verdict"]
    return verdict["status"], " | ".join(verdict["reasons"] + [g["reason"] for g in verdict["gates"]])


@pytest.mark.parametrize("corpus", ["base.corpus.json", "head.corpus.json"])
@pytest.mark.parametrize("seed", range(6))  # one of each change
def test_a_base_scored_again_with_the_repaired_labels_never_passes_a_worse_head(
    tmp_path: Path, seed: int, corpus: str
) -> None:
    case = make_case(seed)
    run_case(case, tmp_path)  # writes the base run and corpus, the repaired judgments, both heads' runs
    rescored = tmp_path / "rescored.json"
    code, out = cli_run("score", "-j", str(tmp_path / "judgments.jsonl"), "-r", str(tmp_path / "base.run.jsonl"),
                        "--corpus", str(tmp_path / corpus), "-k", f"{K},10",
                        "--report", str(rescored))  # fmt: skip
    # With the head's corpus the base's own verdict is INDETERMINATE (its run ranks no chunk of it);
    # its report is written all the same, and a committed report is read whatever its verdict.
    assert code in (0, 1) and rescored.exists(), out
    base = json.loads(rescored.read_text())
    judgments, same_run = str(tmp_path / "judgments.jsonl"), str(tmp_path / "same.run.jsonl")
    _, head = cli_run("score", "-j", judgments, "-r", same_run, "--json")
    head_sha = json.loads(head)["inputs"]["judgments_sha256"]
    assert base["inputs"]["judgments_sha256"] == head_sha  # the very same file on both sides
    same, worse = _verdict(tmp_path, "same", rescored), _verdict(tmp_path, "worse", rescored)
    assert worse[0] != "PASS", (case, worse[1])
    assert same[0] != "FAIL", (case, same[1])


@pytest.mark.parametrize("added", [False, True])
def test_a_page_restored_after_its_labels_moved_is_a_live_chunk_not_a_move(tmp_path: Path, added: bool) -> None:
    """A page moved to a new address (its labels repaired, their trails naming its old chunk), and
    later put back as it was: c1 ids are content-addressed, so its chunk has its old id again, a
    live chunk of the corpus no label names. A pull request that ranks every query as the base did
    (the same run; nothing else changed, or a page and a query's label added) must PASS. Read as a
    move between the sides, the base's hit on the restored page was carried into the label's
    chunk, while the head's, the same key, stayed unjudged: the same ranking failed."""
    answer, others = "Alpha fact takes eleven seconds to finish.", ["Beta is blue.", "Gamma is green.", "Delta is red."]

    def corpus(name: str, pages: list[tuple[str, list[str]]]) -> dict[str, str]:
        chunks = [
            {"doc_uri": uri, "doc_revision": "r1", "ordinal": i, "text": body,
             "chunk_id": chunk_id(uri, "r1", i, body, "paragraphs/1")}
            for uri, bodies in pages for i, body in enumerate(bodies)
        ]  # fmt: skip
        document = {"corpus_fingerprint": name, "chunker_fingerprint": "paragraphs/1", "chunks": chunks}
        (tmp_path / f"{name}.json").write_text(json.dumps(document))
        return {f"{c['doc_uri']}#{c['ordinal']}": c["chunk_id"] for c in chunks}

    ids = corpus("restored", [("t://a", [answer]), ("t://c", [answer]), ("t://b", others)])
    corpus("moved", [("t://c", [answer]), ("t://b", others)])
    judgments = tmp_path / "judgments.jsonl"
    write_jsonl(judgments, [
        {"query_id": "q1", "doc_uri": "t://a", "chunk_id": ids["t://a#0"], "relevance": 2, "chunk_text": answer,
         "labeled_by": "human:a"},
        {"query_id": "q2", "doc_uri": "t://b", "chunk_id": ids["t://b#1"], "relevance": 2, "chunk_text": others[1],
         "labeled_by": "human:a"},
    ])  # fmt: skip
    code, out = cli_run("drift", "-j", str(judgments), "-c", str(tmp_path / "moved.json"), "--fix")
    assert code == 0 and '"from": "' + ids["t://a#0"] in judgments.read_text().replace('":"', '": "'), out
    run = tmp_path / "run.jsonl"  # the restored page first, its copy at the new address last
    write_jsonl(run, [
        {"query_id": "q1", "ranking": [ids["t://a#0"], ids["t://b#0"], ids["t://b#2"], ids["t://c#0"]]},
        {"query_id": "q2", "ranking": [ids["t://b#1"], ids["t://b#0"]]},
    ])  # fmt: skip
    scored = ("score", "-j", str(judgments), "-r", str(run), "--corpus", str(tmp_path / "restored.json"), "-k", "1,3")
    base = tmp_path / "base.json"
    code, out = cli_run(*scored, "--report", str(base))
    assert code == 0, out
    if added:  # the pull request adds a page, and a query labeled on it: judgments and corpus both change
        ids = corpus("restored", [("t://a", [answer]), ("t://c", [answer]), ("t://b", others), ("t://e", ["Eps."])])
        with judgments.open("a") as lines:
            lines.write(json.dumps({"query_id": "q3", "doc_uri": "t://e", "chunk_id": ids["t://e#0"],
                                    "relevance": 1, "chunk_text": "Eps.", "labeled_by": "human:a"}) + "\n")  # fmt: skip
        with run.open("a") as lines:
            lines.write(json.dumps({"query_id": "q3", "ranking": [ids["t://e#0"]]}) + "\n")
    code, out = cli_run(*scored, "--baseline", str(base), "-g", "recall@1:-0.01", "--json")
    report = json.loads(out)
    assert report["verdict"]["status"] == "PASS", report["verdict"]
    assert report["unjudged"]["new_keys"] == 0  # the head ranks what the base ranked, key for key
