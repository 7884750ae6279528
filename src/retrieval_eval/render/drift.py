"""What ``drift`` prints: one JSON payload, and the terminal text rendered from it.

The text is derived from the payload so that the two can never disagree.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from ..core.drift import NEEDS_HUMAN, RECOVERABLE, STATUSES, VALID, DriftResult
from ..core.drift_fix import FixPlan
from ..formats.corpus import Corpus
from .terminal import Style, clean

MAX_LISTED = 10
_TONE = {VALID: "PASS", **{s: "INDETERMINATE" for s in RECOVERABLE}, **{s: "FAIL" for s in NEEDS_HUMAN}}


def drift_payload(
    result: DriftResult,
    corpus: Corpus,
    *,
    judgments_path: str,
    corpus_path: str,
    plan: FixPlan | None = None,
    written: str | None = None,
    dry_run: bool = False,
    max_invalid_ratio: float = 0.0,
    queue: tuple[str, int] | None = None,
) -> dict[str, Any]:
    summary = {
        "labels": len(result.labels),
        **result.summary(),
        "recoverable": result.recoverable,
        "needs_human": result.needs_human,
    }
    ratio = plan.invalid_ratio_after if plan is not None else result.invalid_ratio
    payload: dict[str, Any] = {
        "judgments": judgments_path,
        "corpus": {"path": corpus_path, **corpus.describe()},
        "summary": summary,
        "max_invalid_ratio": max_invalid_ratio,
        "ok": ratio <= max_invalid_ratio,
        "labels": [finding.as_dict(label) for label, finding in result.pairs()],
    }
    if plan is not None:
        payload["fix"] = {"dry_run": dry_run, "written": written, **plan.as_dict()}
    if queue is not None:
        payload["queue"] = {"path": queue[0], "lines": queue[1], "labels": result.needs_human}
    return payload


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def _header(payload: Mapping[str, Any]) -> str:
    corpus = payload["corpus"]
    fingerprint = f" (corpus {clean(corpus['fingerprint'])})" if corpus.get("fingerprint") else ""
    return (
        f"{_plural(payload['summary']['labels'], 'label')} checked against "
        f"{_plural(corpus['chunks'], 'chunk')} in {_plural(corpus['documents'], 'document')}{fingerprint}"
    )


def _counts(payload: Mapping[str, Any], style: Style) -> list[str]:
    summary = payload["summary"]
    lines = []
    for status in STATUSES:
        kind = "recoverable" if status in RECOVERABLE else "needs a human" if status in NEEDS_HUMAN else ""
        count = summary[status.lower()]
        lines.append(
            f"  {style(f'{status:<15}', _TONE[status]) if count else f'{status:<15}'}{count:>8}  {kind}".rstrip()
        )
    return lines


def _ratio_line(payload: Mapping[str, Any]) -> str:
    summary = payload["summary"]
    invalid = summary["labels"] - summary["valid"]
    if invalid == 0:
        return f"invalid ratio 0: all {_plural(summary['labels'], 'label')} point at live chunks"
    return (
        f"invalid ratio {summary['invalid_ratio']:g} ({invalid} of {summary['labels']} labels): "
        f"{summary['recoverable']} recoverable with --fix, {summary['needs_human']} "
        f"{'needs' if summary['needs_human'] == 1 else 'need'} a human"
    )


def _label_line(entry: Mapping[str, Any], style: Style) -> str:
    status = entry["status"]
    detail = clean(entry["detail"])
    named = entry.get("covering") or entry.get("candidates")
    if named:
        detail += ": " + ", ".join(map(clean, named))
    if entry.get("rule") == "document_gone":
        detail += f" ({clean(entry['doc_uri'])})"
    return f"  line {entry['line']}  {clean(entry['query_id'])}  {style(f'{status:<13}', _TONE[status])}  {detail}"


def _listed(title: str, lines: list[str]) -> list[str]:
    if not lines:
        return []
    shown = lines[:MAX_LISTED]
    if len(lines) > MAX_LISTED:
        shown.append(f"  … {len(lines) - MAX_LISTED} more (see --json)")
    return [title, *shown]


def _needs_human(payload: Mapping[str, Any], style: Style) -> list[str]:
    entries = [e for e in payload["labels"] if e["status"] in NEEDS_HUMAN]
    return _listed("needs a human", [_label_line(e, style) for e in entries])


def _fix_lines(payload: Mapping[str, Any]) -> list[str]:
    fix = payload.get("fix")
    if fix is None:
        return []
    verb = "would re-anchor" if fix["dry_run"] else "re-anchored"
    changes = [
        f"  line {c['line']}  {clean(c['query_id'])}  {clean(c['from'])} -> {clean(c['to'])}"
        + (f"  ({clean(c['from_doc'])} -> {clean(c['to_doc'])})" if "to_doc" in c else "")
        + f"  [{clean(c['rule'])}]"
        for c in fix["changes"]
    ]
    collapsed = [
        f"  query {clean(c['query_id'])}: line(s) {', '.join(map(str, c['absorbed_lines']))} folded into "
        f"line {c['kept_line']} (relevance {clean(c['relevance'])}), key {clean(c['key'])}"
        for c in fix["collapsed"]
    ]
    lines = _listed(verb, changes) + _listed("collapsed" if not fix["dry_run"] else "would collapse", collapsed)
    lines.append(_written_line(payload))
    lines.append(
        f"after the fix {fix['needs_human_after']} of {_plural(fix['labels_after'], 'label')} "
        f"need a human (invalid ratio {fix['invalid_ratio_after']:g})"
    )
    return lines


def _written_line(payload: Mapping[str, Any]) -> str:
    fix = payload["fix"]
    if fix["dry_run"]:
        return "dry run: nothing written"
    if fix["written"] is None:
        return f"nothing to fix; {clean(payload['judgments'])} left as it was"
    replaced = fix.get("replaced") or []
    dropped = (
        f" ({_plural(len(replaced), 'broken label')} dropped: re-judged lines stand in for them)" if replaced else ""
    )
    return f"wrote {_plural(fix['labels_after'], 'label')} to {clean(fix['written'])}{dropped}"


def _next_lines(payload: Mapping[str, Any]) -> list[str]:
    summary = payload["summary"]
    fix = payload.get("fix")
    lines = []
    if summary["recoverable"] and (fix is None or fix["dry_run"]):
        command = [
            "retrieval-eval",
            "drift",
            "--judgments",
            payload["judgments"],
            "--corpus",
            payload["corpus"]["path"],
            "--fix",
        ]
        lines.append("next  " + clean(" ".join(shlex.quote(part) for part in command)))
    # After a fix, what is left: re-judged lines may have replaced some of the broken labels.
    needs_human = fix["needs_human_after"] if fix is not None and not fix["dry_run"] else summary["needs_human"]
    queue = payload.get("queue")
    if queue is not None:
        lines.append(
            f"wrote {_plural(queue['lines'], 'line')} for {_plural(queue['labels'], 'label')} to "
            f"{clean(queue['path'])}: set relevance and labeled_by on each, append them to the judgments, "
            "then run drift --fix (it drops the labels they replace)"
        )
    elif needs_human:
        command = ["retrieval-eval", "drift", "-j", payload["judgments"], "-c", payload["corpus"]["path"]]
        lines.append(
            f"next  re-judge the {_plural(needs_human, 'label')} under 'needs a human' "
            "against the live chunks: "
            + clean(" ".join(shlex.quote(part) for part in [*command, "--queue", "rejudge.jsonl"]))
            + " writes them as a queue"
        )
    return lines


def render_drift(payload: Mapping[str, Any], *, colour: bool = False) -> str:
    style = Style(colour)
    sections = [
        [_header(payload)],
        _counts(payload, style),
        [_ratio_line(payload)],
        _needs_human(payload, style),
        _fix_lines(payload),
        _next_lines(payload),
    ]
    return "\n\n".join("\n".join(section) for section in sections if section) + "\n"
