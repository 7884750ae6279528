"""One run of ``drift`` as a record: what was checked, what drift found, what the repair did.

``drift --json`` writes it (:func:`retrieval_eval.formats.drift.drift_to_json`) and the terminal
text is drawn from it (:mod:`retrieval_eval.render.drift`): both read the one record, so the two
can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

from .corpus import Corpus
from .drift import DriftResult
from .drift_fix import FixPlan


@dataclass(frozen=True)
class FixRun:
    """``--fix``: the repair, whether it was a dry run, and the file written (None: nothing to fix)."""

    plan: FixPlan
    dry_run: bool = False
    written: str | None = None


@dataclass(frozen=True)
class QueueWritten:
    """``--queue``: the file the re-judge lines went to, and how many there are."""

    path: str
    lines: int


@dataclass(frozen=True)
class DriftCheck:
    result: DriftResult
    corpus: Corpus
    judgments_path: str
    corpus_path: str
    max_invalid_ratio: float = 0.0
    fix: FixRun | None = None
    queue: QueueWritten | None = None

    @property
    def invalid_ratio(self) -> float:
        """After the repair when there is one, else as found."""
        return self.fix.plan.invalid_ratio_after if self.fix is not None else self.result.invalid_ratio

    @property
    def ok(self) -> bool:
        return self.invalid_ratio <= self.max_invalid_ratio
