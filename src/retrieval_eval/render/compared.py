"""The comparison a rendering draws, as records, whatever form the caller gave it in.

A caller may hand over the records (``core.comparison_document``), the ``Deltas`` gates
read (its document is drawn), or the JSON object ``compare`` writes (read here, leniently:
a value of another type than its field's reads as missing, as in a report).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.comparison import Deltas
from ..core.comparison_document import ComparisonDocument
from ..formats.comparison import comparison_from_json

# What the renderers accept as a comparison.
Compared = ComparisonDocument | Deltas | Mapping[str, object] | None


def as_document(comparison: Compared) -> ComparisonDocument | None:
    """The comparison's records, or None when there is no comparison."""
    if isinstance(comparison, Deltas):
        return comparison.document
    if isinstance(comparison, Mapping):
        return comparison_from_json(comparison)
    return comparison
