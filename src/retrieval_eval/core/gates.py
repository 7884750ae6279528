"""Gates and the verdict.

Grammar (one expression per gate):

  recall@5:0.7                  absolute: the metric must be at least 0.7
  recall@5:-0.02                delta: may drop at most 0.02 below the baseline
  recall@5:+0.01                delta: must gain at least 0.01 over the baseline
  recall@5:-0.02:significant    delta, failing only on a drop that is also significant
  worst-stratum:recall@5:0.7    every scored stratum must reach 0.7
  faithfulness:ci-lower:0.8     a judged metric's 95% interval must start at 0.8 or above

A signed number makes a delta gate; an unsigned one an absolute gate.
Values are compared after rounding to 12 decimals, as reports store them.

The verdict is the worst of: the base status (INDETERMINATE when the judgment
set is unsound or nothing was scored) and every gate's status, with
FAIL > INDETERMINATE > PASS. A passing gate never upgrades an INDETERMINATE
base: it cannot clear a finding it never looked at.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .comparison import Comparison
from .errors import UsageError
from .metrics import BY_NAME, describe_known, known_metric
from .precision import DECIMALS

PASS = "PASS"
FAIL = "FAIL"
INDETERMINATE = "INDETERMINATE"
SEVERITY = {PASS: 0, INDETERMINATE: 1, FAIL: 2}

ABSOLUTE = "absolute"
DELTA = "delta"
WORST_STRATUM = "worst-stratum"
CI_LOWER = "ci-lower"

GRAMMAR_HELP = (
    "recall@5:0.7 (at least 0.7), recall@5:-0.02 (drop at most 0.02 from the baseline), "
    "recall@5:-0.02:significant (fail only on a significant drop), "
    "worst-stratum:recall@5:0.7, faithfulness:ci-lower:0.8"
)


@dataclass(frozen=True)
class Gate:
    expression: str
    kind: str
    metric: str
    threshold: float
    significant_only: bool = False


@dataclass(frozen=True)
class GateResult:
    expression: str
    status: str
    reason: str
    observed: float | None = None
    baseline: float | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"expression": self.expression, "status": self.status}
        if self.observed is not None:
            data["observed"] = self.observed
        if self.baseline is not None:
            data["baseline"] = self.baseline
        data["reason"] = self.reason
        return data


def _number(text: str, expression: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise UsageError(f"gate {expression!r}: {text!r} is not a number", hint=f"gates look like {GRAMMAR_HELP}")
    return value


def _check_metric(metric: str, expression: str, ks: tuple[int, ...]) -> None:
    if not known_metric(metric):
        raise UsageError(
            f"gate {expression!r}: unknown metric {metric!r}; known metrics: {describe_known()}",
            hint=f"gates look like {GRAMMAR_HELP}",
        )
    base, _, cutoff = metric.partition("@")
    if BY_NAME[base].at_cutoff and int(cutoff) not in ks:
        listed = ",".join(str(k) for k in ks)
        raise UsageError(
            f"gate {expression!r}: {metric} is not computed at the cutoffs given (-k {listed})",
            hint=f"add {cutoff} to -k, e.g. -k {listed},{cutoff}",
        )


def parse_gate(expression: str, *, ks: tuple[int, ...], judged: Mapping[str, Any] | None = None) -> Gate:
    """Parse one gate expression, refusing unknown metrics with the list of known ones."""
    text = expression.strip()
    parts = text.split(":")
    if len(parts) == 3 and parts[0] == WORST_STRATUM:
        _check_metric(parts[1], text, ks)
        return Gate(text, WORST_STRATUM, parts[1], _number(parts[2], text))
    if len(parts) == 3 and parts[1] == CI_LOWER:
        if judged is None or parts[0] not in judged:
            raise UsageError(
                f"gate {text!r}: no judged metric named {parts[0]!r} was supplied",
                hint=f"add --judged {parts[0]}=SAMPLES.json",
            )
        return Gate(text, CI_LOWER, parts[0], _number(parts[2], text))
    if parts[0] == WORST_STRATUM:
        raise UsageError(
            f"gate {text!r}: a worst-stratum gate needs a threshold, as worst-stratum:METRIC:THRESHOLD",
            hint="worst-stratum:recall@5:0.7",
        )
    if parts[1:2] == [CI_LOWER]:
        raise UsageError(
            f"gate {text!r}: a ci-lower gate needs a threshold, as NAME:ci-lower:THRESHOLD",
            hint="faithfulness:ci-lower:0.8",
        )
    if len(parts) == 3 and parts[2] == "significant" and parts[1][:1] in "+-":
        _check_metric(parts[0], text, ks)
        return Gate(text, DELTA, parts[0], _number(parts[1], text), significant_only=True)
    if len(parts) == 2 and parts[1]:
        _check_metric(parts[0], text, ks)
        kind = DELTA if parts[1][0] in "+-" else ABSOLUTE
        return Gate(text, kind, parts[0], _number(parts[1], text))
    raise UsageError(f"cannot read gate {text!r}", hint=f"gates look like {GRAMMAR_HELP}")


def gate_metric(expression: str) -> str:
    """The metric a gate expression names, read by the grammar above without checking it."""
    parts = expression.split(":")
    return parts[1] if parts[0] == WORST_STRATUM and len(parts) > 1 else parts[0]


def split_gate_list(text: str) -> list[str]:
    """Gates given as one string, separated by commas or new lines."""
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


@dataclass(frozen=True)
class GateContext:
    """What gates read: this run's numbers, and the comparison when there is a baseline."""

    metrics: Mapping[str, float]
    strata: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    judged: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    comparison: Comparison | None = None
    scored: bool = True


def _fmt(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".") if value == value else "nan"


def _at_least(gate: Gate, observed: float, what: str, baseline: float | None = None) -> GateResult:
    observed = round(observed, DECIMALS)
    if observed >= round(gate.threshold, DECIMALS):
        reason = f"{gate.expression}: {what} is {_fmt(observed)}, at or above {_fmt(gate.threshold)}"
        return GateResult(gate.expression, PASS, reason, observed, baseline)
    reason = f"{gate.expression}: {what} is {_fmt(observed)}, below {_fmt(gate.threshold)}"
    return GateResult(gate.expression, FAIL, reason, observed, baseline)


def _not_scored(gate: Gate) -> GateResult:
    return GateResult(
        gate.expression, INDETERMINATE, f"{gate.expression}: no query was scored, so '{gate.metric}' was not computed"
    )


def _absolute(gate: Gate, context: GateContext) -> GateResult:
    if gate.metric not in context.metrics:
        return _not_scored(gate)
    return _at_least(gate, context.metrics[gate.metric], gate.metric)


def _worst_stratum(gate: Gate, context: GateContext) -> GateResult:
    values = [(m[gate.metric], name) for name, m in context.strata.items() if gate.metric in m]
    if not values:
        if not context.scored:
            return _not_scored(gate)
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: no stratum was scored, so there is no worst stratum; "
            "add a stratum field to the judgments",
        )
    value, name = min(values)
    return _at_least(gate, value, f"{gate.metric} in stratum {name}")


def _ci_lower(gate: Gate, context: GateContext) -> GateResult:
    measurement = context.judged[gate.metric]
    ci = measurement.get("ci")
    if not ci:
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: {gate.metric} has {measurement.get('n', 0)} sample(s) and "
            "so no interval; supply at least 2 samples",
        )
    return _at_least(gate, ci[0], f"the lower end of {gate.metric}'s 95% interval")


def _delta(gate: Gate, context: GateContext) -> GateResult:
    comparison = context.comparison
    if gate.metric not in context.metrics:
        return _not_scored(gate)
    if comparison is None:
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: there is no baseline report to compare with; "
            "pass --baseline BASE.json (a report of the base branch)",
        )
    if not comparison.comparable:
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: the baseline is not comparable: " + "; ".join(comparison.problems),
        )
    moved = comparison.get(gate.metric)
    if moved is None or moved.delta is None:
        return GateResult(
            gate.expression, INDETERMINATE, f"{gate.expression}: the baseline report has no {gate.metric}"
        )
    if moved.confounded:
        # A delta measured with two yardsticks says nothing about the retriever alone.
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: the delta of {gate.metric} is confounded: {moved.confounded}",
            moved.head,
            moved.base,
        )
    base, head = moved.base, moved.head
    if base is None or head is None:  # a delta exists only when both sides do; said for the type checker
        return GateResult(
            gate.expression, INDETERMINATE, f"{gate.expression}: the baseline report has no {gate.metric}"
        )
    what = f"{gate.metric} moved {moved.delta:+.4f} (from {_fmt(base)} to {_fmt(head)})"
    if moved.delta >= round(gate.threshold, DECIMALS):
        return GateResult(
            gate.expression, PASS, f"{gate.expression}: {what}, within {gate.threshold:+g}", moved.head, moved.base
        )
    if gate.significant_only:
        if moved.significant is None:
            return GateResult(
                gate.expression,
                INDETERMINATE,
                f"{gate.expression}: {what}, but significance could not be computed "
                "(the reports lack per-query values)",
                moved.head,
                moved.base,
            )
        if not moved.significant:
            return GateResult(
                gate.expression,
                PASS,
                f"{gate.expression}: {what}, beyond {gate.threshold:+g} but not significant",
                moved.head,
                moved.base,
            )
    return GateResult(
        gate.expression, FAIL, f"{gate.expression}: {what}, beyond {gate.threshold:+g}", moved.head, moved.base
    )


_EVALUATORS = {ABSOLUTE: _absolute, DELTA: _delta, WORST_STRATUM: _worst_stratum, CI_LOWER: _ci_lower}


def evaluate_gate(gate: Gate, context: GateContext) -> GateResult:
    return _EVALUATORS[gate.kind](gate, context)


@dataclass(frozen=True)
class Verdict:
    status: str
    reasons: list[str]
    gates: list[GateResult]

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reasons": list(self.reasons),
            "gates": [gate.as_dict() for gate in self.gates],
        }


def decide(blocking: list[str], notes: list[str], gates: list[GateResult]) -> Verdict:
    """Combine the base findings and the gate results into one verdict.

    ``blocking`` are findings that make any number untrustworthy (unsound
    judgments, nothing scored); ``notes`` are told but change nothing.
    """
    status = INDETERMINATE if blocking else PASS
    for gate in gates:
        if SEVERITY[gate.status] > SEVERITY[status]:
            status = gate.status
    gate_reasons = [gate.reason for gate in gates if gate.status != PASS]
    return Verdict(status, [*blocking, *gate_reasons, *notes], list(gates))


def max_drift_gate(invalid_ratio: float, max_drift: float) -> GateResult:
    """The ``max-drift`` gate: more stale labels than the tolerance make the verdict FAIL."""
    expression = f"max-drift:{max_drift:g}"
    what = f"{invalid_ratio:.1%} of the labels no longer point at the corpus"
    if round(invalid_ratio, DECIMALS) > round(max_drift, DECIMALS):
        return GateResult(expression, FAIL, f"{expression}: {what}, above {max_drift:.1%}", invalid_ratio)
    return GateResult(expression, PASS, f"{expression}: {what}, within {max_drift:.1%}", invalid_ratio)
