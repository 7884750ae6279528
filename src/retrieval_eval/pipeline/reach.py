"""Strata too small for the delta gates: one note naming the strata whose own moves no delta gate could see.

Delta gates read the whole set, but a summary also shows each stratum's delta and a reader
acts on it. A stratum of 14 queries rarely detects a move of 0.02: its row is then noise for
every gate's tolerance, and the verdict's notes say so (they change no status).

The spread is this run's, per stratum, through the one-report proxy of
:func:`retrieval_eval.core.power.proxy_sd` (as ``retrieval-eval plan`` without a base report),
so the note is the same whether or not a base report was given.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.gates import DELTA, Gate
from ..core.labelindex import LabelIndex
from ..core.power import DEFAULT_ALPHA, NORMAL, Design, detectable_effect, proxy_sd, queries_needed, sample_sd
from ..core.scoring import Scores


def small_strata_notes(index: LabelIndex, scores: Scores, gates: Sequence[Gate], power: float) -> list[str]:
    """One note for the scored strata in which no delta gate's tolerance could be seen (none when there are none)."""
    deltas = [gate for gate in gates if gate.kind == DELTA and gate.metric in scores.metrics]
    if not deltas or not scores.strata:
        return []
    design = Design(power=power, alpha=DEFAULT_ALPHA, method=NORMAL)
    members: dict[str, list[str]] = {}
    for query_id in scores.per_query:
        query = index.queries.get(query_id)
        if query is not None and query.stratum is not None:
            members.setdefault(query.stratum, []).append(query_id)
    small = [_reach(name, members.get(name, []), scores, deltas, design) for name in sorted(scores.strata)]
    told = [part for part in small if part is not None]
    if not told:
        return []
    gate = deltas[0]
    return [
        f"strata too small to see the {abs(gate.threshold):g} that {gate.expression} allows within them "
        f"(from this run's spread, {design.power:.0%} power, {design.alpha:.0%} level): " + "; ".join(told)
    ]


def _reach(name: str, ids: list[str], scores: Scores, deltas: Sequence[Gate], design: Design) -> str | None:
    """``faq: 14 queries detect 0.272 or more, about 2588 are needed``; None when some gate is seen there."""
    found = []
    for gate in deltas:
        values = [scores.per_query[q][gate.metric] for q in ids if gate.metric in scores.per_query[q]]
        spread = sample_sd(values)
        if spread == 0.0:
            # Every value alike: this run says nothing of how a change of this metric would spread
            # there, which says nothing of the other gates (it hid the stratum from all of them).
            continue
        sd = None if spread is None else proxy_sd(spread)
        mde = None if sd is None else detectable_effect(sd, len(values), design)
        if mde is not None and mde <= abs(gate.threshold):
            return None  # this gate's tolerance can be seen in the stratum
        found.append((gate, sd, mde, len(values)))
    if not found:
        return None
    gate, sd, mde, n = found[0]
    # The note is headed by the first delta gate; a stratum told of another one names it.
    other = "" if gate is deltas[0] else f" (of {gate.metric}, for {gate.expression})"
    if mde is None or sd is None:
        return f"{name}: {n} quer{'y' if n == 1 else 'ies'}, too few for any test{other}"
    needed = queries_needed(sd, gate.threshold, design)
    return f"{name}: {n} queries detect {mde:.3f} or more{other}" + (f", about {needed} are needed" if needed else "")
