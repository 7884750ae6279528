"""Plain-text rendering for the terminal: metric table, strata bars, gates, verdict.

No Jinja here: the score path must start fast, and a terminal table is a
few lines of formatting. Colour is decided by the caller (``--color``,
NO_COLOR, whether stdout is a terminal) and passed in as a flag.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..core.gates import gate_metric
from ..core.lenient import cutoffs, items, mapping, measured, number, primary_metric, section, value_of
from ..core.metrics import REGISTRY, SET_METRICS
from .detectable import detectable_gates, detectable_sentence

_COLOURS = {"PASS": "32", "FAIL": "31", "INDETERMINATE": "33", "dim": "2", "bold": "1"}
BAR_WIDTH = 20
MAX_LISTED = 10


class Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, tone: str) -> str:
        code = _COLOURS.get(tone)
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour and code else text


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def clean(value: Any) -> str:
    """User text made safe for a terminal: control characters shown by code, not obeyed.

    The one cleaner every command uses for strings from files or arguments: C0 and C1
    controls, DEL, and every other character that is not printable (the bidi marks
    that reorder a line among them) come out as ``\\x1b``, ``\\r``, ``\\u202e``.
    """
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def clean_json_text(text: str) -> str:
    """JSON lines made safe for a terminal by the same rule as :func:`clean`: every character that
    is not printable (a newline between lines apart) is written as its JSON escape, which reads
    back as the same string. Only strings hold such characters, so the JSON stays valid."""
    return "".join(ch if ch.isprintable() or ch == "\n" else json.dumps(ch)[1:-1] for ch in text)


def metric_table(report: Mapping[str, Any]) -> list[str]:
    metrics = section(report, "metrics")
    ks = cutoffs(report)
    if not metrics:
        return ["no metric was computed"]
    rows = [f"{'metric':<12}" + "".join(f"{'@' + str(k):>10}" for k in ks)]
    for metric in REGISTRY:
        if metric.at_cutoff:
            cells = [fmt(value_of(metrics.get(f"{metric.name}@{k}"))) for k in ks]
            rows.append(f"{metric.name:<12}" + "".join(f"{c:>10}" for c in cells))
        elif metric.name in metrics:
            rows.append(f"{metric.name:<12}{fmt(value_of(metrics[metric.name])):>10}")
    for name in SET_METRICS:
        if name in metrics:
            measurement = mapping(metrics[name])
            rows.append(f"{name:<22}{fmt(value_of(measurement)):>10}  n={clean(measurement.get('n'))}")
    for name, measurement in metrics.items():
        if mapping(measurement).get("deterministic") is False:
            rows.append(judged_row(clean(name), mapping(measurement)))
    return rows


def judged_row(name: str, measurement: Mapping[str, Any]) -> str:
    bounds = [number(v) for v in items(measurement.get("ci"))]
    if len(bounds) == 2 and None not in bounds:
        spread = f"  95% CI [{bounds[0]:.4f}, {bounds[1]:.4f}]"
    else:
        spread = "  (one sample, no interval)"
    return f"{name:<12}{fmt(value_of(measurement)):>10}{spread}  n={clean(measurement.get('n'))}"


def bar(value: float) -> str:
    filled = max(0, min(BAR_WIDTH, round(value * BAR_WIDTH)))
    return "█" * filled + "░" * (BAR_WIDTH - filled)


def strata_lines(report: Mapping[str, Any], style: Style) -> list[str]:
    strata = {clean(name): mapping(entry) for name, entry in section(report, "per_stratum").items()}
    if not strata:
        return []
    primary = primary_metric(report)
    worst = clean(section(report, "worst_stratum").get("name"))
    width = max(len(name) for name in strata)
    lines = [f"strata ({primary}, worst first)"]
    for name, entry in strata.items():
        value = measured(entry, primary)
        if value is None:
            lines.append(f"  {name:<{width}}  {'':<{BAR_WIDTH}}  {'—':>6}  n=0 (nothing to score)")
            continue
        mark = style("  ← worst", "FAIL") if name == worst else ""
        lines.append(f"  {name:<{width}}  {bar(value)}  {value:6.3f}  n={clean(entry.get('n'))}{mark}")
    return lines


def _signed(value: Any) -> str:
    figure = number(value)
    return "—" if figure is None else f"{figure:+.4f}"


def _margin(row: Mapping[str, Any]) -> str:
    ci = [number(v) for v in items(row.get("ci"))]
    interval = f"  [{ci[0]:+.4f}, {ci[1]:+.4f}]" if len(ci) == 2 and None not in ci else ""
    mark = "  significant" if row.get("significant") is True else ""
    return (
        f"{fmt(number(row.get('floor')))}  {fmt(number(row.get('head')))}  {_signed(row.get('margin'))}{interval}{mark}"
    )


def floor_lines(report: Mapping[str, Any]) -> list[str]:
    """The margin over the floor on the primary cutoff's metrics, and per stratum on the primary one."""
    floor = section(report, "floor")
    if not floor:
        return []
    if floor.get("unavailable"):
        return [f"floor  {clean(floor.get('unavailable'))}"]
    primary = primary_metric(report)
    cutoff = primary.partition("@")[2]
    source = clean(floor.get("method") or floor.get("source"))
    lines = [f"margin over the floor ({source}; floor, run, margin, 95% interval)"]
    for name, row in section(floor, "metrics").items():
        if "@" not in name or name.endswith("@" + cutoff):
            lines.append(f"  {clean(name):<14}{_margin(mapping(row))}")
    strata = section(floor, "per_stratum")
    if strata:
        lines.append(f"  per stratum, {primary}")
        for name, entry in strata.items():
            row = mapping(section(entry, "metrics").get(primary))
            lines.append(f"    {clean(name):<12}{_margin(row)}  n={clean(mapping(entry).get('n'))}")
    return lines


def eval_set_lines(report: Mapping[str, Any], style: Style) -> list[str]:
    """The eval-set sensitivity warnings, and a check that was skipped."""
    sensitivity = section(report, "sensitivity")
    warnings = [mapping(w) for w in items(sensitivity.get("warnings"))]
    skipped = sensitivity.get("skipped")
    if not warnings and not skipped:
        return []
    lines = ["eval set"]
    for warning in warnings:
        lines.append(
            f"  {style('warning', 'INDETERMINATE')}  {clean(warning.get('code'))}  {clean(warning.get('message'))}"
        )
    if skipped:
        lines.append(f"  note     {clean(skipped)}")
    return lines


def gate_lines(report: Mapping[str, Any], style: Style) -> list[str]:
    gates = [mapping(gate) for gate in items(section(report, "verdict").get("gates"))]
    if not gates:
        return []
    lines = ["gates"]
    for gate in gates:
        status, expression = clean(gate.get("status")), clean(gate.get("expression"))
        detail = clean(gate.get("reason")).removeprefix(expression + ": ")
        lines.append(f"  {style(f'{status:<13}', status)} {expression}  {style(detail, 'dim')}")
    return lines


def power_lines(report: Mapping[str, Any]) -> list[str]:
    """What each delta gate's queries can detect, one line per gate (render/power.py)."""
    lines = []
    for gate in detectable_gates(report):
        sentence = detectable_sentence(gate, clean(gate_metric(str(gate.get("expression", "")))))
        if sentence is not None:
            lines.append(f"  {clean(gate.get('expression'))}  {sentence}")
    return ["detectable", *lines] if lines else []


def reason_lines(report: Mapping[str, Any]) -> list[str]:
    verdict = section(report, "verdict")
    gate_reasons = {mapping(g).get("reason") for g in items(verdict.get("gates"))}
    reasons = [clean(r) for r in items(verdict.get("reasons")) if r not in gate_reasons]
    return ["reasons", *(f"  - {r}" for r in reasons)] if reasons else []


def header(report: Mapping[str, Any]) -> str:
    config, judged, tool = section(report, "config"), section(report, "judgments"), section(report, "tool")
    ks = ",".join(str(k) for k in cutoffs(report))
    return (
        f"{clean(tool.get('name'))} {clean(tool.get('version'))}  ·  "
        f"{clean(judged.get('queries_scored', 0))} of {clean(judged.get('queries', 0))} queries scored  ·  "
        f"k={ks}  ·  threshold {clean(config.get('threshold'))}  ·  gain {clean(config.get('gain'))}"
    )


def render_score(report: Mapping[str, Any], *, colour: bool = False) -> str:
    """The text summary of a report. Reads it leniently: ``render`` may be handed any file."""
    style = Style(colour)
    status = clean(section(report, "verdict").get("status") or "INDETERMINATE")
    sections = [
        [header(report)],
        metric_table(report),
        strata_lines(report, style),
        floor_lines(report),
        eval_set_lines(report, style),
        gate_lines(report, style),
        power_lines(report),
        reason_lines(report),
        [f"verdict  {style(status, status)}"],
    ]
    return "\n\n".join("\n".join(section) for section in sections if section) + "\n"


def render_validation(result: Mapping[str, Any], *, colour: bool = False) -> str:
    style = Style(colour)
    lines = [f"{result['queries']} queries, {result['labels']} labels"]
    shown: dict[str, int] = {}
    for issue in result["issues"]:
        count = shown[issue["code"]] = shown.get(issue["code"], 0) + 1
        if count <= MAX_LISTED:
            tone = "FAIL" if issue["severity"] == "error" else "INDETERMINATE"
            lines.append(f"  {style(issue['severity'], tone):<7}  {issue['code']}  {clean(issue['message'])}")
        elif count == MAX_LISTED + 1:
            total = sum(1 for i in result["issues"] if i["code"] == issue["code"])
            lines.append(f"           … {total - MAX_LISTED} more {issue['code']} (see --json)")
    verdict = style("ok", "PASS") if result["ok"] else style("unsound", "FAIL")
    lines.append(f"{result['errors']} error(s), {result['warnings']} warning(s): {verdict}")
    return "\n".join(lines) + "\n"
