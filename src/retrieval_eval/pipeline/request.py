"""The request: one evaluation's settings, read once, in the shape the pipeline runs them.

The settings table (:mod:`.settings`) reads text from a CLI flag, an action input, the config
file or a keyword of ``retrieval_eval.evaluate``; :func:`request_from_settings` is the one place
that turns what it read into a :class:`EvaluationRequest`. The slices the core reads are fields of the
request, built there and handed on as they are, never translated again:

- ``request.scoring`` (:class:`~retrieval_eval.core.scoring.ScoreConfig`): cutoffs, threshold,
  gain and the unjudged policy, what scoring, the floor and the eval-set checks read;
- ``request.gating`` (:class:`~retrieval_eval.core.gates.Gating`): the gate expressions, the
  judged metrics' measurements and ``require_detectable``, what parsing and evaluating gates read;
- ``request.sensitivity`` (:class:`~retrieval_eval.core.sensitivity.Thresholds`): the eval-set
  checks' thresholds.

The rest (paths, the base report, the floor, max-drift, power) the pipeline reads from the
request itself.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, replace

from ..core.errors import UsageError
from ..core.gates import Gating
from ..core.judgments import JudgmentSet
from ..core.power import DEFAULT_POWER
from ..core.report_model import Report
from ..core.runs import RunRows
from ..core.scoring import BOUNDED, ScoreConfig, unjudged_policy_named
from ..core.sensitivity import Thresholds
from ..core.unjudged import MACHINE
from ..formats.report import load_report_hashed
from ..formats.samples import read_samples
from .holes import BOUNDED_ADVICE
from .settings import Settings


@dataclass(frozen=True)
class EvaluationRequest:
    """Everything one evaluation is asked to do. Built from the settings by
    :func:`request_from_settings`; a test may build one directly, field by field."""

    judgments_path: str
    run_path: str
    scoring: ScoreConfig = field(default_factory=ScoreConfig)  # k, threshold, gain, unjudged policy
    gating: Gating = field(default_factory=Gating)  # gates, judged metrics, require-detectable
    run_format: str = "auto"
    # The base report, found by the adapter (JSON is read into one by formats/report.py first).
    baseline: Report | None = None
    baseline_sha256: str | None = None  # of the base report's bytes as read (the report records it)
    generated_at: str = "1970-01-01T00:00:00Z"
    corpus_path: str | None = None  # adds the drift summary; maps chunks to documents
    collapse_to_documents: bool = False
    max_drift: float | None = None  # with a corpus: the share of stale labels that fails the verdict
    repair_command: str = ""  # with a corpus: the command that re-anchors what can be, as the user would type it
    floor: str = ""  # a floor run's path, or "bm25" (computed over the corpus)
    sensitivity: Thresholds = field(default_factory=Thresholds)  # with a corpus: the eval-set checks
    machine_labels_path: str | None = None  # the machine policy: a judge's labels (scoring runs bounded)
    power: float = DEFAULT_POWER  # at which each delta's minimum detectable effect is stated
    label_queue: bool = False  # count the label queue, and build it (the action writes it beside the report)
    queue_limit: int | None = None  # with label_queue: build it only when it has at most this many lines
    holes_command: str = ""  # the command that writes the whole queue, as the user would type it
    bounded_advice: str = BOUNDED_ADVICE  # how the user asks for the bounded policy (a flag, an input)
    bounds: bool = False  # compute the bounds even when nothing else reads them (pipeline: needs_bounds)
    # Inputs held in memory (the library's): the paths above then only name them in messages.
    judgments_set: JudgmentSet | None = None
    judgments_sha256: str | None = None  # of judgments_set's text: its file's bytes, or its canonical JSONL
    run_rows: RunRows | None = None

    def with_queue(self, limit: int | None = None) -> EvaluationRequest:
        return replace(self, label_queue=True, queue_limit=limit)


def request_from_settings(
    settings: Settings,
    *,
    baseline: Report | None,
    generated_at: str,
    baseline_sha256: str | None = None,
) -> EvaluationRequest:
    """The request for ``settings``: the one translation the CLI, the action and the Python API
    share. ``baseline`` is the base report, found by the caller (a path on the command line;
    git, the Contents API or an artifact in the action; an Evaluation, a dict or a path in the
    API), and ``baseline_sha256`` the hash of its bytes as read."""
    judged = {name: read_samples(name, str(settings.resolve(path))) for name, path in settings.judged}
    return EvaluationRequest(
        judgments_path=str(settings.resolve(settings.judgments)),
        run_path=str(settings.resolve(settings.run)),
        scoring=ScoreConfig(
            k=settings.k,
            threshold=settings.threshold,
            gain=settings.gain,
            full_depth=settings.full_depth,
            # The machine policy scores bounded; the judge's labels then settle what the bounds leave open.
            unjudged_policy=BOUNDED if settings.unjudged == MACHINE else unjudged_policy_named(settings.unjudged),
        ),
        gating=Gating(settings.gates, judged, settings.require_detectable),
        run_format=settings.run_format,
        baseline=baseline,
        baseline_sha256=baseline_sha256,
        generated_at=generated_at,
        corpus_path=str(settings.resolve(settings.corpus)) if settings.corpus else None,
        collapse_to_documents=settings.collapse_to_documents,
        max_drift=settings.max_drift,
        repair_command=repair_command(settings.judgments, settings.corpus) if settings.corpus else "",
        floor=settings.floor if settings.floor in ("", "bm25") else str(settings.resolve(settings.floor)),
        sensitivity=Thresholds(settings.easy_set, settings.answer_in_query),
        machine_labels_path=str(settings.resolve(settings.machine_labels)) if settings.machine_labels else None,
        power=settings.power,
        holes_command=holes_command(settings),
        bounds=settings.bounds,
    )


def holes_command(settings: Settings) -> str:
    """The command that writes the whole label queue, with the paths as the user gave them."""
    k = ",".join([*map(str, settings.k), *(["all"] if settings.full_depth else [])])
    parts = ["retrieval-eval", "holes", "-j", settings.judgments, "-r", settings.run, "-k", k]
    if settings.baseline.kind == "path":
        parts += ["--baseline", settings.baseline.path]
    if settings.corpus:
        parts += ["--corpus", settings.corpus]
    return " ".join(shlex.quote(part) for part in [*parts, "--out", "label-queue.jsonl"])


def repair_command(judgments: str, corpus: str) -> str:
    """What re-anchors the labels that provably survived, with the paths as the user gave them."""
    return f"retrieval-eval drift -j {shlex.quote(judgments)} -c {shlex.quote(corpus)} --fix"


def local_baseline(settings: Settings) -> tuple[Report | None, str | None]:
    """The base report outside a workflow, and the sha256 of its bytes as read: a path, or
    none (``auto`` has no base branch to ask)."""
    spec = settings.baseline
    if spec.kind in ("git", "artifact"):
        raise UsageError(
            f"baseline {spec.describe()!r} is found by the action, which knows the base branch",
            hint="give the base report's path, e.g. --baseline base-report.json",
        )
    if spec.kind != "path":
        return None, None
    return load_report_hashed(str(settings.resolve(spec.path)))
