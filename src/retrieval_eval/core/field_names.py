"""The field names a judgments line may carry, and the unknown ones that look like a slip of one.

The format keeps unknown fields and never refuses them (spec/README.md): a team may add its
own. So a misspelled field is not an error of the file, but it is read as nothing: a label
with ``"chunk_Id"`` names its document, one with ``"stratm"`` no stratum, and the numbers move
without a word. An unknown name that stands where a known one is missing and is one slip away
from it is told instead (core/validate.py says how loudly). A slip is another case or ``-`` for
``_`` (``chunk_Id``, ``doc-uri``), or, for names of six letters or more, one letter wrong,
missing, added, or two swapped (``stratm``, ``relevence``), two of those for names of ten or
more (``corpus_fingerprnt``). Short names (``note``, ``mode``) and names beside the field they
resemble (``doc_url`` next to ``doc_uri``) are a team's own fields, not slips.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .identity import is_chunk_key, is_text_sha
from .judgments import SCHEMA_ORDER
from .report_model import Json

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


def misspelling_of(name: str, known_fields: frozenset[str] = KNOWN_FIELDS) -> str | None:
    """The known field ``name`` is likely a slip of (the closest; ties by name), or None.
    ``known_fields``: a judgments line's by default; a run line's or a chunk's where those are read."""
    if name in known_fields or len(name) > _LONGEST:
        return None
    by_plain = _BY_PLAIN if known_fields is KNOWN_FIELDS else {_plain(known): known for known in known_fields}
    plain = _plain(name)
    if plain in by_plain:
        return by_plain[plain]
    found: tuple[int, str] | None = None
    for known_plain, known in by_plain.items():
        allowed = 2 if len(known_plain) >= 10 else 1 if len(known_plain) >= 6 else 0
        if allowed and abs(len(plain) - len(known_plain)) <= allowed:
            distance = _distance(plain, known_plain, allowed)
            if distance <= allowed and (found is None or (distance, known) < found):
                found = (distance, known)
    return None if found is None else found[1]


def slip_hint(names: Iterable[str], name: str, known_fields: frozenset[str]) -> str:
    """ " (the line has 'queryid': a slip of query_id?)" when a line's field ``names`` hold a slip
    of the missing field ``name``; empty otherwise."""
    slips = [key for key in names if misspelling_of(key, known_fields) == name]
    return f" (the line has {', '.join(map(repr, slips))}: a slip of {name}?)" if slips else ""


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


def _string(value: object) -> bool:
    return isinstance(value, str) and bool(value)


# What a value must look like to stand for each known field a line can lack (one that does not
# is a field of the team's own whatever its name: "chunk_idx": 1 is no chunk id).
_FITS = {
    "query_id": _string,
    "query": _string,
    "expect": lambda value: value == "no_answer",
    "doc_uri": _string,
    "chunk_id": lambda value: isinstance(value, str) and is_chunk_key(value),
    "text_sha": lambda value: isinstance(value, str) and is_text_sha(value),
    "chunk_text": _string,
    "relevance": lambda value: type(value) is int,
    "corpus_fingerprint": _string,
    "labeled_by": _string,
    "labeled_at": _string,
    "stratum": _string,
    "notes": _string,
    "quote": _string,
}


def fits(known: str, value: object) -> bool:
    """Whether ``value`` could be the value of the known field ``known`` (a slip's stand-in)."""
    check = _FITS.get(known)
    return check(value) if check is not None else True


@dataclass(eq=False, slots=True)
class FieldSlip:
    """An unknown field name that stands for ``known`` on lines lacking it: the first such line,
    and how many there are."""

    known: str
    first_line: int
    lines: int = 0


_UNSEEN = object()


@dataclass(eq=False)
class FieldSlips:
    """The slips found in a judgments file's lines, by unknown name; each name is looked at once,
    and a slip keeps the first line it stands on whatever the order lines are noted in."""

    found: dict[str, FieldSlip] = field(default_factory=dict)
    _slip_of: dict[str, str | None] = field(default_factory=dict)

    def note(self, record: Mapping[str, Json], line: int) -> None:
        """Keep the unknown names of a line that stand where a known field is missing and look
        like a slip of it. The caller skips a line of known fields only (most lines)."""
        for name, value in record.items():
            if name in KNOWN_FIELDS:
                continue
            known = self._slip_of.get(name, _UNSEEN)
            if known is _UNSEEN:
                known = self._slip_of[name] = misspelling_of(name)
            if known is None or known in record or not fits(str(known), value):
                continue  # no slip; or beside the field it resembles, or no value that field holds
            slip = self.found.get(name)
            if slip is None:
                slip = self.found[name] = FieldSlip(str(known), line)
            slip.first_line = min(slip.first_line, line)
            slip.lines += 1
