"""Label drift: which labels still point at the live corpus, and which can be repaired.

Pure: a judgment set and a :class:`~retrieval_eval.core.corpus.Corpus` in, one
:class:`Finding` per label out. Nothing here reads a file or writes one;
:mod:`retrieval_eval.core.drift_fix` turns findings into a repaired judgment set.

Resolution order (spec/drift.md, with the additions of docs/drift.md). The
first rule that decides wins:

1. the label's ``chunk_id`` is live: ``VALID``. A document-level label (no
   ``chunk_id``) is ``VALID`` while its document has a live chunk;
2. a live chunk has the label's ``text_sha`` (or the hash of its
   ``chunk_text``): ``RE_ANCHORABLE``. A chunk of the label's own document
   wins; a chunk elsewhere is used only when it is the only one, and then the
   label's ``doc_uri`` follows it. Several chunks elsewhere are reported as
   candidates and resolution goes on, because picking one would be a guess;
3. two or more chunks of the document are substrings of ``chunk_text``:
   ``SPLIT``, naming them, when read across them the text is whole (else
   ``ORPHANED``: part of it changed). A ``quote`` then decides: inside exactly one
   chunk, the label is ``MERGED`` there (the chunk holds the evidence);
   across a boundary, still ``SPLIT`` with the chunks it touches; nowhere,
   ``ORPHANED``;
4. ``chunk_text`` lies inside chunks of the document: ``MERGED`` into the
   shortest (the tightest evidence); read across chunk boundaries (white space
   ignored, overlaps removed), it runs over two or more chunks: ``SPLIT``,
   naming every one (a ``quote`` decides as in 3);
5. a ``quote`` alone (no ``chunk_text``, or one that matched nothing) is
   resolved as in 3;
6. otherwise ``ORPHANED``.

Stages 3-5 only look inside the label's own document, through a per-document
index built once (chunk texts are normalized once, by the corpus reader).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .corpus import Corpus
from .identity import normalize, text_sha_of_normalized
from .judgments import JudgmentSet, Label
from .precision import DECIMALS

VALID = "VALID"
RE_ANCHORABLE = "RE_ANCHORABLE"
MERGED = "MERGED"
SPLIT = "SPLIT"
ORPHANED = "ORPHANED"
STATUSES = (VALID, RE_ANCHORABLE, MERGED, SPLIT, ORPHANED)
RECOVERABLE = frozenset({RE_ANCHORABLE, MERGED})
NEEDS_HUMAN = frozenset({SPLIT, ORPHANED})

# Called with (labels resolved, labels in all) while drift runs.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Finding:
    """What drift concluded about one label (``index`` into the judgment set).

    ``rule`` names what decided (see docs/drift.md); ``target`` is the chunk
    a repair would point the label at and ``target_doc`` its document when
    that differs from the label's; ``covering`` names the chunks a split
    label now spans; ``candidates`` the chunks elsewhere that carry the
    label's exact text when there were too many to choose from.
    """

    index: int
    status: str
    rule: str
    detail: str
    target: str | None = None
    target_doc: str | None = None
    covering: tuple[str, ...] = ()
    candidates: tuple[str, ...] = ()

    @property
    def recoverable(self) -> bool:
        return self.status in RECOVERABLE


@dataclass(frozen=True, slots=True)
class DriftSummary:
    """How many labels drift found in each status, and the share that is not VALID."""

    valid: int
    re_anchorable: int
    merged: int
    split: int
    orphaned: int
    invalid_ratio: float


@dataclass(frozen=True)
class DriftResult:
    labels: tuple[Label, ...]
    findings: tuple[Finding, ...]

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for finding in self.findings:
            counts[finding.status] += 1
        return counts

    @property
    def recoverable(self) -> int:
        return sum(1 for finding in self.findings if finding.recoverable)

    @property
    def needs_human(self) -> int:
        return sum(1 for finding in self.findings if finding.status in NEEDS_HUMAN)

    @property
    def invalid_ratio(self) -> float:
        """Share of labels that are not VALID, repairable ones included (spec/drift.md)."""
        if not self.findings:
            return 0.0
        return round(1 - self.counts()[VALID] / len(self.findings), DECIMALS)

    def summary(self) -> DriftSummary:
        """Each status's count, and the share of labels that is not VALID."""
        counts = self.counts()
        return DriftSummary(
            valid=counts[VALID],
            re_anchorable=counts[RE_ANCHORABLE],
            merged=counts[MERGED],
            split=counts[SPLIT],
            orphaned=counts[ORPHANED],
            invalid_ratio=self.invalid_ratio,
        )

    def pairs(self) -> Iterable[tuple[Label, Finding]]:
        return zip(self.labels, self.findings)


# --- per-document index ----------------------------------------------------------

# A chunk is found inside a label's text through HEAD characters taken at each of its
# first STRIDE offsets, so the label's text need only be probed every STRIDE characters.
HEAD = 12
STRIDE = 4
# Searching a text for each chunk of a document beats probing it (see DocumentIndex.inside)
# up to this many chunks per probe.
SCANS_PER_PROBE = 2
# Overlaps are looked up through the last _PROBE characters of a chunk.
_PROBE = 16
_SEPARATOR = "\x00"


# What str.split() splits on, among ASCII characters: deleted in one pass by str.translate.
_ASCII_SPACE = str.maketrans(dict.fromkeys(c for c in map(chr, range(128)) if c.isspace()))


def squeeze(text: str) -> str:
    """The text without white space: chunk boundaries drop the space between chunks."""
    if text.isascii():
        return text.translate(_ASCII_SPACE)
    return "".join(text.split())


def overlap(left: str, right: str) -> int:
    """Length of the longest end of ``left`` that begins ``right`` (a chunker's overlap), or 0."""
    limit = min(len(left), len(right))
    size = min(_PROBE, limit)
    if size == 0:
        return 0
    # An overlap of at least ``size`` ends where left's last characters occur in right's head.
    probe = left[-size:]
    end = right.rfind(probe, 0, limit)
    while end != -1:
        if left.endswith(right[: end + size]):
            return end + size
        end = right.rfind(probe, 0, end + size - 1)
    # A shorter one starts at an occurrence of right's first character in left's last
    # ``size - 1`` characters: the leftmost that holds is the longest.
    tail = left[len(left) - size + 1 :]
    first = right[0]
    pos = tail.find(first)
    while pos != -1:
        if right.startswith(tail[pos:]):
            return len(tail) - pos
        pos = tail.find(first, pos + 1)
    return 0


class DocumentIndex:
    """One document's live chunks, searchable without re-reading or re-normalizing them.

    - ``joined``: the chunk texts in reading order, joined by a separator,
      with each chunk's start offset: "which chunks contain this text" is a
      ``str.find`` plus a binary search;
    - ``heads`` (built on first use, for documents of many chunks): each chunk
      under the ``HEAD`` characters at each of its first ``STRIDE`` offsets:
      "which chunks lie inside this text" probes the text every ``STRIDE``
      characters, whatever the document's size. A document of few chunks
      against the text's probes is searched chunk by chunk instead;
    - white-space-blind views of the whole document (built on first use),
      to name the chunks a quote straddles.
    """

    def __init__(self, corpus: Corpus, doc_uri: str) -> None:
        order = [i for i in corpus.chunks_of(doc_uri) if corpus.texts[i]]
        self.ids: list[str] = [corpus.ids[i] for i in order]
        self.texts: list[str] = [corpus.texts[i] or "" for i in order]
        self.starts: list[int] = []
        offset = 0
        for text in self.texts:
            self.starts.append(offset)
            offset += len(text) + len(_SEPARATOR)
        self.joined = _SEPARATOR.join(self.texts)
        self._heads: tuple[dict[str, int], dict[str, list[int]], list[int]] | None = None
        self._firsts: list[str] | None = None
        self._squeezed: list[str] | None = None
        self._views: dict[bool, tuple[str, list[int], list[int]]] = {}

    def _head_index(self) -> tuple[dict[str, int], dict[str, list[int]], list[int]]:
        """(HEAD characters -> chunk * STRIDE + offset, the repeats of a key, the chunks too
        short to index), built in one go because HEAD characters rarely repeat."""
        if self._heads is None:
            texts = self.texts
            probes = [
                (text[offset : offset + HEAD], k * STRIDE + offset)
                for k, text in enumerate(texts)
                if len(text) >= HEAD + STRIDE - 1
                for offset in range(STRIDE)
            ]
            heads: dict[str, int] = dict(probes)
            more: dict[str, list[int]] = {}
            if len(heads) < len(probes):
                for key, code in probes:
                    if heads[key] != code:
                        more.setdefault(key, []).append(code)
            shorts = [k for k, text in enumerate(texts) if len(text) < HEAD + STRIDE - 1]
            self._heads = (heads, more, shorts)
        return self._heads

    def containing(self, needle: str) -> list[int]:
        """Chunks (positions in reading order) whose text contains ``needle``."""
        found: list[int] = []
        size = len(needle)
        pos = self.joined.find(needle)
        while pos != -1:
            k = bisect_right(self.starts, pos) - 1
            if pos + size <= self.starts[k] + len(self.texts[k]):
                found.append(k)
                if k + 1 == len(self.starts):
                    break
                pos = self.joined.find(needle, self.starts[k + 1])
            else:
                pos = self.joined.find(needle, pos + 1)
        return found

    def inside(self, text: str) -> list[int]:
        """Chunks whose whole text is a substring of ``text``, in reading order."""
        # Searching the text once a chunk costs less than probing it, and builds no index,
        # unless the document has many more chunks than the text has probes.
        if len(self.texts) <= SCANS_PER_PROBE * (len(text) // STRIDE + 1):
            return self.inside_by_scan(text)
        return self.inside_by_heads(text)

    def inside_by_scan(self, text: str) -> list[int]:
        """:meth:`inside`, one search of ``text`` per chunk (its head first: most chunks stop there)."""
        if self._firsts is None:
            self._firsts = [chunk[:HEAD] for chunk in self.texts]
        texts = self.texts
        return [k for k, first in enumerate(self._firsts) if first in text and texts[k] in text]

    def inside_by_heads(self, text: str) -> list[int]:
        """:meth:`inside` through the head index: ``text`` probed every STRIDE characters."""
        # A chunk at position p of the text covers a probe at one of p .. p+STRIDE-1,
        # and is indexed under the HEAD characters found there.
        heads, more, shorts = self._head_index()
        texts = self.texts
        hits = [pos for pos in range(0, len(text) - HEAD + 1, STRIDE) if text[pos : pos + HEAD] in heads]
        found: set[int] = set()
        for pos in hits:
            key = text[pos : pos + HEAD]
            for code in (heads[key], *more.get(key, ())):
                k, offset = divmod(code, STRIDE)
                if pos >= offset and text.startswith(texts[k], pos - offset):
                    found.add(k)
        found.update(k for k in shorts if texts[k] in text)
        return sorted(found)

    def touched(self, needle: str) -> list[int]:
        """Chunks that a white-space-blind match of ``needle`` touches, in reading order.

        Two views of the document are searched: the chunks glued end to end,
        and, when that finds nothing, the chunks with the longest edge each
        shares with the previous one removed. The first is right for
        chunkers without overlap, the second for chunkers with it; a
        boundary where two chunks merely happen to end and start alike
        fools only the second. A document whose chunks share no edge has
        one view, searched once.
        """
        probe = squeeze(needle)
        if not probe:
            return []
        plain = self._view(False)
        found = _touching(plain, probe)
        if found:
            return found
        deduped = self._view(True)
        return [] if deduped is plain else _touching(deduped, probe)

    def _pieces(self) -> list[str]:
        """Each chunk's text without white space, in reading order."""
        if self._squeezed is None:
            # One split of the joined document, cut at the separators, when no text holds one.
            pieces = squeeze(self.joined).split(_SEPARATOR)
            if len(pieces) != len(self.texts):
                pieces = [squeeze(text) for text in self.texts]
            self._squeezed = pieces
        return self._squeezed

    def _view(self, dedupe: bool) -> tuple[str, list[int], list[int]]:
        view = self._views.get(dedupe)
        if view is not None:
            return view
        pieces = self._pieces()
        shared = [0] * len(pieces)
        if dedupe:
            shared[1:] = [overlap(previous, piece) for previous, piece in zip(pieces, pieces[1:])]
            if not any(shared):  # the same view as without dedupe
                view = self._views[True] = self._view(False)
                return view
        parts: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        length = 0
        for piece, edge in zip(pieces, shared):
            starts.append(length - edge)
            parts.append(piece[edge:])
            length += len(piece) - edge
            ends.append(length)
        view = self._views[dedupe] = ("".join(parts), starts, ends)
        return view


def _touching(view: tuple[str, list[int], list[int]], probe: str) -> list[int]:
    """The chunks of a white-space-blind view that the matches of ``probe`` run over."""
    squeezed, starts, ends = view
    found: set[int] = set()
    pos = squeezed.find(probe)
    while pos != -1:
        found.update(range(bisect_right(ends, pos), bisect_left(starts, pos + len(probe))))
        pos = squeezed.find(probe, pos + 1)
    return sorted(found)


# --- resolution ---------------------------------------------------------------


@dataclass
class _Pending:
    """A label that stages 1-2 did not settle, waiting for its document's index."""

    index: int
    text: str | None
    quote: str | None
    candidates: tuple[str, ...] = ()


def _normalized(label: Label, name: str) -> str | None:
    value = label.get(name)
    if not isinstance(value, str):
        return None
    return normalize(value) or None


def _label_sha(label: Label, text: str | None) -> str | None:
    sha = label.get("text_sha")
    if isinstance(sha, str):
        return sha
    return text_sha_of_normalized(text) if text else None


@dataclass
class _Lookups:
    """Corpus-wide lookups for stages 1 and 2, built once per drift run."""

    corpus: Corpus
    by_sha: dict[str, list[int]] = field(default_factory=dict)

    @classmethod
    def build(cls, corpus: Corpus, wanted: set[str]) -> _Lookups:
        by_sha: dict[str, list[int]] = {}
        if wanted:
            for i, sha in enumerate(corpus.shas):
                if sha in wanted:
                    by_sha.setdefault(sha, []).append(i)
        return cls(corpus, by_sha)


def _first_by_order(corpus: Corpus, indices: list[int]) -> int:
    ordinals = corpus.ordinals
    return min(indices, key=lambda i: (ordinals[i] is None, ordinals[i] or 0, i))


def _by_hash(index: int, label: Label, sha: str | None, lookups: _Lookups) -> Finding | tuple[str, ...]:
    """Stage 2: a Finding when the hash settles the label, else the ambiguous candidates."""
    corpus = lookups.corpus
    matches = lookups.by_sha.get(sha, []) if sha else []
    own = [i for i in matches if corpus.docs[i] == label.doc_uri]
    if own:
        target = corpus.ids[_first_by_order(corpus, own)]
        twins = f"; {len(own)} chunks of the document have this text, the first is used" if len(own) > 1 else ""
        return Finding(
            index,
            RE_ANCHORABLE,
            "text_sha",
            "a live chunk of the document has the labeled text" + twins,
            target=None if label.chunk_id is None else target,
        )
    if len(matches) == 1:
        i = matches[0]
        return Finding(
            index,
            RE_ANCHORABLE,
            "text_sha_elsewhere",
            f"the labeled text is now a chunk of {corpus.docs[i]}, the only one that has it",
            target=None if label.chunk_id is None else corpus.ids[i],
            target_doc=corpus.docs[i],
        )
    return tuple(sorted(corpus.ids[i] for i in matches))


def _same_text(label: Label, corpus: Corpus) -> bool:
    """Whether the live chunk with the label's id still holds the labeled text.

    A c1 id names its text, so a live c1 id is the same text. A team's own id (``doc#3``)
    names a slot: after a re-chunk the slot may hold other text, so the chunk must still
    hold the label's text (its ``text_sha``, or its ``chunk_text`` or ``quote`` inside the
    chunk's text); a label with none of them trusts the id.
    """
    if label.chunk_id is None or label.chunk_id.startswith("c1:"):
        return True
    position = corpus.position[label.chunk_id]
    text, quote = _normalized(label, "chunk_text"), _normalized(label, "quote")
    sha = _label_sha(label, text)
    live, live_text = corpus.shas[position], corpus.texts[position]
    if sha is None and quote is None or live_text is None:
        return True  # nothing to check the id against
    if sha is not None and sha == live:
        return True
    # A label a repair moved into a larger chunk (MERGED, or by its quote) keeps the text it
    # judged, which that chunk holds; an unrepaired label in a reused slot is not the same text.
    if not isinstance(label.get("reanchored"), dict):
        return False
    return any(part is not None and part in live_text for part in (text, quote))


def _first_stages(index: int, label: Label, lookups: _Lookups) -> Finding | _Pending:
    corpus = lookups.corpus
    if label.chunk_id is not None and label.chunk_id in corpus.position and _same_text(label, corpus):
        home = corpus.document_of(label.chunk_id)
        note = "" if home == label.doc_uri else f" (the corpus files it under {home})"
        return Finding(index, VALID, "chunk_id", "the chunk is live" + note)
    if label.chunk_id is None and label.doc_uri in corpus.documents:
        return Finding(index, VALID, "document", "the document is live")
    text = _normalized(label, "chunk_text")
    settled = _by_hash(index, label, _label_sha(label, text), lookups)
    if isinstance(settled, Finding):
        return settled
    quote = _normalized(label, "quote") if label.chunk_id is not None else None
    return _Pending(index, text if label.chunk_id is not None else None, quote, settled)


def _ids(doc: DocumentIndex, positions: Iterable[int]) -> tuple[str, ...]:
    return tuple(doc.ids[k] for k in positions)


def _by_quote(pending: _Pending, doc: DocumentIndex, quote: str) -> Finding:
    index = pending.index
    holders = doc.containing(quote)
    if len(holders) == 1:
        return Finding(
            index, MERGED, "quote", "the quote lies inside exactly one live chunk", target=doc.ids[holders[0]]
        )
    if holders:
        return Finding(
            index,
            SPLIT,
            "quote_repeated",
            f"the quote lies inside {len(holders)} chunks; which one holds the evidence is a guess",
            covering=_ids(doc, holders),
        )
    touched = doc.touched(quote)
    if len(touched) > 1:
        return Finding(
            index, SPLIT, "quote_straddles", f"the quote straddles {len(touched)} chunks", covering=_ids(doc, touched)
        )
    return Finding(index, ORPHANED, "quote_missing", "the quote is in no live chunk of the document")


def _by_text(pending: _Pending, doc: DocumentIndex) -> Finding | None:
    """Stages 3 and 4: the labeled text split into chunks, or inside one."""
    text, index = pending.text, pending.index
    if text is None:
        return None
    pieces = doc.inside(text)
    if len(pieces) >= 2:
        if pending.quote is not None:
            return _by_quote(pending, doc, pending.quote)
        if not doc.touched(text):
            # Pieces of it are live, but part of it is in none (a sentence edited as the paragraph
            # was cut): the pieces are not where the labeled text went, and a queue offering only
            # them would hide the edited part, which may be what answers.
            return Finding(
                index,
                ORPHANED,
                "chunk_text_changed",
                f"{len(pieces)} live chunks lie inside the labeled text, but read across them it is "
                "not whole: part of it changed",
            )
        return Finding(
            index,
            SPLIT,
            "chunk_text_split",
            f"the labeled text now spans {len(pieces)} chunks",
            covering=_ids(doc, pieces),
        )
    holders = doc.containing(text)
    if holders:
        best = min(holders, key=lambda k: (len(doc.texts[k]), k))
        more = f"; the shortest of {len(holders)} is used" if len(holders) > 1 else ""
        return Finding(
            index,
            MERGED,
            "chunk_text_contained",
            "the labeled text is part of a larger live chunk" + more,
            target=doc.ids[best],
        )
    return _across_boundaries(pending, doc)


def _across_boundaries(pending: _Pending, doc: DocumentIndex) -> Finding | None:
    """Text that runs on from one chunk into the next (a window that cut it) is still there: SPLIT.

    Size-based and overlapping chunkers cut through labeled text so that no chunk lies
    inside it and none contains it; read across the boundaries, it is whole.
    """
    assert pending.text is not None  # what _by_text checked
    spans = doc.touched(pending.text)
    if len(spans) < 2:
        return None
    if pending.quote is not None:
        return _by_quote(pending, doc, pending.quote)
    return Finding(
        pending.index,
        SPLIT,
        "chunk_text_spans",
        f"the labeled text runs across {len(spans)} live chunks",
        covering=_ids(doc, spans),
    )


def _orphan(pending: _Pending, label: Label, lookups: _Lookups) -> Finding:
    corpus = lookups.corpus
    if pending.candidates:
        return Finding(
            pending.index,
            ORPHANED,
            "text_sha_ambiguous",
            f"the labeled text is a chunk of {len(pending.candidates)} other places; choose one by hand",
            candidates=pending.candidates,
        )
    if label.doc_uri not in corpus.documents:
        copies = lookups.by_sha.get(text_sha_of_normalized(pending.quote), []) if pending.quote else []
        # A document moved whole lands in a few places; a quote that is a chunk of many (a
        # "Contact support." every page ends with) shows no move, and offering every copy made a
        # deleted page's label a queue of ten thousand lines.
        if copies and _in_few_documents(copies, corpus):
            # A label a repair moved by its quote names a chunk holding the quote, while its
            # chunk_text is still the passage the person read: when the document then moves
            # whole, only the quote is found again, in each copy of it.
            return Finding(
                pending.index,
                ORPHANED,
                "quote_elsewhere",
                f"no chunk of the document is live; the quoted text is a chunk of {len(copies)} other "
                "place(s); choose one by hand",
                candidates=tuple(sorted(corpus.ids[i] for i in copies)),
            )
        return Finding(pending.index, ORPHANED, "document_gone", "no chunk of the document is live")
    if pending.text is None and pending.quote is None:
        return Finding(
            pending.index,
            ORPHANED,
            "text_gone",
            "no live chunk has the labeled text_sha (add chunk_text or a quote to tell "
            "a split or a merge from a deletion)",
        )
    return Finding(pending.index, ORPHANED, "text_gone", "the labeled text is in no live chunk of the document")


def _searched(pending: _Pending, doc: DocumentIndex) -> Finding | None:
    """The label found in ``doc`` by its text, else by its quote."""
    finding = _by_text(pending, doc)
    if finding is None and pending.quote is not None:
        finding = _by_quote(pending, doc, pending.quote)
    return finding


def _in_few_documents(chunks: list[int], corpus: Corpus) -> bool:
    """Whether ``chunks`` lie in at most :data:`MOVED_TO_AT_MOST` documents (counted until past it)."""
    docs, seen = corpus.docs, set()
    for i in chunks:
        seen.add(docs[i])
        if len(seen) > MOVED_TO_AT_MOST:
            return False
    return True


def _later_stages(pending: _Pending, label: Label, doc: DocumentIndex | None, lookups: _Lookups) -> Finding:
    finding = _searched(pending, doc) if doc is not None else None
    if finding is None or finding.status == ORPHANED and pending.candidates:
        return _orphan(pending, label, lookups)
    if pending.candidates:
        return Finding(
            finding.index,
            finding.status,
            finding.rule,
            finding.detail,
            finding.target,
            finding.target_doc,
            finding.covering,
            pending.candidates,
        )
    return finding


def _wanted_hashes(labels: Iterable[Label]) -> set[str]:
    wanted = set()
    for label in labels:
        sha = label.get("text_sha")
        if not isinstance(sha, str):  # only then is the text hashed (as _label_sha does)
            sha = _label_sha(label, _normalized(label, "chunk_text"))
        if sha:
            wanted.add(sha)
    return wanted


def check_drift(judgments: JudgmentSet, corpus: Corpus, *, progress: Progress | None = None) -> DriftResult:
    """Classify every label of ``judgments`` against ``corpus``."""
    labels = judgments.labels
    unsettled = [
        label
        for label in labels
        if not (
            label.chunk_id in corpus.position
            and _same_text(label, corpus)
            or label.chunk_id is None
            and label.doc_uri in corpus.documents
        )
    ]
    wanted = _wanted_hashes(unsettled)
    for label in unsettled:  # a quote is looked for whole in other documents once its own is gone
        quote = _normalized(label, "quote") if label.doc_uri not in corpus.documents else None
        if quote:
            wanted.add(text_sha_of_normalized(quote))
    lookups = _Lookups.build(corpus, wanted)
    findings: list[Finding | None] = [None] * len(labels)
    by_doc: dict[str, list[_Pending]] = {}
    for index, label in enumerate(labels):
        outcome = _first_stages(index, label, lookups)
        if isinstance(outcome, Finding):
            findings[index] = outcome
        else:
            by_doc.setdefault(label.doc_uri, []).append(outcome)
    done = len(labels) - sum(len(group) for group in by_doc.values())
    went = _where_documents_went(labels, findings, by_doc, corpus)
    # The documents gone ones moved to, indexed once and kept for the next gone document: many
    # pages folded into one large one each searched it, and indexing it anew for every page cost
    # 0.7 s a page on a 150,000-chunk document. As many are kept as one gone document may search.
    targets: OrderedDict[str, DocumentIndex] = OrderedDict()
    for doc_uri, group in by_doc.items():
        # One index per document, dropped after its labels: memory follows the largest document.
        needs_index = doc_uri in corpus.documents and any(p.text or p.quote for p in group)
        doc = DocumentIndex(corpus, doc_uri) if needs_index else None
        moved_to: dict[str, DocumentIndex] | None = None  # the documents this one moved to
        for pending in group:
            finding = _later_stages(pending, labels[pending.index], doc, lookups)
            if finding.rule == "document_gone" and doc_uri in went and (pending.text or pending.quote):
                if moved_to is None:
                    moved_to = {target: _kept_index(targets, corpus, target) for target in went[doc_uri]}
                finding = _in_moved_document(pending, moved_to) or finding
            findings[pending.index] = finding
        done += len(group)
        if progress is not None:
            progress(done, len(labels))
    return DriftResult(labels, tuple(f for f in findings if f is not None))


MOVED_TO_AT_MOST = 8  # documents a gone one is searched in, as its other labels show where it went


def _kept_index(kept: OrderedDict[str, DocumentIndex], corpus: Corpus, doc_uri: str) -> DocumentIndex:
    """``doc_uri``'s index from ``kept``, built when missing; the least recently used beyond
    :data:`MOVED_TO_AT_MOST` are dropped."""
    index = kept.get(doc_uri)
    if index is None:
        index = kept[doc_uri] = DocumentIndex(corpus, doc_uri)
        if len(kept) > MOVED_TO_AT_MOST:
            kept.popitem(last=False)
    else:
        kept.move_to_end(doc_uri)
    return index


def _where_documents_went(
    labels: tuple[Label, ...], findings: list[Finding | None], by_doc: dict[str, list[_Pending]], corpus: Corpus
) -> dict[str, tuple[str, ...]]:
    """For each gone document some label names, the live documents where another of its labels'
    very text is a chunk now: where the document moved, as its labels show it."""
    went: dict[str, set[str]] = {}
    gone = {doc_uri for doc_uri in by_doc if doc_uri not in corpus.documents}
    if not gone:
        return {}
    for finding in findings:
        if finding is not None and finding.target_doc is not None:
            doc_uri = labels[finding.index].doc_uri
            if doc_uri in gone:
                went.setdefault(doc_uri, set()).add(finding.target_doc)
    for doc_uri in gone:
        for pending in by_doc[doc_uri]:
            for key in pending.candidates:
                went.setdefault(doc_uri, set()).add(corpus.docs[corpus.position[key]])
    # A document moved whole lands in a few places; text found in many (a footer every page
    # shares) says nothing of where this one went, and indexing them all would cost a pass each.
    return {doc_uri: tuple(sorted(docs)) for doc_uri, docs in went.items() if len(docs) <= MOVED_TO_AT_MOST}


def _in_moved_document(pending: _Pending, documents: dict[str, DocumentIndex]) -> Finding | None:
    """A gone document's label whose text lies inside, or across, chunks of the documents it moved
    to (:func:`_where_documents_went`): ORPHANED with those chunks, for a person to judge. A label
    merged into a larger chunk keeps the smaller text it judged, which is no whole chunk anywhere,
    so without this it was stranded, and deleting it as advised took its query's answer."""
    found: list[str] = []
    for doc in documents.values():
        finding = _searched(pending, doc)
        if finding is None:
            continue
        found.extend(key for key in (finding.target, *finding.covering) if key is not None and key not in found)
    if not found:
        return None
    return Finding(
        pending.index,
        ORPHANED,
        "document_moved",
        f"no chunk of the document is live; its other labels' text is now in {', '.join(documents)}, "
        f"where the labeled text lies in {len(found)} chunk(s); choose by hand",
        candidates=tuple(found),
    )
