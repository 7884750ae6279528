"""BM25 through bm25s, on our tokens.

bm25s's ``lucene`` variant (Kamphuis et al., ECIR 2020), for a query ``q``
(its terms with repeats) and a key ``d`` of the collection:

    score(q, d) = sum over terms t of q (repeats count) of  idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))
    idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))

``tf`` is the count of ``t`` in ``d``, ``|d|`` the number of terms of ``d``,
``avgdl`` their mean over the collection, ``N`` the number of keys and
``df(t)`` the number of keys holding ``t``. bm25s computes the weights once,
in float32, into a sparse term-by-key matrix; a query adds up its terms' columns.
We hand bm25s term ids from our tokenizer, so tokenization is ours.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import bm25s
import numpy as np
import numpy.typing as npt

from ..core.floor_sidecar import BM25Description

VARIANT = "lucene"
# float32 scores carry about seven significant digits; four decimals stay clear of the noise.
SCORE_DECIMALS = 4


@dataclass(frozen=True)
class BM25Params:
    k1: float = 1.5
    b: float = 0.75

    def describe(self) -> BM25Description:
        return BM25Description(variant=VARIANT, k1=self.k1, b=self.b, score_decimals=SCORE_DECIMALS)


class BM25Lane:
    """A bm25s index over term-id lists; :meth:`scores` gives every key's score for a query."""

    decimals = SCORE_DECIMALS

    def __init__(self, documents: list[list[int]], vocabulary: dict[str, int], params: BM25Params) -> None:
        self.model = bm25s.BM25(k1=params.k1, b=params.b, method=VARIANT)
        # No empty token: every query reaching us has at least one known term.
        with _no_progress_monitor():
            self.model.index((documents, vocabulary), create_empty_token=False, show_progress=False)

    def scores(self, query: list[int]) -> npt.NDArray[np.float32]:
        result: npt.NDArray[np.float32] = self.model.get_scores_from_ids(query)
        return result


@contextmanager
def _no_progress_monitor() -> Iterator[None]:
    """bm25s makes hidden tqdm progress bars when tqdm is installed, and tqdm's first bar starts
    a monitor thread that lives as long as the process. A live thread stops the pipeline from
    forking workers (pipeline/forking.py), so the monitor is kept off while the index is built."""
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]  # bm25s's optional dependency
    except ImportError:  # bm25s then makes no bar at all
        yield
        return
    interval = tqdm.monitor_interval
    tqdm.monitor_interval = 0
    try:
        yield
    finally:
        tqdm.monitor_interval = interval
