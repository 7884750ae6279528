"""The tokenizer of the floor runs (BM25, TF-IDF), documented so a floor can be rebuilt.

A text becomes terms in four steps, always in this order:

1. lower-case with ``str.lower()``;
2. split into words: every maximal run of Unicode word characters (the
   regular expression ``\\w+``: letters, digits and the underscore of any
   script); everything else separates words and is dropped;
3. drop stop words, when a list is chosen: ``english`` is the 33 words of
   Lucene's classic English stop set (:data:`ENGLISH_STOP_WORDS`);
4. stem, when asked: the Snowball English stemmer (Porter 2), which the
   caller supplies (PyStemmer in the ``lanes`` extra), so this module stays pure.

Texts are NFC-normalized before they get here (corpus texts by the corpus
reader, query texts by the caller), so the same words give the same terms.
Terms are numbered in order of first appearance: :class:`TermIds` turns
texts into lists of term ids, which is all the numeric lanes need.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from .floor_sidecar import TokenizerDescription

WORD_PATTERN = r"\w+"
_WORDS = re.compile(WORD_PATTERN)
# In ASCII text \w is [A-Za-z0-9_]: every other byte becomes a space, and a split finds the same words.
_ASCII_WORD = frozenset((string.ascii_letters + string.digits + "_").encode("ascii"))
_ASCII_SEPARATORS = bytes(byte if byte in _ASCII_WORD else 0x20 for byte in range(256))

# Lucene's classic English stop set (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET).
ENGLISH_STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such "
    "that the their then there these they this to was will with".split()
)
STOP_WORD_LISTS: dict[str, frozenset[str]] = {"none": frozenset(), "english": ENGLISH_STOP_WORDS}

Stemmer = Callable[[str], str]


@dataclass(frozen=True)
class TokenizerSpec:
    """What the tokenizer does, as recorded beside a floor run."""

    stem: bool = False
    stopwords: str = "none"

    def __post_init__(self) -> None:
        if self.stopwords not in STOP_WORD_LISTS:
            raise ValueError(f"unknown stop word list {self.stopwords!r}; use one of {', '.join(STOP_WORD_LISTS)}")

    def describe(self) -> TokenizerDescription:
        return TokenizerDescription(
            lowercase="str.lower",
            word_pattern=WORD_PATTERN,
            stopwords=self.stopwords,
            stopword_count=len(STOP_WORD_LISTS[self.stopwords]),
            stemmer="snowball-english" if self.stem else None,
        )


def words(text: str) -> list[str]:
    """Steps 1 and 2: the lower-cased words of ``text`` in reading order."""
    lowered = text.lower()
    if lowered.isascii():
        # The regular expression's answer, about four times faster on the common (ASCII) chunk.
        return lowered.encode("ascii").translate(_ASCII_SEPARATORS).decode("ascii").split()
    return _WORDS.findall(lowered)


class Tokenizer:
    """Steps 1 to 4. Each distinct word is stop-listed and stemmed once, then remembered."""

    def __init__(self, spec: TokenizerSpec, stemmer: Stemmer | None = None) -> None:
        if spec.stem and stemmer is None:
            raise ValueError("stemming was asked for but no stemmer was given")
        self.spec = spec
        self._stop = STOP_WORD_LISTS[spec.stopwords]
        self._stem = stemmer if spec.stem else None
        self._terms: dict[str, str | None] = {}  # word -> term, None for a stop word

    def term(self, word: str) -> str | None:
        """The term a lower-cased word becomes, None for a stop word."""
        known = self._terms.get(word, "")
        if known != "":
            return known
        term: str | None = None if word in self._stop else word
        if term is not None and self._stem is not None:
            term = self._stem(term)
        self._terms[word] = term
        return term

    def tokens(self, text: str) -> list[str]:
        """The terms of ``text`` in reading order, repeats kept."""
        terms = (self.term(word) for word in words(text))
        return [term for term in terms if term is not None]


class TermIds:
    """Texts as lists of term ids: ids are given to new terms while the collection is read.

    The raw word goes straight to its id through one dictionary, so a word is
    looked at by the tokenizer once however often it occurs; -1 marks a stop word.
    """

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.tokenizer = tokenizer
        self.vocabulary: dict[str, int] = {}  # term -> id, ids 0..n-1 in order of first appearance
        self._ids: dict[str, int] = {}  # lower-cased word -> term id, -1 for a stop word

    def _learn(self, word: str) -> int:
        term = self.tokenizer.term(word)
        if term is None:
            ident = -1
        else:
            ident = self.vocabulary.setdefault(term, len(self.vocabulary))
        self._ids[word] = ident
        return ident

    def document(self, text: str) -> list[int]:
        """A collection text: its term ids in reading order; new terms get new ids."""
        ids = self._ids
        found_words = words(text)
        try:
            found = list(map(ids.__getitem__, found_words))
        except KeyError:  # a word not seen before: learn it (and the others), then look again
            for word in found_words:
                if word not in ids:
                    self._learn(word)
            found = list(map(ids.__getitem__, found_words))
        return [ident for ident in found if ident >= 0] if -1 in found else found

    def query(self, text: str) -> list[int]:
        """A query text: the ids of its terms that the collection has, in reading order, repeats kept."""
        found: list[int] = []
        for word in words(text):
            ident = self._ids.get(word)
            if ident is None:
                term = self.tokenizer.term(word)
                ident = -1 if term is None else self.vocabulary.get(term, -1)
            if ident >= 0:
                found.append(ident)
        return found
