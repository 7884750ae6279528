"""Calibration: how far a judge agrees with the human labels it re-labels, before it is trusted.

The judge re-labels a sample of human-labeled pairs (stratified by grade, ids hidden). On the
pairs it labeled (a refusal, an unreadable or a split vote is left out and counted):

- Cohen's kappa on the binary reading (grade >= threshold) and a weighted kappa on the
  grades 0-3 (quadratic weights: a 0 read as 3 costs nine times a 0 read as 1); human
  grades above 3 count as 3;
- the confusion matrix, humans in rows, the judge in columns;
- leniency: the share of grade 0 among the human labels of every sampled pair and among
  every grade the judge answered for them (sample by sample, so a pair whose samples split
  still shows); judges are known to call more passages relevant than people do.

Fewer than :data:`MINIMUM_PAIRS` labeled pairs: the judge is "not calibrated". Below the
kappa floor (binary kappa, the reading gates use) its labels are reported and never gate.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from .judge import GRADES, TOP_GRADE

MINIMUM_PAIRS = 50
DEFAULT_FLOOR = 0.4
CALIBRATED, NOT_CALIBRATED, BELOW_FLOOR = "calibrated", "not calibrated", "below the kappa floor"


def kappa(pairs: Sequence[tuple[int, int]], categories: Sequence[int], weights: str | None = None) -> float | None:
    """Cohen's kappa of (first rater, second rater) pairs; None when chance agreement is total.

    ``weights``: None (every disagreement counts 1), ``linear`` or ``quadratic`` (by distance).
    """
    if not pairs:
        return None
    index = {category: i for i, category in enumerate(categories)}
    size = len(categories)
    observed = [[0.0] * size for _ in range(size)]
    for first, second in pairs:
        observed[index[first]][index[second]] += 1.0 / len(pairs)
    rows = [sum(row) for row in observed]
    columns = [sum(observed[i][j] for i in range(size)) for j in range(size)]

    def weight(i: int, j: int) -> float:
        distance = abs(i - j) / max(size - 1, 1)
        if weights is None:
            return 0.0 if i == j else 1.0
        return distance if weights == "linear" else distance * distance

    cells = [(i, j) for i in range(size) for j in range(size)]
    disagreement = sum(weight(i, j) * observed[i][j] for i, j in cells)
    expected = sum(weight(i, j) * rows[i] * columns[j] for i, j in cells)
    if expected <= 0.0:
        return None
    return 1.0 - disagreement / expected


def confusion(pairs: Sequence[tuple[int, int]]) -> tuple[tuple[int, ...], ...]:
    """Counts of (human grade, judge grade), humans in rows, over the grades 0-3."""
    table = [[0] * len(GRADES) for _ in GRADES]
    for human, machine in pairs:
        table[human][machine] += 1
    return tuple(tuple(row) for row in table)


@dataclass(frozen=True)
class Calibration:
    status: str  # CALIBRATED, NOT_CALIBRATED or BELOW_FLOOR
    asked: int  # pairs sampled for calibration
    labeled: int  # of those, pairs the judge labeled (the rest: refused, unreadable, split)
    kappa_binary: float | None
    kappa_graded: float | None
    confusion: tuple[tuple[int, ...], ...]
    zero_rate_human: float | None
    zero_rate_judge: float | None
    floor: float
    pairs: tuple[tuple[int, int], ...]  # (human grade, judge grade), for the interval

    @property
    def usable(self) -> bool:
        """Whether a gate may read this judge's labels."""
        return self.status == CALIBRATED


def calibrate(
    pairs: Sequence[tuple[int, int]],
    *,
    humans: Sequence[int],
    answered: Sequence[int],
    threshold: int,
    floor: float = DEFAULT_FLOOR,
) -> Calibration:
    """Agreement of the judge's labels with the human grades of the same pairs (module docstring).

    ``pairs``: (human grade, judge's label) where the judge labeled; ``humans``: the human
    grade of every pair asked; ``answered``: every grade the judge answered for them.
    """
    clipped = tuple((min(human, TOP_GRADE), machine) for human, machine in pairs)
    binary = [(int(h >= threshold), int(m >= threshold)) for h, m in clipped]
    kappa_binary = kappa(binary, (0, 1))
    count = len(clipped)
    if count < MINIMUM_PAIRS:
        status = NOT_CALIBRATED
    elif kappa_binary is None or kappa_binary < floor:
        status = BELOW_FLOOR
    else:
        status = CALIBRATED
    return Calibration(
        status=status,
        asked=len(humans),
        labeled=count,
        kappa_binary=kappa_binary,
        kappa_graded=kappa(clipped, GRADES, "quadratic"),
        confusion=confusion(clipped),
        zero_rate_human=_zero_rate(humans),
        zero_rate_judge=_zero_rate(answered),
        floor=floor,
        pairs=clipped,
    )


def _zero_rate(grades: Sequence[int]) -> float | None:
    return sum(grade == 0 for grade in grades) / len(grades) if grades else None


def _order(seed: str, key: str) -> str:
    return hashlib.sha256(f"{seed}\0{key}".encode()).hexdigest()


def stratified_sample(items: Sequence[tuple[str, int]], size: int, *, seed: str = "calibration") -> list[int]:
    """Indices of about ``size`` (key, grade) items, each grade in proportion to its share.

    Proportional allocation keeps the sample a picture of the labeled pairs (kappa and the
    interval's rectifier estimate what they claim to), while no grade can be left out by
    chance. The order within a grade is a hash of the key: the same labels give the same
    sample on every run, so the cache answers a second calibration.
    """
    if size >= len(items):
        return list(range(len(items)))
    strata: dict[int, list[int]] = {}
    for position, (_, grade) in enumerate(items):
        strata.setdefault(grade, []).append(position)
    chosen: list[int] = []
    exact = {grade: size * len(members) / len(items) for grade, members in strata.items()}
    quota = {grade: int(share) for grade, share in exact.items()}
    # Largest remainders take the seats rounding left over.
    for grade in sorted(exact, key=lambda g: (quota[g] - exact[g], g))[: size - sum(quota.values())]:
        quota[grade] += 1
    for grade, members in sorted(strata.items()):
        ranked = sorted(members, key=lambda position: _order(seed, items[position][0]))
        chosen.extend(ranked[: quota[grade]])
    return sorted(chosen)
