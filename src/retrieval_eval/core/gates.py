"""Gates and the verdict.

Grammar (one expression per gate):

  recall@5:0.7                  absolute: the metric must be at least 0.7
  recall@5:-0.02                delta: may drop at most 0.02 below the baseline
  recall@5:+0.01                delta: must gain at least 0.01 over the baseline
  recall@5:-0.02:significant    delta, failing only on a drop that is also significant
  worst-stratum:recall@5:0.7    every scored stratum must reach 0.7
  faithfulness:ci-lower:0.8     a judged metric's 95% interval must start at 0.8 or above
  false_abstention_rate:<=0.02  absolute, "at most": the metric must be 0.02 or below
  floor:recall@10:+0.05         the run must beat the floor run by at least 0.05
  floor:recall@10:+0.05:significant
                                fails only when the shortfall is significant: the margin's
                                whole 95% interval lies below 0.05

A signed number makes a delta gate; an unsigned one an absolute gate; ``<=``
before the number turns an absolute gate into an upper bound. A metric may be
named as ir_measures or trec_eval name it (``nDCG@10:0.5``, ``P_5:-0.02``); the gate
reads our metric of that meaning (:mod:`.aliases`) and its reasons use our name.
Values are compared after rounding to 12 decimals, as reports store them.
Full-depth metrics (``-k all``) are named without a cutoff: ``map:0.3``.

Under the ``bounded`` policy for unjudged keys, an absolute, worst-stratum or
delta gate is evaluated twice: at the metric's lower bound and at its upper
bound, the smallest and largest values over every labeling of the unjudged
keys (for a delta: head lower less base upper, and head upper less base lower,
paired per query). For nDCG and AP the lower bound can lie below the value:
a key labeled relevant grows R and the ideal ranking. The gate PASSes only
when it passes at both, FAILs only when it fails at both, and is otherwise
INDETERMINATE, naming the unjudged keys that could change it; its reason
states both bounds.

The verdict is the worst of: the base status (INDETERMINATE when the judgment
set is unsound or nothing was scored) and every gate's status, with
FAIL > INDETERMINATE > PASS. A passing gate never upgrades an INDETERMINATE
base: it cannot clear a finding it never looked at.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from .aliases import canonical_metric
from .comparison import Deltas, MetricDelta
from .comparison_document import (
    DOCUMENTS_REMOVED,
    ID_SPACE_CHANGED,
    LABELS_LOWERED,
    NO_PAIRED_QUERIES,
    REMOVAL_UNEXPLAINED,
    Finding,
    named_queries,
)
from .errors import UsageError
from .metrics import BY_NAME, LOWER_IS_BETTER, SET_METRICS, describe_known, known_metric
from .numbers import parse_decimal
from .power import Design, queries_needed
from .precision import DECIMALS
from .report_model import Floor, Margin, Measurement

PASS = "PASS"
FAIL = "FAIL"
INDETERMINATE = "INDETERMINATE"
SEVERITY = {PASS: 0, INDETERMINATE: 1, FAIL: 2}

ABSOLUTE = "absolute"
DELTA = "delta"
WORST_STRATUM = "worst-stratum"
CI_LOWER = "ci-lower"
FLOOR = "floor"
AT_MOST = "<="

GRAMMAR_HELP = (
    "recall@5:0.7 (at least 0.7), recall@5:-0.02 (drop at most 0.02 from the baseline), "
    "recall@5:-0.02:significant (fail only on a significant drop), "
    "worst-stratum:recall@5:0.7, faithfulness:ci-lower:0.8, false_abstention_rate:<=0.02 (at most), "
    "floor:recall@10:+0.05 (beat the floor run by 0.05)"
)


@dataclass(frozen=True)
class Gate:
    expression: str
    kind: str
    metric: str
    threshold: float
    significant_only: bool = False
    at_most: bool = False  # an absolute gate written METRIC:<=X


@dataclass(frozen=True)
class Detectable:
    """What a delta gate's paired queries can detect, against the change the gate tolerates.

    ``mde`` is the smallest true change the ``n`` queries detect with the design's power at
    its level (:mod:`.power`); ``needed`` the queries that would detect a change of the
    gate's tolerance (None for a tolerance of 0, which no set can see).
    """

    metric: str
    n: int
    mde: float
    tolerance: float
    needed: int | None
    power: float
    alpha: float
    direction: str = "drops"  # drops, gains, or changes (a threshold of +0)

    @property
    def seen(self) -> bool:
        """The tolerance is at least the detectable effect: a change as large as the tolerance would be
        told from no change. (The gate compares the observed change with the tolerance, so a true
        change of exactly the tolerance still passes it about half the time, whatever the size.)"""
        return round(self.tolerance, DECIMALS) >= round(self.mde, DECIMALS)

    def sentence(self) -> str:
        """``with 120 queries this set detects drops of recall@5 of 0.035 or more; ...``."""
        text = (
            f"with {self.n} queries this set detects {self.direction} of {self.metric} of {self.mde:.3f} or more "
            f"({self.power:.0%} power, {self.alpha:.0%} level)"
        )
        if self.needed is not None and not self.seen:
            text += f"; about {self.needed} queries are needed to tell a change of {_fmt(self.tolerance)} from none"
        return text


@dataclass(frozen=True)
class GateResult:
    expression: str
    status: str
    reason: str
    observed: float | None = None
    baseline: float | None = None
    detectable: Detectable | None = None  # a delta gate's: what the paired queries can see


def _number(text: str, expression: str) -> float:
    """A gate's number (:mod:`.numbers`): ``recall@5: -0.1`` would otherwise read as an
    absolute gate of -0.1 (the sign is not the text's first character), which always passes."""
    try:
        return parse_decimal(text)
    except ValueError:
        raise UsageError(
            f"gate {expression!r}: {text!r} is not a plain decimal number (no spaces, no underscores)",
            hint=f"gates look like {GRAMMAR_HELP}",
        ) from None


def _check_metric(name: str, expression: str, ks: tuple[int, ...], full_depth: bool = False) -> str:
    """Our name for the metric a gate names (ir_measures' and trec_eval's spellings resolve), checked."""
    try:
        metric = canonical_metric(name)
    except UsageError as exc:
        raise UsageError(f"gate {expression!r}: {exc.message}", hint=exc.hint) from None
    if not known_metric(metric):
        raise UsageError(
            f"gate {expression!r}: unknown metric {metric!r}; known metrics: {describe_known()}",
            hint=f"gates look like {GRAMMAR_HELP}",
        )
    base, sep, cutoff = metric.partition("@")
    at_cutoff = base in BY_NAME and BY_NAME[base].at_cutoff
    if at_cutoff and not sep and not full_depth:
        raise UsageError(
            f"gate {expression!r}: {metric} without a cutoff is the full-depth metric, computed with -k all",
            hint=f"add all to -k, or name a cutoff, e.g. {metric}@10",
        )
    if base in BY_NAME and BY_NAME[base].whole_ranking and not full_depth:
        raise UsageError(
            f"gate {expression!r}: {metric} reads the whole ranking and is computed with -k all",
            hint="add all to -k, e.g. -k 10,all",
        )
    if at_cutoff and sep and int(cutoff) not in ks:
        listed = ",".join(str(k) for k in ks)
        raise UsageError(
            f"gate {expression!r}: {metric} is not computed at the cutoffs given (-k {listed})",
            hint=f"add {cutoff} to -k, e.g. -k {listed},{cutoff}",
        )
    return metric


def _check_ranking_metric(name: str, expression: str, ks: tuple[int, ...], what: str, full_depth: bool = False) -> str:
    """A metric measured per query: the one kind strata and floors are compared on."""
    metric = _check_metric(name, expression, ks, full_depth)
    if metric in SET_METRICS:
        raise UsageError(
            f"gate {expression!r}: {metric} is measured over the whole set, so it has no {what}",
            hint=f"gate it on its own, e.g. {metric}:0.9",
        )
    return metric


def parse_gate(
    expression: str, *, ks: tuple[int, ...], judged: Collection[str] | None = None, full_depth: bool = False
) -> Gate:
    """Parse one gate expression, refusing unknown metrics with the list of known ones."""
    text = expression.strip()
    parts = text.split(":")
    # Each number is read, and held to what a metric can reach, before its metric is checked
    # against the cutoffs: "recall@5:O.5" is a typo in the number and "recall@5:80" a percentage,
    # whatever -k says (the range check names the metric as written).
    if len(parts) == 3 and parts[0] == WORST_STRATUM:
        threshold = _within_range(Gate(text, WORST_STRATUM, parts[1], _number(parts[2], text))).threshold
        metric = _check_ranking_metric(parts[1], text, ks, "value per stratum", full_depth)
        return Gate(text, WORST_STRATUM, metric, threshold)
    if len(parts) == 3 and parts[1] == CI_LOWER:
        if judged is None or parts[0] not in judged:
            raise UsageError(
                f"gate {text!r}: no judged metric named {parts[0]!r} was supplied",
                hint=f"add --judged {parts[0]}=SAMPLES.json",
            )
        return Gate(text, CI_LOWER, parts[0], _number(parts[2], text))
    if parts[0] == FLOOR:
        return _parse_floor(text, parts, ks)
    if parts[0] == WORST_STRATUM and len(parts) > 3:
        raise UsageError(
            f"gate {text!r}: a worst-stratum gate is worst-stratum:METRIC:THRESHOLD, with no suffix "
            "(each stratum's value is read against the threshold; there is no delta to test)",
            hint=f"worst-stratum:{parts[1]}:{parts[2]}",
        )
    if parts[0] == WORST_STRATUM:
        raise UsageError(
            f"gate {text!r}: a worst-stratum gate needs a threshold, as worst-stratum:METRIC:THRESHOLD",
            hint="worst-stratum:recall@5:0.7",
        )
    if parts[1:2] == [CI_LOWER] and len(parts) > 3:
        raise UsageError(
            f"gate {text!r}: a ci-lower gate is NAME:ci-lower:THRESHOLD, with no suffix",
            hint=f"{parts[0]}:ci-lower:{parts[2]}",
        )
    if parts[1:2] == [CI_LOWER]:
        raise UsageError(
            f"gate {text!r}: a ci-lower gate needs a threshold, as NAME:ci-lower:THRESHOLD",
            hint="faithfulness:ci-lower:0.8",
        )
    if len(parts) == 3 and parts[2] != "significant" and parts[1][:1] in "+-" and parts[1][1:2] in "0123456789.":
        # recall@5:-0.05:signifcant: a delta gate with a suffix, and the one suffix there is.
        if not parts[2]:
            raise UsageError(f"gate {text!r} ends in ':'", hint=f"{parts[0]}:{parts[1]}")
        raise UsageError(
            f"gate {text!r}: {parts[2]!r} is no gate suffix; a delta gate takes :significant only",
            hint=f"{parts[0]}:{parts[1]}:significant",
        )
    if len(parts) == 3 and parts[2] == "significant" and parts[1][:1] in "+-":
        threshold = _within_range(Gate(text, DELTA, parts[0], _number(parts[1], text))).threshold
        metric = _check_metric(parts[0], text, ks, full_depth)
        return Gate(text, DELTA, metric, threshold, significant_only=True)
    if len(parts) == 2 and parts[1].startswith(AT_MOST):
        at_most = _number(parts[1][len(AT_MOST) :], text)
        threshold = _within_range(Gate(text, ABSOLUTE, parts[0], at_most, at_most=True)).threshold
        metric = _check_metric(parts[0], text, ks, full_depth)
        return Gate(text, ABSOLUTE, metric, threshold, at_most=True)
    if len(parts) == 2 and parts[1]:
        kind = DELTA if parts[1][0] in "+-" else ABSOLUTE
        threshold = _within_range(Gate(text, kind, parts[0], _number(parts[1], text))).threshold
        metric = _check_metric(parts[0], text, ks, full_depth)
        return Gate(text, kind, metric, threshold)
    raise UsageError(f"cannot read gate {text!r}", hint=f"gates look like {GRAMMAR_HELP}")


def _refuse_always_met(gate: Gate) -> None:
    """Refuse a gate at the end of its range that every value meets: "at least 0", "at most 1", a
    change or a margin of at least -1. It could never FAIL, so it would only ever say PASS:
    ``recall@5:0``, written for "no drop", reads "recall@5 at least 0"."""
    if not known_metric(canonical_metric(gate.metric)):
        return  # an unknown metric is refused as one; a judged metric's values are not held to [0, 1]
    value = round(gate.threshold, DECIMALS)
    if gate.kind in (DELTA, FLOOR):
        if value > -1:
            return
        if gate.kind == DELTA:
            problem = f"a change of -1 is the largest drop {gate.metric} can make, so the gate is always met"
            hint = f"a gate that may FAIL, e.g. {gate.metric}:-0.02"
        else:
            problem = f"a margin of -1 over the floor is the lowest {gate.metric} can have, so the gate is always met"
            hint = f"a gate that may FAIL, e.g. floor:{gate.metric}:+0.05"
    elif gate.at_most:
        if value < 1:
            return
        problem = f"{gate.metric} lies between 0 and 1, so at most 1 is always met"
        hint = f"a threshold below 1, e.g. {gate.metric}:<=0.05"
    else:
        if value > 0:
            return
        problem = f"{gate.metric} lies between 0 and 1, so at least 0 is always met"
        if gate.kind == WORST_STRATUM:
            hint = f"a threshold above 0, e.g. worst-stratum:{gate.metric}:0.5"
        elif canonical_metric(gate.metric) in LOWER_IS_BETTER:
            hint = f"for a rate that must stay 0 write {gate.metric}:<=0 (at most 0)"
        else:
            no_drop = f"{gate.metric}:-0"
            hint = f"for no drop against the base report write {no_drop} (a delta gate), else a threshold above 0"
    raise UsageError(f"gate {gate.expression!r}: {problem}", hint=hint)


def _parse_floor(text: str, parts: list[str], ks: tuple[int, ...]) -> Gate:
    significant = len(parts) == 4 and parts[3] == "significant"
    if len(parts) != 3 and not significant:
        raise UsageError(
            f"gate {text!r}: a floor gate reads floor:METRIC:MARGIN, optionally followed by :significant",
            hint="floor:recall@10:+0.05",
        )
    margin = _within_range(Gate(text, FLOOR, parts[1], _number(parts[2], text))).threshold
    metric = _check_ranking_metric(parts[1], text, ks, "margin over a floor run")
    return Gate(text, FLOOR, metric, margin, significant_only=significant)


def _within_range(gate: Gate) -> Gate:
    """``gate``, refused when its number lies where no value of its metric can reach: every metric
    scoring computes lies between 0 and 1, so a threshold past 1 is never met (or, as an "at most",
    always), and a change or margin past 1 either way likewise. 80 for 0.8 is the usual slip.

    A threshold below 0 is one too, for a gate on the value itself ("<=-0.02" is never met, a
    worst stratum's -0.5 always); a change's sign is its direction. Numbers are compared as gates
    read them, rounded to 12 decimals (1.0000000000001 is 1), and named as given."""
    limit = round(abs(gate.threshold), DECIMALS)
    below = gate.kind not in (DELTA, FLOOR) and round(gate.threshold, DECIMALS) < 0
    if limit <= 1 and not below:
        _refuse_always_met(gate)
        return gate
    given = f"{gate.threshold:.15g}"  # :g would write 1.0000001 as 1, a threshold allowed
    if gate.kind in (DELTA, FLOOR):
        what = "a change" if gate.kind == DELTA else "a margin over the floor"
        sign = "+" if gate.threshold > 0 else ""
        problem = f"{what} of {sign}{given} is past what {gate.metric} can move (it lies between 0 and 1)"
    else:
        never = "always met" if gate.at_most != below else "never met"
        problem = f"{gate.metric} lies between 0 and 1, so a threshold of {given} is {never}"
    fraction = f"{gate.threshold / 100:+g}" if gate.kind in (DELTA, FLOOR) else f"{gate.threshold / 100:g}"
    percent = 2 <= limit <= 100  # 80 for 80 %; 1.5 could be anything
    hint = (
        f"thresholds are fractions: {fraction} for {gate.threshold:g}%"
        if percent
        else f"gates look like {GRAMMAR_HELP}"
    )
    raise UsageError(f"gate {gate.expression!r}: {problem}", hint=hint)


def gate_metric(expression: str) -> str:
    """The metric a gate expression names (by our name), read by the grammar above without checking it."""
    parts = expression.split(":")
    named = parts[1] if parts[0] in (WORST_STRATUM, FLOOR) and len(parts) > 1 else parts[0]
    try:
        return canonical_metric(named)
    except UsageError:  # a name for a metric not computed: it matches no row, as written
        return named


def check_judged_name(name: str) -> None:
    """Refuse a judged metric named like a metric scoring computes (in any spelling): the
    report would show the judged value under that name while gates read the computed one."""
    try:
        ours = canonical_metric(name)
    except UsageError:  # a spelling of a measure we do not compute: not ours to shadow
        return
    if ours.partition("@")[0] in BY_NAME or ours in SET_METRICS:
        raise UsageError(
            f"judged metric {name!r} names a metric retrieval-eval computes ({ours}); give it a name of its own",
            hint="e.g. --judged faithfulness=samples.json",
        )


def split_gate_list(text: str) -> list[str]:
    """Gates given as one string, separated by commas or new lines."""
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


@dataclass(frozen=True)
class Gating:
    """The gates one evaluation asks for: the gate slice of its request, built with the rest of
    the request from the settings table and read here as it is, never translated again.

    ``judged`` holds each judged metric's measurement (its samples' n, mean and interval), read
    from the files the ``judged`` setting names; ``require_detectable`` makes a delta gate that
    cannot see its own tolerance INDETERMINATE instead of PASS.
    """

    gates: Sequence[str] = ()
    judged: Mapping[str, Measurement] = field(default_factory=dict)
    require_detectable: bool = False
    # What a delta gate without a base report tells the user to do, in the words of the adapter
    # that found none: the command line's flag here; the action names its own baseline search.
    no_baseline: str = "pass --baseline BASE.json (a report of the base branch)"

    def parse(self, *, ks: tuple[int, ...], full_depth: bool = False) -> list[Gate]:
        """Every gate expression parsed against the cutoffs scored; UsageError for the first bad one."""
        for name in self.judged:
            check_judged_name(name)
        gates = [parse_gate(text, ks=ks, judged=self.judged, full_depth=full_depth) for text in self.gates]
        seen: set[tuple[object, ...]] = set()
        for gate in gates:  # the same gate twice (in any spelling) is checked and listed twice: a slip
            key = (gate.kind, gate.metric, gate.threshold, gate.significant_only, gate.at_most)
            if key in seen:
                raise UsageError(f"gate {gate.expression!r} is given twice", hint="give each gate once")
            seen.add(key)
        return gates


@dataclass(frozen=True)
class GateReadings:
    """What gates read: this run's numbers, and the comparison when there is a baseline.

    Only measurements: what the gates are and how they read them is the request's
    :class:`Gating`. ``bounded``: the numbers were scored under the ``bounded`` unjudged
    policy, so each has a lower and an upper bound and gates read both.
    """

    metrics: Mapping[str, float]
    strata: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    comparison: Deltas | None = None
    scored: bool = True
    floor: Floor | None = None  # the report's floor section, when a floor run was asked for
    bounded: bool = False  # scored under the "bounded" policy: gates read both bounds
    upper: Mapping[str, float] = field(default_factory=dict)  # each metric's mean upper bound
    strata_upper: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    lower: Mapping[str, float] = field(default_factory=dict)  # each metric's mean lower bound
    strata_lower: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    unjudged_keys: Mapping[str, int] = field(default_factory=dict)  # cutoff ("10", "all") -> unjudged keys in the top k

    def most_favourable(self) -> GateReadings:
        """These readings with every unjudged key labeled as favourably as it could be."""
        comparison = self.comparison
        if comparison is not None:
            comparison = replace(comparison, metrics={m: _at_bound(d, 1) for m, d in comparison.metrics.items()})
        return replace(
            self, metrics={**self.metrics, **self.upper}, strata=self.strata_upper or self.strata, comparison=comparison
        )

    def least_favourable(self) -> GateReadings:
        """These readings with every unjudged key labeled as unfavourably as it could be (which,
        for nDCG and AP, may label some relevant: R and the ideal ranking grow)."""
        comparison = self.comparison
        if comparison is not None:
            comparison = replace(comparison, metrics={m: _at_bound(d, 0) for m, d in comparison.metrics.items()})
        strata = {name: {**values, **self.strata_lower.get(name, {})} for name, values in self.strata.items()}
        return replace(self, metrics={**self.metrics, **self.lower}, strata=strata, comparison=comparison)


def _at_bound(moved: MetricDelta, end: int) -> MetricDelta:
    """The delta moved to one end of its bounds (the head is placed there, the base kept)."""
    if moved.bounds is None or moved.base is None:
        return moved
    return replace(moved, head=round(moved.base + moved.bounds[end], DECIMALS))


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


def _at_most(gate: Gate, observed: float) -> GateResult:
    observed = round(observed, DECIMALS)
    what = f"{gate.expression}: {gate.metric} is {_fmt(observed)}"
    if observed <= round(gate.threshold, DECIMALS):
        return GateResult(gate.expression, PASS, f"{what}, at or below {_fmt(gate.threshold)}", observed)
    return GateResult(gate.expression, FAIL, f"{what}, above {_fmt(gate.threshold)}", observed)


def _not_measured(gate: Gate) -> GateResult:
    if gate.metric in SET_METRICS:
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: no query is marked no_answer in the judgments, so abstention was not measured; "
            'add lines like {"query_id": ..., "query": ..., "expect": "no_answer"}',
        )
    return _not_scored(gate)


def _absolute(gate: Gate, readings: GateReadings, gating: Gating) -> GateResult:
    if gate.metric not in readings.metrics:
        return _not_measured(gate)
    if gate.at_most:
        return _at_most(gate, readings.metrics[gate.metric])
    return _at_least(gate, readings.metrics[gate.metric], gate.metric)


def _worst_stratum(gate: Gate, readings: GateReadings, gating: Gating) -> GateResult:
    values = [(m[gate.metric], name) for name, m in readings.strata.items() if gate.metric in m]
    if not values:
        if not readings.scored:
            return _not_scored(gate)
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: no stratum was scored, so there is no worst stratum; "
            "add a stratum field to the judgments",
        )
    value, name = min(values)
    return _at_least(gate, value, f"{gate.metric} in stratum {name}")


def _ci_lower(gate: Gate, readings: GateReadings, gating: Gating) -> GateResult:
    measurement = gating.judged[gate.metric]
    ci = measurement.ci
    if not ci:
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: {gate.metric} has {measurement.n or 0} sample(s) and "
            "so no interval; supply at least 2 samples",
        )
    return _at_least(gate, ci[0], f"the lower end of {gate.metric}'s 95% interval")


def _delta(gate: Gate, readings: GateReadings, gating: Gating) -> GateResult:
    comparison = readings.comparison
    if gate.metric not in readings.metrics:
        return _not_measured(gate)
    if comparison is None:
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: there is no baseline report to compare with; {gating.no_baseline}",
        )
    if not comparison.comparable:
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: the baseline is not comparable: " + "; ".join(comparison.problems),
        )
    moved = comparison.get(gate.metric)
    if moved is None or (moved.delta is None and not moved.confounded):
        return GateResult(gate.expression, INDETERMINATE, f"{gate.expression}: {_no_delta(gate, comparison)}")
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
    if base is None or head is None or moved.delta is None:  # a delta exists only when both sides do
        return GateResult(
            gate.expression, INDETERMINATE, f"{gate.expression}: the baseline report has no {gate.metric}"
        )
    what = f"{gate.metric} moved {moved.delta:+.4f} (from {_fmt(base)} to {_fmt(head)}){_not_compared(comparison)}"
    if moved.delta >= round(gate.threshold, DECIMALS):
        result = GateResult(gate.expression, PASS, f"{gate.expression}: {what}, {_held(gate)}", moved.head, moved.base)
    else:
        result = _delta_beyond(gate, moved, what)
    seeing = detectable(gate, moved, comparison.design)
    if result.status == PASS:
        return _unless_labels_taken(_told_detectable(gate, result, seeing, gating, moved.ci), comparison)
    return replace(result, detectable=seeing)


def _no_delta(gate: Gate, comparison: Deltas) -> str:
    """Why a delta gate has no delta: the reports share no scored query (a base from another
    evaluation set, or judgments that score none of its queries), or the base lacks the metric."""
    findings = comparison.document.findings if comparison.document is not None else ()
    if any(finding.code == NO_PAIRED_QUERIES for finding in findings):
        return (
            "the two reports share no scored query, so there is nothing to pair: is the baseline report "
            "from another evaluation set, or do the head's judgments score none of its queries?"
        )
    return f"the baseline report has no {gate.metric}"


def _unless_labels_taken(result: GateResult, comparison: Deltas) -> GateResult:
    """A passing delta gate is INDETERMINATE when the head's judgments took from the base what its
    retriever found: queries the base scored are scored no more, or labels on keys the base ranked
    in a top k were removed or lowered. The delta over the rest cannot speak for those, and
    unlabelling what a retriever lost would make its regression PASS. A failing delta stays
    FAIL (what it saw is real). Across a re-chunk the same holds: the labels move with their
    chunks, and a merge of two labeled chunks is not counted as a label taken (see
    ``credited_hits``). Documents that left the corpus take their labels and queries with them:
    not an edit, so not held back here, unless labels were taken beyond what the keys that left
    can account for (``removal-unexplained``, comparison/removal.py), or the head's corpus was not
    at hand to tell (docs/compare.md)."""
    document = comparison.document
    if result.status != PASS or document is None:
        return result
    codes = {finding.code for finding in document.findings}
    if DOCUMENTS_REMOVED in codes and REMOVAL_UNEXPLAINED not in codes:
        return result
    beside = _removal_beside(document.findings)
    removed = document.queries.removed if document.queries is not None else None
    if removed:
        them = "them" if len(removed) != 1 else "it"
        rechunk = (
            " (after a re-chunk, label the re-judge queue: retrieval-eval drift --fix --queue)"
            if ID_SPACE_CHANGED in codes
            else ""
        )
        why = (
            f"; not decided: the head's judgments no longer score {them}, so the delta cannot say whether "
            f"the retriever regressed on {them}: restore the labels{rechunk}, or have the change to the "
            "judgments reviewed on its own, since no delta can vouch for the queries it takes out"
        )
        return replace(result, status=INDETERMINATE, reason=result.reason + why + beside)
    lowered = next((f for f in document.findings if f.code == LABELS_LOWERED), None)
    if lowered is not None:
        why = (
            f"; not decided: {lowered.detail}, so the base is scored lower for labels, not for its "
            "retriever: restore the labels, or have the change to the judgments reviewed on its own"
        )
        return replace(result, status=INDETERMINATE, reason=result.reason + why + beside)
    return result


def _removal_beside(findings: Sequence[Finding]) -> str:
    """What a gate held back beside a removal of documents adds: why the removal does not excuse it."""
    found = next((f for f in findings if f.code == REMOVAL_UNEXPLAINED), None)
    if found is None:
        return ""
    return f"; the documents removed cannot be shown to account for it: {found.detail}"


def _not_compared(comparison: Deltas) -> str:
    """What a delta leaves out, said where the gate is read: queries the base scored that the
    head does not (its judgments dropped them). A pull request that deletes the labels of the
    queries it breaks moves no delta; the reason says so, beside the verdict it gives."""
    counts = comparison.document.queries if comparison.document is not None else None
    removed = counts.removed if counts is not None else None
    if not removed or counts is None:
        return ""
    names = named_queries(removed)
    over = f" over the {counts.paired} queries scored on both sides" if counts.paired is not None else ""
    return f"{over}; {len(removed)} the base scored {'is' if len(removed) == 1 else 'are'} not compared ({names})"


def detectable(gate: Gate, moved: MetricDelta, design: Design) -> Detectable | None:
    """What the gate's paired queries can see, when the comparison states their spread."""
    if moved.mde is None or moved.sd_diff is None or moved.n is None:
        return None
    tolerance = abs(gate.threshold)
    needed = queries_needed(moved.sd_diff, tolerance, design)
    return Detectable(gate.metric, moved.n, moved.mde, tolerance, needed, design.power, design.alpha, _direction(gate))


def _told_detectable(
    gate: Gate, passed: GateResult, seeing: Detectable | None, gating: Gating, ci: tuple[float, float] | None
) -> GateResult:
    """A PASS that could not have seen a breach of its tolerance says so, or (when asked) is INDETERMINATE.

    Not when the delta's 95% interval lies wholly at or past the threshold: the paired queries
    then showed the change on the allowed side (a large, significant gain under a gate on drops),
    whatever the smallest change they could have detected; calling that PASS a matter of too few
    queries, or INDETERMINATE, would be wrong."""
    if seeing is None or seeing.seen:
        return replace(passed, detectable=seeing)
    if ci is not None and round(ci[0], DECIMALS) >= round(gate.threshold, DECIMALS):
        cleared = (
            f"{passed.reason}; its 95% interval [{ci[0]:+.4f}, {ci[1]:+.4f}] lies at or above {_fmt(gate.threshold)}"
        )
        return replace(passed, reason=cleared, detectable=seeing)
    told = f"{passed.reason}; but {seeing.sentence()}"
    status = INDETERMINATE if gating.require_detectable else PASS
    return replace(passed, status=status, reason=told, detectable=seeing)


def _direction(gate: Gate) -> str:
    """How a reason names what a gate watches: ``-0.02`` (and ``-0``) drops, ``+0.01`` gains, ``+0`` changes."""
    if math.copysign(1.0, gate.threshold) < 0:
        return "drops"
    return "gains" if gate.threshold > 0 else "changes"


def _held(gate: Gate) -> str:
    """How a passing delta gate's reason ends: a gate on drops held its bound, one on gains reached its target."""
    if gate.threshold > 0:
        return f"at least the {gate.threshold:+g} it must rise"
    return f"within {gate.threshold:+g}"


def _missed(gate: Gate) -> str:
    """How a missed delta gate's reason ends: a drop went beyond its bound, a gain fell short of its target."""
    if gate.threshold > 0:
        return f"short of the {gate.threshold:+g} it must rise"
    return f"beyond {gate.threshold:+g}"


def _delta_beyond(gate: Gate, moved: MetricDelta, what: str) -> GateResult:
    """A delta beyond the gate's threshold: FAIL, unless the gate asks for significance that is not there."""
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
                f"{gate.expression}: {what}, {_missed(gate)} but not significant ({UNADJUSTED})",
                moved.head,
                moved.base,
            )
        return GateResult(
            gate.expression,
            FAIL,
            f"{gate.expression}: {what}, {_missed(gate)} and significant ({UNADJUSTED})",
            moved.head,
            moved.base,
        )
    return GateResult(gate.expression, FAIL, f"{gate.expression}: {what}, {_missed(gate)}", moved.head, moved.base)


def _floor(gate: Gate, readings: GateReadings, gating: Gating) -> GateResult:
    if gate.metric not in readings.metrics:
        return _not_scored(gate)
    floor = readings.floor
    if floor is None:
        return GateResult(
            gate.expression,
            INDETERMINATE,
            f"{gate.expression}: no floor run was given; pass --floor FLOOR_RUN (or floor: bm25 with a corpus)",
        )
    if floor.unavailable:
        return GateResult(gate.expression, INDETERMINATE, f"{gate.expression}: {floor.unavailable}")
    row = (floor.metrics or {}).get(gate.metric) or Margin()
    margin, head, low = row.margin, row.head, row.floor
    if margin is None or head is None or low is None:
        return GateResult(gate.expression, INDETERMINATE, f"{gate.expression}: the floor has no {gate.metric}")
    what = (
        f"{gate.expression}: {gate.metric} is {_fmt(head)} against the floor's {_fmt(low)}, a margin of {margin:+.4f}"
    )
    if round(margin, DECIMALS) >= round(gate.threshold, DECIMALS):
        return GateResult(gate.expression, PASS, f"{what}, at or above {gate.threshold:+g}", head, low)
    if gate.significant_only:
        upper = row.ci[1] if row.ci is not None and len(row.ci) == 2 else None
        if upper is None:
            return GateResult(
                gate.expression, INDETERMINATE, f"{what}, and the margin has no interval to test", head, low
            )
        if round(upper, DECIMALS) >= round(gate.threshold, DECIMALS):
            return GateResult(
                gate.expression,
                PASS,
                f"{what}, below {gate.threshold:+g} but not significantly (95% interval up to {upper:+.4f})",
                head,
                low,
            )
    return GateResult(gate.expression, FAIL, f"{what}, below {gate.threshold:+g}", head, low)


# A :significant gate names one metric in advance, so its own test is the right one; the
# tables' marks, adjusted over every metric shown, answer another question.
UNADJUSTED = "its own 95% interval, not adjusted for the other metrics: this gate named its metric in advance"

_EVALUATORS = {
    ABSOLUTE: _absolute,
    DELTA: _delta,
    WORST_STRATUM: _worst_stratum,
    CI_LOWER: _ci_lower,
    FLOOR: _floor,
}


def evaluate_gate(gate: Gate, readings: GateReadings, gating: Gating | None = None) -> GateResult:
    """One gate's result from the run's readings; ``gating`` is the request's gate slice (the
    judged metrics' measurements, ``require_detectable``), none when the gate needs neither."""
    gating = Gating() if gating is None else gating
    if readings.bounded and gate.kind != CI_LOWER:
        return _bounded(gate, readings, gating)
    return _EVALUATORS[gate.kind](gate, readings, gating)


def _bounded(gate: Gate, readings: GateReadings, gating: Gating) -> GateResult:
    """The gate at both bounds (module docstring): agreeing ends decide, disagreeing ones do not.

    The reason states the two bounds compared, never a value read at one of them as if it
    were the head's (a delta placed at a bound is not a move anyone measured).
    """
    evaluator = _EVALUATORS[gate.kind]
    unknown = _unknown_delta_bounds(gate, readings)
    if unknown is not None:
        return unknown
    low = evaluator(gate, readings.least_favourable(), gating)
    high = evaluator(gate, readings.most_favourable(), gating)
    if INDETERMINATE in (low.status, high.status):
        return low if low.status == INDETERMINATE else high
    span = _span(gate, low, high)
    if span is None:  # nothing the bounds moved (a floor's margin): the plain reason says it all
        return low if low.status == high.status else replace(low, status=INDETERMINATE)
    count = _unjudged_count(gate, readings)
    cutoff = gate.metric.partition("@")[2]
    where = f"the top {cutoff}" if cutoff else "the rankings"
    keys = f"{count} unjudged key{'' if count == 1 else 's'}" if count is not None else "the unjudged keys"
    if gate.kind == DELTA:  # each side's keys, counted on each side: a key unjudged in both counts twice
        where += " of head and base, a key in both counted on each side"
    elif count == 0:
        # The bounds moved with no unjudged key of a scored query: the keys of a query with no
        # relevant label yet, which would be scored once one of them is labeled relevant. The
        # label queue (holes) lists scored queries' keys only, so the reason names where they are.
        keys = "the unjudged keys of the queries with no relevant label yet (one labeled relevant puts its query in"
        keys += " the mean)"
    said = f"{gate.expression}: {span} over every labeling of {keys} in {where}"
    if low.status == high.status:
        return replace(low, reason=f"{said}; it {_VERB[low.status]} at both")
    return GateResult(
        gate.expression,
        INDETERMINATE,
        f"{said}; it {_VERB[low.status]} at the lower bound and {_VERB[high.status]} at the upper: label them",
        low.observed,
        low.baseline,
    )


_VERB = {PASS: "passes", FAIL: "fails"}


def _unknown_delta_bounds(gate: Gate, readings: GateReadings) -> GateResult | None:
    """A delta gate whose delta carries no bounds: the comparison dropped them, because a side
    left its own out and they could not be computed again (a base that kept no rankings).
    Read at its value, the delta would be claimed to hold whatever the unjudged keys are."""
    if gate.kind != DELTA or readings.comparison is None:
        return None
    moved = readings.comparison.get(gate.metric)
    if moved is None or moved.delta is None or moved.bounds is not None:
        return None
    reason = (
        f"{gate.expression}: the bounds of the delta of {gate.metric} are unknown: the base report left "
        "its bounds out and kept no rankings to compute them from (score the base with --bounds)"
    )
    return GateResult(gate.expression, INDETERMINATE, reason, moved.head, moved.base)


def _span(gate: Gate, low: GateResult, high: GateResult) -> str | None:
    """What a bounded gate compared: the metric's (or the delta's) lower and upper bound."""
    if low.observed is None or high.observed is None or gate.kind == FLOOR:
        return None
    if gate.kind == DELTA:
        if low.baseline is None or high.baseline is None:
            return None
        lowest = round(low.observed - low.baseline, DECIMALS)
        highest = round(high.observed - high.baseline, DECIMALS)
        return (
            f"the delta of {gate.metric} lies between {lowest:+.4f} (head lower bound less base upper bound) "
            f"and {highest:+.4f} (head upper bound less base lower bound)"
        )
    what = f"the worst stratum's {gate.metric}" if gate.kind == WORST_STRATUM else gate.metric
    return f"{what} lies between {_fmt(low.observed)} (lower bound) and {_fmt(high.observed)} (upper bound)"


def _unjudged_count(gate: Gate, readings: GateReadings) -> int | None:
    """The unjudged keys a gate's result hangs on: the head's, and for a delta the base's too."""
    if gate.kind == DELTA:
        moved = readings.comparison.get(gate.metric) if readings.comparison is not None else None
        return moved.unjudged if moved is not None else None
    cutoff = gate.metric.partition("@")[2] or "all"
    return readings.unjudged_keys.get(cutoff, 0)


@dataclass(frozen=True)
class Verdict:
    status: str
    reasons: list[str]
    gates: list[GateResult]


def decide(blocking: list[str], notes: list[str], gates: list[GateResult], *, unmatched: Sequence[str] = ()) -> Verdict:
    """Combine the base findings and the gate results into one verdict.

    ``blocking`` are findings that make any number untrustworthy (unsound
    judgments, nothing scored); ``notes`` are told but change nothing.
    ``unmatched`` says why no key of the run could match a label (document ids
    against chunk labels, another id space): every metric is then 0 whatever the
    retriever did, so no gate decides, a failing one no more than a passing one.
    """
    if unmatched:
        # Each gate says so too: a gate listed as FAIL (or PASS) under an INDETERMINATE verdict
        # would contradict the rule that the verdict is the worst of its gates.
        gates = [_undecided(gate) for gate in gates]
    status = INDETERMINATE if blocking or unmatched else PASS
    for gate in gates:
        if SEVERITY[gate.status] > SEVERITY[status]:
            status = gate.status
    gate_reasons = [gate.reason for gate in gates if gate.status != PASS]
    return Verdict(status, [*blocking, *unmatched, *gate_reasons, *notes], list(gates))


def _undecided(gate: GateResult) -> GateResult:
    """A gate read on a run none of whose keys can match a label: every metric is 0 whatever
    the retriever did, so the gate is INDETERMINATE, its reading kept for the record."""
    if gate.status == INDETERMINATE:
        return gate
    reading = gate.reason.removeprefix(f"{gate.expression}: ")
    return replace(
        gate,
        status=INDETERMINATE,
        reason=f"{gate.expression}: not decided, no key of the run can match a label ({reading})",
    )


def max_drift_gate(invalid_ratio: float, max_drift: float) -> GateResult:
    """The ``max-drift`` gate: more stale labels than the tolerance make the verdict FAIL."""
    expression = f"max-drift:{max_drift:g}"
    what = f"{invalid_ratio:.1%} of the labels no longer point at the corpus"
    if round(invalid_ratio, DECIMALS) > round(max_drift, DECIMALS):
        return GateResult(expression, FAIL, f"{expression}: {what}, above {max_drift:.1%}", invalid_ratio)
    return GateResult(expression, PASS, f"{expression}: {what}, within {max_drift:.1%}", invalid_ratio)
