"""Drift after the re-chunks of tests/rechunk_scenarios.py, against offsets computed from the
documents themselves: text still wholly present is never ORPHANED, a split names the chunks
that hold it, and a quote re-anchors across boundaries that cut the labeled paragraph."""

from __future__ import annotations

import json

import pytest

from rechunk_scenarios import OVERLAP, WINDOW, Scenario, make_scenario, snapshot
from retrieval_eval.core.drift import MERGED, SPLIT, check_drift
from retrieval_eval.core.judgments import JudgmentSet
from retrieval_eval.formats.corpus import corpus_from_records
from retrieval_eval.formats.judgment_records import judgment_from_record


def _drift(scenario: Scenario, *, quotes: bool) -> list[tuple[str, object]]:
    records = scenario.labels()
    if not quotes:
        for record in records:
            del record["quote"]
    labels = JudgmentSet(tuple(judgment_from_record(r, i + 1) for i, r in enumerate(records)))
    document = snapshot(scenario.head_chunks, scenario.head_fingerprint, "v2")
    corpus = corpus_from_records(
        json.loads(json.dumps(document["chunks"])), corpus_fingerprint="v2", chunker_fingerprint="x"
    )
    return list(zip(scenario.queries, check_drift(labels, corpus).findings))


def _windows_over(scenario: Scenario, doc_uri: str, text: str) -> list[tuple[str, int, int]]:
    """(chunk id, start, end) of every window of the document that overlaps ``text``'s span."""
    doc = next(d for d in scenario.docs if d.uri == doc_uri)
    start = doc.text.index(text)
    end = start + len(text)
    chunks = [c for c in scenario.head_chunks if c.doc == doc_uri]
    spans = [(c.id, i * (WINDOW - OVERLAP), i * (WINDOW - OVERLAP) + WINDOW) for i, c in enumerate(chunks)]
    return [(cid, a, b) for cid, a, b in spans if a < end and b > start]


def test_paragraphs_cut_by_overlapping_windows_are_split_over_the_windows_that_hold_them() -> None:
    scenario = make_scenario("windows", "same")
    cut = 0
    for query, finding in _drift(scenario, quotes=False):
        over = _windows_over(scenario, query.doc, query.paragraph)
        if finding.status == MERGED:  # wholly inside one window
            assert finding.target in {cid for cid, _, _ in over}
            continue
        cut += 1
        assert finding.status == SPLIT and finding.rule == "chunk_text_spans", finding
        assert len(finding.covering) >= 2 and set(finding.covering) <= {cid for cid, _, _ in over}
        doc = next(d for d in scenario.docs if d.uri == query.doc)
        start = doc.text.index(query.paragraph)
        covered = sorted((a, b) for cid, a, b in over if cid in finding.covering)
        assert covered[0][0] <= start and covered[-1][1] >= start + len(query.paragraph)
        assert all(next_a <= b for (_, b), (next_a, _) in zip(covered, covered[1:]))  # no gap
    assert cut >= 10  # the scenario does cut paragraphs


@pytest.mark.parametrize("chunker", ["windows", "sentences"])
def test_a_quote_re_anchors_to_the_one_chunk_that_holds_it(chunker: str) -> None:
    scenario = make_scenario(chunker, "same")
    for query, finding in _drift(scenario, quotes=True):
        assert finding.status == MERGED and finding.target == query.head_answer, (query.id, finding)


def test_sentence_splits_name_every_sentence_of_the_paragraph() -> None:
    scenario = make_scenario("sentences", "same")
    for query, finding in _drift(scenario, quotes=False):
        pieces = [c.id for c in scenario.head_chunks if c.doc == query.doc and c.text in query.paragraph]
        assert finding.status == SPLIT and list(finding.covering) == pieces
