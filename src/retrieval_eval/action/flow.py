"""What the action does, given its settings, the event and its collaborators.

``run_evaluate``: find the baseline, run the same pipeline as ``score``,
then publish (report, summary, comment file, annotations, the PR comment,
outputs) and only then return the exit code. ``run_post_comment``: the second
half of the fork recipe, posting a comment another run rendered.
"""

from __future__ import annotations

import dataclasses
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from ..core.comparison_document import ComparisonDocument
from ..core.errors import RetrievalEvalError
from ..core.exits import EXIT_NO_ANSWER, EXIT_OK, exit_code
from ..core.gates import DELTA, FAIL, INDETERMINATE, Gating, Verdict
from ..core.history import History
from ..core.labelindex import LabelIndex
from ..core.report import blocking_findings
from ..core.report_model import Report
from ..formats.fileio import FROM_CURRENT_DIRECTORY
from ..formats.queue import queue_text
from ..formats.report import dump_report
from ..pipeline.collector import collector_paused
from ..pipeline.evaluate import run_pipeline_with_index
from ..pipeline.holes import queue_excerpt
from ..pipeline.judge import judge_for_settings
from ..pipeline.request import EvaluationRequest, holes_command, request_from_settings
from ..pipeline.results import Evaluation
from ..render import comment_marker
from ..render.escape import code_fence
from ..render.html import html_report
from ..render.kinds import render
from ..render.view import BaselineNote
from .baseline import Baseline, BaselineContext, resolve_baseline
from .comment import TITLE, Posted, post_without_settings, publish_comment
from .deps import Deps
from .driftcheck import drift_annotation, invalid_ratio
from .event import Event
from .history import base_history_records
from .postcomment import post_rendered_comment
from .publish import (
    Annotation,
    Console,
    RunnerFiles,
    emit_annotations,
    write_text,
)
from .settings import BaselineSpec, Runner, Settings, SettingsError


@dataclass(frozen=True)
class Outcome:
    """Everything scoring produced that publishing needs."""

    evaluation: Evaluation
    baseline: Baseline
    skipped_gates: tuple[str, ...]
    index: LabelIndex | None = None  # the judgments as scoring read them, for the HTML page's labels

    @property
    def report(self) -> Report:
        return self.evaluation.typed_report

    @property
    def verdict(self) -> Verdict:
        return self.evaluation.verdict

    @property
    def comparison(self) -> ComparisonDocument | None:
        """The comparison document the templates render (run_pipeline() compared with the head judgments at hand)."""
        comparison = self.evaluation.comparison
        return None if comparison is None else comparison.document


# -- evaluate --------------------------------------------------------------------------


FROM_WORKSPACE = (
    "check the path under with: (or in the config file); a relative path is read from the workspace, "
    "the repository's root"
)


def run_evaluate(settings: Settings, event: Event, deps: Deps) -> int:
    try:
        outcome = score(settings, event, deps)
    except RetrievalEvalError as exc:
        # The action anchors every input path at the workspace, not at the current directory.
        publish_failure(settings, event, deps, exc, hint=FROM_WORKSPACE if exc.hint == FROM_CURRENT_DIRECTORY else "")
        return EXIT_NO_ANSWER
    with collector_paused():  # the pages and files drawn from the outcome hold no cycle
        return _publish(settings, event, deps, outcome)


def _publish(settings: Settings, event: Event, deps: Deps, outcome: Outcome) -> int:
    """Render, write and publish what scoring found; an input error on the way is published too."""
    try:
        history = base_history_records(settings, event, deps.git, outcome.baseline, outcome.report, deps.now())
        rendered = render_outcome(settings, outcome, history)  # a broken user template is an input error too
        rendered = dataclasses.replace(rendered, html=html_page(settings, outcome))
    except RetrievalEvalError as exc:
        # The answer exists: keep it in the report file, and say why nothing else shows it.
        kept = _write_quietly(settings, settings.report, dump_report(outcome.report))
        where = f"it is in {settings.report}" if kept else "it could not be written either"
        publish_failure(
            settings,
            event,
            deps,
            exc,
            cause="The summary or comment could not be rendered",
            consequence=f"the answer ({outcome.verdict.status}) is not shown here; {where}",
            report=settings.report if kept else "",
            breached="\n".join(gate.expression for gate in outcome.verdict.gates if gate.status == FAIL),
        )
        return EXIT_NO_ANSWER
    try:
        write_files(settings, outcome, rendered)
    except RetrievalEvalError as exc:  # a path that cannot be written is an input error too
        publish_failure(
            settings,
            event,
            deps,
            exc,
            cause="An output file could not be written",
            consequence=f"the answer ({outcome.verdict.status}) was not published",
            hint="set the report input to a file path in the workspace; the summary and "
            "comment files are written beside it",
        )
        return EXIT_NO_ANSWER
    publish_outcome(settings, event, deps, outcome, rendered)
    return exit_code(outcome.verdict.status, fail_on_indeterminate=settings.fail_on_indeterminate)


def score(settings: Settings, event: Event, deps: Deps) -> Outcome:
    """The shared pipeline, with the baseline the action found and the gates a push can check."""
    baseline = resolve_baseline(BaselineContext(settings, event, deps.git, deps.github))
    request = request_from_settings(
        settings, baseline=baseline.report, generated_at=deps.now(), baseline_sha256=baseline.sha256
    ).with_queue(settings.queue_limit)  # counted always, built on demand (docs/action.md#the-label-queue)
    gating, skipped = applicable_gates(request, baseline)
    request = dataclasses.replace(request, gating=gating, bounded_advice="set the unjudged input to bounded")
    if settings.judge_endpoint:  # the labels file is the judge's output (and cache): read after it ran
        request = dataclasses.replace(request, machine_labels_path=None)
    # The judgments as read are kept for the HTML page, which shows some queries' labels. The
    # collector is kept off while the pipeline runs, not while the judge makes its requests.
    with collector_paused():
        evaluation, index = run_pipeline_with_index(request, workers=deps.workers)
    labels = machine_labels(settings, evaluation, deps)
    if labels is not None:  # the gates again, now with the judge's labels beside the bounds
        again = dataclasses.replace(request, machine_labels_path=labels)
        with collector_paused():
            evaluation, index = run_pipeline_with_index(again, workers=deps.workers)
    return Outcome(evaluation, baseline, skipped, index)


def machine_labels(settings: Settings, evaluation: Evaluation, deps: Deps) -> str | None:
    """With a judge configured: label the queue and return the labels' path. Without one:
    the ``machine-labels`` file, if any (request_from_settings already read it). A key variable
    left empty (a pull request from a fork gets no secrets) skips the judge, said in the log."""
    if not settings.judge_endpoint:
        return None
    if settings.judge_key_env and not settings.judge_key:
        deps.console.command(
            "warning",
            f"judge skipped: {settings.judge_key_env} is empty (a pull request from a fork gets no secrets); "
            "the gates read the bounds on human labels",
        )
        return None
    done = judge_for_settings(settings, evaluation.queue)
    outcome = done.outcome
    deps.console.log(
        f"judge: {outcome.calls} call(s), {outcome.tokens} token(s), {outcome.reused} answer(s) reused"
        + (f"; budget reached, {outcome.unasked} answer(s) not asked" if outcome.stopped_by_budget else "")
    )
    return str(settings.resolve(settings.machine_labels_out))


def applicable_gates(request: EvaluationRequest, baseline: Baseline) -> tuple[Gating, tuple[str, ...]]:
    """Delta gates need a base branch. On a push (baseline auto, no PR) there is none by
    design, so they are set aside and said so, instead of making every push INDETERMINATE."""
    gating = request.gating
    if baseline.gate_hint:  # the command line's "pass --baseline" is no advice in a workflow
        gating = dataclasses.replace(gating, no_baseline=baseline.gate_hint)
    if not baseline.no_base_branch:
        return gating, ()
    parsed = gating.parse(ks=request.scoring.k, full_depth=request.scoring.full_depth)
    kept = tuple(text for text, gate in zip(gating.gates, parsed) if gate.kind != DELTA)
    skipped = tuple(text for text, gate in zip(gating.gates, parsed) if gate.kind == DELTA)
    return dataclasses.replace(gating, gates=kept), skipped


@dataclass(frozen=True)
class Rendered:
    summary: str
    comment: str
    html: str = ""  # the HTML report, drawn by run_evaluate only: it reads the judgments and corpus again


BASE_COPY = "base-report.json"


def queue_command(settings: Settings, baseline: Baseline) -> str:
    """The command that writes the whole label queue, base's holes included: a base report read
    from the repository's history is first copied out of it, as ``holes --baseline`` reads a file."""
    if baseline.report is None or not baseline.git_object or settings.baseline.kind == "path":
        return holes_command(settings)
    local = dataclasses.replace(settings, baseline=BaselineSpec("path", BASE_COPY))
    return f"git show {shlex.quote(baseline.git_object)} > {BASE_COPY} && {holes_command(local)}"


def render_outcome(settings: Settings, outcome: Outcome, history: History | None = None) -> Rendered:
    template_dir = (
        str(settings.resolve(settings.template_dir, setting="template-dir")) if settings.template_dir else None
    )
    baseline = outcome.baseline
    note = BaselineNote(
        source=baseline.source,
        reason=baseline.reason,
        notes=tuple(baseline.notes),
        skipped_gates=outcome.skipped_gates,
        found=baseline.report is not None,
    )
    comparison = outcome.comparison

    evaluation = outcome.evaluation
    # The count stands for a queue too long to build (label-queue: auto) or not asked for (off).
    queue = queue_excerpt(evaluation.queue, queue_command(settings, baseline), evaluation.queued)

    def draw(kind: str) -> str:
        return render(
            kind,
            report=outcome.report,
            comparison=comparison,
            template_dir=template_dir,
            comment_id=settings.comment_id,
            baseline=note,
            history=history,
            queue=queue,
        )

    return Rendered(draw("summary"), draw("comment"))


def html_page(settings: Settings, outcome: Outcome) -> str:
    """The HTML report, with the base report's rankings and the labels and chunk texts at hand."""
    return html_report(
        outcome.report,
        outcome.comparison,
        base=outcome.baseline.report,
        judgments=str(settings.resolve(settings.judgments)),
        corpus=str(settings.resolve(settings.corpus)) if settings.corpus else None,
        index=outcome.index,
    )


def write_files(settings: Settings, outcome: Outcome, rendered: Rendered) -> None:
    write_text(settings.resolve(settings.report), dump_report(outcome.report))
    write_text(settings.resolve(settings.summary_file), rendered.summary)
    write_text(settings.resolve(settings.comment_file), rendered.comment)
    write_text(settings.resolve(settings.html_file), rendered.html)
    if outcome.evaluation.queue:
        write_text(settings.resolve(settings.queue_file), queue_text(outcome.evaluation.queue))


def publish_outcome(settings: Settings, event: Event, deps: Deps, outcome: Outcome, rendered: Rendered) -> None:
    """Everything after the files (``write_files``): summary, annotations, comment, outputs."""
    deps.files.summary(rendered.summary)
    emit_annotations(deps.console, annotations_of(outcome))
    posted = publish_comment(settings, event, deps, rendered.comment)
    deps.files.outputs(outputs(settings, outcome, posted))
    deps.console.log(
        f"{TITLE}: {outcome.verdict.status}; report written to {settings.report}; "
        + (f"baseline: {outcome.baseline.source}" if outcome.baseline.source else "no baseline")
    )


def annotations_of(outcome: Outcome) -> list[Annotation]:
    verdict, found = outcome.verdict, []
    for gate in verdict.gates:
        if gate.status == FAIL:
            found.append(Annotation("error", f"{TITLE}: gate failed", gate.reason))
        elif gate.status == INDETERMINATE:
            found.append(Annotation("warning", f"{TITLE}: gate INDETERMINATE", gate.reason))
    if not verdict.gates:
        # An unset `gates` input (`${{ vars.GATES }}` with no such variable gives an empty one)
        # means no gate, and a PASS nothing could fail: said where the run's warnings are read.
        found.append(
            Annotation(
                "warning",
                f"{TITLE}: no gates",
                "no gate is set, so this verdict cannot FAIL whatever the numbers; set the gates input",
            )
        )
    for finding in blocking_findings(outcome.evaluation.scores, outcome.evaluation.validation):
        found.append(Annotation("warning", f"{TITLE}: INDETERMINATE", finding))
    found.extend(comparability_annotations(outcome.comparison))
    drift = drift_annotation(outcome.report)
    if drift is not None:
        found.append(drift)
    for note in outcome.baseline.notes:
        found.append(Annotation("notice", f"{TITLE}: baseline", note))
    return found


# How each effect of a comparability finding is annotated: a changed yardstick is worth a
# warning even when rescoring resolved it (the base numbers shown are not the published ones).
_FINDING_KINDS = {
    "confounds": ("warning", "baseline not comparable"),
    "resolved": ("warning", "baseline rescored"),
    "limits": ("notice", "comparison limited"),
}


def comparability_annotations(comparison: ComparisonDocument | None) -> list[Annotation]:
    found = []
    for finding in comparison.findings if comparison is not None else ():
        kind = _FINDING_KINDS.get(finding.effect)
        if kind is not None:
            text = "; ".join(part for part in (finding.detail, finding.meaning) if part)
            found.append(Annotation(kind[0], f"{TITLE}: {kind[1]}", text))
    return found


def outputs(settings: Settings, outcome: Outcome, posted: Posted) -> dict[str, str]:
    breached = [gate.expression for gate in outcome.verdict.gates if gate.status == FAIL]
    ratio = invalid_ratio(outcome.report)
    return output_values(
        outcome.verdict.status,
        settings,
        posted,
        report=settings.report,
        summary=settings.summary_file,
        html=settings.html_file,
        breached="\n".join(breached),
        drift="" if ratio is None else f"{ratio:.12g}",
        queue=settings.queue_file if outcome.evaluation.queue else "",
        queue_count=str(outcome.evaluation.queued),
    )


def output_values(
    verdict: str,
    settings: Settings | None,
    posted: Posted,
    *,
    report: str = "",
    summary: str = "",
    html: str = "",
    breached: str = "",
    drift: str = "",
    queue: str = "",
    queue_count: str = "",
) -> dict[str, str]:
    """Every output, always: a step reading one that was never set gets an empty string
    anyway, but writing all of them makes each run's file say the same things."""
    return {
        "verdict": verdict,
        "report-path": report,
        "summary-path": summary,
        "comment-path": settings.comment_file if settings else "",
        "html-path": html,
        "comment-posted": "true" if posted.posted else "false",
        "comment-url": posted.url,
        "breached-gates": breached,
        "drift-invalid-ratio": drift,
        "label-queue-path": queue,
        "label-queue-count": queue_count,
        # The old name of label-queue-count, kept for a release (CHANGELOG.md).
        "unjudged-count": queue_count,
    }


# -- failures --------------------------------------------------------------------------


def failure_markdown(
    exc: RetrievalEvalError,
    *,
    cause: str = "The inputs could not be read",
    consequence: str = "nothing was scored and no gate was checked",
    hint: str = "",
) -> str:
    problems = exc.problems if isinstance(exc, SettingsError) else [exc.message]
    fence = code_fence("\n".join(problems))
    text = "\n".join(problems)
    hint = f"\nTry: {hint or exc.hint}\n" if hint or exc.hint else ""
    return f"### {TITLE} could not answer\n\n{cause}, so {consequence}.\n\n{fence}text\n{text}\n{fence}\n{hint}"


def _error_annotations(console: Console, exc: RetrievalEvalError) -> None:
    problems = exc.problems if isinstance(exc, SettingsError) else [exc.message]
    emit_annotations(console, [Annotation("error", f"{TITLE}: cannot run", p) for p in problems])


def publish_early_failure(
    files: RunnerFiles, exc: RetrievalEvalError, *, env: Mapping[str, str], runner: Runner
) -> None:
    """Before settings exist: the summary, the annotations, the comment and the outputs still say why."""
    summary = failure_markdown(exc)
    files.summary(summary)
    _error_annotations(files.console, exc)
    posted = post_without_settings(env, runner, files.console, summary)
    files.outputs(output_values("ERROR", None, posted))


def publish_failure(
    settings: Settings,
    event: Event,
    deps: Deps,
    exc: RetrievalEvalError,
    *,
    report: str = "",
    breached: str = "",
    **wording: str,
) -> None:
    """Inputs unreadable (or an output unwritable): say so everywhere, including the comment, so an
    old PASS is not left standing. ``wording``: failure_markdown's cause, consequence and hint;
    ``report``: the report file, when one was still written; ``breached``: the gates the answer
    breached, when there is one (a later step may read them though the run could not show it)."""
    summary = failure_markdown(exc, **wording)
    body = f"{comment_marker(settings.comment_id)}\n{summary}"
    # A file that cannot be written either is what ``exc`` already explains; the rest still goes out.
    summary_written = _write_quietly(settings, settings.summary_file, summary)
    comment_written = _write_quietly(settings, settings.comment_file, body)
    deps.files.summary(summary)
    _error_annotations(deps.console, exc)
    posted = publish_comment(settings, event, deps, body)
    values = output_values(
        "ERROR",
        settings,
        posted,
        report=report,
        summary=settings.summary_file if summary_written else "",
        breached=breached,
    )
    if not comment_written:
        values["comment-path"] = ""
    deps.files.outputs(values)


def _write_quietly(settings: Settings, name: str, text: str) -> bool:
    try:
        write_text(settings.resolve(name), text)
    except RetrievalEvalError:
        return False
    return True


# -- post-comment ----------------------------------------------------------------------


def run_post_comment(settings: Settings, event: Event, deps: Deps) -> int:
    try:
        posted, verdict = post_rendered_comment(settings, event, deps)
    except RetrievalEvalError as exc:
        deps.files.summary(failure_markdown(exc, consequence="no comment was posted"))
        _error_annotations(deps.console, exc)
        deps.files.outputs(output_values("ERROR", settings, Posted()))
        return EXIT_NO_ANSWER
    deps.files.outputs(output_values(verdict, settings, posted))
    return EXIT_OK
