"""The HTML report: one self-contained page to inspect a run, and its comparison, query by query.

The page holds the verdict and gates, the metrics with their intervals, a
chart per stratum, the label drift, and the queries that moved most, each
with the top k of base and head side by side. Everything is inline (style,
SVG, one small script for sorting and filtering), and a Content-Security-
Policy allows nothing else: no request leaves the page.

User strings reach the template raw and Jinja escapes them (autoescape, in
an environment of its own, apart from the Markdown one). Before that, each is
made plain here: control and bidirectional-override characters are shown as
their code points, so a query cannot reorder what the page shows.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

from ..core.comparison_document import ID_SPACE_CHANGED, ComparisonDocument, MetricRow, Mover, Movers, StratumRow
from ..core.labelindex import LabelIndex
from ..core.lenient import number
from ..core.report_model import Config, Floor, Inputs, JudgmentsSummary, Margin, Report, StratumEntry, Tool
from .charts import StratumPoint, stratum_chart
from .compared import Compared, as_document
from .escape import page_text
from .html_inputs import PageLabels, index_page_labels, read_chunk_texts, read_labels_for_page
from .html_view import (
    PageDrift,
    PageEntry,
    PageEvalSet,
    PageFinding,
    PageFloor,
    PageFloorStratum,
    PageGate,
    PageMargin,
    PageMetric,
    PageMover,
    PageMovers,
    PageQueries,
    PageQuery,
    PageQueryMetric,
    PageRank,
    PageStrata,
    PageStratum,
    PageVerdict,
    PageView,
)
from .machine import machine_view
from .marks import adjusted_mark, report_gates
from .notices import notices
from .numbers import fmt, fmt_delta, fmt_interval, fmt_p
from .power import power_view
from .sections import NO_GATES, drift_facts, floor_shown, sections_of
from .tables import floor_marks, gate_marks
from .unjudged import unjudged_view
from .view import EvalSetLine, ScoredView, significance_line

DEFAULT_THRESHOLD = 1  # the CLI's default, assumed when a report records none
QUERY_LIMIT = 200  # queries shown one by one; the rest are counted
TEXT_LIMIT = 300  # characters of a name or query
# Characters of a reason, and of a comparability finding's detail and meaning: the page is where a
# reader goes for them whole (a re-chunk's names the labels that broke, then the command that lists
# them; the power reason names every stratum), so it cuts them later than the job summary does (500).
FINDING_LIMIT = 2_000
CHUNK_LIMIT = 600  # characters of a chunk's text
OPEN_QUERIES = 3  # the first queries are shown unfolded


@dataclass(frozen=True)
class HtmlInputs:
    """What the page shows beyond the head report and the comparison."""

    base: Report | None = None  # the base report: its rankings and per-query values
    labels: Mapping[str, PageLabels] = field(default_factory=dict)
    texts: Mapping[str, str] = field(default_factory=dict)  # key -> chunk text
    judgments_given: bool = False
    corpus_given: bool = False
    # The queries shown, when the caller chose them already (html_report does, to read their
    # labels and texts): ordering every query is 0.03 s on 10,000.
    shown: tuple[str, ...] | None = None


def plain(value: Any, limit: int = TEXT_LIMIT) -> str:
    """A user string on one line, hidden characters made visible, at most ``limit`` long."""
    return page_text(value, limit)


def shown_queries(report: Report, base: Report | None, limit: int = QUERY_LIMIT) -> list[str]:
    """The queries the page shows: those whose primary metric moved most against the base
    (then the lowest), or without a base the lowest first; ties by id."""
    primary = report.primary_metric()
    head, before = _per_query(report), _per_query(base)

    def order(query_id: str) -> tuple[float, float, str]:
        now, then = _value(head, query_id, primary), _value(before, query_id, primary)
        moved = abs(now - then) if now is not None and then is not None else 0.0
        return (-moved, now if now is not None else -1.0, query_id)

    return sorted(dict.fromkeys([*head, *before]), key=order)[:limit]


def keys_shown(report: Report, base: Report | None, queries: Sequence[str]) -> set[str]:
    """Every key in the top k of either side of the shown queries: the chunk texts to look up."""
    k = _top_k(report)
    return {key for side in (report, base) for query_id in queries for key in _ranking(side, query_id, k)}


def html_report(
    report: Report,
    comparison: Compared = None,
    *,
    base: Report | None = None,
    judgments: str | None = None,
    corpus: str | None = None,
    query_limit: int = QUERY_LIMIT,
    index: LabelIndex | None = None,
) -> str:
    """The page, reading the labels and chunk texts of the queries it shows from the files named.

    ``index``: those judgments as scoring already read them (the action's); their labels are
    taken from it when it was read from the file the report was scored with, and the file is
    not read again.
    """
    shown = shown_queries(report, base, query_limit)
    expected = (report.inputs or Inputs()).judgments_sha256
    if judgments and index is not None and index.sha256 is not None and index.sha256 == expected:
        labels = index_page_labels(index, set(shown))
    else:
        labels = read_labels_for_page(judgments, set(shown), expected_sha256=expected) if judgments else {}
    inputs = HtmlInputs(
        base=base,
        labels=labels,
        texts=read_chunk_texts(corpus, keys_shown(report, base, shown)) if corpus else {},
        judgments_given=bool(judgments),
        corpus_given=bool(corpus),
        shown=tuple(shown),
    )
    return render_html(report, comparison, inputs, query_limit=query_limit)


def render_html(
    report: Report,
    comparison: Compared = None,
    inputs: HtmlInputs | None = None,
    *,
    query_limit: int = QUERY_LIMIT,
) -> str:
    """The page for ``report`` (and its comparison with the base, when given)."""
    # Jinja, about 14 ms of start-up (the least of seven python -X importtime runs), loaded only
    # now that a page is drawn:
    # `render` and the action import this module for every kind.
    from .html_page import draw_page

    return draw_page(build_html_view(report, as_document(comparison), inputs or HtmlInputs(), query_limit))


def build_html_view(
    report: Report, comparison: ComparisonDocument | None, inputs: HtmlInputs, query_limit: int
) -> PageView:
    primary = report.primary_metric()
    style, script = _asset("report.css.j2"), _asset("report.js.j2")
    head_judgments = report.judgments or JudgmentsSummary()
    return PageView(
        csp=(
            "default-src 'none'; "
            f"style-src '{_sha256(style)}'; script-src '{_sha256(script)}'; "
            "img-src data:; base-uri 'none'; form-action 'none'"
        ),
        style=style,
        script=script,
        has_base=comparison is not None,
        primary=plain(primary, 60),
        verdict=_verdict(report, comparison, primary),
        scored=ScoredView(queries=head_judgments.queries or 0, scored=head_judgments.queries_scored or 0),
        sections=sections_of(report, comparison),
        gates=_gates(report),
        machine_labels=machine_view(report, markdown=False),
        # The page has no label queue to show: the block is the drop of judged@k, as the summary says it.
        unjudged=unjudged_view(report, comparison, None, markdown=False),
        power=power_view(report, comparison, markdown=False),
        reasons=tuple(plain(r, FINDING_LIMIT) for r in notices(report).reasons),
        metrics=_metrics(report, comparison, primary),
        significance=significance_line(comparison),
        floor=_floor(report, primary),
        eval_set=_eval_set(report),
        movers=_movers(comparison),
        strata=_strata(report, comparison, primary),
        comparability=tuple(
            PageFinding(
                effect=plain(f.effect, 20),
                detail=plain(f.detail, FINDING_LIMIT),
                meaning=plain(f.meaning, FINDING_LIMIT),
            )
            for f in (comparison.findings if comparison else ())
        ),
        drift=_drift(report),
        queries=_queries(report, inputs, primary, query_limit, old_ids=_ids_changed(comparison)),
        footer=_footer(report, comparison),
    )


# -- the parts ----------------------------------------------------------------------------


_GATE_TONES = {"✅": "pass", "❌": "fail", "⚠️": "indeterminate"}


def _verdict(report: Report, comparison: ComparisonDocument | None, primary: str) -> PageVerdict:
    status = plain(report.status() or "INDETERMINATE", 20)
    value = report.measured(primary)
    moved = (comparison.metrics.get(primary) if comparison else None) or MetricRow()
    line = "No metric was computed." if value is None else f"{primary} {fmt(value)}"
    if value is not None and number(moved.delta) is not None:
        line += f", {fmt_delta(moved.delta)} vs base"
        if moved.confounded:
            line += " (confounded: the two sides were measured with different yardsticks)"
        elif fmt_interval(moved.ci) != "—":
            sure = "significant" if adjusted_mark(moved) else "not significant"
            line += f", 95% interval {fmt_interval(moved.ci)}, {sure}"
    note = "" if report_gates(report) else NO_GATES
    return PageVerdict(status=status, tone=status.lower(), headline=plain(line, 400), note=note)


def _gates(report: Report) -> tuple[PageGate, ...]:
    rows = []
    for gate in report_gates(report):
        expression = gate.expression or ""
        status = plain(gate.status or "", 20)
        reason = (gate.reason or "").removeprefix(expression + ": ")
        rows.append(
            PageGate(expression=plain(expression, 80), status=status, tone=status.lower(), reason=plain(reason))
        )
    return tuple(rows)


def _metrics(report: Report, comparison: ComparisonDocument | None, primary: str) -> tuple[PageMetric, ...]:
    marks = gate_marks(report_gates(report))
    compared = comparison.metrics if comparison else {}
    names = [str(n) for n in dict.fromkeys([*(report.metrics or {}), *compared])]
    names.sort(key=lambda n: (n != primary, n not in marks))
    rows = []
    for name in names:
        found = compared.get(name)
        moved = found or MetricRow()
        head = moved.head if found is not None else report.measured(name)
        rows.append(
            PageMetric(
                name=plain(name, 60),
                primary=name == primary,
                base=fmt(moved.base),
                head=fmt(head),
                head_value=number(head),
                delta="—" if moved.confounded else fmt_delta(moved.delta),
                delta_value=None if moved.confounded else number(moved.delta),
                interval="confounded" if moved.confounded else fmt_interval(moved.ci),
                p="—" if moved.confounded else fmt_p(moved.p_value),
                p_value=number(moved.p_value),
                significant=adjusted_mark(moved) and not moved.confounded,
                gate=_GATE_TONES.get(marks.get(name, ""), ""),
            )
        )
    return tuple(rows)


def _strata(report: Report, comparison: ComparisonDocument | None, primary: str) -> PageStrata:
    head, compared = report.per_stratum or {}, (comparison.strata if comparison else {})
    points, rows = [], []
    for name in dict.fromkeys([*head, *compared]):
        found, entry = compared.get(name), head.get(name) or StratumEntry()
        moved = found or StratumRow()
        value = number(moved.head) if found is not None else entry.measured(primary)
        n = moved.n if moved.n is not None else entry.n
        point = StratumPoint(
            name=plain(name, 200),
            head=value,
            base=number(moved.base),
            value=fmt(value),
            delta=fmt_delta(moved.delta),
            delta_value=number(moved.delta),
        )
        points.append(point)
        rows.append(PageStratum(point=point, n=n if n is not None else "—", base=fmt(moved.base)))
    worst = report.worst_stratum.name if report.worst_stratum is not None else None
    return PageStrata(
        rows=tuple(rows),
        chart=stratum_chart(points),
        worst=plain(worst, 200) if worst is not None else None,
    )


def _drift(report: Report) -> PageDrift | None:
    """The drift section (render/sections.py decides what it says, as for the summary)."""
    facts = drift_facts(report)
    if facts is None:
        return None
    return PageDrift(
        counts=tuple((name.replace("_", "-"), count) for name, count in facts.counts),
        stale=facts.stale,
        sentence=plain(facts.sentence(tick=""), 600),
        changes=tuple(plain(change, 500) for change in facts.changes),
        repair_command=facts.repair_command,
        recoverable=facts.recoverable,
        needs_person=facts.needs_person,
    )


def _margin(name: str, row: Margin, gate: str = "") -> PageMargin:
    """One metric's margin over the floor; ``significant`` when its interval excludes 0."""
    return PageMargin(
        name=plain(name, 60),
        floor=fmt(row.floor),
        head=fmt(row.head),
        margin=fmt_delta(row.margin),
        margin_value=row.margin,
        interval=fmt_interval(row.ci),
        significant=row.significant is True,
        gate=_GATE_TONES.get(gate, ""),
    )


def _floor(report: Report, primary: str) -> PageFloor | None:
    """The margin over the floor run, every metric and the primary one per stratum (as the summary)."""
    if not floor_shown(report):
        return None
    floor = report.floor or Floor()
    marks = floor_marks(report)
    source = floor.source
    name = floor.method or (source if source != "run" else None) or "floor run"
    sha = floor.run_sha256
    unavailable = floor.unavailable
    strata = []
    for stratum, entry in (floor.per_stratum or {}).items():
        row = (entry.metrics or {}).get(primary)
        if row is not None and row != Margin():
            line = _margin(primary, row)
            strata.append(
                PageFloorStratum(
                    name=plain(stratum, 200),
                    floor=line.floor,
                    head=line.head,
                    margin=line.margin,
                    margin_value=line.margin_value,
                    interval=line.interval,
                    significant=line.significant,
                    gate=line.gate,
                    n=entry.n or 0,
                )
            )
    return PageFloor(
        source=plain(f"{name}{' ' + str(sha)[:12] if sha else ''}", 80),
        unavailable=plain(unavailable, 600) if unavailable is not None else None,
        rows=tuple(_margin(n, r, marks.get(n, "")) for n, r in (floor.metrics or {}).items()),
        strata=tuple(strata),
    )


def _eval_set(report: Report) -> PageEvalSet:
    """The eval-set warnings (easy-set, answer-in-query), and why a check was skipped."""
    warnings = report.sensitivity.warnings if report.sensitivity is not None else None
    skipped = notices(report).skipped
    return PageEvalSet(
        rows=tuple(
            EvalSetLine(code=plain(w.code or "", 40), message=plain(w.message or "", 600)) for w in warnings or ()
        ),
        skipped=plain(skipped, 600) if skipped else None,
    )


def _movers(comparison: ComparisonDocument | None) -> PageMovers:
    moved = (comparison.movers if comparison else None) or Movers()

    def rows(movers: Sequence[Mover] | None) -> tuple[PageMover, ...]:
        return tuple(
            PageMover(
                query_id=plain(m.query_id, 120),
                query=plain(m.query or "", 200),
                stratum=plain(m.stratum or "", 80),
                base=fmt(m.base),
                head=fmt(m.head),
                delta=fmt_delta(m.delta),
                tone=_tone(number(m.delta)),
            )
            for m in movers or ()
        )

    return PageMovers(
        metric=plain("" if moved.metric is None else moved.metric, 60),
        drops=rows(moved.drops),
        gains=rows(moved.gains),
        down=moved.down or 0,
        up=moved.up or 0,
    )


def _ids_changed(comparison: ComparisonDocument | None) -> bool:
    """Whether the base ranked other chunk ids than the head (a re-chunk between them)."""
    return any(finding.code == ID_SPACE_CHANGED for finding in (comparison.findings if comparison else ()))


def _queries(report: Report, inputs: HtmlInputs, primary: str, limit: int, *, old_ids: bool = False) -> PageQueries:
    base = inputs.base
    shown = inputs.shown if inputs.shown is not None else shown_queries(report, base, limit)
    everyone = len(dict.fromkeys([*_per_query(report), *_per_query(base)]))
    threshold = (report.config or Config()).threshold or DEFAULT_THRESHOLD
    k = _top_k(report)
    rows = tuple(
        # The first queries are shown unfolded.
        _query(query_id, report, inputs, primary, threshold, k, old_ids, opened=index < OPEN_QUERIES)
        for index, query_id in enumerate(shown)
    )
    return PageQueries(
        rows=rows,
        total=everyone,
        left_out=everyone - len(rows),
        k=k,
        order="moved most on" if base is not None else "lowest on",
        has_base=base is not None,
        base_rankings=base is not None and base.rankings is not None,
        old_ids=old_ids,
        judgments_given=inputs.judgments_given,
        corpus_given=inputs.corpus_given,
    )


def _query(
    query_id: str,
    report: Report,
    inputs: HtmlInputs,
    primary: str,
    threshold: int,
    k: int,
    old_ids: bool,
    *,
    opened: bool,
) -> PageQuery:
    labels = inputs.labels.get(query_id)
    head_values = _per_query(report).get(query_id) or {}
    base_values = _per_query(inputs.base).get(query_id) or {}
    head_top = _ranking(report, query_id, k)
    base_top = _ranking(inputs.base, query_id, k)
    now, then = number(head_values.get(primary)), number(base_values.get(primary))
    delta = None if now is None or then is None else now - then
    grades = labels.grades if labels else {}
    return PageQuery(
        id=plain(query_id, 120),
        text=plain(labels.text) if labels and labels.text else "",
        stratum=plain(labels.stratum, 80) if labels and labels.stratum else "",
        base=fmt(then),
        head=fmt(now),
        head_value=now,
        delta=fmt_delta(delta),
        delta_value=delta,
        tone=_tone(delta),
        metrics=tuple(
            _query_metric(name, base_values.get(name), head_values.get(name))
            for name in dict.fromkeys([*head_values, *base_values])
        ),
        ranks=tuple(
            PageRank(
                rank=rank + 1,
                # After a re-chunk the base's keys name old chunks, which the head's labels do not.
                base=_entry(base_top, rank, head_top, grades, threshold, inputs, old_ids),
                head=_entry(head_top, rank, base_top, grades, threshold, inputs),
            )
            for rank in range(max(len(head_top), len(base_top)))
        ),
        open=opened,
    )


def _entry(
    side: list[str],
    rank: int,
    other: list[str],
    grades: Mapping[str, int],
    threshold: int,
    inputs: HtmlInputs,
    old_ids: bool = False,
) -> PageEntry | None:
    if rank >= len(side):
        return None
    key = side[rank]
    grade = grades.get(key)
    if grade is None and old_ids:
        label, tone = "old chunk id", "unjudged"
    elif grade is None:
        label, tone = "unjudged", "unjudged"
    elif grade >= threshold:
        label, tone = f"grade {grade}", "relevant"
    else:
        label, tone = "not relevant" + (f" (grade {grade})" if grade else ""), "not-relevant"
    elsewhere = other.index(key) + 1 if key in other else None
    return PageEntry(
        key=plain(key, 200),
        label=label if inputs.judgments_given else "",
        tone=tone if inputs.judgments_given else "",
        text=plain(inputs.texts[key], CHUNK_LIMIT) if key in inputs.texts else "",
        other_rank=elsewhere,
    )


def _footer(report: Report, comparison: ComparisonDocument | None) -> str:
    tool, inputs = report.tool or Tool(), report.inputs or Inputs()
    parts = [
        f"{'retrieval-eval' if tool.name is None else tool.name} {tool.version or ''}",
        f"judgments {(inputs.judgments_sha256 or '—')[:12]}",
        f"run {(inputs.run_sha256 or '—')[:12]}",
    ]
    if comparison is not None:
        parts.append(f"base run {(comparison.base.run_sha256 or '—')[:12]}")
    parts.append(f"generated {'—' if report.generated_at is None else report.generated_at}")
    return plain(" · ".join(parts), 400)


# -- helpers ------------------------------------------------------------------------------


def _top_k(report: Report) -> int:
    return (report.cutoffs() or [10])[0]


def _ranking(report: Report | None, query_id: str, k: int) -> list[str]:
    rankings = (report.rankings if report is not None else None) or {}
    return list(rankings.get(query_id, ())[:k])


def _per_query(report: Report | None) -> Mapping[str, Mapping[str, float]]:
    return (report.per_query if report is not None else None) or {}


def _value(per_query: Mapping[str, Mapping[str, float]], query_id: str, metric: str) -> float | None:
    return per_query.get(query_id, {}).get(metric)


def _query_metric(name: str, before: float | None, after: float | None) -> PageQueryMetric:
    then, now = number(before), number(after)
    delta = None if then is None or now is None else now - then
    return PageQueryMetric(
        name=plain(name, 60), base=fmt(then), head=fmt(now), delta=fmt_delta(delta), tone=_tone(delta)
    )


def _tone(delta: float | None) -> str:
    """How a change is coloured: down, up, or not at all when there is none."""
    return "" if delta is None or round(delta, 4) == 0 else ("down" if delta < 0 else "up")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


@cache
def _asset(name: str) -> str:
    """A style sheet or script shipped beside the templates, inlined as is (its hash goes in the CSP)."""
    return (files("retrieval_eval") / "templates" / name).read_text(encoding="utf-8")
