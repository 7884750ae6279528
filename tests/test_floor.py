"""The floor in the report (margins, intervals, the floor gate), the eval-set checks, and receipts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from compare_data import labels, run, write_jsonl
from helpers import run_cli
from retrieval_eval.core.gates import FAIL, INDETERMINATE, PASS, GateReadings, Gating, evaluate_gate, parse_gate
from retrieval_eval.core.report_model import Floor, Margin
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.core.sensitivity import Thresholds, answer_in_query_issues, longest_common_run
from retrieval_eval.core.significance import paired_bootstrap
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

KS = (5, 10)
RESAMPLES = 500


def evaluated(tmp_path: Path, head_misses: list[int], floor_misses: list[int] | None, gates: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """40 queries in three strata; the floor is the same kind of run with its own misses."""
    judgments = write_jsonl(tmp_path / "j.jsonl", labels())
    head = write_jsonl(tmp_path / "head.jsonl", run(misses=head_misses))
    floor = "" if floor_misses is None else str(write_jsonl(tmp_path / "floor.jsonl", run(misses=floor_misses)))
    request = EvaluationRequest(str(judgments), str(head), ScoreConfig(k=KS), floor=floor, gating=Gating(gates=gates))
    return run_pipeline(request)


def test_the_margin_is_the_difference_of_the_averages_with_the_bootstrap_of_compare(tmp_path: Path) -> None:
    evaluation = evaluated(tmp_path, head_misses=[0, 1], floor_misses=list(range(10)))
    floor = evaluation.report["floor"]
    # recall@5: the head misses 2 of 40 queries (0.95), the floor 10 (0.75).
    row = floor["metrics"]["recall@5"]
    assert (row["floor"], row["head"], row["margin"], row["n"]) == (0.75, 0.95, 0.2, 40)
    # The interval is the paired bootstrap of core/significance.py over the same per-query values.
    head = evaluation.report["per_query"]
    floor_values = {q: {"recall@5": 0.0 if int(q[1:]) < 10 else 1.0} for q in head}
    oracle = paired_bootstrap(floor_values, head, ["recall@5"])["recall@5"]
    assert row["ci"] == [oracle.low, oracle.high] and row["significant"] is oracle.significant is True
    assert floor["source"] == "run" and floor["queries"] == 40
    assert floor["run_sha256"] == evaluation.report["inputs"]["floor_sha256"]
    assert floor["run_sha256"] == hashlib.sha256((tmp_path / "floor.jsonl").read_bytes()).hexdigest()


def test_the_margin_per_stratum_is_over_that_stratum_s_queries(tmp_path: Path) -> None:
    # Strata cycle faq, howto, billing: queries 0, 3, 6, 9 are faq. The floor misses 0..9,
    # so faq's floor misses 0, 3, 6, 9 of its 14 queries; the head misses none.
    floor = evaluated(tmp_path, head_misses=[], floor_misses=list(range(10))).report["floor"]
    faq = floor["per_stratum"]["faq"]
    assert faq["n"] == 14
    assert faq["metrics"]["recall@5"]["margin"] == round(4 / 14, 12)
    assert faq["metrics"]["recall@5"]["floor"] == round(10 / 14, 12)


def test_a_floor_run_s_sidecar_says_how_it_was_made_when_it_describes_those_bytes(tmp_path: Path) -> None:
    floor_run = write_jsonl(tmp_path / "floor.jsonl", run(misses=[3]))
    sha = hashlib.sha256(floor_run.read_bytes()).hexdigest()
    meta = {"method": "bm25", "parameters": {"k1": 1.5}, "tokenizer": {"stemmer": None}, "run": {"sha256": sha}}
    (tmp_path / "floor.jsonl.meta.json").write_text(json.dumps(meta))
    request = EvaluationRequest(
        str(write_jsonl(tmp_path / "j.jsonl", labels())),
        str(write_jsonl(tmp_path / "h.jsonl", run())),
        floor=str(floor_run),
    )
    assert run_pipeline(request).report["floor"]["method"] == "bm25"
    (tmp_path / "floor.jsonl.meta.json").write_text(json.dumps({**meta, "run": {"sha256": "0" * 64}}))
    assert "method" not in run_pipeline(request).report["floor"]


# -- the floor gate ---------------------------------------------------------------------------


def floor_context(margin: float, ci: list[float] | None = None) -> GateReadings:
    row = Margin(floor=0.6, head=0.6 + margin, margin=margin, ci=None if ci is None else tuple(ci))
    return GateReadings({"recall@10": 0.6 + margin}, floor=Floor(metrics={"recall@10": row}))


def test_the_floor_gate_reads_the_margin() -> None:
    gate = parse_gate("floor:recall@10:+0.05", ks=KS)
    assert evaluate_gate(gate, floor_context(0.05)).status == PASS  # at the margin exactly
    assert evaluate_gate(gate, floor_context(0.0499)).status == FAIL
    result = evaluate_gate(gate, GateReadings({"recall@10": 0.7}))
    assert result.status == INDETERMINATE and "no floor run was given" in result.reason
    missing = GateReadings({"recall@10": 0.7}, floor=Floor(source="bm25", unavailable="install the lanes"))
    assert evaluate_gate(gate, missing).status == INDETERMINATE


def test_significant_floor_gate_fails_only_when_the_whole_interval_is_short() -> None:
    gate = parse_gate("floor:recall@10:+0.05:significant", ks=KS)
    assert gate.significant_only
    assert evaluate_gate(gate, floor_context(0.02, [-0.01, 0.06])).status == PASS
    assert evaluate_gate(gate, floor_context(0.02, [0.01, 0.04])).status == FAIL
    assert evaluate_gate(gate, floor_context(0.02)).status == INDETERMINATE


@pytest.mark.parametrize("text", ["floor:recall@10", "floor:recall@7:+0.1", "floor:recall@10:+0.1:loud", "floor:x:1"])
def test_bad_floor_gates_are_usage_errors(text: str) -> None:
    from retrieval_eval.core.errors import UsageError

    with pytest.raises(UsageError):
        parse_gate(text, ks=KS)


def test_floor_gates_through_the_pipeline(tmp_path: Path) -> None:
    gates = ("floor:recall@5:+0.1", "floor:recall@5:+0.3")
    statuses = [g["status"] for g in evaluated(tmp_path, [0], list(range(10)), gates).report["verdict"]["gates"]]
    assert statuses == [PASS, FAIL]  # a margin of 0.225
    without = evaluated(tmp_path, [0], None, gates[:1]).report
    assert without["verdict"]["status"] == INDETERMINATE and "floor" not in without


def test_a_bm25_floor_needs_a_corpus(tmp_path: Path) -> None:
    judgments, head = write_jsonl(tmp_path / "j.jsonl", labels()), write_jsonl(tmp_path / "r.jsonl", run())
    result = run_cli("score", "-j", str(judgments), "-r", str(head), "--floor", "bm25")
    assert result.code == 2 and "--floor: bm25 is computed over a corpus; set corpus too" in result.stderr


# -- the eval-set checks ------------------------------------------------------------------------


def test_longest_common_run_by_hand() -> None:
    query = "how do i get a refund for my yearly plan".split()
    text = "you get a refund for your yearly plan within 30 days".split()
    assert longest_common_run(query, text) == (4, 3)  # "get a refund for"
    assert longest_common_run([], text) == (0, 0)


def test_answer_in_query_names_the_query_the_key_and_the_words() -> None:
    texts = {"k1": "Yearly plans can be refunded within 30 days of the renewal date."}
    queries = {"q1": "can yearly plans be refunded within 30 days of the renewal date", "q2": "refund rules"}
    issues = answer_in_query_issues(queries, {"q1": ["k1"], "q2": ["k1"]}, texts.get, 8)
    assert [(i.code, i.subject) for i in issues] == [("answer-in-query", "q1")]
    assert 'repeats 9 consecutive words of its relevant k1 ("be refunded within 30 days of the renewal date")' in (
        issues[0].message
    )
    assert answer_in_query_issues(queries, {"q1": ["k1"]}, texts.get, 10) == []


def test_the_bundled_demo_has_one_deliberately_easy_stratum(tmp_path: Path) -> None:
    demo = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
    result = run_cli("validate", "-j", str(demo / "judgments.jsonl"), "--corpus", str(demo / "corpus.json"), "-k", "5")
    assert result.code == 0, result.stderr
    assert "easy-set  on stratum sync the BM25 floor reaches hit_rate@5 1.000 over 6 queries" in result.stdout
    assert result.stdout.count("easy-set") == 1  # billing and account have distractors, the whole set is not easy
    lenient = run_cli(
        "validate", "-j", str(demo / "judgments.jsonl"), "--corpus", str(demo / "corpus.json"), "--easy-set", "off",
        "--answer-in-query", "3",
    )  # fmt: skip
    assert (
        "easy-set" not in lenient.stdout and "answer-in-query  query a3 repeats 3 consecutive words" in lenient.stdout
    )


@pytest.mark.parametrize(("cutoffs", "first"), [("5,10", "5"), ("10,all", "10"), (" 5 , 20", "5")])
def test_validate_reads_k_as_score_does_and_checks_the_easy_set_at_the_first_cutoff(cutoffs: str, first: str) -> None:
    demo = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
    judged, corpus = str(demo / "judgments.jsonl"), str(demo / "corpus.json")

    def issues(*k: str) -> list[dict[str, Any]]:
        done = run_cli("validate", "-j", judged, "--corpus", corpus, "--json", *k)
        assert done.code == 0, done.stderr
        return [i for i in json.loads(done.stdout)["issues"] if i["code"] == "easy-set"]

    many, one = issues("-k", cutoffs), issues("-k", first)
    assert many == one and one, (many, one)
    assert all(f"hit_rate@{first} " in issue["message"] for issue in many)
    # score, given the same -k, warns of the same strata with the same words.
    scored = run_cli("score", "-j", judged, "-r", str(demo / "run.jsonl"), "--corpus", corpus, "-k", cutoffs, "--json")
    assert scored.code in (0, 1), scored.stderr
    warned = json.loads(scored.stdout)["sensitivity"]["warnings"]
    assert [(w["subject"], w["message"]) for w in warned if w["code"] == "easy-set"] == [
        (i["subject"], i["message"]) for i in many
    ]


def test_validate_k_all_alone_skips_the_easy_set_check_and_says_so() -> None:
    demo = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
    done = run_cli("validate", "-j", str(demo / "judgments.jsonl"), "--corpus", str(demo / "corpus.json"), "-k", "all")
    assert done.code == 0 and "easy-set" not in done.stdout
    assert "the easy-set check was skipped: it reads hit_rate at a cutoff, and -k all names none" in done.stderr


@pytest.mark.parametrize("cutoffs", ["5_0", "0", "5,,", "\u0665", "1e1", "1000001"])
def test_validate_refuses_a_k_score_refuses(cutoffs: str) -> None:
    demo = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
    done = run_cli("validate", "-j", str(demo / "judgments.jsonl"), "-k", cutoffs)
    assert done.code == 2 and "-k" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert run_cli("score", "-j", str(demo / "judgments.jsonl"), "-r", str(demo / "run.jsonl"), "-k", cutoffs).code == 2


def test_thresholds_default_as_documented() -> None:
    assert Thresholds() == Thresholds(0.95, 8)


# -- receipts and verify-chain ----------------------------------------------------------------


def test_reports_chain_by_the_hash_of_the_baseline_bytes_and_verify_chain_says_where_it_breaks(tmp_path: Path) -> None:
    judgments = write_jsonl(tmp_path / "j.jsonl", labels())
    runs = [write_jsonl(tmp_path / f"r{i}.jsonl", run(misses=range(i))) for i in range(3)]
    common = ("-j", str(judgments), "-k", "5,10", "--now", "2026-01-01T00:00:00Z")
    assert run_cli("score", *common, "-r", str(runs[0]), "--out", str(tmp_path / "a.json")).code == 0
    for previous, name, run_path in (("a", "b", runs[1]), ("b", "c", runs[2])):
        scored = run_cli(
            "score", *common, "-r", str(run_path), "--baseline", str(tmp_path / f"{previous}.json"),
            "--out", str(tmp_path / f"{name}.json"),
        )  # fmt: skip
        assert scored.code in (0, 1), scored.stderr
    a, b, c = (tmp_path / f"{n}.json" for n in "abc")
    recorded = json.loads(b.read_text())["inputs"]
    assert recorded["baseline_sha256"] == hashlib.sha256(a.read_bytes()).hexdigest()
    assert recorded["floor_sha256"] is None and json.loads(a.read_text())["inputs"]["baseline_sha256"] is None

    linked = run_cli("verify-chain", str(a), str(b), str(c))
    assert linked.code == 0 and "3 report(s) link up" in linked.stdout, linked.stdout
    broken = run_cli("verify-chain", str(a), str(c))
    assert broken.code == 1
    assert f"break  between {a} and {c}: it was compared with a report whose sha256 is" in broken.stdout
    unlinked = run_cli("verify-chain", str(b), str(a))
    assert unlinked.code == 1 and "records no baseline_sha256" in unlinked.stdout
    (tmp_path / "bad.json").write_text("{not json")
    unreadable = run_cli("verify-chain", str(a), str(tmp_path / "bad.json"))
    assert unreadable.code == 2 and "not valid JSON" in unreadable.stderr and "Traceback" not in unreadable.stderr


def test_computing_the_bm25_floor_leaves_no_thread_behind(tmp_path: Path) -> None:
    import threading

    demo = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
    before = threading.active_count()
    request = EvaluationRequest(
        str(demo / "judgments.jsonl"), str(demo / "run.jsonl"), corpus_path=str(demo / "corpus.json"), floor="bm25"
    )
    assert run_pipeline(request).report["floor"]["source"] == "bm25"
    assert threading.active_count() == before  # a live thread would keep the pipeline from forking workers
