"""The comparison a rendering draws, as records, in either form a caller holds it in.

A caller hands over the records (``core.comparison_document``) or the ``Deltas`` gates
read (its document is drawn). The JSON ``compare`` writes is read into records at the
boundary (``formats.comparison``), never here.
"""

from __future__ import annotations

from ..core.comparison import Deltas
from ..core.comparison_document import ComparisonDocument

# What the renderers accept as a comparison.
Compared = ComparisonDocument | Deltas | None


def as_document(comparison: Compared) -> ComparisonDocument | None:
    """The comparison's records, or None when there is no comparison."""
    if isinstance(comparison, Deltas):
        return comparison.document
    return comparison
