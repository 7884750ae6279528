"""The scoring pipeline in one place, shared by the CLI, the demo and the action.

parse -> validate -> score -> compare with the baseline -> gates -> verdict ->
report. Pure apart from reading the input files it is pointed at.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.gates import Gate, GateContext, Verdict, decide, evaluate_gate, parse_gate
from ..core.judgments import JudgmentSet
from ..core.labelindex import LabelIndex
from ..core.report import ReportInputs, blocking_findings, build_report, policy_notes
from ..core.scoring import ScoreConfig, Scores
from ..core.validate import Validation, validate
from ..formats.fileio import sha256_file
from ..formats.judgments import read_label_index
from .corpus_stage import CorpusStage
from .forking import shared_map, worker_count
from .run_ranges import RunReading, split_for

if TYPE_CHECKING:  # compare (and its bootstrap) loads only when a baseline is given
    from ..compare import Comparison


@dataclass(frozen=True)
class ScoreRequest:
    judgments_path: str
    run_path: str
    config: ScoreConfig = field(default_factory=ScoreConfig)
    gates: Sequence[str] = ()
    run_format: str = "auto"
    baseline: Mapping[str, Any] | None = None
    judged: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    generated_at: str = "1970-01-01T00:00:00Z"
    corpus_path: str | None = None  # adds the drift summary; maps chunks to documents
    collapse_to_documents: bool = False


@dataclass(frozen=True)
class Evaluation:
    report: dict[str, Any]
    scores: Scores
    validation: Validation
    verdict: Verdict
    comparison: Comparison | None


def parse_gates(request: ScoreRequest) -> list[Gate]:
    return [parse_gate(text, ks=request.config.k, judged=request.judged) for text in request.gates]


def gate_context(scores: Scores, request: ScoreRequest, comparison: Comparison | None) -> GateContext:
    strata = {name: s.metrics for name, s in scores.strata.items() if s.n > 0}
    return GateContext(scores.metrics, strata, request.judged, comparison, bool(scores.per_query))


def evaluate(request: ScoreRequest, *, judgments: JudgmentSet | None = None, workers: int | None = None) -> Evaluation:
    """Score a run file against a judgments file and decide the verdict.

    ``workers`` overrides how many forked workers may help (the entry layer
    reads it from the environment); by default one per spare core, where
    forking is safe (:func:`.forking.worker_count`). The answer is the same either way.
    """
    gates = parse_gates(request)  # usage errors surface before any file is read
    workers = worker_count(workers)
    # A large run starts being read on the spare cores now; its refusals still come after the judgments'.
    reading = RunReading(
        request.run_path,
        request.run_format,
        None if request.collapse_to_documents else request.config.max_k,
        split_for(workers),
    )
    try:
        # Streamed into a compact index: the labels' records are never all held at once.
        index = read_label_index(request.judgments_path) if judgments is None else LabelIndex.from_judgments(judgments)
        stage = CorpusStage.load(
            request.corpus_path, request.judgments_path, collapse=request.collapse_to_documents, judgments=judgments
        )
        scores, run = stage.score_run(
            index, request.run_path, request.config, run_format=request.run_format, reading=reading
        )
    finally:
        reading.close()
    validation = validate(index, threshold=request.config.threshold)
    inputs = ReportInputs(
        judgments_sha256=index.sha256 or sha256_file(request.judgments_path),
        run_sha256=run.sha256,
        generated_at=request.generated_at,
        judged=dict(request.judged),
        corpus=stage.report_corpus(),
        extra=stage.report_extra(),
    )
    blocking = blocking_findings(scores, validation)
    provisional = decide(blocking, [], [])
    report = build_report(index, scores, validation, provisional, inputs)
    stage.annotate(report)
    # The head judgments are at hand, so a changed yardstick can be resolved by rescoring.
    comparison = None
    if request.baseline is not None:
        from ..compare import compare_reports

        comparison = compare_reports(request.baseline, report, judgments=index, map_blocks=shared_map(workers))
    context = gate_context(scores, request, comparison)
    notes = policy_notes(scores) + stage.notes(index, scores)
    verdict = decide(blocking, notes, [evaluate_gate(g, context) for g in gates])
    report["verdict"] = verdict.as_dict()
    return Evaluation(report, scores, validation, verdict, comparison)
