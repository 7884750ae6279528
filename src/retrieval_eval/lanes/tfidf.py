"""TF-IDF cosine on our tokens, with scipy.sparse.

For a key ``d`` of the collection and a term ``t``:

    w(t, d) = tf(t, d) * idf(t)            raw counts (no sublinear tf)
    idf(t)  = ln((1 + N) / (1 + df(t))) + 1

``N`` is the number of keys and ``df(t)`` the number of keys holding ``t``.
Each key's vector is divided by its Euclidean (l2) norm. A query is weighted
the same way over the collection's terms (a query term the collection lacks
has no coordinate, and so no weight) and l2-normalised, and the score is the
dot product of the two unit vectors: the cosine, in [0, 1]. Computed in float64.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from ..core.floor_sidecar import TfidfDescription

# Cosines are in [0, 1] and computed in float64: six decimals are far from the noise.
SCORE_DECIMALS = 6


def describe() -> TfidfDescription:
    return TfidfDescription(
        tf="raw count",
        idf="ln((1 + N) / (1 + df)) + 1",
        norm="l2",
        score="cosine",
        score_decimals=SCORE_DECIMALS,
    )


class TfidfLane:
    """Unit-length TF-IDF vectors of the collection, held by term for fast queries."""

    decimals = SCORE_DECIMALS

    def __init__(self, documents: list[list[int]], vocabulary_size: int) -> None:
        lengths = np.fromiter(map(len, documents), dtype=np.int64, count=len(documents))
        terms = np.fromiter(itertools.chain.from_iterable(documents), dtype=np.int32, count=int(lengths.sum()))
        rows = np.repeat(np.arange(len(documents), dtype=np.int32), lengths)
        shape = (len(documents), vocabulary_size)
        # Duplicate (key, term) pairs add up: the matrix holds raw counts.
        counts = sp.csr_matrix((np.ones(terms.shape[0]), (rows, terms)), shape=shape)
        counts.sum_duplicates()
        df = np.bincount(counts.indices, minlength=vocabulary_size)
        self.idf = np.log((1.0 + len(documents)) / (1.0 + df)) + 1.0
        weights = counts.multiply(self.idf[np.newaxis, :]).tocsr()
        norms = np.sqrt(np.asarray(weights.multiply(weights).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0  # a key without terms keeps its zero vector
        unit = sp.diags(1.0 / norms) @ weights
        self.by_term = sp.csc_matrix(unit)
        self.size = len(documents)

    def query_vector(self, query: list[int]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
        """The query's terms (ascending) and their unit-length weights."""
        counts = sorted(Counter(query).items())
        terms = np.array([term for term, _ in counts], dtype=np.int64)
        weights = np.array([count for _, count in counts], dtype=np.float64) * self.idf[terms]
        return terms, weights / np.sqrt(np.dot(weights, weights))

    def scores(self, query: list[int]) -> npt.NDArray[np.float64]:
        terms, weights = self.query_vector(query)
        # The query's columns times its weights: scipy adds each key's products in ascending
        # term order, one after the other, so the sums are the same on every machine.
        result: npt.NDArray[np.float64] = self.by_term[:, terms] @ weights
        return result
