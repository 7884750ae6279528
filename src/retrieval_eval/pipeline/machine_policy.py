"""The ``machine`` policy for unjudged keys: the bounds, then machine labels where they may help.

Gates are first evaluated under the bounds on the human labels alone (the ``bounded``
policy); that verdict is always kept and shown. Then, when the judge's calibration allows it
(:mod:`retrieval_eval.core.judge_calibration`), an absolute gate left INDETERMINATE gets the
machine-filled estimate and its interval, and resolves only when the interval clears the
threshold: drawn as a sum for a metric that adds up over keys (precision@k: each relevant
key adds ``1/k`` to its query; :mod:`retrieval_eval.core.judge_interval`), drawn grade by grade
for nDCG, recall, MRR, MAP and hit rate, where several relevant holes together do less than
the sum of their single moves (:mod:`retrieval_eval.core.judge_draws`). Both correct the
judge's errors as measured on the calibration overlap, and read how often the holes are
relevant off the judge's readings of them, not off the overlap. Delta, worst-stratum and
other gates keep their status.

Machine labels match a hole by (query id, key); with a corpus, also by the chunk text's
hash, so a re-chunked text's old label is not read. The calibration is recomputed from the
file's calibration pairs against the human judgments, for the judge that labeled the holes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from ..core import report_model
from ..core.corpus import Corpus
from ..core.gates import ABSOLUTE, INDETERMINATE, Gate, GateResult
from ..core.judge import CALIBRATION, HOLE, MachineLabel, text_sha256
from ..core.judge_calibration import DEFAULT_FLOOR, Calibration, calibrate
from ..core.judge_draws import MetricSpec, QueryHoles, drawn_interval
from ..core.judge_interval import Filled, Hole, filled_interval, resolve
from ..core.labelindex import LabelIndex
from ..core.metrics import FULL, gain_function
from ..core.precision import DECIMALS
from ..core.scoring import QueryLabels, Scores, gain_table, rank_query
from ..core.unjudged import key_moves
from ..formats.fileio import sha256_file
from ..formats.machine_labels import read_machine_labels

ADDITIVE = ("precision",)  # metrics whose value is a sum over keys: the estimate is exact in form
DRAWN = ("ndcg", "recall", "mrr", "map", "hit_rate")  # the others a drawn interval serves


@dataclass(frozen=True)
class MachineGate:
    expression: str
    metric: str
    human_status: str  # under the bounds, on the human labels alone
    status: str  # with machine labels
    value: float
    lower_bound: float
    upper_bound: float
    estimate: float | None = None
    low: float | None = None
    high: float | None = None
    note: str = ""

    def report_entry(self) -> report_model.MachineGate:
        """This gate as the report's ``machine_labels.gates`` lists it, rounded as reports are."""
        estimated = self.estimate is not None and self.low is not None and self.high is not None
        return report_model.MachineGate(
            expression=self.expression,
            metric=self.metric,
            human_status=self.human_status,
            status=self.status,
            value=round(self.value, DECIMALS),
            bounds=(round(self.lower_bound, DECIMALS), round(self.upper_bound, DECIMALS)),
            estimate=_rounded(self.estimate) if estimated else None,
            interval=(round(self.low or 0.0, DECIMALS), round(self.high or 0.0, DECIMALS)) if estimated else None,
            note=self.note or None,
        )


@dataclass(frozen=True)
class MachineSection:
    sha256: str
    calibration: Calibration | None
    holes: int  # unjudged keys in the head's top k (first cutoff) of the scored queries
    machine_labeled: int  # of those, with a usable machine label
    invalidated: int  # hole labels not read: their chunk text changed since the judge read it
    human_status: str  # the verdict on the human labels alone
    gates: tuple[MachineGate, ...]

    def report_section(self) -> report_model.MachineLabels:
        """The report's ``machine_labels`` section."""
        return report_model.MachineLabels(
            file_sha256=self.sha256,
            calibration=None if self.calibration is None else _calibration_entry(self.calibration),
            holes=self.holes,
            machine_labeled=self.machine_labeled,
            machine_labeled_share=round(self.machine_labeled / self.holes, DECIMALS) if self.holes else None,
            invalidated=self.invalidated,
            human_labels_verdict=self.human_status,
            gates=tuple(gate.report_entry() for gate in self.gates),
        )


def _calibration_entry(calibration: Calibration) -> report_model.Calibration:
    return report_model.Calibration(
        status=calibration.status,
        pairs=calibration.labeled,
        kappa_binary=_rounded(calibration.kappa_binary),
        kappa_graded=_rounded(calibration.kappa_graded),
        zero_rate_human=_rounded(calibration.zero_rate_human),
        zero_rate_judge=_rounded(calibration.zero_rate_judge),
        floor=calibration.floor,
    )


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)


@dataclass(frozen=True)
class PolicyInputs:
    labels: Sequence[MachineLabel]
    sha256: str
    index: LabelIndex
    indexed: Mapping[str, QueryLabels]
    scores: Scores
    corpus: Corpus | None
    floor: float = DEFAULT_FLOOR


def read_policy_inputs(
    path: str, index: LabelIndex, indexed: Mapping[str, QueryLabels], scores: Scores, corpus: Corpus | None
) -> PolicyInputs:
    """The machine labels file at ``path``, read beside what the head's scoring knows."""
    return PolicyInputs(read_machine_labels(path), sha256_file(path), index, indexed, scores, corpus)


def _text_matches(label: MachineLabel, corpus: Corpus | None) -> bool:
    if corpus is None or label.chunk_id is None or label.chunk_id not in corpus.position:
        return True
    text = corpus.texts[corpus.position[label.chunk_id]]
    return text is None or text_sha256(text) == label.text_sha256


def hole_readings(inputs: PolicyInputs, threshold: int) -> dict[tuple[str, str], bool]:
    """Each hole's usable binary reading, by (query id, key)."""
    return {
        (label.query_id, label.key): (label.vote.grade or 0) >= threshold
        for label in inputs.labels
        if label.role == HOLE and label.vote.usable and _text_matches(label, inputs.corpus)
    }


def recalibrate(inputs: PolicyInputs, threshold: int) -> Calibration | None:
    """The calibration of the judge that labeled the holes, from the file's calibration pairs."""
    judges = {label.provenance for label in inputs.labels if label.role == HOLE}
    if len(judges) != 1:
        return None  # no holes, or holes from several judges: no single calibration speaks for them
    (judge,) = judges
    asked = [
        (inputs.index.queries[label.query_id].grades[label.key], label)
        for label in inputs.labels
        if label.role == CALIBRATION
        and label.provenance == judge
        and label.query_id in inputs.index.queries
        and label.key in inputs.index.queries[label.query_id].grades
    ]
    if not asked:
        return None
    return calibrate(
        [(human, label.vote.grade) for human, label in asked if label.vote.grade is not None],
        humans=[human for human, _ in asked],
        answered=[a for _, label in asked for a in label.samples if isinstance(a, int)],
        threshold=threshold,
        floor=inputs.floor,
    )


def hole_weights(inputs: PolicyInputs, metric: str) -> list[tuple[str, str, float]]:
    """(query id, key, how much the metric's mean rises if that key alone is relevant)."""
    scores = inputs.scores
    config = scores.config
    cutoff = metric.partition("@")[2]
    k = int(cutoff) if cutoff else FULL
    gain_of = gain_table(config.gain, inputs.index)
    flip = gain_function(config.gain)(config.threshold)
    count = max(len(scores.per_query), 1)
    weights = []
    for query_id in scores.per_query:
        ranking = scores.rankings.get(query_id, [])
        labels = inputs.indexed.get(query_id)
        if labels is None:
            continue
        kept = ranking[:k] if k != FULL else ranking
        query = rank_query(labels, kept, gain_of, config.threshold, flip)
        for position, move in key_moves(query, metric, k).items():
            weights.append((query_id, kept[position], move / count))
    return weights


def _count_holes(inputs: PolicyInputs, readings: Mapping[tuple[str, str], bool]) -> tuple[int, int]:
    """Unjudged keys in the head's top k (first cutoff), and how many have a usable machine label."""
    scores = inputs.scores
    k = scores.config.k[0] if scores.config.k else FULL
    holes = labeled = 0
    for query_id in scores.per_query:
        grades = inputs.indexed[query_id].grades if query_id in inputs.indexed else {}
        ranking = scores.rankings.get(query_id, [])
        for key in ranking[:k] if k != FULL else ranking:
            if key not in grades:
                holes += 1
                labeled += (query_id, key) in readings
    return holes, labeled


def _fmt(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".")


def _machine_gate(
    gate: Gate,
    result: GateResult,
    inputs: PolicyInputs,
    readings: Mapping[tuple[str, str], bool],
    calibration: Calibration | None,
) -> tuple[GateResult, MachineGate]:
    value = inputs.scores.metrics.get(gate.metric, 0.0)
    upper = inputs.scores.upper.get(gate.metric, value)
    seen = MachineGate(gate.expression, gate.metric, result.status, result.status, value, value, upper)
    why = _unused(gate, result, calibration)
    if why:
        return result, replace(seen, note=why)
    if calibration is None:  # _unused said it is usable; this keeps the type checker told
        return result, seen
    filled = _filled(gate.metric, inputs, readings, calibration, (value, upper))
    status = resolve(result.status, filled, gate.threshold, at_most=gate.at_most)
    interval = f"[{_fmt(filled.low)}, {_fmt(filled.high)}]"
    reason = (
        f"{gate.expression}: INDETERMINATE on the human labels (bounds {_fmt(value)} to {_fmt(upper)}); "
        f"with machine labels {_fmt(filled.estimate)}, 95% interval {interval}"
        + ("" if status == INDETERMINATE else f": {status} (the interval clears {_fmt(gate.threshold)})")
    )
    machine = replace(seen, status=status, estimate=filled.estimate, low=filled.low, high=filled.high)
    return GateResult(gate.expression, status, reason, result.observed, result.baseline), machine


def _filled(
    metric: str,
    inputs: PolicyInputs,
    readings: Mapping[tuple[str, str], bool],
    calibration: Calibration,
    bounds: tuple[float, float],
) -> Filled:
    """The machine-filled estimate and interval: drawn as a sum for a metric that adds up
    over keys, drawn for the others."""
    threshold = inputs.scores.config.threshold
    if metric.partition("@")[0] in ADDITIVE:
        holes = [Hole(w, readings.get((q, key))) for q, key, w in hole_weights(inputs, metric)]
        overlap = [(machine >= threshold, human >= threshold) for human, machine in calibration.pairs]
        return filled_interval(bounds[0], holes, overlap)
    spec, queries = _draw_inputs(metric, inputs, readings)
    estimate, low, high = drawn_interval(spec, queries, calibration.pairs)
    return Filled(estimate, low, high, bounds[0], bounds[1])


def _draw_inputs(
    metric: str, inputs: PolicyInputs, readings: Mapping[tuple[str, str], bool]
) -> tuple[MetricSpec, list[QueryHoles]]:
    """The scored queries with holes in the metric's top k, and the sum over the others."""
    scores = inputs.scores
    cutoff = metric.partition("@")[2]
    k = int(cutoff) if cutoff else FULL
    queries, others = [], 0.0
    for query_id, row in scores.per_query.items():
        labels = inputs.indexed.get(query_id)
        ranking = scores.rankings.get(query_id, [])
        kept = tuple(ranking[:k] if k != FULL else ranking)
        holes = {key: readings.get((query_id, key)) for key in kept if labels is not None and key not in labels.grades}
        if labels is None or not holes:
            others += row.get(metric, 0.0)
            continue
        queries.append(QueryHoles(labels, kept, holes))
    config = scores.config
    return MetricSpec(metric, config.gain, config.threshold, max(len(scores.per_query), 1), others), queries


def _unused(gate: Gate, result: GateResult, calibration: Calibration | None) -> str:
    """Why machine labels cannot touch this gate ('' when they can)."""
    if result.status != INDETERMINATE:
        return "decided by the human labels"
    if calibration is None:
        return "the judge has no calibration pairs in the machine-labels file"
    if not calibration.usable:
        return f"the judge is {calibration.status}: its labels are reported, not used"
    if gate.kind != ABSOLUTE:
        return "machine labels resolve absolute gates only"
    if gate.metric.partition("@")[0] not in ADDITIVE + DRAWN:
        return f"machine labels do not estimate {gate.metric}"
    return ""


def apply_machine_policy(
    inputs: PolicyInputs, gates: Sequence[Gate], results: Sequence[GateResult], human_status: str
) -> tuple[list[GateResult], MachineSection]:
    """Gate results with machine labels where they may resolve an INDETERMINATE one (module docstring).

    ``results`` are the gates' results under the bounds, in the order of ``gates`` (any results
    after them, such as max-drift, are kept as they are)."""
    threshold = inputs.scores.config.threshold
    readings = hole_readings(inputs, threshold)
    calibration = recalibrate(inputs, threshold)
    resolved: list[GateResult] = []
    machine: list[MachineGate] = []
    for gate, result in zip(gates, results):
        new, seen = _machine_gate(gate, result, inputs, readings, calibration)
        resolved.append(new)
        machine.append(seen)
    resolved.extend(results[len(gates) :])
    holes, labeled = _count_holes(inputs, readings)
    stale = sum(1 for label in inputs.labels if label.role == HOLE and not _text_matches(label, inputs.corpus))
    section = MachineSection(inputs.sha256, calibration, holes, labeled, stale, human_status, tuple(machine))
    return resolved, section
