"""Rendering a report (and its comparison with the base) as Markdown for GitHub.

One function, :func:`render`, for every kind: ``summary`` (the job summary,
full detail), ``comment`` (the compact pull-request comment) and ``text``
(the terminal rendering, no Markdown).

Markdown comes from Jinja templates shipped in ``templates/`` and rendered in
Jinja's sandbox with ``StrictUndefined``, so a misspelt name fails loudly.
A directory of user templates may replace a built-in one; such a template
extends ``builtin/<name>`` and overrides its named blocks.

Templates never see a raw user string: the view built here escapes every
string that came from a file (query text, ids, stratum names, gate
expressions, reasons, hashes) for GitHub Markdown and HTML first.

Size budgets: GitHub refuses a comment over 65,536 characters and truncates
a job summary over 1 MiB. When the rendering is over, whole sections are
shortened or dropped in a fixed order and a note says what was left out;
tables are never cut through.

Jinja is imported here only, and only when Markdown is rendered: the score
path never pays for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import InputError, UsageError
from .gates import PASS, SEVERITY, gate_metric
from .lenient import integer, items, mapping, measured, number, primary_metric, section

KINDS = ("summary", "comment", "text")
COMMENT_LIMIT = 65_536  # characters, GitHub's limit for a comment body
SUMMARY_LIMIT = 1 << 20  # bytes, GitHub's limit for one step's summary
MARKER = "<!-- retrieval-eval:comment id={} -->"
_BLANK_LINES = re.compile(r"\n{3,}")
_COMMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
TEXT_LIMIT = 200  # characters of one user string shown in a cell
QUERY_LIMIT = 120
REASON_LIMIT = 500
ICONS = {"PASS": "✅", "FAIL": "❌", "INDETERMINATE": "⚠️"}


# -- escaping ----------------------------------------------------------------------

# Characters that Markdown or HTML would read as syntax anywhere in a line.
_ESCAPES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "&#124;", '"': "&quot;",
    "\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]",
    "(": "\\(", ")": "\\)", "!": "\\!", "~": "\\~", "$": "\\$", "{": "\\{", "}": "\\}",
    # A zero-width space after @ and # stops GitHub turning them into mentions and
    # issue links, which it does after Markdown, so a backslash would not help.
    "#": "#&#8203;",
    "\u200b": "&#8203;",
}
# An @ starts a mention, or an e-mail address that becomes a link. Only the
# "recall@5" shape (a word, @, a number) is neither, and is left readable.
_AT = re.compile(r"(?<!\w)@|@(?!\d+(?![\w.]))")
# Bare URLs become links through GitHub's autolinker; break the patterns it looks for.
_AUTOLINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=\bwww)(?=\.)")
_LINE_START = re.compile(r"^(\d{1,9}(?=[.)](?:\s|$))|[-+](?=\s|$))")
# Metric names from our registry need no escaping (an @ after a letter is no mention).
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(@[0-9]{1,6})?")


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def escape_markdown(value: Any, *, limit: int = TEXT_LIMIT) -> str:
    """A user string made inert for GitHub Markdown and HTML, on one line, at most ``limit`` long.

    No mention, issue reference, link, image, HTML tag, emphasis or table
    break survives; the text still reads the same once rendered.
    """
    text = shorten(" ".join(str(value).split()), limit)
    text = _AUTOLINK.sub("\u200b", text)
    text = _AT.sub("@\u200b", text)
    text = "".join(_ESCAPES.get(char, char) for char in text)
    # A leading list or heading marker would make a block if the text starts a line.
    return _LINE_START.sub(lambda m: m.group(1) + "\\" if m.group(1).isdigit() else "\\" + m.group(1), text, count=1)


def escape_name(value: Any, *, limit: int = 60) -> str:
    """A metric name: shown as is when it looks like one of ours, escaped otherwise."""
    text = str(value)
    return text if len(text) <= limit and _PLAIN_NAME.fullmatch(text) else escape_markdown(text, limit=limit)


def mermaid_label(value: Any, *, limit: int = 24) -> str:
    """A name safe inside a quoted Mermaid label: letters, digits, spaces, - _ . @ only."""
    text = re.sub(r"[^\w .@-]", "_", _AT.sub("_", " ".join(str(value).split())))
    return shorten(text, limit) or "_"


def comment_marker(comment_id: str = "default") -> str:
    """The hidden line that identifies our comment, so it is updated instead of repeated."""
    if not isinstance(comment_id, str) or not _COMMENT_ID.fullmatch(comment_id):
        raise UsageError(f"comment id {comment_id!r} must be 1-64 letters, digits, '.', '_' or '-'",
                         hint="--comment-id nightly")
    return MARKER.format(comment_id)


# -- numbers -----------------------------------------------------------------------


def fmt(value: Any) -> str:
    figure = number(value)
    return "—" if figure is None else f"{figure:.4f}"


def fmt_delta(value: Any) -> str:
    figure = number(value)
    if figure is None:
        return "—"
    return "±0.0000" if round(figure, 4) == 0 else f"{figure:+.4f}"


def fmt_p(value: Any) -> str:
    figure = number(value)
    if figure is None:
        return "—"
    return f"{figure:.4f}" if figure >= 0.0001 else "<0.0001"


def fmt_interval(ci: Any) -> str:
    if not isinstance(ci, list) or len(ci) != 2:
        return "—"
    return f"[{fmt_delta(ci[0])}, {fmt_delta(ci[1])}]"


# -- the view: what templates see ----------------------------------------------------


def gate_marks(report: Mapping[str, Any]) -> dict[str, str]:
    """The worst gate status per metric name, as a mark for the metric table."""
    worst: dict[str, str] = {}
    for gate in items(section(report, "verdict").get("gates")):
        gate = mapping(gate)
        status, metric = str(gate.get("status")), gate_metric(str(gate.get("expression", "")))
        if status in SEVERITY and SEVERITY[status] >= SEVERITY[worst.get(metric, PASS)]:
            worst[metric] = status
    return {metric: ICONS[status] for metric, status in worst.items()}


def metric_row(name: str, report: Mapping[str, Any], compared: Mapping[str, Any], marks: Mapping[str, str],
               primary: str) -> dict[str, Any]:
    significant = compared.get("significant") is True
    confounded = compared.get("confounded")
    delta = fmt_delta(compared.get("delta"))
    return {
        "name": escape_name(name),
        "primary": name == primary,
        "value": fmt(measured(report, name)),
        "base": fmt(compared.get("base")),
        "head": fmt(compared.get("head", measured(report, name))),
        "delta": f"**{delta}**" if significant and not confounded else delta + (" ⚠️" if confounded else ""),
        "interval": "confounded" if confounded else fmt_interval(compared.get("ci")),
        "p": "—" if confounded else fmt_p(compared.get("p_value")),
        "significant": significant,
        "confounded": escape_markdown(confounded) if confounded else None,
        "gate": marks.get(name, ""),
    }


def metric_rows(report: Mapping[str, Any], comparison: Mapping[str, Any] | None, primary: str) -> list[dict[str, Any]]:
    marks = gate_marks(report)
    compared = section(comparison, "metrics")
    names = [str(n) for n in dict.fromkeys([*section(report, "metrics"), *compared])]
    # The primary metric leads; gated metrics follow; then the rest in report order.
    names.sort(key=lambda n: (n != primary, n not in marks))
    return [metric_row(n, report, mapping(compared.get(n)), marks, primary) for n in names]


def compact_metric_names(rows: list[dict[str, Any]], primary: str) -> list[dict[str, Any]]:
    """For the comment: the primary cutoff's metrics, every gated metric, and the cutoff-free ones."""
    cutoff = primary.partition("@")[2]
    kept = [r for r in rows if r["gate"] or r["primary"] or "@" not in r["name"]
            or r["name"].endswith("@" + cutoff)]
    return kept


def stratum_rows(report: Mapping[str, Any], comparison: Mapping[str, Any] | None, primary: str) -> list[dict[str, Any]]:
    head = section(report, "per_stratum")
    compared = section(comparison, "per_stratum")
    rows = []
    for name in dict.fromkeys([*head, *compared]):
        entry, moved = mapping(head.get(name)), mapping(compared.get(name))
        value = moved.get("head") if "head" in moved else measured(entry, primary)
        # Paired counts when the comparison has them, so n matches the numbers beside it.
        n = integer(moved.get("n")) if integer(moved.get("n")) is not None else integer(entry.get("n"))
        rows.append({
            "name": escape_markdown(name, limit=80),
            "label": mermaid_label(name),
            "n": n if n is not None else "—",
            "head": fmt(value),
            "head_value": number(value),
            "base": fmt(moved.get("base")),
            "base_value": number(moved.get("base")),
            "delta": fmt_delta(moved.get("delta")),
        })
    return rows


def mover_rows(movers: Any) -> list[dict[str, Any]]:
    rows = []
    for mover in items(movers):
        mover = mapping(mover)
        query = mover.get("query")
        stratum = mover.get("stratum")
        rows.append({
            "query_id": escape_markdown(mover.get("query_id", ""), limit=80),
            "query": escape_markdown(query, limit=QUERY_LIMIT) if query else "—",
            "stratum": escape_markdown(stratum, limit=60) if stratum else "—",
            "base": fmt(mover.get("base")),
            "head": fmt(mover.get("head")),
            "delta": fmt_delta(mover.get("delta")),
        })
    return rows


def drift_warning(report: Mapping[str, Any]) -> str | None:
    """One sentence when the labels were checked against the corpus and some no longer fit."""
    drift = section(section(report, "judgments"), "drift")
    ratio = number(drift.get("invalid_ratio"))
    if ratio is None or ratio <= 0:
        return None
    counts = [f"{integer(drift.get(k))} {k.replace('_', '-')}" for k in ("orphaned", "re_anchorable", "merged", "split")
              if integer(drift.get(k))]
    detail = f" ({', '.join(counts)})" if counts else ""
    return (f"Label drift: {ratio:.1%} of the labels no longer point at the live corpus{detail}. "
            "Numbers computed from stale labels understate the retriever; run `retrieval-eval drift` "
            "and review `drift --fix`.")


def worst_stratum(report: Mapping[str, Any]) -> dict[str, Any] | None:
    worst = section(report, "worst_stratum")
    if not worst:
        return None
    name = worst.get("name")
    entry = mapping(section(report, "per_stratum").get(name))
    return {"name": escape_markdown(name, limit=80), "metric": escape_name(worst.get("metric", "")),
            "value": fmt(worst.get("value")), "n": integer(entry.get("n")) or 0}


def findings(comparison: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    return [{"code": escape_markdown(f.get("code", ""), limit=40), "effect": escape_markdown(f.get("effect", ""), limit=20),
             "detail": escape_markdown(f.get("detail", ""), limit=REASON_LIMIT),
             "meaning": escape_markdown(f.get("meaning", ""), limit=REASON_LIMIT),
             "confounds": f.get("effect") == "confounds"}
            for f in map(mapping, items(mapping(comparison).get("comparability")))]


def gate_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for gate in map(mapping, items(section(report, "verdict").get("gates"))):
        expression = str(gate.get("expression", ""))
        reason = str(gate.get("reason", "")).removeprefix(expression + ": ")
        status = str(gate.get("status", ""))
        rows.append({"expression": escape_markdown(expression, limit=80), "status": escape_markdown(status, limit=20),
                     "icon": ICONS.get(status, ""), "reason": escape_markdown(reason, limit=REASON_LIMIT)})
    return rows


def reasons(report: Mapping[str, Any]) -> list[str]:
    return [escape_markdown(r, limit=REASON_LIMIT) for r in items(section(report, "verdict").get("reasons"))]


def headline(report: Mapping[str, Any], comparison: Mapping[str, Any] | None, primary: str) -> str:
    value = measured(report, primary)
    name = escape_name(primary)
    if number(value) is None:
        return "No metric was computed."
    text = f"{name} **{fmt(value)}**"
    moved = mapping(section(comparison, "metrics").get(primary))
    if comparison is None or number(moved.get("delta")) is None:
        return text
    if moved.get("confounded"):
        return f"{text} ({fmt_delta(moved.get('delta'))} vs base, confounded)"
    versus = f"{fmt_delta(moved.get('delta'))} vs base"
    paired = integer(section(comparison, "queries").get("paired"))
    if paired and paired != integer(section(report, "judgments").get("queries_scored")):
        versus += f" on the {paired} queries scored on both sides"
    interval = fmt_interval(moved.get("ci"))
    if interval == "—":
        return f"{text} ({versus})"
    verdict = "significant" if moved.get("significant") else "not significant"
    return f"{text} ({versus}, 95% interval {interval}, {verdict})"


def footer(report: Mapping[str, Any], comparison: Mapping[str, Any] | None) -> str:
    tool = section(report, "tool")
    inputs = section(report, "inputs")
    parts = [f"{escape_markdown(tool.get('name', 'retrieval-eval'), limit=40)} "
             f"{escape_markdown(tool.get('version', ''), limit=20)}",
             f"judgments {escape_markdown(str(inputs.get('judgments_sha256') or '—')[:12], limit=12)}",
             f"run {escape_markdown(str(inputs.get('run_sha256') or '—')[:12], limit=12)}"]
    if comparison is not None:
        base = section(comparison, "base")
        parts.append(f"base run {escape_markdown(str(base.get('run_sha256') or '—')[:12], limit=12)}")
    parts.append(f"generated {escape_markdown(report.get('generated_at', '—'), limit=40)}")
    return " · ".join(parts)



def significance_line(comparison: Mapping[str, Any] | None) -> str | None:
    method = section(comparison, "significance")
    paired, resamples = integer(method.get("paired_queries")), integer(method.get("resamples"))
    if not paired or not resamples:
        return None
    return (f"Intervals: paired bootstrap over {paired} queries, {resamples:,} resamples "
            f"(seed {integer(method.get('seed'))}); a bold Δ has a 95% interval that excludes 0.")


def build_view(report: Mapping[str, Any], comparison: Mapping[str, Any] | None, *, kind: str,
               comment_id: str) -> dict[str, Any]:
    primary = primary_metric(report)
    status = str(section(report, "verdict").get("status", "INDETERMINATE"))
    rows = metric_rows(report, comparison, primary)
    shown = compact_metric_names(rows, primary) if kind == "comment" else rows
    judgments = section(report, "judgments")
    moved = section(comparison, "movers")
    notes = findings(comparison)
    told = reasons(report)
    queries = section(comparison, "queries")
    # Every stratum either side reports, so the count in the heading matches the table.
    strata = stratum_rows(report, comparison, primary)
    return {
        "kind": kind,
        "marker": comment_marker(comment_id),
        "has_base": comparison is not None,
        "primary": escape_name(primary),
        "primary_label": mermaid_label(primary),
        "verdict": {"status": escape_markdown(status, limit=20), "icon": ICONS.get(status, "⚠️"),
                    "headline": headline(report, comparison, primary)},
        "scored": {"queries": integer(judgments.get("queries")) or 0, "scored": integer(judgments.get("queries_scored")) or 0},
        "metrics": {"rows": shown, "total": len(rows), "hidden": len(rows) - len(shown)},
        "significance": significance_line(comparison),
        "worst": worst_stratum(report),
        "drift": drift_warning(report),
        "strata": {"rows": strata, "total": len(strata)},
        "movers": {"metric": escape_name(moved.get("metric", primary)),
                   "drops": mover_rows(moved.get("drops")), "gains": mover_rows(moved.get("gains")),
                   "down": integer(moved.get("down")) or 0, "up": integer(moved.get("up")) or 0},
        "gates": gate_rows(report),
        "reasons": {"rows": told, "total": len(told)},
        "comparability": {"rows": notes, "total": len(notes)},
        "confounds": [note for note in notes if note["confounds"]],
        "yardstick": escape_markdown(mapping(comparison).get("yardstick", ""), limit=20) if comparison else None,
        "queries": {"paired": integer(queries.get("paired")) or 0, "added": len(items(queries.get("added"))),
                    "removed": len(items(queries.get("removed")))},
        "footer": footer(report, comparison),
        "omitted": [],
    }


# -- budgets -----------------------------------------------------------------------


def _keep_rows(section: str, count: int) -> Callable[[dict[str, Any]], str | None]:
    def reduce(view: dict[str, Any]) -> str | None:
        rows = view[section]["rows"]
        if len(rows) <= count:
            return None
        view[section]["rows"] = rows[:count]
        return f"{section} shortened to the first {count} of {len(rows)}"
    return reduce


def _keep_movers(count: int) -> Callable[[dict[str, Any]], str | None]:
    def reduce(view: dict[str, Any]) -> str | None:
        movers = view["movers"]
        if len(movers["drops"]) <= count and len(movers["gains"]) <= count:
            return None
        movers["drops"], movers["gains"] = movers["drops"][:count], movers["gains"][:count]
        return f"movers shortened to {count} each way" if count else "movers"
    return reduce


def _few_confounds(view: dict[str, Any]) -> str | None:
    """The warning above the table names at most three changes of yardstick."""
    if len(view["confounds"]) <= 3:
        return None
    view["confounds"] = view["confounds"][:3]
    return "all but three of the confounding changes in the warning"


def _only_confounds(view: dict[str, Any]) -> str | None:
    rows = view["comparability"]["rows"]
    kept = [row for row in rows if row["confounds"]]
    if len(kept) == len(rows):
        return None
    view["comparability"]["rows"] = kept
    return "comparability notes that change no number"


def _gated_metrics_only(view: dict[str, Any]) -> str | None:
    rows = view["metrics"]["rows"]
    kept = [row for row in rows if row["primary"] or row["gate"]]
    if len(kept) == len(rows):
        return None
    view["metrics"]["rows"] = kept
    view["metrics"]["hidden"] = view["metrics"]["total"] - len(kept)
    return "metrics that are neither primary nor gated"


def _drop_gates(view: dict[str, Any]) -> str | None:
    if not view["gates"]:
        return None
    view["gates"] = []
    return "the gate list (gate marks stay in the metric table)"


# Fixed order: least informative first. Each step keeps every table whole.
REDUCTIONS: tuple[Callable[[dict[str, Any]], str | None], ...] = (
    _keep_movers(3),
    _keep_rows("strata", 10),
    _keep_rows("reasons", 10),
    _only_confounds,
    _keep_rows("comparability", 5),
    _few_confounds,
    _keep_movers(0),
    _keep_rows("strata", 0),
    _gated_metrics_only,
    _drop_gates,
    _keep_rows("reasons", 0),
)


@dataclass(frozen=True)
class Budget:
    limit: int
    measure: Callable[[str], int]
    unit: str


BUDGETS = {
    "comment": Budget(COMMENT_LIMIT, len, "characters"),
    "summary": Budget(SUMMARY_LIMIT, lambda text: len(text.encode("utf-8")), "bytes"),
}


def fit(view: dict[str, Any], draw: Callable[[dict[str, Any]], str], budget: Budget) -> str:
    """Render, and while over budget shorten or drop the next section in the fixed order."""
    text = draw(view)
    for reduce in REDUCTIONS:
        if budget.measure(text) <= budget.limit:
            return text
        left_out = reduce(view)
        if left_out:
            view["omitted"].append(left_out)
            text = draw(view)
    if budget.measure(text) <= budget.limit:
        return text
    return last_resort(view, budget)


def last_resort(view: dict[str, Any], budget: Budget) -> str:
    """When even the shortest rendering is over budget: the verdict line and where to look."""
    verdict = view["verdict"]
    marker = view["marker"] + "\n" if view["kind"] == "comment" else ""
    return (f"{marker}### {verdict['icon']} retrieval-eval · {verdict['status']}\n\n"
            f"The full {view['kind']} is over GitHub's limit of {budget.limit:,} {budget.unit}; "
            "see the report file for every number.\n")


# -- Jinja -------------------------------------------------------------------------


def environment(template_dir: str | None) -> Any:
    """A sandboxed Jinja environment: user templates first, then the built-ins.

    Built-ins are also reachable as ``builtin/<name>``, which is what a user
    template extends to override blocks of the built-in one.
    """
    import os

    from jinja2 import ChoiceLoader, FileSystemLoader, PackageLoader, PrefixLoader, StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    builtin = PackageLoader("retrieval_eval", "templates")
    loaders: list[Any] = []
    if template_dir is not None:
        if not os.path.isdir(template_dir):
            raise UsageError(f"--template-dir {template_dir}: no such directory",
                             hint="point it at a directory holding comment.md.j2 and/or summary.md.j2")
        loaders.append(FileSystemLoader(template_dir))
    loaders += [PrefixLoader({"builtin": builtin}), builtin]
    return SandboxedEnvironment(loader=ChoiceLoader(loaders), undefined=StrictUndefined, autoescape=False,
                                trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)


def template_drawer(kind: str, template_dir: str | None) -> Callable[[dict[str, Any]], str]:
    from jinja2 import TemplateError, TemplateSyntaxError

    def refuse(exc: TemplateError) -> InputError:
        line = exc.lineno if isinstance(exc, TemplateSyntaxError) else None
        # The template's name under the loader, not its path: messages stay the same wherever it lives.
        where = getattr(exc, "name", None) or f"{kind}.md.j2"
        return InputError(f"template {where}", line, str(exc.message or exc), path=template_dir)

    try:
        template = environment(template_dir).get_template(f"{kind}.md.j2")
    except TemplateError as exc:
        raise refuse(exc) from None

    def draw(view: dict[str, Any]) -> str:
        try:
            text = template.render(**view)
        except TemplateError as exc:
            raise refuse(exc) from None
        # Blank lines mean the same in Markdown whether one or three; keep one, so
        # templates can be written for reading rather than for exact whitespace.
        return _BLANK_LINES.sub("\n\n", text)

    return draw


def check_marker(text: str, marker: str, template_dir: str | None) -> None:
    if marker not in text:
        raise UsageError(
            f"the comment template in {template_dir} dropped the marker {marker}; "
            "without it the comment cannot be found again and would be posted anew on every run",
            hint="extend \"builtin/comment.md.j2\" and override its blocks; the marker sits outside every block",
        )


# -- text --------------------------------------------------------------------------


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def plain(value: Any, *, limit: int = TEXT_LIMIT) -> str:
    """A user string for a terminal: one line, no control characters (no escape sequences)."""
    return shorten(_CONTROL.sub(" ", " ".join(str(value).split())), limit)


def _metric_line(name: str, row: Mapping[str, Any]) -> str:
    mark = "  confounded" if row.get("confounded") else ("  significant" if row.get("significant") else "")
    return (f"  {plain(name, limit=40):<14}{fmt(row.get('base')):>8} -> {fmt(row.get('head')):<8}"
            f"{fmt_delta(row.get('delta')):>9}  {fmt_interval(row.get('ci')):<20}{mark}".rstrip())


def comparison_text(comparison: Mapping[str, Any]) -> str:
    """The comparison for a terminal: one line per metric, then movers and findings."""
    paired = integer(section(comparison, "queries").get("paired")) or 0
    lines = [f"compared with base ({plain(comparison.get('yardstick', 'same'), limit=20)} yardstick, "
             f"{paired} paired queries)"]
    lines += [_metric_line(str(name), mapping(row)) for name, row in section(comparison, "metrics").items()]
    moved = section(comparison, "movers")
    for title, key in (("largest drops", "drops"), ("largest gains", "gains")):
        rows = [mapping(r) for r in items(moved.get(key))]
        if rows:
            lines.append(f"{title} ({plain(moved.get('metric'), limit=40)})")
            lines += [f"  {fmt_delta(r.get('delta')):>8}  {plain(r.get('query_id'), limit=80)}" for r in rows]
    for finding in map(mapping, items(comparison.get("comparability"))):
        lines.append(plain(f"{finding.get('effect')}: {finding.get('detail')}; {finding.get('meaning')}", limit=1000))
    return "\n".join(lines) + "\n"


def render_text(report: Mapping[str, Any], comparison: Mapping[str, Any] | None) -> str:
    from .terminal import render_score

    text = render_score(report)
    return text + ("\n" + comparison_text(comparison) if comparison is not None else "")


# -- the one entry point -----------------------------------------------------------


def _document(comparison: Any) -> Mapping[str, Any] | None:
    """The comparison document, also when given the Comparison object gates read."""
    document = getattr(comparison, "document", None)
    return document if isinstance(document, Mapping) else comparison


def render(
    kind: str,
    *,
    report: Mapping[str, Any],
    comparison: Mapping[str, Any] | Any | None = None,
    template_dir: str | None = None,
    comment_id: str = "default",
) -> str:
    """Render ``report`` (and its comparison with the base, when given) as ``kind``.

    ``comparison`` is a document from ``compare.build_comparison``, or the
    ``Comparison`` an evaluation carries (its document is rendered).

    Raises UsageError for an unknown kind, a bad comment id or a comment
    template that drops the marker; InputError for a template that fails.
    """
    if kind not in KINDS:
        raise UsageError(f"unknown format {kind!r}; choose one of {', '.join(KINDS)}")
    marker = comment_marker(comment_id)
    comparison = _document(comparison)
    if kind == "text":
        return render_text(report, comparison)
    view = build_view(report, comparison, kind=kind, comment_id=comment_id)
    text = fit(view, template_drawer(kind, template_dir), BUDGETS[kind])
    if kind == "comment":
        check_marker(text, marker, template_dir)
    return text
