"""What ``drift`` prints as text, drawn from the record ``drift --json`` writes.

Both read one :class:`~retrieval_eval.core.drift_check.DriftCheck` (the JSON is written by
:mod:`retrieval_eval.formats.drift`), so the two can never disagree.
"""

from __future__ import annotations

import shlex

from ..core.drift import NEEDS_HUMAN, RECOVERABLE, STATUSES, VALID, Finding
from ..core.drift_check import DriftCheck
from ..core.drift_fix import Change, Collapse
from ..core.judgments import Label
from ..core.rejudge import stranded
from ..formats.judgment_records import written_lines
from .terminal import Style, clean

MAX_LISTED = 10
_TONE = {VALID: "PASS", **{s: "INDETERMINATE" for s in RECOVERABLE}, **{s: "FAIL" for s in NEEDS_HUMAN}}


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def _header(check: DriftCheck) -> str:
    corpus = check.corpus
    fingerprint = f" (corpus {clean(corpus.corpus_fingerprint)})" if corpus.corpus_fingerprint else ""
    return (
        f"{_plural(len(check.result.labels), 'label')} checked against "
        f"{_plural(len(corpus.ids), 'chunk')} in {_plural(len(corpus.documents), 'document')}{fingerprint}"
    )


def _counts(check: DriftCheck, style: Style) -> list[str]:
    counts = check.result.counts()
    lines = []
    for status in STATUSES:
        kind = "recoverable" if status in RECOVERABLE else "needs a human" if status in NEEDS_HUMAN else ""
        count = counts[status]
        lines.append(
            f"  {style(f'{status:<15}', _TONE[status]) if count else f'{status:<15}'}{count:>8}  {kind}".rstrip()
        )
    return lines


def _ratio_line(check: DriftCheck) -> str:
    result = check.result
    labels = len(result.labels)
    invalid = labels - result.counts()[VALID]
    if invalid == 0:
        return f"invalid ratio 0: all {_plural(labels, 'label')} point at live chunks"
    return (
        f"invalid ratio {result.invalid_ratio:g} ({invalid} of {labels} labels): "
        f"{result.recoverable} recoverable with --fix, {result.needs_human} "
        f"{'needs' if result.needs_human == 1 else 'need'} a human"
    )


def _label_line(label: Label, finding: Finding, style: Style) -> str:
    status = finding.status
    detail = clean(finding.detail)
    named = finding.covering or finding.candidates
    if named:
        detail += ": " + ", ".join(map(clean, named))
    if finding.rule == "document_gone":
        detail += f" ({clean(label.doc_uri)})"
    return f"  line {label.line}  {clean(label.query_id)}  {style(f'{status:<13}', _TONE[status])}  {detail}"


def _listed(title: str, lines: list[str]) -> list[str]:
    if not lines:
        return []
    shown = lines[:MAX_LISTED]
    if len(lines) > MAX_LISTED:
        shown.append(f"  … {len(lines) - MAX_LISTED} more (see --json)")
    return [title, *shown]


def _needs_human(check: DriftCheck, style: Style) -> list[str]:
    pairs = [(label, finding) for label, finding in check.result.pairs() if finding.status in NEEDS_HUMAN]
    return _listed("needs a human", [_label_line(label, finding, style) for label, finding in pairs])


def _change_line(change: Change) -> str:
    moved_doc = f"  ({clean(change.old_doc)} -> {clean(change.new_doc)})" if change.old_doc != change.new_doc else ""
    return (
        f"  line {change.line}  {clean(change.query_id)}  {clean(change.old_key)} -> {clean(change.new_key)}"
        f"{moved_doc}  [{clean(change.rule)}]"
    )


def _collapse_line(collapse: Collapse) -> str:
    return (
        f"  query {clean(collapse.query_id)}: line(s) {', '.join(map(str, collapse.absorbed_lines))} folded into "
        f"line {collapse.kept_line} (relevance {clean(collapse.relevance)}), key {clean(collapse.key)}"
    )


def _fix_lines(check: DriftCheck) -> list[str]:
    fix = check.fix
    if fix is None:
        return []
    plan = fix.plan
    verb = "would re-anchor" if fix.dry_run else "re-anchored"
    changes = [_change_line(change) for change in plan.changes]
    collapsed = [_collapse_line(collapse) for collapse in plan.collapses]
    lines = _listed(verb, changes) + _listed("collapsed" if not fix.dry_run else "would collapse", collapsed)
    lines.append(_written_line(check))
    lines.append(
        f"after the fix {plan.needs_human} of {_plural(plan.labels_after, 'label')} "
        f"need a human (invalid ratio {plan.invalid_ratio_after:g})"
    )
    return lines


def _written_line(check: DriftCheck) -> str:
    fix = check.fix
    assert fix is not None
    if fix.dry_run:
        return "dry run: nothing written"
    if fix.written is None:
        return f"nothing to fix; {clean(check.judgments_path)} left as it was"
    replaced = fix.plan.replaced
    dropped = (
        f" ({_plural(len(replaced), 'broken label')} dropped: re-judged lines stand in for them)" if replaced else ""
    )
    return f"wrote {_plural(fix.plan.labels_after, 'label')} to {clean(fix.written)}{dropped}"


def _stranded(check: DriftCheck, *, after_fix: bool = True) -> list[Label]:
    """The broken labels (after a fix: those it did not replace) that the queue can hold no line
    for: no live chunk to judge them against, their document is gone."""
    fix = check.fix
    replaced = (
        {entry.line for entry in fix.plan.replaced} if after_fix and fix is not None and not fix.dry_run else set()
    )
    return [label for label in stranded(check.result, check.corpus) if label.line not in replaced]


def _stranded_line(stranded: list[Label], check: DriftCheck) -> str:
    """Named by their lines in the file they are in now: the one a fix wrote (its lines are not the
    file read's: labels folded, replaced or re-judged move the rest), else the file read."""
    fix = check.fix
    if fix is not None and not fix.dry_run and fix.written is not None:
        path, moved = fix.written, written_lines(fix.plan.judgments)
    else:
        path, moved = check.judgments_path, {}
    count = len(stranded)
    named = ", ".join(
        f"line {moved.get(label.line, label.line)} ({clean(label.query_id)})" for label in stranded[:MAX_LISTED]
    )
    if count > MAX_LISTED:
        named += f" and {count - MAX_LISTED} more"
    queries = len({label.query_id for label in stranded})
    one = count == 1
    return (
        f"{_plural(count, 'label')} {'has' if one else 'have'} no live chunk to re-judge against "
        f"({'its document is' if one else 'the documents they name are'} gone): {named}; "
        f"delete {'it' if one else 'them'} from {clean(path)}, or label "
        f"{'the query' if queries == 1 else 'those queries'} again on the live corpus "
        f"(a re-judge queue cannot hold {'it' if one else 'them'})"
    )


def _next_lines(check: DriftCheck) -> list[str]:
    result, fix = check.result, check.fix
    lines = []
    if result.recoverable and (fix is None or fix.dry_run):
        command = [
            "retrieval-eval",
            "drift",
            "--judgments",
            check.judgments_path,
            "--corpus",
            check.corpus_path,
            "--fix",
        ]
        lines.append("next  " + clean(" ".join(shlex.quote(part) for part in command)))
    # After a fix, what is left: re-judged lines may have replaced some of the broken labels.
    needs_human = fix.plan.needs_human if fix is not None and not fix.dry_run else result.needs_human
    # Labels whose document is gone have no candidate chunk: the queue holds no line for them.
    stranded = _stranded(check) if needs_human else []
    queueable = needs_human - len(stranded)
    queue = check.queue
    if queue is not None:
        # The queue is written from what drift found, before any fix: its labels are counted so.
        queued = result.needs_human - len(_stranded(check, after_fix=False))
        if queue.lines:
            lines.append(
                f"wrote {_plural(queue.lines, 'line')} for {_plural(queued, 'label')} to "
                f"{clean(queue.path)}: set relevance and labeled_by on each, append them to the judgments, "
                "then run drift --fix (it drops the labels they replace)"
            )
        else:
            lines.append(f"wrote 0 lines to {clean(queue.path)}")
    elif queueable > 0:
        command = ["retrieval-eval", "drift", "-j", check.judgments_path, "-c", check.corpus_path]
        lines.append(
            f"next  re-judge the {_plural(queueable, 'label')} under 'needs a human' "
            "against the live chunks: "
            + clean(" ".join(shlex.quote(part) for part in [*command, "--queue", "rejudge.jsonl"]))
            + " writes them as a queue"
        )
    if stranded:
        lines.append(_stranded_line(stranded, check))
    return lines


def render_drift(check: DriftCheck, *, colour: bool = False) -> str:
    style = Style(colour)
    sections = [
        [_header(check)],
        _counts(check, style),
        [_ratio_line(check)],
        _needs_human(check, style),
        _fix_lines(check),
        _next_lines(check),
    ]
    return "\n\n".join("\n".join(section) for section in sections if section) + "\n"
