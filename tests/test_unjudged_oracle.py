"""judged@k, condensed lists, bpref and the full-depth metrics against trec_eval and ir_measures.

On trec_eval's own test collection (tests/data/trec_eval) and on generated data:
- judged@k is ir_measures' Judged@k;
- every metric under the ``condensed`` policy is trec_eval's with ``-J``
  (pytrec_eval's judged_docs_only_flag);
- bpref, and ndcg/map/mrr with ``-k all``, are trec_eval's bpref, ndcg, map and recip_rank.

trec_eval scores only the queries of the run; we compare the queries scored on both sides.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")
ir_measures = pytest.importorskip("ir_measures")

from retrieval_eval.core.labelindex import LabelIndex  # noqa: E402
from retrieval_eval.core.scoring import ScoreConfig, Scores  # noqa: E402
from retrieval_eval.formats.judgments import read_label_index  # noqa: E402
from retrieval_eval.formats.qrels import read_trec_qrels  # noqa: E402
from retrieval_eval.pipeline.score_run import score_run_file  # noqa: E402
from test_oracle import generate  # noqa: E402

TOLERANCE = 1e-9
DATA = Path(__file__).parent / "data" / "trec_eval"
KS = (5, 10, 20, 100)
# Our name at a cutoff -> trec_eval's.
AT_CUTOFF = {"precision": "P", "recall": "recall", "ndcg": "ndcg_cut", "map": "map_cut", "hit_rate": "success"}
WHOLE = {"ndcg": "ndcg", "map": "map", "mrr": "recip_rank", "r_precision": "Rprec", "bpref": "bpref"}


def trec_collection() -> tuple[LabelIndex, str, dict[str, dict[str, int]]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in (DATA / "qrels.test").read_text().splitlines():
        query, _, doc, grade = line.split()
        qrels.setdefault(query, {})[doc] = int(grade)
    index = LabelIndex.from_judgments(read_trec_qrels(str(DATA / "qrels.test")))
    return index, str(DATA / "results.test"), qrels


def trec_run(path: str) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in Path(path).read_text().splitlines():
        query, _, doc, _, score, _ = line.split()
        run.setdefault(query, {})[doc] = float(score)
    return run


def ranked(scores: Scores) -> dict[str, dict[str, float]]:
    """Our kept rankings as a run trec_eval reads in the same order (no ties)."""
    return {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in scores.rankings.items() if r}


def measures() -> set[str]:
    cutoffs = ",".join(map(str, KS))
    return {f"{name}.{cutoffs}" for name in AT_CUTOFF.values()} | set(WHOLE.values())


def assert_trec_eval_agrees(scores: Scores, oracle: dict[str, dict[str, float]]) -> int:
    compared = 0
    for query_id, ours in scores.per_query.items():
        theirs = oracle.get(query_id)
        if theirs is None:
            continue
        for name, trec in AT_CUTOFF.items():
            for k in KS:
                assert ours[f"{name}@{k}"] == pytest.approx(theirs[f"{trec}_{k}"], abs=TOLERANCE), (query_id, name, k)
        for name, trec in WHOLE.items():
            assert ours[name] == pytest.approx(theirs[trec], abs=TOLERANCE), (query_id, name)
        compared += 1
    return compared


def test_condensed_lists_are_trec_eval_minus_j_on_its_test_collection() -> None:
    index, run_path, qrels = trec_collection()
    config = ScoreConfig(k=KS, gain="linear", full_depth=True, unjudged_policy="condensed")
    scores, _ = score_run_file(index, run_path, config)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures(), judged_docs_only_flag=True)
    assert assert_trec_eval_agrees(scores, evaluator.evaluate(trec_run(run_path))) == 3  # every query of the run


def test_bpref_and_full_depth_metrics_are_trec_eval_on_its_test_collection() -> None:
    index, run_path, qrels = trec_collection()
    scores, _ = score_run_file(index, run_path, ScoreConfig(k=KS, gain="linear", full_depth=True))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures())
    assert assert_trec_eval_agrees(scores, evaluator.evaluate(trec_run(run_path))) == 3  # every query of the run


def judged_oracle(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    wanted = [ir_measures.Judged @ k for k in KS]
    result: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc(wanted, qrels, run):
        result.setdefault(metric.query_id, {})[f"judged@{metric.measure.params['cutoff']}"] = metric.value
    return result


def assert_judged_agrees(scores: Scores, oracle: dict[str, dict[str, float]]) -> int:
    compared = 0
    for query_id, ours in scores.per_query.items():
        if query_id not in oracle:
            continue
        for k in KS:
            assert ours[f"judged@{k}"] == pytest.approx(oracle[query_id][f"judged@{k}"], abs=TOLERANCE), (query_id, k)
        compared += 1
    return compared


def test_judged_at_k_is_ir_measures_judged_on_trec_evals_test_collection() -> None:
    index, run_path, qrels = trec_collection()
    scores, _ = score_run_file(index, run_path, ScoreConfig(k=KS))
    assert assert_judged_agrees(scores, judged_oracle(qrels, trec_run(run_path))) == 3  # every query of the run


@pytest.mark.parametrize("seed", range(4))
def test_judged_condensed_bpref_and_full_depth_agree_on_generated_data(seed: int, tmp_path: Path) -> None:
    judgments_path, run_path, qrels = generate(seed, tmp_path)
    index = read_label_index(str(judgments_path))
    plain, _ = score_run_file(index, str(run_path), ScoreConfig(k=KS, gain="linear", full_depth=True))
    assert assert_judged_agrees(plain, judged_oracle(qrels, ranked(plain))) >= 20
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures())
    assert assert_trec_eval_agrees(plain, evaluator.evaluate(ranked(plain))) >= 20
    config = ScoreConfig(k=KS, gain="linear", full_depth=True, unjudged_policy="condensed")
    condensed, _ = score_run_file(index, str(run_path), config)
    # trec_eval -J drops the unjudged keys itself: hand it the uncondensed rankings.
    judged_only = pytrec_eval.RelevanceEvaluator(qrels, measures(), judged_docs_only_flag=True)
    assert assert_trec_eval_agrees(condensed, judged_only.evaluate(ranked(plain))) >= 20


def whole_run(path: Path) -> dict[str, dict[str, float]]:
    """The run as given, each repeated key at its first position, for trec_eval to read whole."""
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        ranking = list(dict.fromkeys(record["ranking"]))
        if ranking:
            run[record["query_id"]] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
    return run


@pytest.mark.parametrize("cutoffs", [(1,), (5,), (10,), (5, 10), (3,)])
def test_bpref_is_trec_evals_whatever_the_cutoffs(cutoffs: tuple[int, ...], tmp_path: Path) -> None:
    """A report that carries bpref carries trec_eval's (and ir_measures') bpref, read over the
    whole ranking, whichever cutoffs were asked for."""
    judgments_path, run_path, qrels = generate(7, tmp_path)
    index = read_label_index(str(judgments_path))
    for full_depth in (False, True):
        scores, _ = score_run_file(index, str(run_path), ScoreConfig(k=cutoffs, full_depth=full_depth))
        if "bpref" not in scores.metrics:
            assert not full_depth, "bpref is reported with -k all"
            continue
        oracle = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(whole_run(run_path))
        irm = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Bpref], qrels, whole_run(run_path))}
        for query_id, ours in scores.per_query.items():
            if query_id in oracle:
                assert ours["bpref"] == pytest.approx(oracle[query_id]["bpref"], abs=TOLERANCE), (cutoffs, query_id)
                assert ours["bpref"] == pytest.approx(irm[query_id], abs=TOLERANCE), (cutoffs, query_id)
