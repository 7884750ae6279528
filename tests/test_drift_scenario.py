"""A whole re-chunk: labels made on one chunking, a corpus re-chunked with merges, splits
(with and without quotes), moved text and a deleted document. After ``drift --fix``,
``validate`` finds no error and ``score`` is not INDETERMINATE because of the repair.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drift_support import OLD, cid, corpus, label, write_jsonl, write_snapshot
from helpers import run_cli
from retrieval_eval.core.drift import check_drift
from retrieval_eval.formats.judgment_records import write_judgments
from retrieval_eval.formats.judgments import parse_judgments
from test_drift_defects import reference_fix

P1 = "Annual plans may be refunded within 30 days of renewal."
P2 = "Monthly plans are non-refundable after the billing date."
P3A = "Refunds go back to the card that paid."
P3B = "Bank transfers take up to ten working days to arrive."
P3 = f"{P3A} {P3B}"
A1 = "Reset a password from the sign-in page."
A2 = "Two-factor codes expire after thirty seconds."
F1 = "Invoices are emailed on the first of the month."
F2 = "Tax ids can be added to an invoice from the billing page."
L1 = "The legacy plan was retired in 2019."

OLD_DOCS = {"help://billing": [P1, P2, P3], "help://account": [A1, A2], "help://faq": [F1, F2], "help://legacy": [L1]}
NEW_DOCS = {
    "help://billing": [f"{P1}\n\n{P2}", P3A, P3B],  # P1+P2 merged, P3 split in two
    "help://account": [A1, A2],  # same text, new chunker: new ids
    "help://faq": [F1],
    "help://invoices": [F2],  # moved to another document
}  # help://legacy deleted


def old_label(query_id: str, doc: str, text: str, **extra: object) -> dict[str, object]:
    return label(query_id, doc, text, ordinal=OLD_DOCS[doc].index(text), **extra)


LABELS: list = [
    "// golden set v3: labeled on paragraph/v1",
    old_label("q1", "help://billing", P1, relevance=2),
    old_label("q1", "help://billing", P2, relevance=3),  # merges into P1's new chunk: one label
    old_label("q2", "help://billing", P3),  # split, no quote: a person must judge again
    old_label("q3", "help://billing", P3, quote="up to ten working days"),  # split, quote in one piece
    old_label("q3", "help://account", A1),
    old_label("q4", "help://billing", P3, quote="the card that paid. Bank transfers"),  # quote straddles
    "// account questions",
    old_label("q5", "help://legacy", L1),  # document deleted
    old_label("q6", "help://faq", F2, relevance=2),  # text moved to help://invoices
    {"query_id": "q7", "query": "query q7", "doc_uri": "help://account", "relevance": 1},  # document-level
    old_label("q7", "help://account", A2),
]


@pytest.fixture
def rechunked(tmp_path: Path) -> tuple[Path, Path, Path]:
    judgments = write_jsonl(tmp_path / "judgments.jsonl", LABELS)
    corpus_path = write_snapshot(tmp_path / "corpus.json", NEW_DOCS)
    run = [
        {"query_id": q, "ranking": ranking}
        for q, ranking in {
            "q1": [cid("help://billing", 0, f"{P1}\n\n{P2}"), cid("help://account", 0, A1)],
            "q2": [cid("help://billing", 1, P3A)],
            "q3": [cid("help://billing", 2, P3B), cid("help://account", 0, A1)],
            "q4": [cid("help://billing", 1, P3A)],
            "q5": [cid("help://faq", 0, F1)],
            "q6": [cid("help://invoices", 0, F2)],
            "q7": [cid("help://account", 1, A2), "help://account"],
        }.items()
    ]
    return judgments, corpus_path, write_jsonl(tmp_path / "run.jsonl", run)


def test_every_label_gets_the_status_its_change_calls_for(rechunked: tuple[Path, Path, Path]) -> None:
    judgments, corpus_path, _ = rechunked
    result = run_cli("drift", "-j", str(judgments), "-c", str(corpus_path), "--json").json()
    got = [(e["query_id"], e["status"], e["rule"]) for e in result["labels"]]
    assert got == [
        ("q1", "MERGED", "chunk_text_contained"),
        ("q1", "MERGED", "chunk_text_contained"),
        ("q2", "SPLIT", "chunk_text_split"),
        ("q3", "MERGED", "quote"),
        ("q3", "RE_ANCHORABLE", "text_sha"),
        ("q4", "SPLIT", "quote_straddles"),
        ("q5", "ORPHANED", "document_gone"),
        ("q6", "RE_ANCHORABLE", "text_sha_elsewhere"),
        ("q7", "VALID", "document"),
        ("q7", "RE_ANCHORABLE", "text_sha"),
    ]
    assert result["summary"]["recoverable"] == 6 and result["summary"]["needs_human"] == 3


def test_fix_then_validate_is_clean_and_score_is_decided(rechunked: tuple[Path, Path, Path]) -> None:
    judgments, corpus_path, run = rechunked
    fixed = run_cli("drift", "-j", str(judgments), "-c", str(corpus_path), "--fix", "--json")
    assert fixed.code == 1  # the split and orphaned labels still need a person
    assert fixed.json()["fix"]["labels_after"] == len(LABELS) - 2 - 1  # two comments, one collapse

    validation = run_cli("validate", "-j", str(judgments), "--json")
    assert validation.code == 0, validation.stdout
    assert validation.json()["errors"] == 0

    scored = run_cli("score", "-j", str(judgments), "-r", str(run), "--corpus", str(corpus_path), "-k", "2", "--json")
    report = scored.json()
    assert report["verdict"]["status"] != "INDETERMINATE", report["verdict"]["reasons"]
    stale = report["judgments"]["drift"].pop("stale")
    assert [(entry["query_id"], entry["status"]) for entry in stale] == [
        ("q2", "SPLIT"),
        ("q4", "SPLIT"),
        ("q5", "ORPHANED"),
    ]
    assert report["judgments"]["drift"].pop("list_command") == f"retrieval-eval drift -j {judgments} -c {corpus_path}"
    assert report["judgments"]["drift"] == {
        "valid": 6,
        "re_anchorable": 0,
        "merged": 0,
        "split": 2,
        "orphaned": 1,
        "stranded": 1,  # q5: its document was deleted, so no re-judge queue can hold it
        "invalid_ratio": pytest.approx(1 / 3),
        # The repaired labels carry the new corpus's fingerprint: nothing changed under them.
        "changes": [],
        "repair_command": f"retrieval-eval drift -j {judgments} -c {corpus_path} --fix",
    }
    assert report["corpus"]["documents"] == 4 and report["corpus"]["chunks"] == 7


def test_the_repaired_file_keeps_comments_and_provenance(rechunked: tuple[Path, Path, Path]) -> None:
    judgments, corpus_path, _ = rechunked
    run_cli("drift", "-j", str(judgments), "-c", str(corpus_path), "--fix")
    text = judgments.read_text()
    assert text.startswith("// golden set v3: labeled on paragraph/v1\n") and "// account questions\n" in text
    q1 = [label_ for label_ in parse_judgments(str(judgments)).labels if label_.query_id == "q1"]
    assert len(q1) == 1 and q1[0].relevance == 3
    assert [r["chunk_text"] for r in q1[0].get("collapsed_from")] == [P1]
    moved = next(label_ for label_ in parse_judgments(str(judgments)).labels if label_.query_id == "q6")
    assert moved.doc_uri == "help://invoices" and moved.get("reanchored")["from_doc"] == "help://faq"
    # A second run finds nothing more to repair.
    again = run_cli("drift", "-j", str(judgments), "-c", str(corpus_path), "--fix", "--json").json()
    assert again["fix"]["changes"] == [] and again["fix"]["written"] is None


def test_the_reference_repair_would_leave_the_score_indeterminate(
    rechunked: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    judgments, corpus_path, run = rechunked
    parsed = parse_judgments(str(judgments))
    from retrieval_eval.formats.corpus import read_corpus

    naive = tmp_path / "naive.jsonl"
    naive.write_text(write_judgments(reference_fix(check_drift(parsed, read_corpus(str(corpus_path))))))
    assert run_cli("validate", "-j", str(naive)).code == 1
    report = run_cli("score", "-j", str(naive), "-r", str(run), "-k", "2", "--json").json()
    assert report["verdict"]["status"] == "INDETERMINATE"


def test_old_chunker_ids_are_all_stale() -> None:
    # Guards the scenario itself: every chunk label was made on the old chunking.
    live = corpus(NEW_DOCS)
    stale = [r for r in LABELS if isinstance(r, dict) and "chunk_id" in r]
    assert all(r["chunk_id"] not in live.position for r in stale)
    assert all(json.dumps(r).count(OLD) == 0 for r in stale)  # the chunker lives in the id only
