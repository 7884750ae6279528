"""The scoring pipeline in one place, shared by the CLI, the demo, the library and the action.

read -> validate -> score -> (drift) -> compare with the baseline -> gates -> verdict ->
report. The verdict is decided once, by :func:`~retrieval_eval.core.gates.decide`, from
the blocking findings, the gates (max-drift among them) and the notes; the report is then
assembled once and never patched. Pure apart from reading the input files it is pointed at.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from ..core.comparison import Deltas
from ..core.corpus import Corpus
from ..core.errors import InputError
from ..core.fingerprints import corpus_changes
from ..core.gates import GateReadings, GateResult, decide, evaluate_gate, max_drift_gate
from ..core.judgments import JudgmentSet
from ..core.labelindex import LabelIndex
from ..core.rejudge import stranded
from ..core.report import (
    ReportInputs,
    blocking_findings,
    hit_documents,
    policy_notes,
    report_body,
    with_verdict,
)
from ..core.report_model import CorpusInfo, Drift, Floor, MachineLabels, Report, StaleLabel
from ..core.scoring import BOUNDED, Scores, index_judgments
from ..core.validate import validate
from ..formats.fileio import named_as_given, read_once, sha256_file
from ..formats.judgments import read_label_index
from ..formats.kinds import mistaken
from ..formats.runs import no_ranking_error
from .corpus_stage import CorpusStage
from .floor import lexical_checks
from .forking import shared_map
from .holes import build_queue, comparable_base, judged_drop_note, new_unjudged_keys, queue_length
from .reach import small_strata_notes
from .request import EvaluationRequest
from .results import Evaluation
from .run_ranges import RunReading, split_for
from .score_run import PendingBounds


def gate_readings(scores: Scores, comparison: Deltas | None, floor: Floor | None) -> GateReadings:
    """What the gates read of this run: its numbers (abstention among them), their bounds, the
    comparison with the base report and the floor section."""
    strata = {name: s.metrics for name, s in scores.strata.items() if s.n > 0}
    metrics = {**scores.metrics, **{name: value for name, (value, _n) in scores.abstention().items()}}
    return GateReadings(
        metrics,
        strata,
        comparison,
        bool(scores.per_query),
        floor,
        bounded=scores.config.unjudged_policy == BOUNDED,
        upper=scores.upper,
        strata_upper={name: s.upper for name, s in scores.strata.items() if s.n > 0},
        lower=scores.lower,
        strata_lower={name: s.lower for name, s in scores.strata.items() if s.n > 0},
        unjudged_keys=scores.unjudged_keys,
    )


def run_pipeline(request: EvaluationRequest, *, workers: int = 0) -> Evaluation:
    """Score a run against judgments (files, or held in memory) and decide the verdict.

    ``workers``: how many forked processes may help read the run and draw the bootstrap.
    A library call works in one process; the CLI and the action ask for
    :func:`.forking.worker_count` (one per spare core, where forking is safe). The answer
    is the same either way. An input given as a pipe is read once, into a temporary copy.
    """
    evaluation, _index = run_pipeline_with_index(request, workers=workers)
    return evaluation


def run_pipeline_with_index(request: EvaluationRequest, *, workers: int = 0) -> tuple[Evaluation, LabelIndex]:
    """:func:`run_pipeline`, and the judgments as it read them, for a caller that reads them
    again (the action's HTML page shows some queries' labels)."""
    floor = request.floor if request.floor not in ("", "bm25") else None
    judgments = request.judgments_path if request.judgments_set is None else None
    run = request.run_path if request.run_rows is None else None
    given = [judgments, run, request.corpus_path, floor]
    with read_once(given) as read, named_as_given(zip(read, given)):
        judgments, run, corpus, floor = read
        copies = replace(
            request,
            judgments_path=judgments or request.judgments_path,
            run_path=run or request.run_path,
            corpus_path=corpus,
            floor=floor or request.floor,
        )
        return _run_pipeline(copies, workers)


def needs_bounds(request: EvaluationRequest) -> bool:
    """Whether the bounds are computed: when asked for, when the gates read them (the bounded
    policy, and the machine policy built on it), when a comparison does (a base report), and
    for the action's label queue (its report is committed as the next base). Otherwise
    nothing reads them and they are left out (a fifth of ``score``; docs/benchmarks.md)."""
    return bool(
        request.bounds
        or request.scoring.unjudged_policy == BOUNDED
        or request.baseline is not None
        or request.label_queue
        or request.machine_labels_path
    )


def _run_pipeline(request: EvaluationRequest, workers: int) -> tuple[Evaluation, LabelIndex]:
    started: list[PendingBounds] = []  # the base's bounds, computed by a worker from the judgments on
    try:
        return _evaluate(request, workers, started)
    finally:
        for pending in started:
            pending.close()


def _evaluate(request: EvaluationRequest, workers: int, started: list[PendingBounds]) -> tuple[Evaluation, LabelIndex]:
    # What the request asked for decides what is computed: the scoring definition, refined.
    request = replace(request, scoring=replace(request.scoring, bounds=needs_bounds(request)))
    scoring = request.scoring
    # Usage errors surface before any file is read.
    gates = request.gating.parse(ks=scoring.k, full_depth=scoring.full_depth)
    base = request.baseline
    # A large run starts being read on the spare cores now; its refusals still come after the judgments'.
    reading = RunReading(
        request.run_path,
        request.run_format,
        None if request.collapse_to_documents else scoring.read_depth,
        split_for(workers),
        rows=request.run_rows,
    )
    judgments = request.judgments_set
    try:
        # Streamed into a compact index: the labels' records are never all held at once.
        index = read_label_index(request.judgments_path) if judgments is None else _held_index(request, judgments)
        if base is not None:  # a base that did not compute its bounds has them computed while the head is scored
            started.append(PendingBounds((base,), index, workers=workers))
        stage = CorpusStage.load(
            request.corpus_path, request.judgments_path, collapse=request.collapse_to_documents, judgments=judgments
        )
        try:
            scores, run = stage.score_run(
                index, request.run_path, scoring, run_format=request.run_format, reading=reading
            )
        except InputError as exc:  # judgments or a report given as the run is said to be one
            raise mistaken(exc, "run", request.run_path if request.run_rows is None else None) from None
    finally:
        reading.close()
    if run.queries == 0:
        # A retriever that wrote nothing (it failed, or wrote elsewhere) is not one that found
        # nothing: scored, every metric would be 0 and, without a gate, the verdict a PASS.
        raise no_ranking_error(request.run_path, held=request.run_rows is not None)
    validation = validate(index, threshold=scoring.threshold)
    corpus = stage.report_corpus()
    if stage.corpus is not None:
        # Before anything reads the base: a chunk the labels' trails left that the corpus holds
        # again (a page put back as it was) is today's chunk, not a move.
        index.forget_returned(stage.corpus.position)
    changes = _corpus_changes(index.fingerprints, corpus, base) if stage.drift else []
    lexical = lexical_checks(
        request,
        index,
        stage,
        scores,
        map_blocks=shared_map(workers),
    )
    # Only the base and the queue need the labels by query again.
    wanted = request.baseline is not None or request.label_queue or request.machine_labels_path
    indexed = index_judgments(index, scoring) if wanted else {}
    # The base's unjudged keys are only set beside the head's when both name chunks alike.
    alike = comparable_base(base, index, corpus)
    queue, queued = None, 0
    if request.label_queue:
        # Counting is cheap; ranking every unjudged key and making its line is not: a queue
        # longer than the request wants is counted only.
        queued = queue_length(index, indexed, scores, alike)
        if request.queue_limit is None or queued <= request.queue_limit:
            queue = build_queue(index, indexed, scores, alike, stage.corpus)
    new_keys = new_unjudged_keys(indexed, scores, alike, index)
    inputs = ReportInputs(
        judgments_sha256=index.sha256 or sha256_file(request.judgments_path),
        run_sha256=run.sha256,
        generated_at=request.generated_at,
        judged=request.gating.judged,
        corpus=corpus,
        collapse=stage.report_collapse(),
        floor=lexical.floor,
        sensitivity=lexical.sensitivity,
        drift=_drift_section(stage, changes, request.repair_command),
        baseline_sha256=request.baseline_sha256,
        floor_sha256=lexical.floor_sha256,
        new_keys=new_keys,
        hit_documents=_hit_documents(scores, index, stage.corpus),
    )
    body = report_body(index, scores, validation, inputs)
    # The head judgments are at hand, so a changed yardstick can be resolved by rescoring.
    comparison = None if base is None else _compare(base, body, index, stage, workers, request.power, started[0])
    readings = gate_readings(scores, comparison, lexical.floor if request.floor else None)
    results = [evaluate_gate(g, readings, request.gating) for g in gates]
    results.extend(_drift_gates(stage, request.max_drift))
    notes = policy_notes(scores) + stage.notes(index, scores) + lexical.notes
    notes += small_strata_notes(index, scores, gates, request.power)
    drop = judged_drop_note(comparison, scores, new_keys, request.bounded_advice)
    if drop is not None:
        notes.append(drop)
    blocking = blocking_findings(scores, validation)
    unmatched = stage.mismatch(index, scores, run)
    machine_labels: MachineLabels | None = None
    if request.machine_labels_path:
        # Loaded only with machine labels: the policy and its reader are 6 ms of every score's
        # start-up otherwise (python -X importtime, the least of five runs on M).
        from .machine_policy import apply_machine_policy, read_policy_inputs

        human = decide(blocking, notes, results, unmatched=unmatched)
        policy = read_policy_inputs(request.machine_labels_path, index, indexed, scores, stage.corpus)
        results, machine = apply_machine_policy(policy, gates, results, human.status)
        machine_labels = machine.report_section()
    verdict = decide(blocking, notes, results, unmatched=unmatched)
    report = with_verdict(body, verdict, machine_labels=machine_labels)
    evaluation = Evaluation(
        report, scores, validation, verdict, comparison, tuple(changes), tuple(queue or ()), queued=queued
    )
    return evaluation, index


def _hit_documents(scores: Scores, index: LabelIndex, corpus: Corpus | None) -> dict[str, dict[str, str]] | None:
    """Where the report's hits lie, when a corpus says which document holds each key: what a later
    comparison tells a removal of documents from labels taken beside it by (comparison/removal.py)."""
    if corpus is None:
        return None

    def document_of(key: str) -> str:
        return corpus.document_of(key) or (key if key in corpus.documents else "")

    return hit_documents(scores.rankings, index, scores.config.threshold, document_of)


def _held_index(request: EvaluationRequest, judgments: JudgmentSet) -> LabelIndex:
    index = LabelIndex.from_judgments(judgments)
    index.sha256 = request.judgments_sha256
    return index


def _compare(
    base: Report,
    body: Report,
    index: LabelIndex,
    stage: CorpusStage,
    workers: int,
    power: float,
    pending: PendingBounds,
) -> Deltas:
    # Loaded only when there is a base report: the comparison adds about 4 ms of start-up (the
    # least of seven python -X importtime runs, after the score command's own imports).
    from ..comparison.result import compared_document, comparison_from_document

    # The base's bounds (when it left them out) are collected where the comparison reads them.
    document = compared_document(
        base,
        body,
        judgments=index,
        map_blocks=shared_map(workers),
        power=power,
        bounds=lambda: (pending.reports()[0], body),
        live=stage.corpus,  # what a removal of documents took is told from what it did not
    )
    return comparison_from_document(document)


def _corpus_changes(fingerprints: Collection[str | None], corpus: CorpusInfo, base: Report | None) -> list[str]:
    labeled = next(iter(fingerprints)) if len(fingerprints) == 1 else None
    return corpus_changes(labeled, corpus, base.corpus if base is not None else None)


# The stale labels a report names (the first ones in the file); the list command shows them all.
STALE_SHOWN = 20


def _drift_section(stage: CorpusStage, changes: list[str], repair_command: str) -> Drift | None:
    drift = stage.drift
    if drift is None:
        return None
    stale = [
        StaleLabel(line=label.line, query_id=label.query_id, status=finding.status)
        for label, finding in drift.pairs()
        if finding.status != "VALID"
    ]
    counts = drift.counts()
    return Drift(
        valid=counts["VALID"],
        re_anchorable=counts["RE_ANCHORABLE"],
        merged=counts["MERGED"],
        split=counts["SPLIT"],
        orphaned=counts["ORPHANED"],
        stranded=len(stranded(drift, stage.corpus)) if stage.corpus is not None else None,
        invalid_ratio=drift.invalid_ratio,
        changes=tuple(changes),
        repair_command=repair_command,
        list_command=repair_command.removesuffix(" --fix"),
        stale=tuple(stale[:STALE_SHOWN]),
    )


def _drift_gates(stage: CorpusStage, max_drift: float | None) -> list[GateResult]:
    if stage.drift is None or max_drift is None:
        return []
    return [max_drift_gate(stage.drift.invalid_ratio, max_drift)]
