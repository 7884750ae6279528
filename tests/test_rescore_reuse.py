"""Rescoring the base reuses the head's values where a base ranking is the head's very list.

The truth: the same comparison with every base ranking scored again (the reuse turned
off) must be the same document, bit for bit, across yardstick changes (judgments, threshold,
gain), policies, cutoffs and full depth; and the reuse must have served some queries.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from from_json import build_comparison
from retrieval_eval.comparison import rescore
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.formats.judgments import read_label_index
from retrieval_eval.formats.report import as_report
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest


def _write(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _labels(rng: random.Random, queries: int, *, grades: int) -> list[dict[str, Any]]:
    lines = []
    for q in range(queries):
        for key in rng.sample(range(15), rng.randint(1, 9)):
            relevance = rng.randint(0, grades)
            lines.append({"query_id": f"q{q}", "query": f"question {q}", "doc_uri": f"d{key}", "relevance": relevance})
    return lines


CASES = [
    ("judgments", ScoreConfig(k=(3, 5)), ScoreConfig(k=(3, 5))),
    ("judgments", ScoreConfig(k=(5,), unjudged_policy="bounded"), ScoreConfig(k=(5,), unjudged_policy="bounded")),
    ("threshold", ScoreConfig(k=(2, 4)), ScoreConfig(k=(2, 4), threshold=2)),
    ("gain", ScoreConfig(k=(5,), full_depth=True), ScoreConfig(k=(5,), full_depth=True, gain="linear")),
    ("judgments", ScoreConfig(k=(4,)), ScoreConfig(k=(4,), unjudged_policy="condensed")),
]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("change", "base_config", "head_config"), CASES)
def test_reusing_the_heads_values_gives_the_document_of_a_full_rescore(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    seed: int,
    change: str,
    base_config: ScoreConfig,
    head_config: ScoreConfig,
) -> None:
    rng = random.Random(seed)
    queries = 40
    base_labels = _labels(rng, queries, grades=3)
    head_labels = _labels(random.Random(seed + 50), queries, grades=3) if change == "judgments" else base_labels
    base_run = [
        {"query_id": f"q{q}", "ranking": [f"d{k}" for k in rng.sample(range(15), rng.randint(0, 12))]}
        for q in range(queries)
    ]
    # Half the head's rankings are the base's very lists, the rest reshuffled.
    head_run = [
        row if q % 2 else {**row, "ranking": rng.sample(row["ranking"], len(row["ranking"]))}
        for q, row in enumerate(base_run)
    ]
    judgments = _write(tmp_path / "base-j.jsonl", base_labels)
    base = run_pipeline(EvaluationRequest(judgments, _write(tmp_path / "base.jsonl", base_run), base_config)).report
    head_judgments = _write(tmp_path / "head-j.jsonl", head_labels)
    # The head computes its bounds, as the pipeline has it do whenever a base report is given.
    head_request = EvaluationRequest(
        head_judgments, _write(tmp_path / "head.jsonl", head_run), head_config, bounds=True
    )
    head = run_pipeline(head_request).report
    index = read_label_index(head_judgments)

    served: list[int] = []
    real = rescore.head_values

    def counted(*args: Any) -> rescore.Reused:
        found = real(*args)
        served.append(len(found.per_query))
        return found

    monkeypatch.setattr(rescore, "head_values", counted)
    reused = build_comparison(base, head, judgments=index, resamples=200)
    assert reused["yardstick"] in ("rescored", "changed")
    monkeypatch.setattr(rescore, "head_values", lambda *args: rescore.Reused({}, {}, {}))
    assert build_comparison(base, head, judgments=index, resamples=200) == reused
    if reused["yardstick"] == "rescored" and not head_config.condensed:
        assert served and served[0] > 0  # the equal lists were read from the head, not scored
    if head_config.condensed:
        assert served == [0]  # a condensed list comes from a longer one: always scored


def test_a_head_report_without_bounds_tables_reuses_nothing() -> None:
    head = {"rankings": {"q": ["a"]}, "per_query": {"q": {"recall@1": 1.0}}}
    sides = rescore.Sides(as_report({}), as_report(head), None)
    assert rescore.head_values(sides, {"q": ["a"]}, ScoreConfig(k=(1,))).per_query == {}
    head |= {"per_query_upper": {}, "per_query_lower": {}}
    sides = rescore.Sides(as_report({}), as_report(head), None)
    found = rescore.head_values(sides, {"q": ["a"], "r": ["a"]}, ScoreConfig(k=(1,)))
    assert found.per_query == {"q": {"recall@1": 1.0}}
