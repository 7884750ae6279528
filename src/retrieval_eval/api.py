"""The Python API: load judgments and runs, evaluate, compare, check drift (docs/api.md).

Everything here is exported from ``retrieval_eval`` and listed in its ``__all__``; the rest of
the package is private and may change. Functions take what a notebook holds (paths, plain
dicts, pandas DataFrames, ir_measures / ir_datasets qrels) and run the one pipeline the CLI
and the action run, so ``evaluate()`` returns the very :class:`Evaluation` the CLI reports from.

Every layer this module runs is imported here, at the top, where a reader sees the dependency
graph. ``import retrieval_eval`` does not load this module: the package root loads it on first
use of a public name (see ``retrieval_eval/__init__.py``), so ``retrieval-eval --version`` and
``import retrieval_eval`` stay as cheap as the version alone.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from ._public import API_NAMES
from .comparison.plan import Plan, PlanRequest
from .comparison.plan import plan as make_plan
from .comparison.result import check_head_judgments
from .core.aliases import canonical_metric as resolve
from .core.drift import check_drift
from .core.drift_check import DriftCheck
from .core.errors import InputError, RetrievalEvalError, UsageError  # noqa: F401  (public names)
from .core.identity import chunk_id as identify
from .core.identity import text_sha as digest
from .core.labelindex import LabelIndex
from .core.metrics import describe_known, known_metric
from .core.power import Design
from .core.report_model import Report
from .core.significance import DEFAULT_SEED
from .formats.corpus import read_corpus
from .formats.drift import drift_labels_json, drift_summary_json, drift_to_json
from .formats.judgments import judgments_file_format
from .formats.objects import (
    canonical_judgments_sha256,
    judgments_from_object,
    read_judgments_file,
    read_run_file,
    run_from_object,
)
from .formats.report import checked_json, dump_report, load_report_hashed, report_from_json
from .formats.runs import run_from_rows
from .formats.typedjson import JsonObject
from .pipeline.compare import compare_documents
from .pipeline.evaluate import run_pipeline
from .pipeline.request import request_from_settings
from .pipeline.results import (  # noqa: F401  (MetricChange, Record: public names)
    Comparison,
    Evaluation,
    Frozen,
    MetricChange,
    Record,
    import_pandas,
)
from .pipeline.settings import Runner, SettingsError, Values, check_number, parse_power, parse_settings
from .pipeline.timestamps import generated_at as stamp

if TYPE_CHECKING:
    import pandas

    from .core.judgments import JudgmentSet
    from .core.runs import RunRows

    PathLike = str | os.PathLike[str]

__all__ = list(API_NAMES)  # the public names, listed once in _public.py


def _number(name: str, value: object, argument: str) -> None:
    """``value`` checked against the range of setting (or option) ``name`` in the settings table."""
    check_number(name, value, label=argument)


def _of_type(argument: str, value: object, kinds: tuple[type, ...], words: str) -> None:
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise UsageError(f"{argument}: expected {words}, got {type(value).__name__}")


def _path_or_none(argument: str, value: object) -> str | None:
    if value is None:
        return None
    path = _as_path(value)
    if path is None:
        raise UsageError(f"{argument}: expected a path (str or os.PathLike), got {type(value).__name__}")
    return path


def _as_path(value: object) -> str | None:
    """The path ``value`` names, or None when it is not a path."""
    path = value if isinstance(value, str) else os.fspath(value) if isinstance(value, os.PathLike) else None
    if not isinstance(path, str):
        return None
    if "\0" in path:  # no file system takes one; os would raise ValueError, not an error of ours
        raise UsageError(f"the path {path[:80]!r} holds a NUL character")
    return path


class Judgments(Frozen):
    """Relevance labels, checked, held in memory; named by ``sha256`` (see :func:`load_judgments`)."""

    __slots__ = ("_labels", "sha256", "source")
    _labels: JudgmentSet
    sha256: str
    source: str

    def __init__(self, labels: JudgmentSet, sha256: str, source: str) -> None:
        self._set(_labels=labels, sha256=sha256, source=source)

    def __repr__(self) -> str:
        return f"<Judgments: {len(self)} labels, {len(self.query_ids)} queries, from {self.source}>"

    def __len__(self) -> int:
        return len(self._labels.labels)

    @property
    def query_ids(self) -> list[str]:
        """The judged queries, sorted."""
        return self._labels.query_ids()

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{query_id: {key: relevance}}``, the qrels dict of pytrec_eval and ir_measures
        (a key is a label's chunk_id when it has one, else its doc_uri)."""
        qrels: dict[str, dict[str, int]] = {}
        for label in self._labels.labels:
            qrels.setdefault(label.query_id, {})[label.key] = label.relevance
        return qrels


class Run(Frozen):
    """A run, checked, held in memory; named by ``sha256`` (see :func:`load_run`)."""

    __slots__ = ("_rows", "sha256", "source")
    _rows: RunRows
    sha256: str
    source: str

    def __init__(self, rows: RunRows, source: str) -> None:
        self._set(_rows=rows, sha256=rows.sha256, source=source)

    def __repr__(self) -> str:
        kind = "scored" if self._rows.by_score else "ranked"
        return f"<Run ({kind}): {len(self.to_dict())} queries, from {self.source}>"

    def to_dict(self) -> dict[str, list[str]]:
        """``{query_id: [ids in rank order]}``; a scored run ordered as trec_eval orders it."""
        if not self._rows.by_score:
            return {query: list(ranking) for query, ranking in self._rows.ranked}

        return run_from_rows(self._rows).rankings


def load_judgments(source: object, *, format: str = "auto") -> Judgments:  # noqa: A002 (the field's word)
    """Judgments from a path (judgments JSONL, TREC qrels or BEIR qrels; ``format`` says which
    when ``auto`` would guess wrong), a qrels dict ``{"q1": {"d1": 2}}``, (query_id, doc_id,
    relevance) rows (ir_measures' and ir_datasets' qrels included), judgment records, or a
    pandas DataFrame. Refuses bad input with :class:`InputError`, naming the line or row."""
    if isinstance(source, Judgments):
        return source
    _of_type("format", format, (str,), "a format name")
    path = _as_path(source)
    if path is not None:
        labels, sha256 = read_judgments_file(path, format)
        return Judgments(labels, sha256, path)

    labels = judgments_from_object(source)
    return Judgments(labels, canonical_judgments_sha256(labels), type(source).__name__)


def load_run(source: object, *, format: str = "auto") -> Run:  # noqa: A002
    """A run from a path (run JSONL or TREC run; ``format`` ``jsonl`` or ``trec`` to force), a
    dict of rankings ``{"q1": ["d3", "d1"]}`` or of scores ``{"q1": {"d3": 12.5}}``,
    (query_id, doc_id, score) rows, or a pandas DataFrame. Scores are ordered as trec_eval
    orders them: score descending, ties by document id descending."""
    if isinstance(source, Run):
        return source
    _of_type("format", format, (str,), "a format name")
    path = _as_path(source)
    if path is not None:
        return Run(read_run_file(path, format), path)

    return Run(run_from_object(source), type(source).__name__)


def canonical_metric(name: str) -> str:
    """Our name for a metric named in ir_measures' or trec_eval's spelling (``nDCG@10`` and
    ``ndcg_cut_10`` are ``ndcg@10``); our own names come back unchanged. Refuses, with
    :class:`UsageError`, a name of a metric this version does not compute."""
    _of_type("name", name, (str,), "a metric name")
    resolved = resolve(name)
    if not known_metric(resolved):
        raise UsageError(f"unknown metric {name!r}; known metrics: {describe_known()}")
    return resolved


def chunk_id(doc_uri: str, doc_revision: str, ordinal: int, text: str, chunker_fingerprint: str) -> str:
    """The content-addressed id of a chunk (spec/chunk-id.md): ``c1:`` and 32 hex digits.

    The same five fields always give the same id, so a corpus builder and the labels agree
    without sharing state. Raises ``ValueError`` for an ordinal that is not a whole number >= 0.
    """
    return identify(doc_uri, doc_revision, ordinal, text, chunker_fingerprint)


def text_sha(text: str) -> str:
    """The hash of a text as labels store it (``text_sha``): ``t1:`` and 32 hex digits of
    SHA-256 over the normalized text, which lets ``drift`` find labeled text again."""

    return digest(text)


def evaluate(
    judgments: object,
    run: object,
    *,
    k: int | Iterable[int] | str | None = None,
    threshold: int = 1,
    gain: str = "exponential",
    gates: str | Iterable[str] = (),
    baseline: Evaluation | Report | PathLike | None = None,
    corpus: PathLike | None = None,
    collapse_to_documents: bool = False,
    max_drift: float | None = None,
    generated_at: str | None = None,
    unjudged: str = "assume-irrelevant",
    power: float = 0.8,
    require_detectable: bool = False,
    run_format: str = "auto",
    judged: Mapping[str, PathLike] | None = None,
    floor: PathLike | None = None,
    easy_set: float | None = 0.95,
    answer_in_query: int | None = 8,
    machine_labels: PathLike | None = None,
    bounds: bool = False,
) -> Evaluation:
    """Score ``run`` against ``judgments`` and decide the verdict, as ``retrieval-eval score`` does.

    Every keyword is the setting of that name (docs/settings.md), read and checked by the same
    row of the settings table as the CLI's option and the action's input, so a value means the
    same everywhere. ``judgments`` and ``run``: anything :func:`load_judgments` and
    :func:`load_run` take; a path is read as the CLI reads it (a run file streamed, never held
    whole; ``run_format`` forces ``jsonl`` or ``trec``). ``k``: cutoffs (``10``, ``(5, 10)`` or
    ``"5,10"``; ``"10,all"`` adds the full-depth metrics; by default the CLI's); the first names
    the primary metric. ``unjudged``: the policy for keys no label names (docs/metrics.md,
    Unjudged documents); ``machine`` reads a judge's labels from ``machine_labels``. ``gates``:
    gate expressions (docs/metrics.md, Gates), metrics named ours or the field's way.
    ``judged``: samples of judged metrics, ``{name: path}``, for ``judged:`` gates.
    ``baseline``: the base side for delta gates, an Evaluation, a report (:func:`load_report`)
    or a report's path. ``corpus``: a corpus snapshot's path, which adds label drift (``max_drift`` fails the
    verdict past that share of stale labels) and the eval-set checks (``easy_set``,
    ``answer_in_query``; None turns one off). ``floor``: a floor run's path, or ``"bm25"``
    (computed over the corpus), for ``floor:`` gates. ``generated_at``: the report's time stamp
    (ISO 8601; default SOURCE_DATE_EPOCH, else the clock). ``power``: at which each delta's
    minimum detectable effect is stated; ``require_detectable``: a delta gate whose tolerance is
    below it is INDETERMINATE instead of PASS (docs/compare.md, What a set can detect).
    ``bounds``: compute every metric's lower and upper bound even when nothing reads them (the
    ``bounded`` policy and a ``baseline`` compute them anyway; the report's ``computed``
    says whether they were).
    """
    texts = _setting_texts(
        k=k,
        threshold=threshold,
        gain=gain,
        gates=gates,
        corpus=corpus,
        collapse_to_documents=collapse_to_documents,
        max_drift=max_drift,
        unjudged=unjudged,
        power=power,
        require_detectable=require_detectable,
        bounds=bounds,
        run_format=run_format,
        judged=judged,
        floor=floor,
        easy_set=easy_set,
        answer_in_query=answer_in_query,
        machine_labels=machine_labels,
    )
    if generated_at is not None:
        _of_type("generated_at", generated_at, (str,), "an ISO 8601 time stamp")
    held_judgments, judgments_path = _judgments_for_pipeline(judgments)
    rows, run_path = _run_for_pipeline(run)
    base_report, base_sha256 = _hashed_report_of(baseline, "baseline", stacklevel=3)
    texts.update(judgments=judgments_path, run=run_path, baseline=_baseline_text(baseline))
    # The one translation the CLI and the action make: text, read by the settings table's rows.
    values = Values(texts, {}, label=_argument, confined=False, noun="argument")
    try:
        settings = parse_settings(values, runner=Runner(workspace=Path()))
    except SettingsError as exc:  # its default hint speaks of a config file, which the API never reads
        one_hint = values.hints[0] if len(values.problems) == 1 and len(values.hints) == 1 else None
        raise UsageError(exc.message, hint=one_hint) from None
    request = request_from_settings(
        settings,
        baseline=base_report,
        generated_at=stamp(now=generated_at, source_date_epoch=os.environ.get("SOURCE_DATE_EPOCH")),
        baseline_sha256=base_sha256,
    )
    # What only the library can hand over, held in memory: the paths above then only name it.
    return run_pipeline(
        replace(
            request,
            judgments_set=held_judgments._labels if held_judgments else None,
            judgments_sha256=held_judgments.sha256 if held_judgments else None,
            run_rows=rows,
        )
    )


def _argument(name: str) -> str:
    """A setting named as this function's keyword argument."""
    return name.replace("-", "_")


# The keyword arguments that are settings, by kind: each becomes the text the settings table reads.
_CHOICES = ("gain", "unjudged", "run-format")
_SWITCHES = ("collapse-to-documents", "require-detectable", "bounds")
_PATHS = ("corpus", "floor", "machine-labels")
_CHECKS_OFF = ("easy-set", "answer-in-query")  # None turns the check off


def _setting_texts(**arguments: object) -> dict[str, str]:
    """Each argument as the text a CLI option or an action input would carry; None: not given."""
    texts: dict[str, str] = {}
    for key, value in arguments.items():
        name = key.replace("_", "-")
        text = _setting_text(name, key, value)
        if text:
            texts[name] = text
    return texts


def _setting_text(name: str, argument: str, value: object) -> str | None:
    if name in _CHECKS_OFF and value is None:
        return "off"
    if value is None:
        return None
    if name in _CHOICES:
        _of_type(argument, value, (str,), "a name")
        if not value:
            raise UsageError(f"{argument}: expected a name, got an empty string")
        return str(value)
    if name in _SWITCHES:
        _of_type(argument, value, (bool,), "True or False")
        return "true" if value else "false"
    if name in _PATHS:
        return _path_or_none(argument, value)
    if name == "k":
        return _cutoff_text(value)
    if name == "gates":
        return "\n".join(_gate_list(value))
    if name == "judged":
        return _judged_text(value)
    _of_type(argument, value, (int, float), "a number")
    if name != "power":
        check_number(name, value, label=argument)  # the row's range, said of the number given
    return _decimal_text(value)  # type: ignore[arg-type]  # a number, checked just above


def _power(power: object) -> None:
    """``power`` read as the power setting reads it (``compare --power`` takes the same range)."""
    _of_type("power", power, (int, float), "a number")
    try:
        parse_power(_decimal_text(power))  # type: ignore[arg-type]  # a number, checked just above
    except ValueError as exc:
        raise UsageError(f"power: {exc}") from None


def _decimal_text(value: float) -> str:
    """A number as plain decimal text, which reads back as the same number (a float's shortest repr)."""
    if isinstance(value, int):
        return str(value) if value.bit_length() < 64 else "inf"  # past any range; shown as too large
    return format(Decimal(repr(value)), "f")


def _cutoff_text(k: object) -> str:
    if isinstance(k, str):
        if not k:
            raise UsageError('k: expected cutoffs, got an empty string (e.g. "5,10")')
        return k
    if isinstance(k, (list, tuple)) and k and all(isinstance(item, int) and not isinstance(item, bool) for item in k):
        cutoffs = tuple(k)
    elif isinstance(k, int) and not isinstance(k, bool):
        cutoffs = (k,)
    else:
        raise UsageError('k: expected a cutoff (10), a list of them ([5, 10]) or a string ("5,10", "10,all")')
    check_number("k", cutoffs, label="k")
    return ",".join(map(str, dict.fromkeys(cutoffs)))


def _gate_list(gates: object) -> list[str]:
    if isinstance(gates, str):
        return [gates]
    listed = list(gates) if isinstance(gates, (list, tuple)) else None
    if listed is None or not all(isinstance(gate, str) for gate in listed):
        raise UsageError("gates: expected a string of gate expressions, or a list of them")
    return listed


def _judged_text(judged: object) -> str:
    if not isinstance(judged, Mapping) or not all(isinstance(name, str) for name in judged):
        raise UsageError("judged: expected {name: path of the samples}, e.g. {'faithfulness': 'samples.json'}")
    pairs = [(name, _path_or_none(f"judged[{name!r}]", path) or "") for name, path in judged.items()]
    for name, path in pairs:
        if any(mark in name + path for mark in ",\n"):  # the setting's text separates its entries with them
            raise UsageError(f"judged[{name!r}]: a name or path holding a comma or new line cannot be given")
    return "\n".join(f"{name}={path}" for name, path in pairs)


def _baseline_text(baseline: object) -> str:
    """The baseline setting: a report's path as given (the label queue's command names it), else none."""
    path = _as_path(baseline)
    return path if path and path not in ("auto", "none") and not path.startswith(("git:", "artifact:")) else "none"


def _judgments_for_pipeline(judgments: object) -> tuple[Judgments | None, str]:
    """A JSONL file is streamed by the pipeline, as the CLI streams it; anything else is loaded."""
    path = _as_path(judgments)
    if path is not None:
        if judgments_file_format(path) == "jsonl":
            return None, path
    loaded = load_judgments(judgments)
    return loaded, loaded.source


def _run_for_pipeline(run: object) -> tuple[RunRows | None, str]:
    path = _as_path(run)
    if path is not None:
        return None, path
    loaded = load_run(run)
    return loaded._rows, loaded.source


def load_report(source: object) -> Report:
    """A report, typed (:class:`retrieval_eval.Report`): read from a report
    file's path (what ``score --out`` writes), or from a report's JSON object held in memory,
    checked against the report's shape as a file is; an Evaluation gives its ``typed_report``.
    Refuses what is not a report with :class:`InputError`. What :func:`evaluate` (``baseline``),
    :func:`compare` and :func:`plan` take for a report."""
    if isinstance(source, Report):
        return source
    if isinstance(source, Evaluation):
        return source.typed_report
    path = _as_path(source)
    if path is not None:
        return load_report_hashed(path, source="report")[0]
    if isinstance(source, Mapping):
        return report_from_json(checked_json(dict(source), "report"))
    raise UsageError(f"report: expected a report's path or its JSON object, got {type(source).__name__}")


def _report_of(side: object, what: str) -> Report | None:
    return _hashed_report_of(side, what, stacklevel=4)[0]


def _hashed_report_of(side: object, what: str, *, stacklevel: int) -> tuple[Report | None, str | None]:
    """A report from an Evaluation, a report or a report file's path, and the SHA-256 of its
    bytes: the file's, or (held in memory) those of the file ``score --out`` writes for it.
    ``stacklevel``: where the caller's call is, for the deprecation of a report's JSON object."""
    if side is None:
        return None, None
    path = _as_path(side)
    if path is not None:
        return load_report_hashed(path, source=what)

    if isinstance(side, (Evaluation, Report)):
        report = side.typed_report if isinstance(side, Evaluation) else side
        return report, hashlib.sha256(dump_report(report).encode("utf-8")).hexdigest()
    if isinstance(side, Mapping):
        warnings.warn(
            f"{what}: a report's JSON object (a dict) is deprecated here and will be refused in a later "
            "release: read it with retrieval_eval.load_report() and pass the Report",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        data = checked_json(dict(side), what)  # hashed as given: the bytes score --out would write for it
        return report_from_json(data), hashlib.sha256(dump_report(data).encode("utf-8")).hexdigest()
    raise UsageError(f"{what}: expected an Evaluation, a report or a report's path, got {type(side).__name__}")


def compare(
    base: Evaluation | Report | PathLike,
    head: Evaluation | Report | PathLike,
    *,
    judgments: object = None,
    resamples: int = 10_000,
    seed: int | None = None,
    power: float = 0.8,
) -> Comparison:
    """Compare a head with a base, as ``retrieval-eval compare`` does: each metric's delta
    with a paired-bootstrap 95% interval over the queries both sides scored.

    (The comparison layer's package is ``retrieval_eval.comparison``, not ``compare``: Python
    binds a subpackage to its parent's attribute when it loads, over any function of that name.)

    ``judgments``: the head's judgments (anything :func:`load_judgments` takes), for query
    strata and for rescoring the base when the two were scored with different judgments,
    threshold or gain; refused when they are not the ones the head was scored with.
    ``power``: at which each metric's minimum detectable effect (``mde``) is stated.
    """
    _power(power)
    _number("resamples", resamples, "resamples")
    if seed is not None:
        _number("seed", seed, "seed")
    base_report = _report_of(base, "base")
    head_report = _report_of(head, "head")
    if base_report is None or head_report is None:
        raise UsageError("base and head: expected an Evaluation, a report or a report's path each, not None")
    index = None
    if judgments is not None:
        loaded = load_judgments(judgments)
        check_head_judgments(loaded.sha256, head_report, loaded.source)
        index = LabelIndex.from_judgments(loaded._labels)
        index.sha256 = loaded.sha256
    seed = DEFAULT_SEED if seed is None else seed
    document = compare_documents(base_report, head_report, index, resamples=resamples, seed=seed, power=power)
    return Comparison(document)


def plan(
    report: Evaluation | Report | PathLike,
    *,
    baseline: Evaluation | Report | PathLike | None = None,
    judgments: object = None,
    metrics: Iterable[str] = (),
    changes: Iterable[float] = (0.01, 0.02, 0.05),
    queries: Iterable[int] = (),
    power: float = 0.8,
    alpha: float = 0.05,
    method: str = "normal",
    correlation: float = 0.5,
) -> Plan:
    """From a pilot report, as ``retrieval-eval plan`` does: the queries needed to detect each
    change, and the change each set size detects, overall and per stratum (docs/compare.md).

    ``baseline``: a base report of the same queries, so the spread is that of the paired
    differences; without it, the report's own spread through the assumed ``correlation``.
    ``judgments`` (anything :func:`load_judgments` takes) give each stratum its own queries.
    ``method``: ``normal`` (as the gate's bootstrap behaves) or ``t``. ``Plan.as_dict()`` is
    the command's ``--json``.
    """
    _power(power)
    pilot = _report_of(report, "report")
    if pilot is None:
        raise UsageError("report: expected an Evaluation, a report or a report's path, not None")
    try:
        design = Design(power, _alpha(alpha), _method(method))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    request = _plan_request(metrics, changes, queries, design, correlation)
    strata = None
    if judgments is not None:
        loaded = load_judgments(judgments)
        # Strata read from other judgments would plan each stratum over another's queries.
        check_head_judgments(loaded.sha256, pilot, loaded.source, side="pilot")
        index = LabelIndex.from_judgments(loaded._labels)
        strata = {query_id: query.stratum for query_id, query in index.queries.items()}
    return make_plan(pilot, request, baseline=_report_of(baseline, "baseline"), strata=strata)


def _listed(argument: str, value: object, kinds: tuple[type, ...], words: str) -> tuple[object, ...]:
    """One value or a list (or tuple) of them, each of ``kinds`` (a bool is never a number)."""
    items = tuple(value) if isinstance(value, (list, tuple)) else (value,)
    for item in items:
        _of_type(argument, item, kinds, words)
    return items


def _alpha(alpha: object) -> float:
    """The test's level, in the range ``plan --alpha`` takes."""
    _of_type("alpha", alpha, (int, float), "a number")
    if not 0 < alpha <= 0.5:  # type: ignore[operator]  # a number, checked just above; NaN fails too
        raise UsageError(f"alpha: {alpha!r} is out of range: give a level above 0 and at most 0.5 (the gate's: 0.05)")
    return float(alpha)  # type: ignore[arg-type]


def _method(method: object) -> str:
    _of_type("method", method, (str,), '"normal" or "t"')
    return str(method)


def _plan_request(
    metrics: object, changes: object, queries: object, design: Design, correlation: object
) -> PlanRequest:
    """What ``plan()`` plans, read as ``retrieval-eval plan`` reads its options: a metric name,
    a change or a set size alone stands for a list of one."""
    names = _listed("metrics", metrics, (str,), "a metric name or a list of them")
    steps = _listed("changes", changes, (int, float), "a change or a list of them (e.g. [0.02, 0.05])")
    for change in steps:
        if not 0 < change <= 1:  # type: ignore[operator]  # numbers, checked above; NaN fails too
            raise UsageError(f"changes: {change!r} is out of range: give a change above 0 and at most 1")
    sizes = _listed("queries", queries, (int,), "a set size or a list of them (e.g. [200, 500])")
    for size in sizes:
        _number("queries", size, "queries")
    _number("correlation", correlation, "correlation")
    return PlanRequest(
        tuple(map(str, names)),
        tuple(float(c) for c in steps),  # type: ignore[arg-type]
        tuple(int(n) for n in sizes),  # type: ignore[call-overload]
        design,
        float(correlation),  # type: ignore[arg-type]
    )


class Drift(Frozen):
    """Which labels still point at the live corpus (docs/drift.md), as ``retrieval-eval drift --json``
    reports it."""

    __slots__ = ("check",)
    check: DriftCheck  # the typed result; the JSON below is written from it (formats/drift.py)

    def __init__(self, check: DriftCheck) -> None:
        self._set(check=check)

    def __repr__(self) -> str:
        labels = len(self.check.result.labels)
        return f"<Drift: {self.invalid_ratio:.1%} of {labels} labels no longer point at the corpus>"

    @property
    def summary(self) -> JsonObject:
        """Labels per status (valid, re_anchorable, merged, split, orphaned), invalid_ratio,
        recoverable and needs_human (a new dict each time)."""
        return drift_summary_json(self.check)

    @property
    def invalid_ratio(self) -> float:
        """Share of labels that are not VALID, repairable ones included."""
        return float(self.check.result.invalid_ratio)

    @property
    def labels(self) -> list[JsonObject]:
        """One entry per label: its line, query, key, status, the rule that decided, the target."""
        return drift_labels_json(self.check)

    def to_dict(self) -> JsonObject:
        """``retrieval-eval drift --json``'s payload (a new dict each time)."""
        return drift_to_json(self.check)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per label."""
        return import_pandas("Drift.to_pandas()").DataFrame(self.labels)


def drift(judgments: object, corpus: PathLike) -> Drift:
    """Check every label against a corpus snapshot (JSON, or JSONL with one chunk a line), as
    ``retrieval-eval drift`` does (without ``--fix``: nothing is written)."""
    corpus_path = _path_or_none("corpus", corpus)
    if corpus_path is None:
        raise UsageError("corpus: expected the path of a corpus snapshot, got None")
    loaded = load_judgments(judgments)
    snapshot = read_corpus(corpus_path)
    result = check_drift(loaded._labels, snapshot)
    return Drift(DriftCheck(result, snapshot, judgments_path=loaded.source, corpus_path=corpus_path))
