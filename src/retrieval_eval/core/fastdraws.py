"""The bootstrap's resamples drawn with numpy: the same draws as the pure-Python path, bit for bit.

Block ``k`` of :mod:`.significance` reads one ``random.Random("{seed}:{k}")``.
That generator is a Mersenne Twister whose whole state ``getstate()`` gives
away, and numpy's ``MT19937`` takes the same state, so numpy produces the very
32-bit words Python would. What remains is to spend the words as Python does:

- ``random()`` (the binomial) takes two words: ``(a >> 5, b >> 6)`` into 53 bits;
- the table drawer's ``randbytes(2 c)`` takes ``ceil(c / 2)`` words and reads
  each as two 16-bit numbers, low half first; when ``c`` is odd the last word
  gives only its high half (``getrandbits`` keeps the top bits of a partial
  word), and a number at or above the table's limit is a rejection, drawn again
  by the next call;
- the general drawer's ``randrange(m)`` takes one word per attempt, its top
  ``m.bit_length()`` bits, again until one is below ``m``.

Where each call starts and how many of its numbers are accepted is found in
Python from running counts of accepted numbers (a few operations per call);
which query each accepted number picks, and the sums over every column, are
then made for a whole block at once: a count per (resample, query), and one
matrix product with the columns. The columns are split into 24-bit halves so
that every product and partial sum is an integer below 2**53, exact in floating
point whatever the summation order; :func:`fits` says when that holds.
"""

from __future__ import annotations

import ctypes
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .binomial import binomial

_SPLIT = 24  # low half of a column value: its bottom 24 bits
_EXACT = 1 << 53  # every integer below this is exact in a float64
_TABLE_BITS = 16  # the table drawer's numbers (see significance._table_drawer)
# Counts held at once (resamples x queries of one matrix product): small enough that counting
# stays in the processor's cache, which more than pays for the smaller products.
_CELLS = 1 << 18


def fits(columns: Sequence[Sequence[int]], draws: int) -> bool:
    """Whether sums of ``draws`` values of these columns stay exact on this path."""
    largest = max((max(max(column), -min(column)) for column in columns if len(column)), default=0)
    return draws * (largest >> _SPLIT) < _EXACT and draws << _SPLIT < _EXACT and draws * largest < 1 << 62


class Picks:
    """Turns words into the query each accepted number picks, or ``m`` for none."""

    def __init__(self, m: int) -> None:
        self.m = m
        self.table = m <= 1 << _TABLE_BITS
        self.per_word = 2 if self.table else 1
        if self.table:
            limit = (1 << _TABLE_BITS) - (1 << _TABLE_BITS) % m
            numbers = np.arange(1 << _TABLE_BITS, dtype=np.int64)
            self.lookup = np.where(numbers < limit, numbers % m, m).astype(np.int32)
            self.acceptance = limit / (1 << _TABLE_BITS)
        else:
            self.shift = 32 - m.bit_length()
            self.acceptance = m / (1 << m.bit_length())

    def units(self, words: Any) -> Any:
        """Each unit's pick: 16-bit halves (low first) for the table, whole words otherwise."""
        if self.table:
            return self.lookup[words.astype("<u4", copy=False).view("<u2")]
        picks = (words >> np.uint32(self.shift)).astype(np.int64)
        picks[picks >= self.m] = self.m
        return picks


class WordStream:
    """The 32-bit outputs of one ``random.Random``, read ahead in bulk by numpy, with their picks."""

    def __init__(self, rng: random.Random, picks: Picks, expected: int) -> None:
        internal = rng.getstate()[1]
        bits = np.random.MT19937()
        bits.state = {
            "bit_generator": "MT19937",
            "state": {"key": np.array(internal[:624], dtype=np.uint32), "pos": internal[624]},
        }
        # Integers over the whole 32-bit range are the generator's words themselves, one each.
        self._generator = np.random.Generator(bits)
        self.picks = picks
        self.words: Any = np.empty(0, dtype=np.uint32)
        self.keys: Any = np.empty(0, dtype=np.int64)  # each unit's pick
        self.hits: Any = np.zeros(1, dtype=np.int64)  # hits[i]: how many of the first i units pick a query
        # The same arrays read one number at a time: a memoryview gives a Python int about ten
        # times faster than indexing the array (the calls below run a few times per resample).
        self._word: memoryview = memoryview(b"")  # set with the arrays, by _add
        self._hit: memoryview = memoryview(b"")
        self.position = 0  # the next word to spend
        self._add(expected)

    def ensure(self, count: int) -> None:
        """Holds at least ``count`` words past the position."""
        missing = self.position + count - len(self.words)
        if missing > 0:
            self._add(max(missing, len(self.words) // 4))

    def accepted(self, first: int, last: int) -> int:
        """How many of the units ``first`` to ``last`` (excluded) pick a query."""
        accepted: int = self._hit[last] - self._hit[first]
        return accepted

    def accepted_until(self, first: int, count: int) -> int | None:
        """The unit after the ``count``-th one from ``first`` that picks a query; None past the words held."""
        target = self._hit[first] + count
        if self._hit[len(self._hit) - 1] < target:
            return None
        return int(np.searchsorted(self.hits, target, side="left"))

    def _add(self, count: int) -> None:
        words = self._generator.integers(0, 1 << 32, size=count, dtype=np.uint32)
        keys = self.picks.units(words)
        if len(self.words):  # rarely: the first estimate of the words needed fell short
            words, keys = np.concatenate([self.words, words]), np.concatenate([self.keys, keys])
        self.words, self.keys = words, keys
        # Running counts of accepted units, so that each call's count is two look-ups.
        self.hits = np.zeros(len(keys) + 1, dtype=np.int32 if len(keys) < 1 << 31 else np.int64)
        np.cumsum(keys < self.picks.m, out=self.hits[1:])
        self._word, self._hit = memoryview(self.words), memoryview(self.hits)

    def random(self) -> float:
        """``random.Random.random()``: 53 bits from two words."""
        self.ensure(2)
        a, b = self._word[self.position], self._word[self.position + 1]
        self.position += 2
        return ((a >> 5) * 67108864.0 + (b >> 6)) * (1.0 / 9007199254740992.0)


# glibc gives every freed block above 128 KiB (M_MMAP_THRESHOLD) back to the system, so each
# block of draws maps fresh pages and faults them in again: about 0.3 s of system time on M.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEPT = 1 << 26  # blocks below 64 MiB come from the heap and stay there for the next block


def keep_freed_memory() -> None:
    """Ask glibc's allocator to reuse freed blocks of draws instead of mapping new pages.

    Only the allocator's thresholds change (the blocks' bytes are the same); elsewhere than
    glibc, or when the call is not there, nothing is done.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt
        mallopt(_M_TRIM_THRESHOLD, 2 * _KEPT)  # what the heap keeps free before giving memory back
        mallopt(_M_MMAP_THRESHOLD, _KEPT)
    except (AttributeError, OSError, TypeError):
        return


def joint_sums(
    columns: Sequence[Sequence[int]],
    *,
    n: int,
    resamples: int,
    seed: int,
    block_size: int,
    map_blocks: Callable[[Callable[[int], list[tuple[int, ...]]], range], Iterable[list[tuple[int, ...]]]] = map,
) -> list[list[int]]:
    """Each column's resampled sums, as ``significance._joint_sums`` draws them.

    ``columns`` hold the changed queries' values only; the other ``n - m``
    queries add nothing and are counted out by the same binomial draws.
    ``map_blocks`` draws the blocks (each a list of one tuple of sums per resample).
    """
    keep_freed_memory()
    m = len(columns[0])
    picks = Picks(m)
    table = np.array(columns, dtype=np.int64)  # fits(): every value is below 2**62
    low = (table & ((1 << _SPLIT) - 1)).T.astype(np.float64)
    high = (table >> _SPLIT).T.astype(np.float64)  # an arithmetic shift, as Python's on negative values
    halves = np.vstack([np.hstack([low, high]), np.zeros((1, 2 * len(columns)))])  # row m: no pick

    def block(number: int) -> list[tuple[int, ...]]:
        count = min(block_size, resamples - number * block_size)
        keys, starts = _block_picks(picks, random.Random(f"{seed}:{number}"), n, count)
        return [row for part in _sums(keys, starts, halves, m) for row in part]

    drawn = map_blocks(block, range(-(-resamples // block_size)))
    return [list(per_column) for per_column in zip(*(row for part in drawn for row in part))]


def _block_picks(picks: Picks, rng: random.Random, n: int, count: int) -> tuple[Any, list[int]]:
    """One block's picks in stream order, and where each resample's picks start."""
    per_word = picks.per_word
    m = picks.m
    # Enough words for the block in one go, most of the time: m picks a resample on average.
    stream = WordStream(rng, picks, int(count * (m / (per_word * picks.acceptance) + 8) * 1.02) + 1024)
    unused: list[tuple[int, int]] = []  # unit ranges spent on something other than a pick
    starts = []
    for _ in range(count):
        starts.append(stream.position * per_word)
        before = stream.position
        hits = n if m == n else binomial(stream, n, m / n)
        unused.append((before * per_word, stream.position * per_word))
        while hits > 0:
            hits -= _draw_call(picks, stream, hits, unused)
    starts.append(stream.position * per_word)
    keys = stream.keys[: stream.position * per_word]
    for first, last in unused:
        keys[first:last] = m
    return keys, starts


def _draw_call(picks: Picks, stream: WordStream, hits: int, unused: list[tuple[int, int]]) -> int:
    """One call of the pure path's drawer for ``hits`` draws: how many it accepted."""
    if picks.table:
        words = (hits + 1) // 2
        stream.ensure(words)
        first = 2 * stream.position
        if hits % 2:
            # The odd call's last word gives its high half only: its low half is skipped.
            skipped = first + hits - 1
            unused.append((skipped, skipped + 1))
            accepted = stream.accepted(first, skipped) + stream.accepted(skipped + 1, skipped + 2)
        else:
            accepted = stream.accepted(first, first + hits)
        stream.position += words
        return accepted
    # The general drawer: one word per attempt, the call ends at its hits-th accepted word.
    ahead = int(hits / picks.acceptance) + 64
    while True:
        stream.ensure(ahead)
        end = stream.accepted_until(stream.position, hits)
        if end is not None:
            stream.position = end
            return hits
        ahead *= 2


def _sums(keys: Any, starts: list[int], halves: Any, m: int) -> list[list[tuple[int, ...]]]:
    """Per group of resamples, each resample's column sums: counts per (resample, query) times the columns."""
    columns = halves.shape[1] // 2
    group = max(1, _CELLS // (m + 1))
    parts = []
    for first in range(0, len(starts) - 1, group):
        bounds = starts[first : min(first + group, len(starts) - 1) + 1]
        for row in range(1, len(bounds) - 1):  # resample `row` of the group counts in row `row`
            keys[bounds[row] : bounds[row + 1]] += row * (m + 1)
        counts = np.bincount(keys[bounds[0] : bounds[-1]], minlength=(len(bounds) - 1) * (m + 1))
        product = counts.reshape(len(bounds) - 1, m + 1).astype(np.float64) @ halves
        exact = product.astype(np.int64)
        sums = (exact[:, columns:] << _SPLIT) + exact[:, :columns]
        parts.append([tuple(row) for row in sums.tolist()])
    return parts
