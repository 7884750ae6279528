"""A comparison computes the bounds a lean report left out without scoring it again, and in a worker.

``per_query_bounds`` must give exactly what ``score_rankings`` with bounds gives per query
(the oracle-tested scoring, here the reference) on rankings built to reach every branch:
unjudged keys anywhere in the top k, queries with no relevant label, no-answer queries,
queries missing from the rankings, condensed lists, whole rankings, graded gains.
``PendingBounds`` must give the same reports whether a worker computed them, none could
be forked, or the worker died before sending anything.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from retrieval_eval.core.metrics import ValuesOnDemand, bounds_query, score_query
from retrieval_eval.core.report_model import Report
from retrieval_eval.core.scoring import QueryLabels, ScoreConfig, per_query_bounds, rank_query, score_rankings
from retrieval_eval.formats.judgments import read_label_index
from retrieval_eval.formats.report import load_report
from retrieval_eval.pipeline import score_run
from retrieval_eval.pipeline.forking import may_fork
from retrieval_eval.pipeline.score_run import PendingBounds, with_base_bounds

CONFIGS = [
    ScoreConfig(k=(1, 3, 10)),
    ScoreConfig(k=(5,), threshold=2, gain="linear"),
    ScoreConfig(k=(3, 10), full_depth=True),
    ScoreConfig(k=(5, 10), unjudged_policy="condensed"),
]


def _labels(rng: random.Random, queries: int) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    for number in range(queries):
        query = f"q{number:03d}"
        if number % 17 == 5:
            lines.append({"query_id": query, "query": f"text {number}", "expect": "no_answer"})
            continue
        docs = rng.sample(range(60), rng.randint(1, 12))
        for doc in docs:
            # Every ninth query has nothing above grade 0: no relevant label yet.
            grade = 0 if number % 9 == 4 else rng.choice((0, 0, 1, 2, 3))
            lines.append(
                {
                    "query_id": query,
                    "query": f"text {number}",
                    "doc_uri": f"d{doc}",
                    "relevance": grade,
                    "stratum": f"s{number % 3}",
                }
            )
    return lines


def _rankings(rng: random.Random, queries: int) -> dict[str, list[str]]:
    found = {}
    for number in range(queries):
        if number % 13 == 2:
            continue  # not in the run
        depth = rng.choice((0, 2, 5, 10, 14, 25))
        found[f"q{number:03d}"] = [f"d{doc}" for doc in rng.sample(range(60), depth)]
    return found


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"k{c.k}-t{c.threshold}-{c.gain}-{c.unjudged_policy}")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_bounds_alone_are_the_bounds_scoring_gives(tmp_path: Path, config: ScoreConfig, seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / "judgments.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in _labels(rng, 120)))
    index = read_label_index(str(path))
    rankings = _rankings(rng, 130)  # ten queries in the run that no label names
    reference = score_rankings(index, rankings, replace(config, bounds=True))
    lower, upper = per_query_bounds(index, rankings, replace(config, bounds=True))
    expected_lower = {q: row for q, row in reference.per_query_lower.items() if q in rankings}
    expected_upper = {q: row for q, row in reference.per_query_upper.items() if q in rankings}
    # Built to hold unjudged keys; a condensed list has none left, so no query has bounds.
    assert bool(expected_upper) == (config.unjudged_policy != "condensed")
    # The same queries in the same order, and the same values to the last bit (JSON writes them).
    assert json.dumps(lower) == json.dumps(expected_lower)
    assert json.dumps(upper) == json.dumps(expected_upper)


def _lean_reports(tmp_path: Path) -> tuple[Report, Report, str]:
    """Two reports as `score --out` writes them (no bounds), scored on the same judgments."""
    rng = random.Random(7)
    judgments = tmp_path / "judgments.jsonl"
    judgments.write_text("".join(json.dumps(line) + "\n" for line in _labels(rng, 80)))
    reports = []
    for name in ("base", "head"):
        run = tmp_path / f"{name}.jsonl"
        run.write_text(
            "".join(json.dumps({"query_id": q, "ranking": keys}) + "\n" for q, keys in _rankings(rng, 80).items())
        )
        out = tmp_path / f"{name}.json"
        result = run_cli("score", "-j", str(judgments), "-r", str(run), "-k", "3,10", "--out", str(out))
        assert result.code == 0, result.stderr
        report = load_report(str(out), source=name)
        assert report.computed == () and report.per_query_upper is None
        reports.append(report)
    return reports[0], reports[1], str(judgments)


def _tables(report: Report) -> str:
    return json.dumps([report.computed, report.per_query_lower, report.per_query_upper])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_a_worker_no_worker_or_a_dead_worker_give_the_same_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, head, judgments = _lean_reports(tmp_path)
    index = read_label_index(judgments)
    expected = [with_base_bounds(report, index) for report in (base, head)]
    assert expected[0].per_query_upper and expected[1].per_query_upper
    assert expected[0].computed == ("bounds",)
    for workers in (0, 1):
        pending = PendingBounds((base, head), index, workers=workers)
        assert (pending._child is not None) == (workers == 1 and may_fork())
        found = pending.reports()
        assert pending.reports() is found  # waited for once
        assert [_tables(r) for r in found] == [_tables(r) for r in expected]
    # The base alone, as the pipeline starts it while the head is scored.
    (only_base,) = PendingBounds((base,), index, workers=1).reports()
    assert _tables(only_base) == _tables(expected[0])
    # A worker that dies before sending: this process computes what it did not deliver.
    monkeypatch.setattr(score_run, "send_message", lambda fd, message: os._exit(3))
    pending = PendingBounds((base, head), index, workers=1)
    assert pending._child is not None or not may_fork()
    assert [_tables(r) for r in pending.reports()] == [_tables(r) for r in expected]
    pending.close()  # idempotent


def test_compare_writes_the_same_bytes_with_the_bounds_in_a_worker_or_here(tmp_path: Path) -> None:
    base, head, judgments = _lean_reports(tmp_path)
    outputs = []
    for workers in ("0", "1", "2"):
        out = tmp_path / f"comparison-{workers}.json"
        result = run_cli(
            "compare",
            "--base",
            str(tmp_path / "base.json"),
            "--head",
            str(tmp_path / "head.json"),
            "-j",
            judgments,
            "--out",
            str(out),
            env={**os.environ, "RETRIEVAL_EVAL_WORKERS": workers},
        )
        assert result.code == 0, result.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    document = json.loads(outputs[0])
    assert any("bounds" in row for row in document["metrics"].values())


def test_rankings_the_two_sides_kept_alike_are_bounded_once_and_alike(tmp_path: Path) -> None:
    # The head keeps half of the base's rankings as they were and reverses the others: shared
    # bounds must be the ones each side computed alone, for the kept and the changed rankings.
    base, _, judgments = _lean_reports(tmp_path)
    index = read_label_index(judgments)
    rankings = dict(base.rankings or {})
    changed = {q: keys[::-1] for number, (q, keys) in enumerate(rankings.items()) if number % 2 and len(keys) > 1}
    head = replace(base, rankings={**rankings, **changed})
    alone = [with_base_bounds(report, index) for report in (base, head)]
    cache = score_run.IndexCache()
    shared = [with_base_bounds(report, index, cache=cache) for report in (base, head)]
    assert [_tables(r) for r in shared] == [_tables(r) for r in alone]
    assert _tables(alone[0]) != _tables(alone[1])  # the reversed rankings moved some bounds
    (known,) = cache.known.values()
    apart = []
    for report in (base, head):
        own = score_run.IndexCache()
        with_base_bounds(report, index, cache=own)
        apart.append(len(next(iter(own.known.values()))))
    # Computed apart, each side bounds each of its queries; shared, the rankings kept alike once.
    assert max(apart) <= len(known) < sum(apart)


def test_score_against_a_lean_base_gates_as_against_a_full_one_with_the_bounds_in_a_worker_or_here(
    tmp_path: Path,
) -> None:
    # The pipeline starts the base's bounds in a worker once the judgments are read; a bounded
    # delta gate reads them (its reason states the delta's bounds). A base scored with its
    # bounds (--bounds) must gate alike: the bounds computed here are the ones it wrote.
    _, _, judgments = _lean_reports(tmp_path)
    full = tmp_path / "base-full.json"
    result = run_cli(
        "score", "-j", judgments, "-r", str(tmp_path / "base.jsonl"), "-k", "3,10", "--bounds", "--out", str(full)
    )
    assert result.code in (0, 1), result.stderr
    verdicts = []
    for base, workers in (("base.json", "0"), ("base.json", "1"), ("base-full.json", "0")):
        out = tmp_path / f"report-{base}-{workers}.json"
        result = run_cli(
            "score",
            "-j",
            judgments,
            "-r",
            str(tmp_path / "head.jsonl"),
            "-k",
            "3,10",
            "--unjudged",
            "bounded",
            "-g",
            "precision@3:-0.01",
            "--baseline",
            str(tmp_path / base),
            "--out",
            str(out),
            "--now",
            "2026-01-01T00:00:00Z",
            env={**os.environ, "RETRIEVAL_EVAL_WORKERS": workers},
        )
        assert result.code in (0, 1, 3), result.stderr
        verdicts.append(json.loads(out.read_text())["verdict"])
    assert verdicts[0] == verdicts[1] == verdicts[2]
    (gate,) = verdicts[0]["gates"]
    assert gate["expression"] == "precision@3:-0.01"
    assert "bound" in json.dumps(gate), gate  # the delta's bounds were read


def test_values_on_demand_are_score_querys_values_computed_when_read() -> None:
    # d1 relevant at rank 1, x unjudged at rank 2: the @1 metrics have no unjudged key in their
    # top 1, so the bounds read their values; the @2 metrics have one and read none.
    labels = QueryLabels({"d1": 1, "z": 0}, 1, (1.0,), None)
    query = rank_query(labels, ["d1", "x"], {0: 0.0, 1: 1.0}, 1)
    ks = (1, 2)
    values = score_query(query, ks)
    lazy = ValuesOnDemand(query, ks)
    assert bounds_query(query, lazy, ks) == bounds_query(query, values, ks)
    assert lazy and set(lazy) <= {name for name in values if name.endswith("@1") or name == "r_precision"}
    assert all(lazy[name] == values[name] for name in values)  # each read, computed as score_query does
