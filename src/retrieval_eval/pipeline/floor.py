"""The floor and the eval-set sensitivity check of one evaluation.

- **Floor** (setting ``floor``): a run file scored against the same judgments (its
  ``<run>.meta.json`` sidecar, when it describes that very file, says how it was made),
  or ``bm25``: the BM25 floor computed here, over the corpus, through the same code as
  ``retrieval-eval floor-run --method bm25`` with its defaults. The report's ``floor``
  section holds each metric's margin over it (core/floor.py).
- **Sensitivity** (with a corpus): the ``easy-set`` check runs the BM25 floor and the
  ``answer-in-query`` check reads the chunk texts (core/sensitivity.py); their warnings
  go in the report's ``sensitivity`` section.

BM25 needs the ``lanes`` extra. Without it the floor is reported unavailable (a gate on
it is INDETERMINATE, with the install line) and the easy-set check is skipped with the
same notice; nothing fails for it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..core.errors import UsageError
from ..core.floor import floor_section, unavailable_floor
from ..core.labelindex import LabelIndex
from ..core.report_model import (
    Floor,
    HitRate,
    Sensitivity,
    SensitivityFloor,
    SensitivityThresholds,
    SensitivityWarning,
)
from ..core.scoring import ScoreConfig, Scores, score_rankings
from ..core.sensitivity import Thresholds, answer_in_query_issues, easy_set_issues
from ..core.validate import Issue, ordered
from ..formats.corpus import read_corpus
from ..formats.floor_sidecar import provenance_of, read_provenance
from ..formats.runout import run_line
from ..lanes import require_lanes
from .floor_run import FloorRunRequest, describe_floor, query_texts, rank_queries

if TYPE_CHECKING:
    from ..core.corpus import Corpus
    from ..core.significance import BlockMap
    from .corpus_stage import CorpusStage
    from .request import EvaluationRequest

BM25 = "bm25"
LANES_NOTICE = "install retrieval-eval[lanes] for the floor: pip install 'retrieval-eval[lanes]'"


def lanes_missing() -> str | None:
    """Why the BM25 lanes cannot run here, or None when they can."""
    try:
        require_lanes()
    except UsageError:
        return LANES_NOTICE
    return None


@dataclass(frozen=True)
class FloorRun:
    scores: Scores
    about: Floor  # source, run_sha256 and, when known, method, parameters, tokenizer

    @property
    def run_sha256(self) -> str:
        return self.about.run_sha256 or ""


def bm25_floor(index: LabelIndex, corpus: Corpus, corpus_path: str, config: ScoreConfig) -> FloorRun:
    """BM25 with ``floor-run``'s defaults over chunks (documents when no label names a chunk)."""
    granularity = "chunk" if index.chunk_ids else "document"
    request = FloorRunRequest(BM25, corpus_path, "", "", granularity=granularity)
    ranked = rank_queries(request, query_texts(index), corpus)
    digest = hashlib.sha256()
    for query_id, ranking in ranked.rankings:  # the bytes `floor-run` would write
        digest.update(run_line(query_id, ranking).encode("utf-8"))
    scores = score_rankings(index, dict(ranked.rankings), config)
    described = provenance_of(describe_floor(request, ranked))
    about = Floor(
        source=BM25,
        run_sha256=digest.hexdigest(),
        method=described.method,
        parameters=described.parameters,
        tokenizer=described.tokenizer,
    )
    return FloorRun(scores, about)


def file_floor(path: str, index: LabelIndex, stage: CorpusStage, config: ScoreConfig) -> FloorRun:
    """A floor run file, scored as the run is (collapsed to documents when the run is)."""
    scores, run = stage.score_run(index, path, config)
    provenance = read_provenance(path, run.sha256)
    about = Floor(
        source="run",
        run_sha256=run.sha256,
        method=provenance.method,
        parameters=provenance.parameters,
        tokenizer=provenance.tokenizer,
    )
    return FloorRun(scores, about)


def strata_members(index: LabelIndex, scores: Scores) -> dict[str, list[str]]:
    """Each stratum's scored queries."""
    members: dict[str, list[str]] = {}
    for query_id in scores.per_query:
        stratum = index.queries[query_id].stratum
        if stratum is not None:
            members.setdefault(stratum, []).append(query_id)
    return members


@dataclass
class Lexical:
    """What the floor and the sensitivity check add to a report."""

    floor: Floor | None = None
    floor_sha256: str | None = None
    sensitivity: Sensitivity | None = None
    notes: list[str] = field(default_factory=list)


def lexical_checks(
    request: EvaluationRequest,
    index: LabelIndex,
    stage: CorpusStage,
    scores: Scores,
    *,
    map_blocks: BlockMap = map,
) -> Lexical:
    """The floor (``request.floor``) and the eval-set checks (``request.sensitivity``, with a corpus),
    scored as the run was (``request.scoring`` is ``request.scoring``)."""
    corpus = stage.corpus
    if request.floor == BM25 and corpus is None:
        raise UsageError("the bm25 floor is computed over a corpus; give one", hint="--corpus corpus.json --floor bm25")
    wants_bm25 = request.floor == BM25 or (corpus is not None and request.sensitivity.easy_set is not None)
    missing = lanes_missing() if wants_bm25 else None
    bm25 = (
        bm25_floor(index, corpus, request.corpus_path or "", request.scoring)
        if wants_bm25 and missing is None and corpus is not None
        else None
    )
    result = Lexical()
    floor = bm25 if request.floor == BM25 else None
    if request.floor and request.floor != BM25:
        floor = file_floor(request.floor, index, stage, request.scoring)
    if floor is not None:
        members = strata_members(index, scores)
        result.floor = floor_section(scores, floor.scores, members, about=floor.about, map_blocks=map_blocks)
        result.floor_sha256 = floor.run_sha256
    elif request.floor == BM25 and missing is not None:
        result.floor = unavailable_floor(BM25, f"the bm25 floor was not computed: {missing}")
        result.notes.append(f"the bm25 floor was not computed: {missing}")
    if corpus is not None:
        result.sensitivity = sensitivity_section(index, corpus, request.scoring, request.sensitivity, bm25, missing)
    return result


def sensitivity_section(
    index: LabelIndex,
    corpus: Corpus,
    config: ScoreConfig,
    thresholds: Thresholds,
    bm25: FloorRun | None,
    missing: str | None,
) -> Sensitivity:
    """The report's ``sensitivity`` section: thresholds, the floor's hit rate, the warnings."""
    # The easy-set check reads the hit rate at the first cutoff; -k all alone names none.
    metric = f"hit_rate@{config.k[0]}" if config.k else None
    section = Sensitivity(
        metric=metric,
        thresholds=SensitivityThresholds(easy_set=thresholds.easy_set, answer_in_query=thresholds.answer_span),
    )
    issues: list[Issue] = []
    if thresholds.easy_set is not None:
        if metric is None:
            skipped = "the easy-set check was skipped: it reads hit_rate at a cutoff, and -k all names none"
            section = replace(section, skipped=skipped)
        elif bm25 is None:
            section = replace(section, skipped=f"the easy-set check was skipped: {missing}")
        else:
            section = replace(section, floor=_sensitivity_floor(bm25.about), hit_rate=_hit_rate(bm25.scores, metric))
            issues += easy_set_issues(bm25.scores, metric, thresholds.easy_set)
    if thresholds.answer_span is not None:
        issues += answer_in_query_issues(
            query_texts_of(index), relevant_keys(index, config.threshold), key_text(corpus), thresholds.answer_span
        )
    return replace(section, warnings=tuple(_warning(issue) for issue in ordered(issues)))


def _sensitivity_floor(about: Floor) -> SensitivityFloor:
    return SensitivityFloor(
        source=about.source, method=about.method, parameters=about.parameters, run_sha256=about.run_sha256
    )


def _hit_rate(floor: Scores, metric: str) -> HitRate:
    return HitRate(
        overall=floor.metrics.get(metric),
        per_stratum={name: s.metrics[metric] for name, s in floor.strata.items() if s.n},
    )


def _warning(issue: Issue) -> SensitivityWarning:
    return SensitivityWarning(code=issue.code, severity=issue.severity, subject=issue.subject, message=issue.message)


def query_texts_of(index: LabelIndex) -> dict[str, str]:
    return query_texts(index).texts


def relevant_keys(index: LabelIndex, threshold: int) -> dict[str, list[str]]:
    return {
        query_id: [key for key, grade in query.grades.items() if grade >= threshold]
        for query_id, query in index.queries.items()
    }


def key_text(corpus: Corpus) -> Callable[[str], str | None]:
    """A key's text: its chunk's, or its document's chunks in reading order, one per line."""

    def text_of(key: str) -> str | None:
        position = corpus.position.get(key)
        if position is not None:
            return corpus.texts[position]
        parts = [corpus.texts[i] for i in corpus.chunks_of(key)]
        return "\n".join(part for part in parts if part) or None

    return text_of


def check_eval_set(index: LabelIndex, corpus_path: str, config: ScoreConfig, thresholds: Thresholds) -> Sensitivity:
    """The sensitivity section for a judgment set and a corpus, without a run (``validate --corpus``)."""
    corpus = read_corpus(corpus_path)
    missing = lanes_missing() if thresholds.easy_set is not None else None
    bm25 = bm25_floor(index, corpus, corpus_path, config) if thresholds.easy_set is not None and not missing else None
    return sensitivity_section(index, corpus, config, thresholds, bm25, missing)
