"""The top of a score vector, in an order that is the same on every machine.

Scores are rounded to a fixed number of decimals before they are compared,
so that a last-bit difference (another libm's logarithm, say) cannot swap two
keys; equal rounded scores are ordered by key. The collection is held in key
order, so a smaller index is the smaller key and ties are broken by index.
Keys that score 0 match no query term and are never returned.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def top_indices(scores: npt.NDArray[np.floating], depth: int, decimals: int) -> list[int]:
    """Indices of the ``depth`` best positive scores: rounded score descending, then index ascending."""
    size = scores.shape[0]
    if depth < size:
        # A score more than one unit of the last decimal below the depth-th best
        # rounds strictly below it, so it can never enter the head.
        floor = max(float(np.partition(scores, size - depth)[size - depth]) - 10.0**-decimals, 0.0)
        candidates = np.flatnonzero(scores >= floor)
    else:
        candidates = np.arange(size)
    candidates = candidates[scores[candidates] > 0]
    rounded = np.round(scores[candidates].astype(np.float64), decimals)
    order = np.lexsort((candidates, -rounded))[:depth]
    chosen: list[int] = candidates[order].tolist()
    return chosen
