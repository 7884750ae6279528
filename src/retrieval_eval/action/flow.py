"""What the action does, given its settings, the event and its collaborators.

``run_evaluate``: find the baseline, run the same pipeline as ``score``,
then publish (report, summary, comment file, annotations, the PR comment,
outputs) and only then return the exit code. ``run_post_comment``: the second
half of the fork recipe, posting a comment another run rendered.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.errors import RetrievalEvalError
from ..core.gates import DELTA, FAIL, INDETERMINATE, PASS, Verdict, parse_gate
from .baseline import Baseline, BaselineContext, resolve_baseline
from .driftcheck import (
    apply_max_drift,
    drift_annotation,
    drift_markdown,
    fingerprint_changes,
    fix_command,
    invalid_ratio,
)
from .event import Event
from .github import Forbidden, GitHubError
from .publish import (
    Annotation,
    Console,
    append_text,
    code_fence,
    emit_annotations,
    format_outputs,
    upsert_comment,
    write_text,
)
from .settings import Runner, Settings, SettingsError

if TYPE_CHECKING:
    from ..pipeline.evaluate import Evaluation
    from .main import Deps

EXIT_OK, EXIT_BAD_ANSWER, EXIT_NO_ANSWER = 0, 1, 2
TITLE = "retrieval-eval"


@dataclass(frozen=True)
class Outcome:
    """Everything scoring produced that publishing needs."""

    evaluation: Evaluation
    baseline: Baseline
    comparison: dict[str, Any] | None
    skipped_gates: tuple[str, ...]
    corpus_changes: list[str] = field(default_factory=list)
    drift_fix: str = ""

    @property
    def report(self) -> dict[str, Any]:
        return self.evaluation.report

    @property
    def verdict(self) -> Verdict:
        return self.evaluation.verdict


@dataclass(frozen=True)
class Posted:
    posted: bool = False
    url: str = ""


def exit_code(status: str, fail_on_indeterminate: bool) -> int:
    if status == PASS or (status == INDETERMINATE and not fail_on_indeterminate):
        return EXIT_OK
    return EXIT_BAD_ANSWER


# -- evaluate --------------------------------------------------------------------------


def run_evaluate(settings: Settings, event: Event, deps: Deps) -> int:
    try:
        outcome = score(settings, event, deps)
        rendered = render_outcome(settings, outcome)  # a broken user template is an input error too
    except RetrievalEvalError as exc:
        publish_failure(settings, event, deps, exc)
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
    return exit_code(outcome.verdict.status, settings.fail_on_indeterminate)


def score(settings: Settings, event: Event, deps: Deps) -> Outcome:
    from ..core.scoring import ScoreConfig
    from ..pipeline.evaluate import ScoreRequest, evaluate

    baseline = resolve_baseline(BaselineContext(settings, event, deps.git, deps.github))
    gates, skipped = applicable_gates(settings, baseline)
    request = ScoreRequest(
        judgments_path=str(settings.resolve(settings.judgments)),
        run_path=str(settings.resolve(settings.run)),
        config=ScoreConfig(k=settings.k, threshold=settings.threshold),
        gates=gates,
        baseline=baseline.report,
        generated_at=deps.now(),
        corpus_path=str(settings.resolve(settings.corpus)) if settings.corpus else None,
    )
    evaluation = apply_max_drift(evaluate(request), settings.max_drift)
    # evaluate() already compared with the baseline (with the head judgments at hand); its
    # document is what the templates render.
    comparison = evaluation.comparison.document if evaluation.comparison is not None else None
    changes = fingerprint_changes(evaluation.report, baseline.report) if settings.corpus else []
    command = fix_command(settings.judgments, settings.corpus) if settings.corpus else ""
    return Outcome(evaluation, baseline, comparison, skipped, changes, command)


def applicable_gates(settings: Settings, baseline: Baseline) -> tuple[list[str], tuple[str, ...]]:
    """Delta gates need a base branch. On a push (baseline auto, no PR) there is none by
    design, so they are set aside and said so, instead of making every push INDETERMINATE."""
    if not baseline.no_base_branch:
        return list(settings.gates), ()
    kept, skipped = [], []
    for text in settings.gates:
        (skipped if parse_gate(text, ks=settings.k).kind == DELTA else kept).append(text)
    return kept, tuple(skipped)


@dataclass(frozen=True)
class Rendered:
    summary: str
    comment: str


def render_outcome(settings: Settings, outcome: Outcome) -> Rendered:
    from ..render import render

    template_dir = str(settings.resolve(settings.template_dir)) if settings.template_dir else None
    common = {
        "report": outcome.report,
        "comparison": outcome.comparison,
        "template_dir": template_dir,
        "comment_id": settings.comment_id,
    }
    note = baseline_note(outcome)
    drift = drift_markdown(outcome.report, outcome.corpus_changes, outcome.drift_fix)
    # What the action adds goes through the size budget with the rest, so a long note makes
    # the renderer leave out whole sections instead of the comment being cut mid-table.
    summary = render("summary", **common, appendix=drift + note)
    # The comment tells where a baseline would come from only when there is none: that is
    # when a reader needs to act; otherwise the summary has it.
    comment = render("comment", **common, appendix=drift + (note if outcome.baseline.report is None else ""))
    return Rendered(summary, comment)


def write_files(settings: Settings, outcome: Outcome, rendered: Rendered) -> None:
    from ..formats.report import dump_report

    write_text(settings.resolve(settings.report), dump_report(outcome.report))
    write_text(settings.resolve(settings.summary_file), rendered.summary)
    write_text(settings.resolve(settings.comment_file), rendered.comment)


def publish_outcome(settings: Settings, event: Event, deps: Deps, outcome: Outcome, rendered: Rendered) -> None:
    """Everything after the files (``write_files``): summary, annotations, comment, outputs."""
    append_text(settings.runner.step_summary, rendered.summary)
    emit_annotations(deps.console, annotations(outcome))
    posted = publish_comment(settings, event, deps, rendered.comment)
    append_text(settings.runner.output_file, format_outputs(outputs(settings, outcome, posted)))
    deps.console.log(
        f"{TITLE}: {outcome.verdict.status}; report written to {settings.report}; "
        + (f"baseline: {outcome.baseline.source}" if outcome.baseline.source else "no baseline")
    )


def baseline_note(outcome: Outcome) -> str:
    """One line under the summary saying where the comparison came from, or why there is none."""
    from ..render import escape_markdown

    baseline = outcome.baseline
    shown = baseline.source or baseline.reason
    lines = [f"\n> {'Baseline' if baseline.source else 'No baseline'}: {escape_markdown(shown, limit=2000)}\n"]
    if outcome.skipped_gates:
        lines.append(
            "> Delta gates set aside (they compare with a base branch, and a push has none): "
            + ", ".join(f"`{gate}`" for gate in outcome.skipped_gates)
            + "\n"
        )
    lines.extend(f"> Note: {escape_markdown(note, limit=2000)}\n" for note in baseline.notes)
    return "".join(lines)


def annotations(outcome: Outcome) -> list[Annotation]:
    from ..core.report import blocking_findings

    verdict, found = outcome.verdict, []
    for gate in verdict.gates:
        if gate.status == FAIL:
            found.append(Annotation("error", f"{TITLE}: gate failed", gate.reason))
        elif gate.status == INDETERMINATE:
            found.append(Annotation("warning", f"{TITLE}: gate INDETERMINATE", gate.reason))
    for finding in blocking_findings(outcome.evaluation.scores, outcome.evaluation.validation):
        found.append(Annotation("warning", f"{TITLE}: INDETERMINATE", finding))
    found.extend(comparability_annotations(outcome.comparison))
    drift = drift_annotation(outcome.report, outcome.corpus_changes, outcome.drift_fix)
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


def comparability_annotations(comparison: dict[str, Any] | None) -> list[Annotation]:
    found = []
    for finding in (comparison or {}).get("comparability") or []:
        kind = _FINDING_KINDS.get(str(finding.get("effect")))
        if kind is not None:
            text = "; ".join(str(part) for part in (finding.get("detail"), finding.get("meaning")) if part)
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
        breached="\n".join(breached),
        drift="" if ratio is None else f"{ratio:.12g}",
    )


def output_values(
    verdict: str,
    settings: Settings | None,
    posted: Posted,
    *,
    report: str = "",
    summary: str = "",
    breached: str = "",
    drift: str = "",
) -> dict[str, str]:
    """Every output, always: a step reading one that was never set gets an empty string
    anyway, but writing all of them makes each run's file say the same things."""
    return {
        "verdict": verdict,
        "report-path": report,
        "summary-path": summary,
        "comment-path": settings.comment_file if settings else "",
        "comment-posted": "true" if posted.posted else "false",
        "comment-url": posted.url,
        "breached-gates": breached,
        "drift-invalid-ratio": drift,
    }


# -- the comment -----------------------------------------------------------------------


def publish_comment(settings: Settings, event: Event, deps: Deps, body: str) -> Posted:
    number = comment_target(settings, event, deps)
    return Posted() if number is None else post_comment(settings, deps, number, body)


def post_comment(settings: Settings, deps: Deps, number: int, body: str) -> Posted:
    """Upsert the sticky comment; a refusal is told once and never fails the job."""
    from ..render import comment_marker

    try:
        posted = upsert_comment(
            deps.github, settings.runner.repository, number, body, marker=comment_marker(settings.comment_id)
        )
    except Forbidden:
        deps.console.command(
            "notice",
            f"The PR comment was not posted: the token may not write to this pull "
            f"request (pull requests from forks get a read-only token). It was written to "
            f"{settings.comment_file}; docs/action.md shows how to post it from a second "
            f"workflow.",
            title=TITLE,
        )
        return Posted()
    except GitHubError as exc:
        deps.console.command(
            "notice", f"The PR comment was not posted ({exc}). It was written to {settings.comment_file}.", title=TITLE
        )
        return Posted()
    deps.console.log(f"{TITLE}: comment {'created' if posted.created else 'updated'}: {posted.url}")
    return Posted(True, posted.url)


def comment_target(settings: Settings, event: Event, deps: Deps) -> int | None:
    if settings.comment == "off" or not settings.runner.repository:
        return None
    if event.pr_number is not None:
        return event.pr_number
    if settings.comment != "always" or not settings.runner.sha:
        return None
    try:
        pulls = deps.github.list_pulls_for_commit(settings.runner.repository, settings.runner.sha)
    except GitHubError as exc:
        deps.console.log(f"{TITLE}: could not look up the pull request of {settings.runner.sha[:12]} ({exc})")
        return None
    return next((p.number for p in pulls if p.state == "open"), None)


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


def publish_early_failure(runner: Runner, console: Console, exc: RetrievalEvalError) -> None:
    """Before settings exist: the summary, the annotations and the outputs still say why."""
    append_text(runner.step_summary, failure_markdown(exc))
    _error_annotations(console, exc)
    append_text(runner.output_file, format_outputs(output_values("ERROR", None, Posted())))


def publish_failure(settings: Settings, event: Event, deps: Deps, exc: RetrievalEvalError, **wording: str) -> None:
    """Inputs unreadable (or an output unwritable): say so everywhere, including the comment, so an
    old PASS is not left standing. ``wording``: failure_markdown's cause, consequence and hint."""
    from ..render import comment_marker

    summary = failure_markdown(exc, **wording)
    body = f"{comment_marker(settings.comment_id)}\n{summary}"
    # A file that cannot be written either is what ``exc`` already explains; the rest still goes out.
    summary_written = _write_quietly(settings, settings.summary_file, summary)
    comment_written = _write_quietly(settings, settings.comment_file, body)
    append_text(settings.runner.step_summary, summary)
    _error_annotations(deps.console, exc)
    posted = publish_comment(settings, event, deps, body)
    values = output_values("ERROR", settings, posted, summary=settings.summary_file if summary_written else "")
    if not comment_written:
        values["comment-path"] = ""
    append_text(settings.runner.output_file, format_outputs(values))


def _write_quietly(settings: Settings, name: str, text: str) -> bool:
    try:
        write_text(settings.resolve(name), text)
    except RetrievalEvalError:
        return False
    return True


# -- post-comment ----------------------------------------------------------------------


def run_post_comment(settings: Settings, event: Event, deps: Deps) -> int:
    from .postcomment import post_rendered_comment

    try:
        posted, verdict = post_rendered_comment(settings, event, deps)
    except RetrievalEvalError as exc:
        append_text(settings.runner.step_summary, failure_markdown(exc, consequence="no comment was posted"))
        _error_annotations(deps.console, exc)
        append_text(settings.runner.output_file, format_outputs(output_values("ERROR", settings, Posted())))
        return EXIT_NO_ANSWER
    append_text(settings.runner.output_file, format_outputs(output_values(verdict, settings, posted)))
    return EXIT_OK
