"""Quote anchors: a verbatim passage marked as the evidence can pin a split label."""

from __future__ import annotations

from drift_support import cid, corpus, judgments, label
from retrieval_eval.core.drift import MERGED, ORPHANED, SPLIT, check_drift
from retrieval_eval.core.drift_fix import plan_fix
from retrieval_eval.core.validate import validate
from retrieval_eval.formats.judgment_records import write_judgments

FIRST = "Annual plans may be refunded within 30 days of renewal."
SECOND = "Monthly plans are non-refundable after the billing date."
LABELED = f"{FIRST}\n\n{SECOND}"
DOCS = {"d": [FIRST, SECOND]}


def resolve(*records: dict, docs: dict | None = None):  # type: ignore[no-untyped-def,type-arg]
    return check_drift(judgments(records), corpus(docs or DOCS))


def test_a_quote_inside_one_piece_of_a_split_makes_it_recoverable() -> None:
    result = resolve(label("q", "d", LABELED, quote="non-refundable after the billing"))
    [finding] = result.findings
    assert (finding.status, finding.rule, finding.target) == (MERGED, "quote", cid("d", 1, SECOND))
    plan = plan_fix(result)
    [repaired] = plan.judgments.labels
    assert repaired.chunk_id == cid("d", 1, SECOND)
    assert repaired.get("reanchored") == {"rule": "quote", "from": result.labels[0].chunk_id}
    assert repaired.get("quote") == "non-refundable after the billing"


def test_a_quote_across_the_boundary_stays_split_naming_the_chunks() -> None:
    [finding] = resolve(label("q", "d", LABELED, quote="30 days of renewal. Monthly plans")).findings
    assert (finding.status, finding.rule) == (SPLIT, "quote_straddles")
    assert finding.covering == (cid("d", 0, FIRST), cid("d", 1, SECOND))


def test_a_quote_that_matches_nothing_is_orphaned() -> None:
    [finding] = resolve(label("q", "d", LABELED, quote="refunds take ten days")).findings
    assert (finding.status, finding.rule) == (ORPHANED, "quote_missing")


def test_a_quote_found_in_two_chunks_is_not_guessed() -> None:
    [finding] = resolve(label("q", "d", LABELED, quote="plans")).findings
    assert (finding.status, finding.rule) == (SPLIT, "quote_repeated")
    assert len(finding.covering) == 2


def test_a_quote_alone_anchors_a_label_without_chunk_text() -> None:
    record = label("q", "d", "an old paragraph that is gone", with_text=False, quote="refunded within 30 days")
    [finding] = resolve(record).findings
    assert (finding.status, finding.rule, finding.target) == (MERGED, "quote", cid("d", 0, FIRST))


def test_a_quote_is_compared_normalized() -> None:
    # Outer white space and line ends go, as for any text compared by drift; the inside stays.
    [finding] = resolve(label("q", "d", LABELED, quote="\r\n  non-refundable after the billing \r\n")).findings
    assert finding.status == MERGED


def test_the_labeled_text_inside_a_chunk_needs_no_quote() -> None:
    docs = {"d": [f"{FIRST} {SECOND}"]}
    [finding] = resolve(label("q", "d", FIRST, quote="nowhere at all"), docs=docs).findings
    assert (finding.status, finding.rule) == (MERGED, "chunk_text_contained")


def test_split_labels_are_left_alone_by_the_fix() -> None:
    result = resolve(label("q1", "d", LABELED, quote="30 days of renewal. Monthly plans"), label("q2", "d", LABELED))
    plan = plan_fix(result)
    assert plan.changes == () and write_judgments(plan.judgments).count("reanchored") == 0
    assert validate(plan.judgments).ok
