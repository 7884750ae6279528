"""What ``score --corpus`` adds: the drift summary, and chunk rankings scored as documents.

With a corpus, every label is checked for drift and the report carries the
counts (``judgments.drift``) and the corpus (``corpus``), plus a reason when
labels no longer point at it: a metric computed with stale labels is wrong,
and the reader should know by how much.

With ``--collapse-to-documents``, a run that ranks chunks is scored against
document-level labels: each chunk id is mapped to its document through the
corpus, the first occurrence of each document is kept in rank order, and
the cutoff applies to documents (collapse first, then cut at k). Per query
the report records how many chunks were received and how many folded into
a document already ranked. A chunk id the corpus does not know stays in
place as a key no label names: dropping it would lift every document below
it by one rank.

Without the flag, a run of chunk ids scored against document-level labels
can match nothing; that gets a reason in the report instead of a silent
row of zeros.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.errors import UsageError
from ..core.identity import is_chunk_id
from ..core.judgments import JudgmentSet
from ..core.labelindex import LabelIndex
from ..core.report_model import Collapse, CollapsedQuery, CorpusInfo
from ..core.runs import Run
from ..core.scoring import ScoreConfig, Scores, index_judgments, score_rankings, with_run_findings
from ..formats.corpus import read_corpus
from ..formats.objects import read_judgment_set
from ..formats.runs import parse_run
from .run_ranges import RunReading
from .score_run import score_run_file

if TYPE_CHECKING:  # the corpus reader and drift load only when a corpus is given (about 8 ms of start-up)
    from ..core.corpus import Corpus
    from ..core.drift import DriftResult


@dataclass(frozen=True)
class Collapsed:
    """One query's ranking after chunks were folded into their documents."""

    documents: list[str]
    received: int
    collapsed: int
    unmapped: int

    def entry(self) -> CollapsedQuery:
        """This query's row of the report's ``collapse`` section."""
        return CollapsedQuery(
            received=self.received, documents=len(self.documents), collapsed=self.collapsed, unmapped=self.unmapped
        )


def collapse_ranking(chunks: list[str], corpus: Corpus, *, received: int | None = None) -> Collapsed:
    """Map chunk ids to documents, keeping each document at its first rank."""
    documents: list[str] = []
    seen: set[str] = set()
    unmapped = 0
    for key in chunks:
        document = corpus.document_of(key)
        if document is None:
            unmapped += is_chunk_id(key)
            document = key
        if document not in seen:
            seen.add(document)
            documents.append(document)
    return Collapsed(documents, len(chunks) if received is None else received, len(chunks) - len(documents), unmapped)


@dataclass
class CorpusStage:
    """The corpus-dependent part of one score run; inert when no corpus was given."""

    corpus: Corpus | None = None
    drift: DriftResult | None = None
    collapse: bool = False
    collapsed: dict[str, Collapsed] = field(default_factory=dict)

    @classmethod
    def load(
        cls,
        corpus_path: str | None,
        judgments_path: str,
        *,
        collapse: bool = False,
        judgments: JudgmentSet | None = None,
    ) -> CorpusStage:
        if corpus_path is None:
            if collapse:
                raise UsageError(
                    "--collapse-to-documents needs --corpus, which maps chunks to documents",
                    hint="--corpus corpus.json --collapse-to-documents",
                )
            return cls()
        # Drift's rules are about 4 ms of start-up (the least of seven python -X importtime runs,
        # after the score command's own imports) that `score` without --corpus never needs.
        from ..core.drift import check_drift

        corpus = read_corpus(corpus_path)
        # Drift reads chunk_text, text_sha and quote, which the score path's label index does not keep.
        full = judgments if judgments is not None else read_judgment_set(judgments_path)  # any format score reads
        return cls(corpus, check_drift(full, corpus), collapse)

    def score_run(
        self,
        index: LabelIndex,
        run_path: str,
        config: ScoreConfig,
        *,
        run_format: str = "auto",
        reading: RunReading | None = None,
    ) -> tuple[Scores, Run]:
        if not self.collapse or self.corpus is None:
            return score_run_file(index, run_path, config, run_format=run_format, reading=reading)
        indexed = index_judgments(index, config)
        # Whole rankings: the cutoff counts documents, so it can only apply after the collapse.
        if reading is None:
            run = parse_run(run_path, judged=indexed, run_format=run_format)
        else:
            run = reading.run(depth_of=None, judged=indexed)
        for query_id, chunks in run.rankings.items():
            self.collapsed[query_id] = collapse_ranking(chunks, self.corpus, received=run.received.get(query_id))
        rankings = {query_id: c.documents for query_id, c in self.collapsed.items()}
        return with_run_findings(score_rankings(index, rankings, config, indexed=indexed), run), run

    def report_corpus(self) -> CorpusInfo:
        corpus = self.corpus
        if corpus is None:
            return CorpusInfo()
        return CorpusInfo(
            fingerprint=corpus.corpus_fingerprint,
            chunker_fingerprint=corpus.chunker_fingerprint,
            documents=len(corpus.documents),
            chunks=len(corpus.ids),
            sha256=corpus.sha256,
        )

    def report_collapse(self) -> Collapse | None:
        """The report's ``collapse`` section: what folding chunks into documents did, per query and in all."""
        if not self.collapse:
            return None
        per_query = {q: self.collapsed[q].entry() for q in sorted(self.collapsed)}
        return Collapse(
            to="documents",
            received=sum(self.collapsed[q].received for q in per_query),
            collapsed=sum(self.collapsed[q].collapsed for q in per_query),
            unmapped=sum(self.collapsed[q].unmapped for q in per_query),
            per_query=per_query,
        )

    def notes(self, index: LabelIndex, scores: Scores) -> list[str]:
        return [note for note in (self._drift_note(), self._collapse_note()) if note]

    def mismatch(self, index: LabelIndex, scores: Scores, run: Run) -> list[str]:
        """Why no ranked key could match a label, when the run and the labels name different things.

        Every metric is then 0 whatever the retriever did: a verdict on it would be a guess.
        """
        if not nothing_matched(index, scores.rankings):
            return []
        if not run.rankings and run.unjudged:
            # Not one query of the run is judged: every judged query scored 0 for a naming
            # mismatch (q1 against 1, another set's queries), not for what the retriever found.
            return [
                f"no query of the run is a query the judgments name (the run's {_first(run.unjudged)}; "
                f"the judgments' {_first(sorted(index.queries))}), so every judged query scored 0; make the "
                "run name queries by the judgments' query_id values"
            ]
        if not self.collapse and chunk_run_against_documents(index, scores.rankings):
            return [
                "the run returns chunk ids but every label is document-level, so no key can match; "
                "score with --corpus CORPUS --collapse-to-documents"
            ]
        if index.opaque_keys and index.chunk_ids:
            return [
                "no key of the run is a key the labels name, at any rank of any query: the run and the "
                "labels name chunks differently; make the retriever return the chunk ids the labels use "
                "(or re-anchor the labels to the run's corpus with 'retrieval-eval drift --fix')"
            ]
        if document_run_against_chunks(index, scores.rankings):
            return [
                "no key of the run is a chunk id, but the labels name chunks (chunk_id), so no key can match; "
                "make the retriever return the chunk ids of the corpus snapshot, or, for a run of document "
                "ids, label documents (doc_uri without chunk_id)"
            ]
        # Collapsed rankings name the corpus's documents, and keep as it was each chunk it lacks.
        corpus = self.corpus if self.collapse or index.chunk_ids else None
        if corpus is not None and not ranks_the_corpus(corpus, scores.rankings, documents=self.collapse):
            # A run made before a re-chunk, scored with the re-chunked corpus and its repaired labels:
            # every key is a miss, yet nothing was measured of a retriever on this corpus.
            return [
                "no key of the run is a chunk of the corpus (--corpus), at any rank of any query: the run "
                "ranks another chunking of the documents (made before a re-chunk?); run the retriever on "
                "this corpus"
            ]
        return []

    def _drift_note(self) -> str | None:
        drift = self.drift
        if drift is None or drift.invalid_ratio == 0:
            return None
        total = len(drift.findings)
        invalid = total - drift.counts()["VALID"]
        return (
            f"{invalid} of {total} labels ({drift.invalid_ratio:.1%}) no longer point at the corpus: "
            f"{drift.recoverable} recoverable with 'retrieval-eval drift --fix', {drift.needs_human} need a "
            "human; metrics computed with them are off"
        )

    def _collapse_note(self) -> str | None:
        if not self.collapse:
            return None
        collapsed = self.report_collapse()
        if collapsed is None:
            return None
        note = (
            f"chunk rankings were collapsed to documents through the corpus: {collapsed.received} chunks "
            f"received, {collapsed.collapsed} folded into a document ranked above them"
        )
        if collapsed.unmapped:
            unmapped = collapsed.unmapped
            note += (
                f"; {unmapped} chunk id{' is' if unmapped == 1 else 's are'} not in the corpus and "
                f"{'was' if unmapped == 1 else 'were'} kept as unmatched keys"
            )
        return note


def _first(names: Sequence[str], shown: int = 3) -> str:
    """A few names, quoted, and how many more: enough to see how a file names things."""
    quoted = ", ".join(repr(name) for name in names[:shown])
    return quoted + (f" and {len(names) - shown} more" if len(names) > shown else "")


def nothing_matched(index: LabelIndex, rankings: Mapping[str, list[str]]) -> bool:
    """Whether no ranked key of any query is a key its labels name (at any grade)."""
    for query_id, keys in rankings.items():
        query = index.queries.get(query_id)
        if query is not None and any(key in query.grades for key in keys):
            return False
    return True


def ranks_the_corpus(corpus: Corpus, rankings: Mapping[str, list[str]], *, documents: bool = False) -> bool:
    """Whether some ranked key is a chunk of ``corpus`` (an empty run ranks nothing outside it);
    with ``documents``, a document of it (rankings collapsed to documents)."""
    position: Collection[str] = corpus.documents if documents else corpus.position
    keys = (key for ranking in rankings.values() for key in ranking)
    first = next(keys, None)
    return first is None or first in position or any(key in position for key in keys)


def document_run_against_chunks(index: LabelIndex, rankings: Mapping[str, list[str]]) -> bool:
    """Whether the labels name chunks while no key the run returned is a chunk id."""
    if not index.chunk_ids:
        return False
    keys = [key for ranking in rankings.values() for key in ranking]
    return bool(keys) and not any(is_chunk_id(key) for key in keys)


def chunk_run_against_documents(index: LabelIndex, rankings: Mapping[str, list[str]]) -> bool:
    """Whether every key the run returned is a chunk id while no label names a chunk."""
    if index.chunk_ids:
        return False
    keys = [key for ranking in rankings.values() for key in ranking]
    return bool(keys) and all(is_chunk_id(key) for key in keys)
