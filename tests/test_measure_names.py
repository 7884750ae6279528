"""ir_measures' and trec_eval's measure names: each resolves to ours, and means the same number.

The oracle is trec_eval's own test collection (tests/data/trec_eval). Policies, as in
docs/metrics.md "Measure names": our nDCG gain is linear here (trec_eval's); queries are compared
where both sides score them (trec_eval scores only queries in the run, as with -c off;
ours scores a judged query missing from the run as 0, and this run answers every judged
query).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import retrieval_eval
from retrieval_eval.core.aliases import ALIASES, CUTOFF, IR_MEASURES, TREC_EVAL, Alias, canonical_metric
from retrieval_eval.core.errors import UsageError
from retrieval_eval.core.gates import parse_gate
from retrieval_eval.core.metrics import REGISTRY, known_metric

DATA = Path(__file__).resolve().parent / "data" / "trec_eval"
METRICS_DOC = Path(__file__).resolve().parent.parent / "docs" / "metrics.md"
CUTOFFS = (5, 10, 100)
TOLERANCE = 1e-9


def spellings(alias: Alias) -> list[tuple[str, str]]:
    """(their name, our name) for each cutoff tested."""
    if CUTOFF not in alias.spelling:
        return [(alias.spelling, alias.canonical)]
    return [(alias.spelling.replace(CUTOFF, str(k)), alias.canonical.replace(CUTOFF, str(k))) for k in CUTOFFS]


RESOLVED = list(ALIASES)
FULL_DEPTH = ("mrr", "ndcg", "map", "bpref")  # bpref: the whole ranking, computed with -k all


@pytest.mark.parametrize("alias", RESOLVED, ids=lambda a: a.spelling)
def test_every_name_resolves_to_ours_everywhere(alias: Alias) -> None:
    full_depth = alias.canonical in FULL_DEPTH  # gates on them need -k all among the cutoffs
    for theirs, ours in spellings(alias):
        assert canonical_metric(theirs) == ours and known_metric(ours)
        assert retrieval_eval.canonical_metric(theirs) == ours
        assert parse_gate(f"{theirs}:0.5", ks=CUTOFFS, full_depth=full_depth).metric == ours
        assert parse_gate(f"worst-stratum:{theirs}:0.5", ks=CUTOFFS, full_depth=full_depth).metric == ours


def test_our_names_are_ours_and_a_name_nobody_spells_is_left_for_the_caller() -> None:
    for metric in REGISTRY:
        name = metric.label(10)
        assert canonical_metric(name) == name
    assert canonical_metric("nDCG@010") == "nDCG@010"  # no row reads a cutoff reports never write
    with pytest.raises(UsageError, match="unknown metric 'ndcg_10'"):
        retrieval_eval.canonical_metric("ndcg_10")


def expected_table() -> str:
    rows = ["| name | from | our metric | difference |", "|---|---|---|---|"]
    for alias in ALIASES:
        canonical = alias.canonical.replace(CUTOFF, "k")
        difference = alias.policy or "none"
        spelling = alias.spelling.replace(CUTOFF, "k")
        rows.append(f"| `{spelling}` | {', '.join(alias.sources)} | `{canonical}` | {difference} |")
    return "\n".join(rows)


def test_the_documented_table_is_the_alias_table() -> None:
    assert expected_table() in METRICS_DOC.read_text(encoding="utf-8"), (
        "docs/metrics.md's measure-name table is stale; paste:\n" + expected_table()
    )


@pytest.fixture(scope="module")
def ours() -> dict[str, dict[str, float]]:
    # Rankings kept whole (all), as trec_eval reads them.
    cutoffs = ",".join(map(str, CUTOFFS)) + ",all"
    evaluation = retrieval_eval.evaluate(DATA / "qrels.test", DATA / "results.test", k=cutoffs, gain="linear")
    return evaluation.per_query


def ir_measures_values(name: str) -> dict[str, float]:
    ir_measures = pytest.importorskip("ir_measures")
    qrels = ir_measures.read_trec_qrels(str(DATA / "qrels.test"))
    run = ir_measures.read_trec_run(str(DATA / "results.test"))
    return {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(name)], qrels, run)}


def trec_eval_values(name: str) -> dict[str, float]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels: dict[str, dict[str, int]] = {}
    for line in (DATA / "qrels.test").read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in (DATA / "results.test").read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        run.setdefault(query, {})[doc] = float(score)
    stem, _, cutoff = name.rpartition("_")
    measure = f"{stem}.{cutoff}" if cutoff.isdigit() else name
    return {
        query: values[name] for query, values in pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run).items()
    }


@pytest.mark.parametrize("alias", RESOLVED, ids=lambda a: f"{a.spelling} ({', '.join(a.sources)})")
def test_our_value_under_their_name_is_theirs(alias: Alias, ours: dict[str, dict[str, float]]) -> None:
    for theirs, canonical in spellings(alias):
        for source in alias.sources:
            oracle = ir_measures_values(theirs) if source == IR_MEASURES else trec_eval_values(theirs)
            assert source in (IR_MEASURES, TREC_EVAL)
            shared = sorted(set(oracle) & set(ours))
            assert len(shared) == 3, shared  # every query of the collection
            for query in shared:
                assert ours[query][canonical] == pytest.approx(oracle[query], abs=TOLERANCE), (theirs, query)


def test_recip_rank_on_the_run_cut_at_k_is_our_mrr_at_k(ours: dict[str, dict[str, float]]) -> None:
    """trec_eval's recip_rank is full depth; cut the run at k and it is our mrr@k (docs/metrics.md)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rankings = retrieval_eval.load_run(DATA / "results.test").to_dict()
    qrels = retrieval_eval.load_judgments(DATA / "qrels.test").to_dict()
    for k in CUTOFFS:
        cut = {q: {d: float(len(r) - i) for i, d in enumerate(r[:k])} for q, r in rankings.items()}
        oracle = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
        for query, values in oracle.items():
            assert ours[query][f"mrr@{k}"] == pytest.approx(values["recip_rank"], abs=TOLERANCE)
