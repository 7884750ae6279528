"""The drift engine: the spec's drift and merge fixtures, each resolution rule, the index."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drift_support import cid, corpus, judgments, label
from helpers import expected, fixture_path, run_cli
from retrieval_eval.core.drift import (
    MERGED,
    ORPHANED,
    RE_ANCHORABLE,
    SPLIT,
    VALID,
    DocumentIndex,
    check_drift,
    overlap,
    squeeze,
)
from retrieval_eval.formats.corpus import read_corpus
from retrieval_eval.formats.drift import summary_to_json
from retrieval_eval.formats.judgments import parse_judgments

PARA_A = "Annual plans may be refunded within 30 days of renewal."
PARA_B = "Monthly plans are non-refundable after the billing date."
PARA_C = "Enterprise refunds are negotiated per contract."


def fixture_result(case: str):  # type: ignore[no-untyped-def]
    return check_drift(
        parse_judgments(fixture_path(case, "judgments.jsonl")), read_corpus(fixture_path(case, "corpus.json"))
    )


def assert_matches_fixture(
    case: str,
    statuses: dict[str, str],
    summary: dict[str, object],
    targets: dict[str, str],
    covering: dict[str, list[str]],
) -> None:
    want = expected(case)
    assert statuses == want["statuses"]
    assert summary == pytest.approx(want["summary"])
    assert {q: t for q, t in targets.items() if q in want.get("reanchor", {})} == want.get("reanchor", {})
    assert covering == want.get("split_into", {})


@pytest.mark.parametrize("case", ["drift", "merge"])
def test_fixture_through_the_library(case: str) -> None:
    result = fixture_result(case)
    statuses = {label.query_id: f.status for label, f in result.pairs()}
    targets = {label.query_id: f.target for label, f in result.pairs() if f.target}
    covering = {label.query_id: list(f.covering) for label, f in result.pairs() if f.status == SPLIT}
    assert_matches_fixture(case, statuses, summary_to_json(result.summary()), targets, covering)


@pytest.mark.parametrize("case", ["drift", "merge"])
def test_fixture_through_the_cli(case: str) -> None:
    result = run_cli(
        "drift", "-j", fixture_path(case, "judgments.jsonl"), "-c", fixture_path(case, "corpus.json"), "--json"
    )
    assert result.code == 1  # labels decayed
    payload = result.json()
    entries = payload["labels"]
    summary = {k: payload["summary"][k] for k in expected(case)["summary"]}
    assert_matches_fixture(
        case,
        {e["query_id"]: e["status"] for e in entries},
        summary,
        {e["query_id"]: e["target"] for e in entries if "target" in e},
        {e["query_id"]: e["covering"] for e in entries if e["status"] == SPLIT},
    )


def test_fixture_text_output_has_counts_ratio_split_and_next() -> None:
    result = run_cli(
        "drift", "-j", fixture_path("drift", "judgments.jsonl"), "-c", fixture_path("drift", "corpus.json")
    )
    assert result.code == 1
    out = result.stdout
    assert "4 labels checked against 4 chunks in 1 document" in out
    assert "invalid ratio 0.75 (3 of 4 labels): 1 recoverable with --fix, 2 need a human" in out
    assert "needs a human" in out and "line 3  q3  SPLIT" in out and "line 4  q4  ORPHANED" in out
    assert "next  retrieval-eval drift --judgments" in out and out.rstrip().count("next") == 2


# --- each rule on its own -------------------------------------------------------


def resolve(docs: dict[str, list[str]], *records: dict) -> list:  # type: ignore[type-arg]
    return list(check_drift(judgments(records), corpus(docs)).findings)


def test_a_live_chunk_id_is_valid() -> None:
    docs = {"d": [PARA_A]}
    record = label("q", "d", PARA_A) | {"chunk_id": cid("d", 0, PARA_A)}
    [finding] = resolve(docs, record)
    assert (finding.status, finding.rule) == (VALID, "chunk_id")


def test_a_document_level_label_is_valid_while_its_document_lives() -> None:
    docs = {"d": [PARA_A]}
    live = {"query_id": "q", "doc_uri": "d", "relevance": 1}
    gone = {"query_id": "q", "doc_uri": "gone", "relevance": 1}
    assert [(f.status, f.rule) for f in resolve(docs, live, gone)] == [(VALID, "document"), (ORPHANED, "document_gone")]


def test_text_sha_re_anchors_within_the_document() -> None:
    [finding] = resolve({"d": [PARA_B, PARA_A]}, label("q", "d", PARA_A, with_text=False))
    assert (finding.status, finding.rule, finding.target) == (RE_ANCHORABLE, "text_sha", cid("d", 1, PARA_A))


def test_hash_of_chunk_text_stands_in_for_a_missing_text_sha() -> None:
    record = label("q", "d", PARA_A)
    del record["text_sha"]
    [finding] = resolve({"d": [PARA_A]}, record)
    assert finding.status == RE_ANCHORABLE


def test_chunk_text_inside_a_chunk_is_merged_into_the_shortest() -> None:
    docs = {"d": [f"{PARA_A} {PARA_B} {PARA_C}", f"{PARA_A} {PARA_B}"]}
    [finding] = resolve(docs, label("q", "d", PARA_A))
    assert (finding.status, finding.rule, finding.target) == (MERGED, "chunk_text_contained", cid("d", 1, docs["d"][1]))


def test_chunk_text_over_two_chunks_is_split_naming_both() -> None:
    docs = {"d": [PARA_C, PARA_A, PARA_B]}
    [finding] = resolve(docs, label("q", "d", f"{PARA_A}\n\n{PARA_B}"))
    assert (finding.status, finding.rule) == (SPLIT, "chunk_text_split")
    assert finding.covering == (cid("d", 1, PARA_A), cid("d", 2, PARA_B))
    assert finding.target is None


def test_chunk_text_cut_into_pieces_with_one_edited_is_orphaned_not_split() -> None:
    # The paragraph A B C is cut into one chunk a sentence, and B is edited on the way. A and C lie
    # inside the labeled text, but read across the chunks the text is not whole: calling it SPLIT
    # over A and C would send a person to re-judge those two only, never the edited B (which may
    # be what answered), and carry the old chunk into A and C alone.
    edited = PARA_B.replace("billing", "invoice")
    [finding] = resolve({"d": [PARA_A, edited, PARA_C]}, label("q", "d", f"{PARA_A} {PARA_B} {PARA_C}"))
    assert (finding.status, finding.rule) == (ORPHANED, "chunk_text_changed")
    assert finding.covering == () and finding.target is None
    # Unedited, the same cut is a split over all three.
    [finding] = resolve({"d": [PARA_A, PARA_B, PARA_C]}, label("q", "d", f"{PARA_A} {PARA_B} {PARA_C}"))
    assert (finding.status, finding.rule) == (SPLIT, "chunk_text_split") and len(finding.covering) == 3


def test_only_text_sha_cannot_tell_a_split_from_an_orphan() -> None:
    [finding] = resolve({"d": [PARA_A, PARA_B]}, label("q", "d", f"{PARA_A} {PARA_B}", with_text=False))
    assert (finding.status, finding.rule) == (ORPHANED, "text_gone")


def test_edited_text_is_orphaned() -> None:
    [finding] = resolve({"d": [PARA_A]}, label("q", "d", "Annual plans may be refunded within 60 days."))
    assert (finding.status, finding.rule) == (ORPHANED, "text_gone")


def test_invalid_ratio_counts_recoverable_labels_too() -> None:
    docs = {"d": [PARA_A, PARA_B]}
    result = check_drift(
        judgments([label("q1", "d", PARA_A) | {"chunk_id": cid("d", 0, PARA_A)}, label("q2", "d", PARA_B)]),
        corpus(docs),
    )
    assert result.invalid_ratio == 0.5 and result.recoverable == 1 and result.needs_human == 0


def test_progress_is_reported_up_to_the_total() -> None:
    seen: list[tuple[int, int]] = []
    docs = {"d": [PARA_A], "e": [PARA_B]}
    check_drift(
        judgments([label("q1", "d", f"x {PARA_A} y"), label("q2", "e", f"z {PARA_B}")]),
        corpus(docs),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen and seen[-1] == (2, 2)


# --- the per-document index ------------------------------------------------------


def test_index_finds_chunks_inside_a_text_without_scanning_them() -> None:
    texts = [PARA_A, PARA_B, PARA_C, "Tiny."]
    index = DocumentIndex(corpus({"d": texts}), "d")
    assert index.inside(f"{PARA_B} {PARA_C} Tiny. more") == [1, 2, 3]
    assert index.containing("refunded within 30") == [0]
    assert index.containing("plans") == [0, 1]
    assert index.containing("not there") == []


def test_index_skips_empty_chunks() -> None:
    index = DocumentIndex(corpus({"d": ["", PARA_A]}), "d")
    assert index.ids == [cid("d", 1, PARA_A)] and index.inside("anything") == []


@pytest.mark.parametrize(
    "texts",
    [
        ["Alpha beta gamma delta epsilon.", "Zeta eta theta iota kappa."],  # clean boundary
        ["Alpha beta gamma delta epsilon. Zeta eta", "Zeta eta theta iota kappa."],  # chunker overlap
        ["Alpha beta gamma delta epsil", "on. Zeta eta theta iota kappa."],  # cut inside a word
    ],
)
def test_index_names_the_chunks_a_quote_straddles(texts: list[str]) -> None:
    index = DocumentIndex(corpus({"d": texts}), "d")
    assert index.containing("epsilon. Zeta eta theta") == []
    assert index.touched("epsilon.\nZeta  eta theta") == [0, 1]


def test_overlap_and_squeeze() -> None:
    assert overlap("abcdef", "defgh") == 3
    assert overlap("abc", "xyz") == 0
    assert overlap("", "x") == 0
    assert squeeze(" a b\n\tc ") == "abc"


# --- the index against brute force, on text made of two letters (so repeats abound) ---

TEXT = st.text(alphabet="ab", min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=8), probe=st.text(alphabet="ab", min_size=1, max_size=120))
def test_index_agrees_with_a_scan_of_every_chunk(texts: list[str], probe: str) -> None:
    index = DocumentIndex(corpus({"d": texts}), "d")
    assert index.inside(probe) == [k for k, text in enumerate(texts) if text in probe]
    assert index.containing(probe) == [k for k, text in enumerate(texts) if probe in text]


@settings(max_examples=300, deadline=None)
@given(left=st.text(alphabet="ab", max_size=40), right=st.text(alphabet="ab", max_size=40))
def test_overlap_is_the_longest_shared_edge(left: str, right: str) -> None:
    longest = next((n for n in range(min(len(left), len(right)), 0, -1) if left.endswith(right[:n])), 0)
    assert overlap(left, right) == longest
