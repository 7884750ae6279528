"""What an evaluation and a comparison give back: the library's result objects.

:class:`Evaluation` is what :func:`.evaluate.run_pipeline` returns, so the CLI, the action and the
Python API report from one object. :class:`Comparison` is a read-only view of a comparison
document (what ``retrieval-eval compare`` writes).

Everything a caller reads is a copy or an immutable value. Each object holds typed records
(``typed_report``, ``typed_document``); ``to_dict()`` is the report (or the comparison document)
as JSON holds it, a new dict each time, written from them by the formats layer, the one writer
the CLI uses too. ``to_pandas()`` gives its frames, ``iter_records()`` ir_measures-style
(query_id, measure, value) records. Names are always ours (``ndcg@10``);
a lookup by name also takes ir_measures' and trec_eval's spellings.

Plain classes with ``__slots__`` rather than dataclasses: they were written when
``import retrieval_eval`` loaded this module and had to stay cheap; the package root now loads
the API on first use instead. pandas, an optional extra, is imported where a frame is asked for.
"""

from __future__ import annotations

import warnings

from ..core.aliases import canonical_metric
from ..core.comparison_document import ComparisonDocument
from ..formats.comparison import comparison_from_json, comparison_to_json
from ..formats.report import report_to_json

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (about 6 ms)
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from typing import Any

    import pandas

    from ..core.comparison import Deltas
    from ..core.comparison_document import MetricRow
    from ..core.gates import Verdict
    from ..core.report_model import Report
    from ..core.scoring import Scores
    from ..core.validate import Validation
    from ..formats.queue import QueueLine
    from ..formats.typedjson import JsonObject


class Record(tuple):  # type: ignore[type-arg]  # (str, str, float); a namedtuple would import collections (1 ms)
    """One per-query value, as ir_measures' iter_calc yields it: (query_id, measure, value)."""

    __slots__ = ()
    _fields = ("query_id", "measure", "value")

    def __new__(cls, query_id: str, measure: str, value: float) -> Record:
        return tuple.__new__(cls, (query_id, measure, value))

    @property
    def query_id(self) -> str:
        return str(self[0])

    @property
    def measure(self) -> str:
        return str(self[1])

    @property
    def value(self) -> float:
        return float(self[2])

    def __repr__(self) -> str:
        return f"Record(query_id={self[0]!r}, measure={self[1]!r}, value={self[2]!r})"


PANDAS_HINT = "pip install pandas"


class Frozen:
    """Attributes set once, in ``__init__``, and never again."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; '{name}' cannot be set")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; '{name}' cannot be deleted")

    def _set(self, **values: object) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)


def import_pandas(method: str) -> Any:
    try:
        import pandas  # optional, no dependency of the package: to_pandas() alone needs it
    except ImportError:
        raise ModuleNotFoundError(f"{method} needs pandas, which is not installed: {PANDAS_HINT}") from None
    return pandas


def resolve(name: str) -> str:
    """Our name for a metric named in any accepted spelling (see core/aliases.py)."""
    return canonical_metric(name)


class Evaluation(Frozen):
    """Everything one evaluation found; ``typed_report`` is assembled from the rest, once.

    The attributes set in ``__init__`` are the pipeline's own (the CLI and the action read
    them); the methods and properties below are the stable, documented surface. ``report`` is
    the report as JSON holds it (a new dict each time), ``typed_report`` the same as typed values.
    """

    __slots__ = ("typed_report", "scores", "validation", "verdict", "comparison", "corpus_changes", "queue", "queued")
    typed_report: Report
    scores: Scores
    validation: Validation
    verdict: Verdict
    comparison: Deltas | None
    corpus_changes: tuple[str, ...]
    queue: tuple[QueueLine, ...]  # the label queue, when the request asked for it
    queued: int  # the label queue's length, counted when asked for even if not built

    def __init__(
        self,
        report: Report,
        scores: Scores,
        validation: Validation,
        verdict: Verdict,
        comparison: Deltas | None,
        corpus_changes: tuple[str, ...] = (),
        queue: tuple[QueueLine, ...] = (),
        *,
        queued: int | None = None,
    ) -> None:
        self._set(
            typed_report=report,
            scores=scores,
            validation=validation,
            verdict=verdict,
            comparison=comparison,
            corpus_changes=corpus_changes,
            queue=queue,
            queued=len(queue) if queued is None else queued,
        )

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value:.4f}" for name, value in list(self.metrics.items())[:3])
        return f"<Evaluation {self.status}: {len(self.typed_report.per_query or {})} queries scored, {shown}>"

    @property
    def report(self) -> JsonObject:
        """The report as ``retrieval-eval score --json`` prints it (a new dict each time), written
        from ``typed_report`` by the report's writer (formats/report.py)."""
        return report_to_json(self.typed_report)

    @property
    def status(self) -> str:
        """The verdict: ``PASS``, ``FAIL`` or ``INDETERMINATE``."""
        return str(self.verdict.status)

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why the verdict is what it is: failed gates, blocking findings, notes."""
        return tuple(self.verdict.reasons)

    @property
    def metrics(self) -> dict[str, float]:
        """Each metric's mean over the scored queries (a new dict each time)."""
        metrics = self.typed_report.metrics or {}
        return {name: float(m.value) for name, m in metrics.items() if m.value is not None}

    @property
    def per_query(self) -> dict[str, dict[str, float]]:
        """Each scored query's values, by query id (a new dict each time)."""
        return {query: dict(values) for query, values in (self.typed_report.per_query or {}).items()}

    @property
    def strata(self) -> dict[str, dict[str, float]]:
        """Each scored stratum's means, worst first on the primary metric."""
        strata = self.typed_report.per_stratum or {}
        return {
            name: {metric: m.value for metric, m in entry.metrics.items() if m.value is not None}
            for name, entry in strata.items()
            if entry.metrics is not None
        }

    @property
    def primary(self) -> str:
        """The metric one-number summaries use: recall at the first cutoff."""
        return self.typed_report.primary_metric()

    @property
    def baseline_comparison(self) -> Comparison | None:
        """The comparison with the baseline given to evaluate(), or None without one."""
        if self.comparison is None or self.comparison.document is None:
            return None
        return Comparison(self.comparison.document)

    def value(self, metric: str) -> float:
        """The mean of one metric, named ours (``ndcg@10``) or the field's way (``nDCG@10``)."""
        return self.metrics[resolve(metric)]

    def worst_queries(self, metric: str | None = None, n: int = 10) -> list[tuple[str, float]]:
        """The ``n`` scored queries lowest on ``metric`` (the primary one by default), lowest
        first, ties by query id."""
        name = resolve(metric) if metric else self.primary
        rows = [(values[name], query) for query, values in self.per_query.items()]
        return [(query, value) for value, query in sorted(rows)[:n]]

    def iter_records(self) -> Iterator[Record]:
        """(query_id, measure, value) for every scored query and metric, as ir_measures'
        iter_calc yields them; measures by our names."""
        for query, values in (self.typed_report.per_query or {}).items():
            for measure, value in values.items():
                yield Record(query, measure, value)

    def to_dict(self) -> JsonObject:
        """The report, as ``retrieval-eval score --json`` prints it (a copy; see :attr:`report`)."""
        return self.report

    def to_pandas(self) -> tuple[pandas.DataFrame, pandas.DataFrame]:
        """(per_query, aggregate): per-query values (index ``query_id``, a column per metric)
        and means (index ``metric``, a column ``all`` and one per scored stratum)."""
        pd = import_pandas("Evaluation.to_pandas()")
        per_query = pd.DataFrame.from_dict(self.per_query, orient="index")
        per_query.index.name = "query_id"
        columns: dict[str, Mapping[str, float]] = {"all": self.metrics, **self.strata}
        aggregate = pd.DataFrame(columns, index=list(self.metrics))
        aggregate.index.name = "metric"
        return per_query, aggregate


class MetricChange(Frozen):
    """One metric across a comparison: base, head, delta and the paired bootstrap's verdict.

    ``ci`` is the 95% interval of the delta; ``confounded`` says why the delta means nothing
    when the two sides were measured with different yardsticks.
    """

    __slots__ = ("metric", "base", "head", "delta", "ci", "p_value", "significant", "confounded", "n")
    metric: str
    base: float | None
    head: float | None
    delta: float | None
    ci: tuple[float, float] | None
    p_value: float | None
    significant: bool | None
    confounded: str | None
    n: int | None

    def __init__(self, metric: str, row: MetricRow) -> None:
        ci = row.ci
        self._set(
            metric=metric,
            base=row.base,
            head=row.head,
            delta=row.delta,
            ci=(float(ci[0]), float(ci[1])) if ci else None,
            p_value=row.p_value,
            significant=row.significant,
            confounded=row.confounded,
            n=row.n,
        )

    def __repr__(self) -> str:
        ci = f" [{self.ci[0]:+.4f}, {self.ci[1]:+.4f}]" if self.ci else ""
        delta = "n/a" if self.delta is None else f"{self.delta:+.4f}"
        return f"<MetricChange {self.metric}: {delta}{ci}>"


class Comparison(Frozen):
    """A head against a base: each metric's delta with a 95% interval, and whether the two
    were measured alike. A read-only view of the comparison document (its typed records,
    ``typed_document``; ``to_dict()`` is its JSON)."""

    __slots__ = ("typed_document",)
    typed_document: ComparisonDocument

    def __init__(self, document: ComparisonDocument) -> None:
        if not isinstance(document, ComparisonDocument):
            # A comparison's JSON object was taken until this release; read as a file's would be.
            warnings.warn(
                "Comparison() of a comparison's JSON object is deprecated and will be refused in a later "
                "release: give it the typed document, Comparison.typed_document (what retrieval_eval.compare() builds)",
                DeprecationWarning,
                stacklevel=2,
            )
            document = comparison_from_json(document)
        self._set(typed_document=document)

    def __repr__(self) -> str:
        return f"<Comparison of {len(self.typed_document.metrics)} metrics, comparable={self.comparable}>"

    @property
    def comparable(self) -> bool:
        """False when a change of yardstick confounds every delta (see ``to_dict()['comparability']``)."""
        return bool(self.typed_document.comparable)

    @property
    def primary(self) -> str:
        return str(self.typed_document.primary)

    @property
    def metrics(self) -> dict[str, MetricChange]:
        return {name: MetricChange(name, row) for name, row in self.typed_document.metrics.items()}

    def metric(self, name: str) -> MetricChange:
        """One metric's change, named ours or the field's way."""
        resolved = resolve(name)
        return MetricChange(resolved, self.typed_document.metrics[resolved])

    def to_dict(self) -> JsonObject:
        """The comparison document, as ``retrieval-eval compare --json`` prints it (a new dict
        each time, written from ``typed_document`` by the comparison's writer, formats/comparison.py)."""
        return comparison_to_json(self.typed_document)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per metric: base, head, delta, ci_low, ci_high, p_value, significant, confounded."""
        pd = import_pandas("Comparison.to_pandas()")
        rows = {
            name: {
                "base": c.base,
                "head": c.head,
                "delta": c.delta,
                "ci_low": c.ci[0] if c.ci else None,
                "ci_high": c.ci[1] if c.ci else None,
                "p_value": c.p_value,
                "significant": c.significant,
                "confounded": c.confounded,
            }
            for name, c in self.metrics.items()
        }
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "metric"
        return frame
