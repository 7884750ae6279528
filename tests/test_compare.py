"""The comparison: paired deltas on one yardstick, findings said in words, confounded when it must be."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compare_data import labels, ranking, run, score, write_jsonl
from from_json import build_comparison, deltas_of
from helpers import run_cli
from retrieval_eval.core.gates import GateReadings, evaluate_gate, parse_gate
from retrieval_eval.formats.judgments import parse_judgments


def codes(document: dict[str, Any]) -> dict[str, str]:
    return {finding["code"]: finding["effect"] for finding in document["comparability"]}


def gate_status(document: dict[str, Any], expression: str, head: dict[str, Any]) -> str:
    metrics = {name: m["value"] for name, m in head["metrics"].items()}
    context = GateReadings(metrics, comparison=deltas_of(document))
    return evaluate_gate(parse_gate(expression, ks=(5, 10)), context).status


# -- one yardstick -------------------------------------------------------------------


def test_same_yardstick_pairs_queries_and_finds_the_movers(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(misses=range(10)))
    head = score(tmp_path, "head", labels(), run(misses=[0, 1, 2, 3, 4, 20]))
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    document = build_comparison(base, head, judgments=judgments, resamples=2_000)
    assert document["yardstick"] == "same" and document["comparable"]
    recall = document["metrics"]["recall@5"]
    assert (recall["base"], recall["head"], recall["delta"], recall["n"]) == (0.75, 0.85, 0.1, 40)
    assert recall["ci"][0] <= 0.1 <= recall["ci"][1]
    movers = document["movers"]
    assert (movers["down"], movers["up"], movers["unchanged"]) == (1, 5, 34)
    assert movers["drops"] == [
        {
            "query_id": "q20",
            "query": "how do I fix problem 20",
            "stratum": "billing",
            "base": 1.0,
            "head": 0.0,
            "delta": -1.0,
        }
    ]
    assert [m["query_id"] for m in movers["gains"]] == ["q05", "q06", "q07", "q08", "q09"]
    assert document["per_stratum"]["howto"]["delta"] == round(1 / 13, 12)  # q07 gained
    assert document["per_stratum"]["billing"]["delta"] == round(1 / 13, 12)  # q05, q08 gained, q20 dropped
    assert document["comparability"] == []


def test_the_same_inputs_give_the_same_bytes(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(misses=range(10)))
    head = score(tmp_path, "head", labels(), run(misses=[3, 30]))
    first = json.dumps(build_comparison(base, head, resamples=1_000))
    assert first == json.dumps(build_comparison(copy.deepcopy(base), copy.deepcopy(head), resamples=1_000))


def test_without_judgments_strata_come_from_the_reports_and_movers_have_no_text(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(misses=range(10)))
    head = score(tmp_path, "head", labels(), run(misses=[]))
    document = build_comparison(base, head, resamples=500)
    assert document["per_stratum"]["faq"]["n"] is None
    assert document["movers"]["gains"][0]["query"] is None
    assert document["metrics"]["recall@5"]["significant"] is True


# -- a change of yardstick -----------------------------------------------------------


def relabelled() -> list[dict[str, Any]]:
    """The head's judgments: q00-q09 lose document b and gain a relevant document at rank 12; q40 is new."""
    rows = []
    for row in labels():
        index = int(row["query_id"][1:])
        if index < 10 and row["doc_uri"].endswith("/b"):
            row = {**row, "relevance": 0}
        rows.append(row)
    for index in range(10):
        rows.append({**rows[3 * index], "doc_uri": f"doc://noise/{index}/9", "relevance": 1})
    return rows + labels(41)[-3:]


def test_a_pr_that_edits_labels_is_compared_on_one_yardstick(tmp_path: Path) -> None:
    same_run = run(41)
    base = score(tmp_path, "base", labels(), same_run)
    head = score(tmp_path, "head", relabelled(), same_run)
    assert head["metrics"]["recall@5"]["value"] != base["metrics"]["recall@5"]["value"]
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    document = build_comparison(base, head, judgments=judgments, resamples=1_000)
    assert document["yardstick"] == "rescored" and document["comparable"]
    assert codes(document)["judgments-changed"] == "resolved"
    assert document["queries"]["added"] == ["q40"]
    assert codes(document)["queries-added"] == "limits"
    # The run did not change, so on one yardstick nothing moved.
    assert all(row["delta"] == 0 for row in document["metrics"].values())
    assert document["movers"]["drops"] == [] and document["movers"]["gains"] == []
    assert gate_status(document, "recall@5:-0.02", head) == "PASS"


def test_label_edits_without_the_head_judgments_are_confounded(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(41))
    head = score(tmp_path, "head", relabelled(), run(41))
    document = build_comparison(base, head, resamples=500)
    assert document["yardstick"] == "changed" and not document["comparable"]
    assert codes(document)["judgments-changed"] == "confounds"
    assert document["metrics"]["recall@5"]["confounded"].startswith("the judgments changed")
    assert "--judgments" in document["comparability"][0]["meaning"]
    assert gate_status(document, "recall@5:-0.02", head) == "INDETERMINATE"


def test_a_base_without_rankings_cannot_be_rescored(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(41))
    head = score(tmp_path, "head", relabelled(), run(41))
    del base["rankings"]
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    document = build_comparison(base, head, judgments=judgments, resamples=500)
    assert document["yardstick"] == "changed"
    assert "does not carry its rankings" in document["comparability"][0]["meaning"]


def test_the_score_pipeline_rescores_with_the_judgments_it_holds(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(41))
    head = score(tmp_path, "head", relabelled(), run(41), gates=["recall@5:-0.02"], baseline=base)
    assert head["verdict"]["gates"][0]["status"] == "PASS"


def test_a_gain_change_confounds_only_ndcg(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(misses=[1]), gain="linear")
    head = score(tmp_path, "head", labels(), run(misses=[2]))
    document = build_comparison(base, head, resamples=500)
    confounded = sorted(name for name, row in document["metrics"].items() if row["confounded"])
    assert confounded == ["ndcg@10", "ndcg@5"]
    assert gate_status(document, "recall@5:-0.02", head) == "PASS"
    assert gate_status(document, "ndcg@5:-0.02", head) == "INDETERMINATE"


def test_a_threshold_change_is_rescored_when_the_judgments_are_given(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(misses=[1]), threshold=2)
    head = score(tmp_path, "head", labels(), run(misses=[1]))
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    document = build_comparison(base, head, judgments=judgments, resamples=500)
    assert codes(document) == {"threshold-changed": "resolved"}
    assert document["metrics"]["recall@10"]["delta"] == 0


def test_rankings_kept_too_shallow_confound_the_deeper_metrics(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(41), k=(5,))
    head = score(tmp_path, "head", relabelled(), run(41))
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    document = build_comparison(base, head, judgments=judgments, resamples=500)
    assert document["metrics"]["recall@5"]["confounded"] is None
    assert "depth 5" in document["metrics"]["recall@10"]["confounded"]
    assert {"rankings-too-short", "cutoffs-changed"} <= set(codes(document))


def test_new_cutoffs_of_a_rescored_base_are_said_to_have_deltas(tmp_path: Path) -> None:
    # Base at k=10, head at 5,10 under other labels: the base is scored again at 5 from its stored
    # rankings, and recall@5 has a delta. The cutoffs finding said the new cutoff had none.
    base = score(tmp_path, "base", labels(), run(41), k=(10,))
    head = score(tmp_path, "head", relabelled(), run(41), k=(5, 10))
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    document = build_comparison(base, head, judgments=judgments, resamples=500)
    assert document["metrics"]["recall@5"]["delta"] is not None
    (cutoffs,) = [f for f in document["comparability"] if f["code"] == "cutoffs-changed"]
    assert "are new" not in cutoffs["meaning"] and "scored again at the head's cutoffs" in cutoffs["meaning"]
    unrescored = build_comparison(base, head, resamples=500)  # no judgments: nothing is scored again
    (cutoffs,) = [f for f in unrescored["comparability"] if f["code"] == "cutoffs-changed"]
    assert "(cutoff 5 is new)" in cutoffs["meaning"]


def test_metrics_cut_short_for_one_reason_share_one_finding(tmp_path: Path) -> None:
    # Base rankings kept to depth 5, head at 5 and 10: every @10 metric is too short for the one
    # same reason, so the comparability section says it once, naming them all (it printed seven
    # near-identical lines), while each metric keeps its own reason for its gate.
    base = score(tmp_path, "base", labels(), run(41), k=(5,))
    head = score(tmp_path, "head", relabelled(), run(41))
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    document = build_comparison(base, head, judgments=judgments, resamples=200)
    short = [f for f in document["comparability"] if f["code"] == "rankings-too-short"]
    at_10 = [name for name in document["metrics"] if name.endswith("@10")]
    assert len(at_10) == 7 and len(short) == 1
    assert short[0]["metrics"] == at_10
    assert f"too short to score {', '.join(at_10)} again" in short[0]["detail"]
    assert short[0]["meaning"].startswith(f"{', '.join(at_10)} are not compared")
    for name in at_10:
        assert f"too short to score {name} again" in document["metrics"][name]["confounded"]


# -- reports that carry less ---------------------------------------------------------


def test_reports_without_per_query_values_compare_averages_only(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run(misses=range(10)))
    head = score(tmp_path, "head", labels(), run())
    for report in (base, head):
        del report["per_query"]
    document = build_comparison(base, head, resamples=500)
    recall = document["metrics"]["recall@5"]
    assert (recall["delta"], recall["ci"], recall["significant"]) == (0.25, None, None)
    assert codes(document)["no-per-query"] == "limits"
    assert document["movers"]["drops"] == []
    assert gate_status(document, "recall@5:-0.02:significant", head) == "PASS"


def test_a_changed_corpus_is_noted(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(), run())
    head = score(tmp_path, "head", labels(), run())
    base["corpus"] = {"fingerprint": "paragraph/400"}
    head["corpus"] = {"fingerprint": "sentence/200"}
    document = build_comparison(base, head, resamples=200)
    corpus = [f for f in document["comparability"] if f["code"] == "corpus-changed"][0]
    assert corpus["effect"] == "note" and "drift" in corpus["meaning"]


# -- the anti-noise gate -------------------------------------------------------------


@pytest.mark.parametrize(("misses", "status"), [(range(12), "FAIL"), ([7], "PASS")])
def test_significant_gate_fails_only_on_a_real_drop(tmp_path: Path, misses: range | list[int], status: str) -> None:
    base = score(tmp_path, "base", labels(), run())
    head = score(tmp_path, "head", labels(), run(misses=misses), gates=["recall@5:-0.02:significant"], baseline=base)
    gate = head["verdict"]["gates"][0]
    assert gate["status"] == status, gate
    if status == "PASS":
        assert "not significant" in gate["reason"]


# -- the command ---------------------------------------------------------------------


def reports_on_disk(tmp_path: Path) -> tuple[Path, Path]:
    base = score(tmp_path, "base", labels(), run(misses=range(6)))
    head = score(tmp_path, "head", labels(), run(misses=[0, 20]))
    (tmp_path / "base.json").write_text(json.dumps(base))
    (tmp_path / "head.json").write_text(json.dumps(head))
    return tmp_path / "base.json", tmp_path / "head.json"


def test_compare_command_writes_the_document_it_prints(tmp_path: Path) -> None:
    base, head = reports_on_disk(tmp_path)
    out = tmp_path / "cmp.json"
    printed = run_cli(
        "compare",
        "--base",
        str(base),
        "--head",
        str(head),
        "-j",
        str(tmp_path / "head-judgments.jsonl"),
        "--resamples",
        "500",
        "--json",
        "--out",
        str(out),
    )
    assert printed.code == 0, printed.stderr
    assert printed.json() == json.loads(out.read_text())
    text = run_cli("compare", "--base", str(base), "--head", str(head), "--resamples", "500")
    assert "recall@5" in text.stdout and "largest drops" in text.stdout


def test_compare_refuses_judgments_the_head_was_not_scored_with(tmp_path: Path) -> None:
    base, head = reports_on_disk(tmp_path)
    other = write_jsonl(tmp_path / "other.jsonl", labels(12))
    out = tmp_path / "cmp.json"
    result = run_cli("compare", "--base", str(base), "--head", str(head), "-j", str(other), "--out", str(out))
    assert result.code == 2
    assert result.stderr.startswith("error  judgments: this is not the judgments file the head report was scored with")
    assert not out.exists()


def test_compare_refuses_a_file_that_is_not_a_report(tmp_path: Path) -> None:
    base, _ = reports_on_disk(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text('{"spec_version": "1",\n "metrics": ')
    result = run_cli("compare", "--base", str(base), "--head", str(broken))
    assert result.code == 2
    assert result.stderr.startswith("error  head (") and "broken.json):2: not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr


def test_render_refuses_a_comparison_made_for_another_report(tmp_path: Path) -> None:
    base, head = reports_on_disk(tmp_path)
    cmp = tmp_path / "cmp.json"
    assert (
        run_cli("compare", "--base", str(base), "--head", str(base), "--out", str(cmp), "--resamples", "200").code == 0
    )
    result = run_cli("render", "--report", str(head), "--compare", str(cmp), "--format", "comment")
    assert result.code == 2
    assert "another head report" in result.stderr


# -- whatever a report file holds, the comparison answers ------------------------------

JUNK = [None, "x", [], {}, 1.5, True, -3, [None], {"x": "y"}, float("nan")]
PATHS = [
    ("config",),
    ("config", "k"),
    ("config", "threshold"),
    ("config", "gain"),
    ("inputs",),
    ("inputs", "judgments_sha256"),
    ("per_query",),
    ("per_query", "q01"),
    ("per_query", "q01", "recall@5"),
    ("rankings",),
    ("rankings", "q02"),
    ("metrics", "recall@5"),
    ("metrics", "recall@5", "value"),
    ("per_stratum",),
    ("per_stratum", "faq"),
    ("corpus",),
    ("tool",),
    ("judgments",),
]


def spoil(report: dict[str, Any], path: tuple[str, ...], junk: Any) -> None:
    target = report
    for key in path[:-1]:
        if not isinstance(target.get(key), dict):
            return
        target = target[key]
    target[path[-1]] = copy.deepcopy(junk)


@pytest.fixture(scope="module")
def sound_reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any], Any]:
    directory = tmp_path_factory.mktemp("spoilt")
    base = score(directory, "base", labels(12), run(12, misses=[1]))
    head = score(directory, "head", relabelled()[:30], run(12, misses=[2]))
    return base, head, parse_judgments(str(directory / "head-judgments.jsonl"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    spoilt=st.lists(st.tuples(st.booleans(), st.sampled_from(PATHS), st.sampled_from(JUNK)), max_size=4),
    with_judgments=st.booleans(),
)
def test_spoilt_reports_never_raise(
    sound_reports: tuple[dict[str, Any], dict[str, Any], Any],
    spoilt: list[tuple[bool, tuple[str, ...], Any]],
    with_judgments: bool,
) -> None:
    base, head, judgments = (copy.deepcopy(sound_reports[0]), copy.deepcopy(sound_reports[1]), sound_reports[2])
    for on_head, path, junk in spoilt:
        spoil(head if on_head else base, path, junk)
    document = build_comparison(base, head, judgments=judgments if with_judgments else None, resamples=50)
    json.dumps(document, allow_nan=False)
    deltas_of(document)


# -- what the judgments add, and what they must not change ----------------------------------


def test_compare_text_shows_the_movers_query_text_and_stratum_with_judgments(tmp_path: Path) -> None:
    base, head = reports_on_disk(tmp_path)  # q20 (billing) drops; q01..q05 gain
    judged = str(tmp_path / "head-judgments.jsonl")
    with_text = run_cli("compare", "--base", str(base), "--head", str(head), "-j", judged, "--resamples", "200")
    assert with_text.code == 0, with_text.stderr
    # The text comes from the judgments file's own query field, as written there.
    drop = next(line for line in with_text.stdout.splitlines() if " q20" in line)
    assert drop.split() == ["-1.0000", "1.0000", "->", "0.0000", "q20", "[billing]", *"how do I fix problem 20".split()]
    without = run_cli("compare", "--base", str(base), "--head", str(head), "--resamples", "200")
    drop = next(line for line in without.stdout.splitlines() if " q20" in line)
    assert drop.split() == ["-1.0000", "1.0000", "->", "0.0000", "q20"]


def half_run(n: int, seed: int) -> list[dict[str, Any]]:
    """Each query finds both relevant documents, one of them (recall 0.5) or neither, at random."""
    import random

    rng = random.Random(seed)
    rows = []
    for i in range(n):
        full = ranking(i, hit=True)
        shape = rng.random()
        keys = full if shape < 0.5 else ([full[0], *full[2:], full[1]] if shape < 0.8 else ranking(i, hit=False))
        rows.append({"query_id": f"q{i:02d}", "ranking": keys})
    return rows


@pytest.mark.parametrize("use_numpy", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_judgments_change_no_overall_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_numpy: bool, seed: int
) -> None:
    """Strata read the same resamples as the whole set: knowing them changes no metric's draw, so
    every overall interval and p-value is the same with -j and without it (both draw paths)."""
    from retrieval_eval.core import significance

    if not use_numpy:
        monkeypatch.setattr(significance, "_numpy_draws", lambda: None)
    base = score(tmp_path, "base", labels(), half_run(40, seed))
    head = score(tmp_path, "head", labels(), half_run(40, seed + 100))
    judgments = parse_judgments(str(tmp_path / "head-judgments.jsonl"))
    alone = build_comparison(base, head, resamples=2_000, seed=seed)
    stratified = build_comparison(base, head, judgments=judgments, resamples=2_000, seed=seed)
    assert stratified["yardstick"] == alone["yardstick"] == "same"
    assert any(row["n"] for row in stratified["per_stratum"].values())  # the strata were bootstrapped
    for name, row in alone["metrics"].items():
        other = stratified["metrics"][name]
        keys = ("ci", "p_value", "significant", "p_adjusted", "significant_adjusted")
        assert {k: row[k] for k in keys} == {k: other[k] for k in keys}, name
