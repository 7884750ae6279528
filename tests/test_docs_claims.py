"""What README and docs/api.md say about other tools, checked by running those tools.

Each test first establishes the fact with the tool itself, then checks that the docs state
that fact (and not its opposite) where a newcomer comparing numbers reads first.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import retrieval_eval

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
METRICS = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")  # the reference the README links to
API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}}
RUN = {"q1": {"d1": 1.0}}  # q2, judged, is not answered


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.ranx
def test_an_unanswered_judged_query_scores_0_in_ir_measures_and_ranx_and_is_left_out_by_trec_eval() -> None:
    ir_measures = pytest.importorskip("ir_measures")
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ranx = pytest.importorskip("ranx")
    ours = retrieval_eval.evaluate(QRELS, RUN, k=1).value("precision@1")
    assert ours == 0.5
    assert ir_measures.calc_aggregate([ir_measures.P @ 1], QRELS, RUN)[ir_measures.P @ 1] == ours
    assert ranx.evaluate(ranx.Qrels(QRELS), ranx.Run(RUN), "precision@1", make_comparable=True) == ours
    assert set(pytrec_eval.RelevanceEvaluator(QRELS, {"P.1"}).evaluate(RUN)) == {"q1"}  # q2 left out
    for text in (flat(METRICS), flat(API)):
        assert "scores 0 here, as in ir_measures" in text or "scores 0 in retrieval-eval, as in ir_measures" in text
        assert "ranx with `make_comparable=True`" in text
        assert "trec_eval leaves it out" in text
        assert "trec_eval and ir_measures leave it out" not in text and "left out by the others" not in text


def test_ndcg_agrees_with_trec_eval_only_with_linear_gain_and_the_docs_say_so_where_they_claim_agreement() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels = {"q": {"a": 1, "b": 2, "c": 3}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.3"}).evaluate(run)["q"]["ndcg_cut_3"]
    linear = retrieval_eval.evaluate(qrels, run, k=3, gain="linear").value("ndcg@3")
    exponential = retrieval_eval.evaluate(qrels, run, k=3).value("ndcg@3")
    assert linear == pytest.approx(trec, abs=1e-9) and abs(exponential - trec) > 1e-3
    claim = flat(README).index("agreeing with trec_eval")
    assert "--gain linear" in flat(README)[claim : claim + 200]  # said in the sentence that claims it
    assert "nDCG gains use the raw grades, as trec_eval does" not in flat(README) + flat(METRICS)
