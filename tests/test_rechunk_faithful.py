"""Old chunks are carried into new ones only where that is faithful to the labeled text.

Two re-chunks whose right answer is known by construction (tests/rechunk_scenarios.py):
a grade-0 neighbour merged with the answer into one chunk must not become a hit for the
base, and a paragraph cut into pieces that are all judged relevant again must count as
found wherever the base found the paragraph."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from rechunk_scenarios import make_scenario, pieces_of, split_head_runs, with_neighbours

TOLERANCE = 0.02


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _score(*args: str) -> dict[str, Any]:
    result = run_cli("score", *args, "-k", "5,10", "--json")
    assert result.code in (0, 1), result.stderr
    return result.json()  # type: ignore[no-any-return]


def _gate(files: Any, judgments: Path, base: Path, gate: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The head gated against the base report, and the comparison of the two reports."""
    head = base.with_name("head.json")
    report = _score("-j", str(judgments), "-r", str(files.head_run), "--corpus", str(files.head_corpus),
                    "--baseline", str(base), "-g", gate, "--report", str(head))  # fmt: skip
    compared = run_cli("compare", "--base", str(base), "--head", str(head), "--judgments", str(judgments), "--json")
    return report, json.loads(compared.stdout)


@pytest.mark.parametrize("outcome", ["same", "worse", "better"])
def test_a_grade_0_neighbour_merged_with_the_answer_is_no_hit_for_the_base(tmp_path: Path, outcome: str) -> None:
    scenario = make_scenario("merged-paragraphs", outcome)
    files = scenario.write(tmp_path)
    neighbours = with_neighbours(scenario, files)
    # The neighbour takes rank 1 wherever the answer is not first, and shares the answer's new chunk.
    assert sum(1 for q in scenario.queries if scenario.base_runs[q.id][0] == neighbours[q.id].id) >= 5
    base = tmp_path / "base.json"
    _score("-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
           "--report", str(base))  # fmt: skip
    fixed = tmp_path / "judgments.v2.jsonl"
    drift = run_cli("drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed))
    assert drift.code == 0, drift.stdout
    assert any("collapsed_from" in line for line in _lines(fixed))  # both labels met on one chunk
    report, document = _gate(files, fixed, base, "recall@5:-0.02")
    assert document["yardstick"] == "translated"
    for metric in ("recall@5", "mrr@10"):
        row = document["metrics"][metric]
        assert row["base"] == pytest.approx(scenario.truth.base[metric], abs=TOLERANCE), metric
        assert row["delta"] == pytest.approx(scenario.truth.delta(metric), abs=TOLERANCE), metric
    assert report["verdict"]["status"] == scenario.truth.verdict(0.02)


BROKEN = 3


def test_a_paragraph_cut_into_pieces_judged_relevant_is_found_where_the_base_found_it(tmp_path: Path) -> None:
    scenario = make_scenario("sentences", "same")
    broken = scenario.queries[:BROKEN]
    split_head_runs(scenario, broken, random.Random(3))
    files = scenario.write(tmp_path)
    labels = _lines(files.judgments)
    for record in labels[:BROKEN]:
        del record["quote"]  # nothing says which sentence answers: the labels are SPLIT
    files.judgments.write_text("".join(json.dumps(r) + "\n" for r in labels), encoding="utf-8")
    base = tmp_path / "base.json"
    _score("-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
           "--report", str(base))  # fmt: skip
    fixed, queue = tmp_path / "judgments.v2.jsonl", tmp_path / "rejudge.jsonl"
    run_cli("drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed),
            "--queue", str(queue))  # fmt: skip
    queued = _lines(queue)
    assert len(queued) == sum(len(pieces_of(scenario, q)) for q in broken) > BROKEN
    for line in queued:  # every piece holds part of the answer paragraph: a person judges each relevant
        line["relevance"] = 1
        line["labeled_by"] = "human:re-judge"
    fixed.write_text(fixed.read_text() + "".join(json.dumps(line) + "\n" for line in queued))
    assert run_cli("drift", "-j", str(fixed), "-c", str(files.head_corpus), "--fix").code == 0
    # The truth: every paragraph is found at the rank it was found before, whole.
    assert scenario.truth.delta("recall@5") == 0 and scenario.truth.delta("mrr@10") == 0
    report, document = _gate(files, fixed, base, "recall@5:+0.01")
    assert document["yardstick"] == "translated"
    for metric in ("recall@5", "mrr@10"):
        assert document["metrics"][metric]["delta"] == pytest.approx(0.0, abs=TOLERANCE), metric
        assert document["metrics"][metric]["base"] == pytest.approx(scenario.truth.base[metric], abs=TOLERANCE), metric
    assert report["verdict"]["status"] == "FAIL"  # no gain of +0.01 happened


def test_a_document_run_against_chunk_labels_is_decided_by_no_delta_gate(tmp_path: Path) -> None:
    """The head ranks documents against chunk labels: every metric is 0 whatever it found, so a
    significant drop is no FAIL (and a lenient gate no PASS); the reason says no key can match."""
    scenario = make_scenario("paragraphs", "same")
    files = scenario.write(tmp_path)
    base = tmp_path / "base.json"
    _score("-j", str(files.judgments), "-r", str(files.base_run), "--report", str(base))
    documents = tmp_path / "run.docs.jsonl"
    doc_of = {c.id: c.doc for c in scenario.base_chunks}
    rows = [
        {"query_id": q, "ranking": list(dict.fromkeys(doc_of[k] for k in keys))}
        for q, keys in scenario.base_runs.items()
    ]
    documents.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    for gate in ("recall@5:-0.02:significant", "recall@5:-0.99"):
        result = run_cli(
            "score", "-j", str(files.judgments), "-r", str(documents), "-k", "5,10", "--baseline", str(base),
            "-g", gate, "--json",
        )  # fmt: skip
        report = result.json()
        assert report["verdict"]["status"] == "INDETERMINATE", (gate, report["verdict"]["reasons"])
        assert result.code == 1
        assert "no key can match" in report["verdict"]["reasons"][0]


def test_rankings_a_merge_shortened_say_so_when_they_cannot_be_scored_deeper(tmp_path: Path) -> None:
    """Two relevant paragraphs of one query merged into one chunk meet at one rank: the translated
    ranking is one id shorter, and the id the base ranked 11th (not stored) would enter its top 10.
    The @10 deltas are not compared, and the reason names the merge, not another yardstick."""
    scenario = make_scenario("merged-paragraphs", "same")
    files = scenario.write(tmp_path)
    with_neighbours(scenario, files, grade=1)
    base = tmp_path / "base.json"
    _score("-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
           "--report", str(base))  # fmt: skip
    fixed = tmp_path / "judgments.v2.jsonl"
    assert (
        run_cli("drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed)).code
        == 0
    )
    _, document = _gate(files, fixed, base, "recall@5:-0.02")
    merged = [
        q
        for q in scenario.queries
        if scenario.base_runs[q.id][0] != q.base_answer and q.base_answer in scenario.base_runs[q.id]
    ]
    assert merged  # the neighbour at rank 1 and the answer below it meet on one new chunk
    reasons = [f["detail"] for f in document["comparability"] if f["code"] == "rankings-too-short"]
    assert reasons and all("merged old chunks" in r and "would now enter the top" in r for r in reasons)
    assert document["metrics"]["recall@10"].get("confounded")
    assert not document["metrics"]["recall@5"].get("confounded")


def test_the_page_says_the_base_keys_are_old_chunk_ids_after_a_rechunk(tmp_path: Path) -> None:
    """The base column of a query shows the base's own keys, which name chunks before the re-chunk:
    they are marked as old ids, not as unjudged text."""
    from from_json import html_report

    scenario = make_scenario("merged-paragraphs", "same")
    files = scenario.write(tmp_path)
    base = tmp_path / "base.json"
    _score("-j", str(files.judgments), "-r", str(files.base_run), "--corpus", str(files.base_corpus),
           "--report", str(base))  # fmt: skip
    fixed = tmp_path / "judgments.v2.jsonl"
    assert (
        run_cli("drift", "-j", str(files.judgments), "-c", str(files.head_corpus), "--fix", "--out", str(fixed)).code
        == 0
    )
    _, document = _gate(files, fixed, base, "recall@5:-0.02")
    head = json.loads((tmp_path / "head.json").read_text())
    page = html_report(head, document, base=json.loads(base.read_text()), judgments=str(fixed))
    assert "the base column shows the base's own keys, the old chunk ids" in page
    found = next(q for q in scenario.queries if scenario.base_runs[q.id][0] == q.base_answer)
    section = re.search(rf'<details class="query"[^>]*data-search="{found.id} .*?</details>', page, re.S)
    assert section is not None
    block = re.search(r'<div class="side-base">(.*?)</ol>', section.group(0), re.S)
    assert block is not None
    shown = re.findall(r'<span class="label [^"]*">([^<]*)</span> <span class="key">([^<]*)</span>', block.group(1))
    assert shown[0] == ("old chunk id", found.base_answer)
    assert all(label == "old chunk id" for label, _ in shown)
