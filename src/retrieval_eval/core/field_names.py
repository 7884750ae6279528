"""The field names a judgments line may carry, and the unknown ones that look like a slip of one.

The format keeps unknown fields and never refuses them (spec/README.md): a team may add its
own. So a misspelled field is not an error of the file, but it is read as nothing: a label
with ``"chunk_Id"`` names its document, one with ``"stratm"`` no stratum, and the numbers move
without a word. An unknown name one slip away from a known one (another case, ``-`` for ``_``,
one letter wrong, missing or extra, two swapped; two slips for the longer names) is told instead
(core/validate.py says how loudly).
"""

from __future__ import annotations

from .judgments import SCHEMA_ORDER

# spec/judgments.schema.json's properties, the extensions spec/ documents (quote anchors, the
# trails drift --fix and the re-judge queue write, TREC's iteration column), and what the
# label queue writes beside a line for the labeler (rank, surfaced_by, move, judge_status).
KNOWN_FIELDS = frozenset(
    (
        *SCHEMA_ORDER,
        "quote",
        "reanchored",
        "collapsed_from",
        "rejudge",
        "qrels_iteration",
        "rank",
        "surfaced_by",
        "move",
        "judge_status",
    )
)
# What scoring reads to decide which key a label grades and which stratum its query is in:
# misspelled, they change the numbers, so the set is unsound until the name is fixed.
SCORED_FIELDS = frozenset(("chunk_id", "stratum"))

_LONGEST = 40  # past this an unknown name is no slip of a known one (and is not compared, at any cost)


def _plain(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "").replace(" ", "")


_BY_PLAIN = {_plain(name): name for name in KNOWN_FIELDS}


def misspelling_of(name: str) -> str | None:
    """The known field ``name`` is likely a slip of, or None (a known name is no slip)."""
    if name in KNOWN_FIELDS or len(name) > _LONGEST:
        return None
    plain = _plain(name)
    if plain in _BY_PLAIN:
        return _BY_PLAIN[plain]
    for known_plain, known in sorted(_BY_PLAIN.items()):
        allowed = 2 if len(known_plain) >= 8 else 1
        if abs(len(plain) - len(known_plain)) <= allowed and _distance(plain, known_plain, allowed) <= allowed:
            return known
    return None


def _distance(a: str, b: str, limit: int) -> int:
    """Edits between ``a`` and ``b`` (a letter added, dropped, changed, or two neighbours swapped),
    or ``limit + 1`` once it is past ``limit``."""
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other))
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                cost = min(cost, before[j - 2] + 1)  # two neighbours swapped
            current.append(cost)
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return min(previous[-1], limit + 1)
