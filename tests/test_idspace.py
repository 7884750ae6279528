"""The pieces of comparing across a re-chunk, by hand: the moves labels record, the
translation of rankings, and fingerprints that stay told apart."""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.comparison.findings import distinct
from retrieval_eval.comparison.idspace import OLD_ID, translate, translate_per_query, with_judged
from retrieval_eval.core.identity import chunk_id
from retrieval_eval.core.judgments import JudgmentSet
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.formats.judgment_records import judgment_from_record
from retrieval_eval.formats.report import as_report


def c(name: str) -> str:
    return chunk_id("help://a", "r1", 0, name, "test/v1")


def _label(line: int, chunk: str, **extra: object) -> dict[str, object]:
    return {"query_id": f"q{line}", "doc_uri": "help://a", "chunk_id": c(chunk), "relevance": 1, **extra}


def test_the_moves_a_repair_records_are_read_from_reanchored_and_collapsed_from() -> None:
    records = [
        _label(1, "new-1", reanchored={"rule": "text_sha", "from": c("old-1")}),
        _label(
            2,
            "new-2",
            reanchored={"rule": "chunk_text_contained", "from": c("old-2")},
            collapsed_from=[_label(0, "old-3"), _label(0, "old-4", reanchored={"rule": "quote", "from": c("old-5")})],
        ),
        _label(3, "same", reanchored={"rule": "text_sha", "from": c("same")}),  # not a move
        _label(4, "valid"),
    ]
    labels = JudgmentSet(tuple(judgment_from_record(r, i + 1) for i, r in enumerate(records)))
    moved = LabelIndex.from_judgments(labels).moved
    assert moved == {
        c(old): c(new)
        for old, new in [("old-1", "new-1")] + [(o, "new-2") for o in ("old-2", "old-3", "old-4", "old-5")]
    }


def test_translation_keeps_the_rank_of_labeled_text_and_the_first_of_merged_chunks() -> None:
    moved = {"a": "A", "b": "M", "c": "M"}
    rankings = {"q1": ["x", "a", "b", "y", "c", "z"], "q2": ["c", "b"], "q3": []}
    assert translate(rankings, moved) == {"q1": ["x", "A", "M", "y", "z"], "q2": ["M"], "q3": []}


def test_fingerprints_are_shown_until_they_differ() -> None:
    assert distinct("pebble-help/v1", "pebble-help/v2") == ("pebble-help/v1", "pebble-help/v2")
    assert distinct("0123456789abcdef" * 4, "0123456789abcdef" * 3 + "f" * 16) == (
        "0123456789abcdef" * 3 + "0123…",
        "0123456789abcdef" * 3 + "ffff…",
    )
    assert distinct("a" * 64, "b" * 64) == ("a" * 12 + "…", "b" * 12 + "…")


def test_an_unmoved_slot_the_head_labels_name_matches_no_label() -> None:
    moved = {"doc#2": "doc#2", "doc#5": "doc#9"}  # a repair into the same slot is a move too
    rankings = {"q1": ["doc#9", "doc#2", "doc#7", "doc#5"]}
    # doc#9 in the base held other text than the head's doc#9; doc#7 no head label names.
    assert translate(rankings, moved, reused={"doc#2", "doc#9"}) == {"q1": ["old-id:doc#9", "doc#2", "doc#7", "doc#9"]}


def test_document_labels_do_not_see_a_rechunk() -> None:
    from retrieval_eval.comparison.idspace import decide_id_space
    from retrieval_eval.comparison.sides import Sides

    labels = JudgmentSet((judgment_from_record({"query_id": "q1", "doc_uri": "help://a", "relevance": 1}, 1),))
    base = {"corpus": {"chunker_fingerprint": "para/v1"}, "rankings": {"q1": ["help://a"]}}
    head = {"corpus": {"chunker_fingerprint": "sentences/v2"}}
    base_report, head_report = as_report(base), as_report(head)
    assert not decide_id_space(Sides(base_report, head_report, LabelIndex.from_judgments(labels))).changed
    assert decide_id_space(Sides(base_report, head_report, None)).changed  # without the labels, the chunker decides


def test_two_labeled_paragraphs_merged_into_one_chunk_keep_the_first_rank(tmp_path: Path) -> None:
    """By hand: q1 labels P1 and P2; the re-chunk merges them into M. The base ranked P2 at 2 and
    P1 at 4, so in the head's ids it found M at rank 2: MRR 1/2. The head ranks M at 1: MRR 1.
    Under the head's one label (the collapse), base recall@1 is 0 and the head's 1."""
    from drift_support import OLD, cid, label, write_jsonl, write_snapshot
    from helpers import run_cli

    p1, p2, other = "Refunds take five days.", "Refunds go to the card.", "Shipping takes a week."
    old_docs = {"help://billing": [p1, p2, other]}
    new_docs = {"help://billing": [f"{p1}\n\n{p2}", other]}
    old = [
        cid("help://billing", i, text, chunker=OLD, revision="r1") for i, text in enumerate(old_docs["help://billing"])
    ]
    merged, rest = cid("help://billing", 0, f"{p1}\n\n{p2}"), cid("help://billing", 1, other)
    judgments = write_jsonl(
        tmp_path / "j.jsonl",
        [label("q1", "help://billing", p1, ordinal=0), label("q1", "help://billing", p2, ordinal=1)],
    )
    write_snapshot(tmp_path / "v1.json", old_docs, chunker=OLD, revision="r1")
    write_snapshot(tmp_path / "v2.json", new_docs)
    write_jsonl(tmp_path / "base.jsonl", [{"query_id": "q1", "ranking": [old[2], old[1], "c1:" + "e" * 32, old[0]]}])
    write_jsonl(tmp_path / "head.jsonl", [{"query_id": "q1", "ranking": [merged, rest]}])
    base = tmp_path / "base.json"
    run_cli("score", "-j", str(judgments), "-r", str(tmp_path / "base.jsonl"), "-k", "1,5", "--report", str(base))
    fixed = tmp_path / "j2.jsonl"
    assert (
        run_cli("drift", "-j", str(judgments), "-c", str(tmp_path / "v2.json"), "--fix", "--out", str(fixed)).code == 0
    )
    head = tmp_path / "head.json"
    run_cli(
        "score", "-j", str(fixed), "-r", str(tmp_path / "head.jsonl"), "-k", "1,5", "--corpus",
        str(tmp_path / "v2.json"), "--report", str(head),
    )  # fmt: skip
    document = run_cli("compare", "--base", str(base), "--head", str(head), "-j", str(fixed), "--json").json()
    assert document["yardstick"] == "translated"
    assert document["metrics"]["mrr@5"]["base"] == 0.5 and document["metrics"]["mrr@5"]["head"] == 1.0
    assert document["metrics"]["recall@1"]["base"] == 0.0 and document["metrics"]["recall@1"]["head"] == 1.0
    assert document["metrics"]["recall@5"]["base"] == 1.0


def test_a_damaged_base_report_is_read_leniently() -> None:
    from retrieval_eval.comparison.idspace import decide_id_space
    from retrieval_eval.comparison.sides import Sides

    labels = JudgmentSet(
        (judgment_from_record(_label(1, "new-1", reanchored={"rule": "text_sha", "from": c("old-1")}), 1),)
    )
    base = {"rankings": {"q1": [[1], {"a": 1}, 7, c("old-1")], "q2": "not a list"}, "per_query": {"q1": [1]}}
    # Read as a report handed over in memory is: what does not fit its type reads as missing.
    space = decide_id_space(Sides(as_report(base), as_report({}), LabelIndex.from_judgments(labels)))
    assert space.changed and "1 chunk id(s)" in space.detail


def _per_query(records: list[dict[str, object]]) -> LabelIndex:
    return LabelIndex.from_judgments(JudgmentSet(tuple(judgment_from_record(r, i + 1) for i, r in enumerate(records))))


def test_an_old_chunk_is_carried_only_where_its_own_grade_agrees_and_into_every_piece() -> None:
    def label(query: str, chunk: str, relevance: int, **extra: object) -> dict[str, object]:
        return {"query_id": query, "doc_uri": "help://a", "chunk_id": c(chunk), "relevance": relevance, **extra}

    def rejudged(query: str, chunk: str, relevance: int) -> dict[str, object]:
        trail = {"from": c("P"), "status": "SPLIT", "relevance": 1}
        return label(query, chunk, relevance, labeled_by="human:x", rejudge=trail)

    index = _per_query(
        [
            # q1: relevant R and grade-0 neighbour N merged into NR (the label carries R's grade 1).
            label("q1", "NR", 1, reanchored={"from": c("R")}, collapsed_from=[label("q1", "N", 0)]),
            # q2: paragraph P cut into W1, W2 (both judged relevant again) and W3 (judged not).
            rejudged("q2", "W1", 1),
            rejudged("q2", "W2", 2),
            rejudged("q2", "W3", 0),
            # q3: an old label whose absorbed record says no usable grade: taken at its word.
            label(
                "q3", "NR", 1, reanchored={"from": c("R")}, collapsed_from=[label("q3", "N", 0) | {"relevance": "0"}]
            ),
        ]
    )
    old = {name: c(name) for name in ("N", "R", "P", "x")}
    rankings = {
        "q1": [old["N"], old["x"], old["R"]],
        "q2": [old["x"], old["P"], old["N"]],  # N is no label of q2: it stays as it was
        "q3": [old["N"], old["R"]],
    }
    translation = translate_per_query(rankings, index, threshold=1)
    assert translation.rankings == {
        "q1": [OLD_ID + old["N"], old["x"], c("NR")],
        "q2": [old["x"], c("W1"), c("W2"), old["N"]],
        "q3": [c("NR")],
    }
    assert translation.judged == {"q1": {OLD_ID + old["N"]}}
    assert translation.shortened == 1  # q3: N and R met on NR
    judged = with_judged(index, translation.judged)
    assert judged.queries["q1"].grades[OLD_ID + old["N"]] == 0
    assert OLD_ID + old["N"] not in index.queries["q1"].grades  # the head's own labels are untouched


def test_a_reason_counts_every_label_that_blocks_the_translation_not_only_those_the_report_lists(
    tmp_path: Path,
) -> None:
    # 36 labels, none repaired: the head report lists 20 of them, the reason names 5 and must
    # say 31 more, the number the drift counts give (the list command shows them all).
    import json

    from helpers import run_cli
    from rechunk_scenarios import make_scenario

    files = make_scenario("sentences", "same").write(tmp_path)
    base, head = tmp_path / "base.json", tmp_path / "head.json"
    assert run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
        "-k", "5", "--out", str(base),
    ).code == 0  # fmt: skip
    gated = run_cli(
        "score", "-j", str(files.judgments), "-r", str(files.head_run), "--corpus", str(files.head_corpus),
        "-k", "5", "--baseline", str(base), "-g", "recall@5:-0.02", "--out", str(head),
    )  # fmt: skip
    assert gated.code == 1
    drift = json.loads(head.read_text())["judgments"]["drift"]
    blocking = sum(drift[name] for name in ("re_anchorable", "merged", "split", "orphaned"))
    assert blocking == 36 and len(drift["stale"]) < blocking
    (gate,) = json.loads(head.read_text())["verdict"]["gates"]
    assert gate["status"] == "INDETERMINATE"
    assert f"and {blocking - 5} more;" in gate["reason"]
