"""Small golden sets and runs for comparison and rendering tests, scored by the real pipeline."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from retrieval_eval.core.gates import Gating
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.formats.report import as_report
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

NOW = "2026-01-01T00:00:00Z"
STRATA = ("faq", "howto", "billing")


def labels(n: int = 40, *, texts: Sequence[str] | None = None, strata: Sequence[str] = STRATA) -> list[dict[str, Any]]:
    """Each query q00..: document a (grade 2) and b (grade 1) relevant, z judged not relevant."""
    rows = []
    for i in range(n):
        common = {
            "query_id": f"q{i:02d}",
            "query": texts[i] if texts else f"how do I fix problem {i}",
            "labeled_by": "human:test",
            "stratum": strata[i % len(strata)],
        }
        for doc, grade in (("a", 2), ("b", 1), ("z", 0)):
            rows.append({**common, "doc_uri": f"doc://{i}/{doc}", "relevance": grade})
    return rows


def ranking(i: int, *, hit: bool) -> list[str]:
    """A hit ranks both relevant documents first; a miss pushes them below rank 10."""
    noise = [f"doc://noise/{i}/{j}" for j in range(10)]
    relevant = [f"doc://{i}/a", f"doc://{i}/b"]
    return relevant + noise if hit else noise + relevant


def run(n: int = 40, *, misses: Iterable[int] = ()) -> list[dict[str, Any]]:
    missed = set(misses)
    return [{"query_id": f"q{i:02d}", "ranking": ranking(i, hit=i not in missed)} for i in range(n)]


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def score(
    directory: Path,
    name: str,
    judgment_rows: list[dict[str, Any]],
    run_rows: list[dict[str, Any]],
    *,
    k: tuple[int, ...] = (5, 10),
    threshold: int = 1,
    gain: str = "exponential",
    gates: Sequence[str] = (),
    baseline: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Score through the same pipeline as ``retrieval-eval score``; files are named after ``name``."""
    judgments = write_jsonl(directory / f"{name}-judgments.jsonl", judgment_rows)
    run_path = write_jsonl(directory / f"{name}-run.jsonl", run_rows)
    request = EvaluationRequest(
        str(judgments),
        str(run_path),
        ScoreConfig(k=k, threshold=threshold, gain=gain),
        baseline=None if baseline is None else as_report(baseline),
        generated_at=NOW,
        gating=Gating(gates=list(gates)),
    )
    return run_pipeline(request).report
