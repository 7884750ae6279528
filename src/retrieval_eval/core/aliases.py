"""The field's measure names, mapped to ours: one table, resolved in one place.

ir_measures writes ``nDCG@10``, trec_eval (and pytrec_eval) ``ndcg_cut_10``; reports, gates'
reasons and tables always say ``ndcg@10``. :func:`canonical_metric` is the one resolver:
gates, the settings that name metrics and the Python API all call it, so a spelling added to
:data:`ALIASES` is accepted everywhere at once.

A spelling is written with ``{k}`` where a cutoff goes; a row only names a metric the
registry computes (tests/test_measure_names.py checks each against its oracle).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import UsageError
from .metrics import is_positive_decimal, known_metric

IR_MEASURES = "ir_measures"
TREC_EVAL = "trec_eval"
CUTOFF = "{k}"


@dataclass(frozen=True)
class Alias:
    """``spelling`` (in ``sources``' syntax) means our ``canonical`` metric; ``policy`` is the
    difference between their number and ours, empty when there is none beyond the shared
    policies (docs/metrics.md, "Measure names")."""

    spelling: str
    canonical: str
    sources: tuple[str, ...]
    policy: str = ""

    def match(self, name: str) -> str | None:
        """Our name for ``name`` when this row spells it, else None."""
        if CUTOFF not in self.spelling:
            return self.canonical if name == self.spelling else None
        prefix, _, suffix = self.spelling.partition(CUTOFF)
        if not (name.startswith(prefix) and name.endswith(suffix)):
            return None
        cutoff = name[len(prefix) : len(name) - len(suffix)]
        return self.canonical.replace(CUTOFF, cutoff) if is_positive_decimal(cutoff) else None


_FULL_DEPTH = "computed when -k includes all (the whole ranking)"
_FULL_DEPTH_RR = _FULL_DEPTH + "; RR@k, our mrr@k, is reciprocal rank on the run cut at k"
_BPREF = "computed when -k includes all (the whole ranking, as trec_eval reads it)"
_GAIN = "equal with gain linear (trec_eval's gain is the grade; ours defaults to 2^g-1)"

ALIASES: tuple[Alias, ...] = (
    Alias("nDCG@{k}", "ndcg@{k}", (IR_MEASURES,), _GAIN),
    Alias("ndcg_cut_{k}", "ndcg@{k}", (TREC_EVAL,), _GAIN),
    Alias("P@{k}", "precision@{k}", (IR_MEASURES,)),
    Alias("P_{k}", "precision@{k}", (TREC_EVAL,)),
    Alias("R@{k}", "recall@{k}", (IR_MEASURES,)),
    Alias("recall_{k}", "recall@{k}", (TREC_EVAL,)),
    Alias("RR@{k}", "mrr@{k}", (IR_MEASURES,)),
    Alias("AP@{k}", "map@{k}", (IR_MEASURES,)),
    Alias("map_cut_{k}", "map@{k}", (TREC_EVAL,)),
    Alias("Success@{k}", "hit_rate@{k}", (IR_MEASURES,)),
    Alias("success_{k}", "hit_rate@{k}", (TREC_EVAL,)),
    Alias("Rprec", "r_precision", (IR_MEASURES, TREC_EVAL)),
    Alias("Judged@{k}", "judged@{k}", (IR_MEASURES,)),
    Alias("Bpref", "bpref", (IR_MEASURES,), _BPREF),
    Alias("bpref", "bpref", (TREC_EVAL,), _BPREF),
    # Full depth: the ranking kept whole, as trec_eval reads it (score with -k all among the cutoffs).
    Alias("RR", "mrr", (IR_MEASURES,), _FULL_DEPTH_RR),
    Alias("recip_rank", "mrr", (TREC_EVAL,), _FULL_DEPTH_RR),
    Alias("nDCG", "ndcg", (IR_MEASURES,), _FULL_DEPTH + "; " + _GAIN),
    Alias("AP", "map", (IR_MEASURES,), _FULL_DEPTH),
)


def alias_of(name: str) -> tuple[Alias, str] | None:
    """The row that spells ``name`` and the name it means, or None when no row does."""
    for alias in ALIASES:
        meant = alias.match(name)
        if meant is not None:
            return alias, meant
    return None


def canonical_metric(name: str) -> str:
    """Our name for a metric named in any accepted spelling; names of ours come back unchanged.

    A name no row spells is returned as given, for the caller to refuse as unknown with the
    list of metrics.
    """
    if known_metric(name):
        return name
    found = alias_of(name)
    if found is None:
        return name
    alias, meant = found
    if not known_metric(meant):  # a row for a metric the registry dropped: a bug, said plainly
        raise UsageError(f"{name!r} ({' and '.join(alias.sources)}) names {meant}, which is not computed")
    return meant
