"""One test per defect of the reference repair: its behaviour reproduced and shown to fail, then ours.

The reference's behaviour is modelled by the small ``reference_*``
functions below, each doing what the reference did: re-anchor every label
on its own, key results by (query, chunk_id), take the first text_sha match
in corpus order.
"""

from __future__ import annotations

from pathlib import Path

from drift_support import cid, corpus, judgments, label, write_jsonl, write_snapshot
from helpers import run_cli
from retrieval_eval.core.drift import ORPHANED, RE_ANCHORABLE, VALID, DriftResult, check_drift
from retrieval_eval.core.drift_fix import plan_fix
from retrieval_eval.core.judgments import JudgmentSet, Label
from retrieval_eval.core.validate import validate
from retrieval_eval.formats.corpus import Corpus
from retrieval_eval.formats.drift import finding_to_json
from retrieval_eval.formats.judgment_records import judgment_from_record
from retrieval_eval.formats.judgments import parse_judgments

ANNUAL = "Annual plans may be refunded within 30 days of renewal."
MONTHLY = "Monthly plans are non-refundable after the billing date."


def reference_fix(result: DriftResult) -> JudgmentSet:
    """Each recoverable label pointed at its target, one by one, with nothing else changed."""
    repaired = []
    for label_, finding in result.pairs():
        record = dict(label_.record)
        if finding.recoverable and finding.target:
            record["chunk_id"] = finding.target
        repaired.append(judgment_from_record(record, label_.line))
    return JudgmentSet(tuple(repaired))


def reference_statuses(result: DriftResult) -> dict[tuple[str, str | None], str]:
    """Results looked up by (query_id, chunk_id), as the reference keyed them."""
    return {(label_.query_id, label_.chunk_id): finding.status for label_, finding in result.pairs()}


def reference_first_match(label_: Label, live: Corpus) -> int | None:
    """The first chunk in corpus order with the label's text_sha, wherever it lives."""
    return next((i for i, sha in enumerate(live.shas) if sha == label_.get("text_sha")), None)


# --- 1. two labels of one query that merge into one chunk ---------------------------


def merged_pair() -> DriftResult:
    docs = {"wiki://refunds": [f"{ANNUAL}\n\n{MONTHLY}"]}
    records = [
        label("q1", "wiki://refunds", ANNUAL, relevance=1, labeled_by="human:ana"),
        label("q1", "wiki://refunds", MONTHLY, ordinal=1, relevance=3, labeled_by="human:bo"),
    ]
    return check_drift(judgments(records), corpus(docs))


def test_reference_fix_of_a_merge_leaves_duplicate_labels_that_validate_rejects() -> None:
    repaired = reference_fix(merged_pair())
    assert "duplicate-label" in validate(repaired).error_codes()


def test_our_fix_collapses_a_merge_into_one_label_with_the_highest_grade() -> None:
    result = merged_pair()
    plan = plan_fix(result)
    assert validate(plan.judgments).ok
    [kept] = plan.judgments.labels
    assert kept.relevance == 3 and kept.get("labeled_by") == "human:bo"
    assert kept.get("collapsed_from") == (result.labels[0].record,)  # ana's label, whole (arrays as tuples)
    [collapse] = plan.collapses
    assert (collapse.kept_line, collapse.absorbed_lines, collapse.relevance) == (2, (1,), 3)


# --- 2. document-level labels of one query --------------------------------------


def document_labels() -> DriftResult:
    records = [
        {"query_id": "q1", "doc_uri": "wiki://live", "relevance": 2},
        {"query_id": "q1", "doc_uri": "wiki://deleted", "relevance": 1},
    ]
    return check_drift(judgments(records), corpus({"wiki://live": [ANNUAL]}))


def test_reference_keying_merges_the_document_labels_of_a_query() -> None:
    # Both labels have no chunk_id, so they land on one key and one status hides the other.
    assert reference_statuses(document_labels()) == {("q1", None): ORPHANED}


def test_our_document_labels_keep_their_own_status() -> None:
    result = document_labels()
    assert [f.status for f in result.findings] == [VALID, ORPHANED]
    entries = [finding_to_json(label_, f) for label_, f in result.pairs()]
    assert [(e["line"], e["doc_uri"], e["status"]) for e in entries] == [
        (1, "wiki://live", VALID),
        (2, "wiki://deleted", ORPHANED),
    ]
    assert plan_fix(result).judgments.labels == result.labels


# --- 3. where a text_sha match may be taken from ------------------------------------


def test_reference_takes_a_match_in_another_document_over_the_labels_own() -> None:
    docs = {"wiki://copy": [ANNUAL], "wiki://refunds": [MONTHLY, ANNUAL]}
    live = corpus(docs)
    [stale] = judgments([label("q", "wiki://refunds", ANNUAL)]).labels
    first = reference_first_match(stale, live)
    assert first is not None and live.docs[first] == "wiki://copy"
    [ours] = check_drift(JudgmentSet((stale,)), live).findings
    assert (ours.status, ours.rule, ours.target, ours.target_doc) == (
        RE_ANCHORABLE,
        "text_sha",
        cid("wiki://refunds", 1, ANNUAL),
        None,
    )


def test_a_unique_match_elsewhere_moves_the_label_and_its_document() -> None:
    live = corpus({"wiki://billing": [MONTHLY, ANNUAL]})
    result = check_drift(judgments([label("q", "wiki://refunds", ANNUAL)]), live)
    [finding] = result.findings
    assert (finding.rule, finding.target_doc) == ("text_sha_elsewhere", "wiki://billing")
    # The reference moved the chunk but left doc_uri behind, so the label contradicts its own chunk.
    [stale_doc] = reference_fix(result).labels
    assert live.document_of(stale_doc.key) != stale_doc.doc_uri
    [moved] = plan_fix(result).judgments.labels
    assert (moved.chunk_id, moved.doc_uri) == (cid("wiki://billing", 1, ANNUAL), "wiki://billing")
    assert moved.get("reanchored")["from_doc"] == "wiki://refunds"


def test_several_matches_elsewhere_are_reported_not_guessed() -> None:
    live = corpus({"wiki://a": [ANNUAL], "wiki://b": [ANNUAL]})
    [stale] = judgments([label("q", "wiki://gone", ANNUAL, with_text=False)]).labels
    assert reference_first_match(stale, live) == 0  # the reference simply took wiki://a
    result = check_drift(JudgmentSet((stale,)), live)
    [finding] = result.findings
    assert (finding.status, finding.rule) == (ORPHANED, "text_sha_ambiguous")
    assert set(finding.candidates) == {cid("wiki://a", 0, ANNUAL), cid("wiki://b", 0, ANNUAL)}
    assert plan_fix(result).changes == ()


# --- 4. the command: JSON only, atomic, comments, exit codes -----------------------


def fix_case(tmp_path: Path, *, split: bool = False) -> tuple[Path, Path]:
    records: list = [
        "// golden set, reviewed 2026-05",
        label("q1", "d", ANNUAL),
        "// monthly plans",
        label("q2", "d", MONTHLY),
    ]
    if split:
        records.append(label("q3", "d", f"{ANNUAL}\n\n{MONTHLY}"))
    return (
        write_jsonl(tmp_path / "judgments.jsonl", records),
        write_snapshot(tmp_path / "corpus.json", {"d": [MONTHLY, ANNUAL]}),
    )


def test_json_fix_prints_json_and_nothing_else(tmp_path: Path) -> None:
    judgments_path, corpus_path = fix_case(tmp_path)
    result = run_cli("drift", "-j", str(judgments_path), "-c", str(corpus_path), "--fix", "--json")
    payload = result.json()  # the whole of stdout is one JSON document
    assert payload["fix"]["written"] == str(judgments_path) and len(payload["fix"]["changes"]) == 2


def test_fix_keeps_comment_lines_in_place(tmp_path: Path) -> None:
    judgments_path, corpus_path = fix_case(tmp_path)
    run_cli("drift", "-j", str(judgments_path), "-c", str(corpus_path), "--fix")
    lines = judgments_path.read_text().splitlines()
    assert lines[0] == "// golden set, reviewed 2026-05" and lines[2] == "// monthly plans"
    assert [label_.chunk_id for label_ in parse_judgments(str(judgments_path)).labels] == [
        cid("d", 1, ANNUAL),
        cid("d", 0, MONTHLY),
    ]


def test_fix_exit_code_reflects_what_still_needs_a_human(tmp_path: Path) -> None:
    judgments_path, corpus_path = fix_case(tmp_path)
    args = ["drift", "-j", str(judgments_path), "-c", str(corpus_path)]
    assert run_cli(*args).code == 1  # before the fix both labels are stale
    assert run_cli(*args, "--fix").code == 0  # after it nothing needs a human
    judgments_path, corpus_path = fix_case(tmp_path, split=True)
    assert run_cli("drift", "-j", str(judgments_path), "-c", str(corpus_path), "--fix").code == 1


def test_max_invalid_ratio_tolerates_decay_up_to_r(tmp_path: Path) -> None:
    judgments_path, corpus_path = fix_case(tmp_path, split=True)
    args = ["drift", "-j", str(judgments_path), "-c", str(corpus_path), "--fix", "--dry-run"]
    assert run_cli(*args, "--max-invalid-ratio", "0.34").code == 0  # 1 of 3 left
    assert run_cli(*args, "--max-invalid-ratio", "0.3").code == 1


def test_a_malformed_corpus_is_exit_2_with_a_message(tmp_path: Path) -> None:
    judgments_path, _ = fix_case(tmp_path)
    bad = write_jsonl(tmp_path / "corpus.jsonl", [{"chunk_id": cid("d", 0, ANNUAL), "text": ANNUAL}])
    result = run_cli("drift", "-j", str(judgments_path), "-c", str(bad), "--fix")
    assert (result.code, result.stdout) == (2, "")
    assert "error  corpus:1: missing required field doc_uri" in result.stderr
    assert "reanchored" not in judgments_path.read_text()
