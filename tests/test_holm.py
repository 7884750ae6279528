"""Holm-Bonferroni over the metrics (and, apart, the strata) a comparison shows."""

from __future__ import annotations

import gc
import random
from pathlib import Path
from typing import Any

import pytest

from compare_data import labels, run, score
from from_json import build_comparison
from retrieval_eval.core.significance import holm
from retrieval_eval.formats.judgments import parse_judgments


def test_holm_by_hand() -> None:
    # Sorted: 0.01 (x4 = 0.04), 0.02 (x3 = 0.06), 0.03 (x2 = 0.06), 0.04 (x1 = 0.04 -> kept at 0.06).
    adjusted = holm({"a": 0.03, "b": 0.01, "c": 0.04, "d": 0.02})
    assert adjusted == {"a": 0.06, "b": 0.04, "c": 0.06, "d": 0.06}


def test_holm_caps_at_one_keeps_ties_and_leaves_one_test_alone() -> None:
    assert holm({"a": 0.4, "b": 0.6}) == {"a": 0.8, "b": 0.8}  # 0.6 x 1 is below 0.8: lifted to it
    assert holm({"a": 0.7, "b": 0.9}) == {"a": 1.0, "b": 1.0}
    assert holm({"a": 0.001, "b": 0.001, "c": 0.001}) == {"a": 0.003, "b": 0.003, "c": 0.003}
    assert holm({"only": 0.037}) == {"only": 0.037}
    assert holm({}) == {}


@pytest.mark.slow  # imports statsmodels
def test_holm_agrees_with_statsmodels(monkeypatch: pytest.MonkeyPatch) -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    # multipletests runs a full gc.collect() on every call (about half a second each in a
    # large test process); it changes no number, so the oracle runs without it.
    monkeypatch.setattr(gc, "collect", lambda generation=2: 0)
    rng = random.Random(4)
    for size in (1, 2, 3, 7, 14, 40):
        for _ in range(25):
            p = {f"m{i}": round(rng.choice((rng.random(), rng.random() / 50, 0.0002)), 6) for i in range(size)}
            reject, expected, _, _ = multitest.multipletests(list(p.values()), alpha=0.05, method="holm")
            ours = holm(p)
            assert list(ours.values()) == pytest.approx(list(expected), abs=1e-12)
            assert [v <= 0.05 for v in ours.values()] == list(reject)


def four_drops(tmp_path: Path) -> dict[str, Any]:
    base = score(tmp_path, "base", labels(), run())
    head = score(tmp_path, "head", labels(), run(misses=[3, 11, 25, 36]), baseline=base)
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    return build_comparison(base, head, judgments=judgments, resamples=2_000)


def test_the_comparison_keeps_raw_p_and_adds_the_adjusted(tmp_path: Path) -> None:
    comparison = four_drops(tmp_path)
    rows = comparison["metrics"]
    tested = {name: row["p_value"] for name, row in rows.items() if row["p_value"] is not None}
    assert len(tested) == 15  # seven metrics (judged@k among them) at two cutoffs, and r_precision (bpref: -k all)
    for name, row in rows.items():
        assert row["p_adjusted"] == holm(tested)[name]
        assert row["significant_adjusted"] == (row["p_adjusted"] <= 0.05)
    # Four of 40 queries dropped: each test alone calls it, fifteen together do not.
    assert rows["recall@5"]["significant"] is True and rows["recall@5"]["p_value"] < 0.05
    assert rows["recall@5"]["significant_adjusted"] is False
    strata = comparison["per_stratum"]
    stratum_p = {name: row["p_value"] for name, row in strata.items()}
    assert set(stratum_p) == {"faq", "howto", "billing"}
    assert {name: row["p_adjusted"] for name, row in strata.items()} == holm(stratum_p)
    # faq lost two of its 14 queries, billing and howto one of 13 each: none survives three tests.
    assert strata["faq"]["p_value"] < strata["billing"]["p_value"] < 1.0
    assert all(row["significant_adjusted"] is False for row in strata.values())


def test_a_significant_gate_keeps_its_own_test_and_says_so(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run())
    head = score(
        tmp_path, "head", labels(), run(misses=[3, 11, 25, 36]), gates=["recall@5:-0.02:significant"], baseline=base
    )
    (gate,) = head["verdict"]["gates"]
    assert gate["status"] == "FAIL"
    assert "and significant (its own 95% interval, not adjusted for the other metrics" in gate["reason"]
