"""Every case of spec/fixtures, through the library and, for refusals and orderings, the CLI."""

from __future__ import annotations

import pytest

from helpers import expected, fixture_path, run_cli
from retrieval_eval.core.errors import InputError
from retrieval_eval.core.gates import Gating
from retrieval_eval.core.identity import chunk_id, normalize, text_sha
from retrieval_eval.core.report_model import Measurement
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.core.summarize import summarize_samples
from retrieval_eval.core.validate import validate
from retrieval_eval.formats.judgments import parse_judgments
from retrieval_eval.formats.qrels import qrels_lines, read_beir_qrels, read_trec_qrels
from retrieval_eval.formats.runs import parse_run
from retrieval_eval.formats.samples import measurement_to_json
from retrieval_eval.formats.typedjson import from_json
from retrieval_eval.formats.validation import validation_to_json
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

TOLERANCE = 1e-10
# Fixture per-query names -> our metric names at cutoff k.
PER_QUERY_NAMES = {
    "precision": "precision",
    "recall": "recall",
    "ndcg": "ndcg",
    "mrr": "mrr",
    "ap": "map",
    "hit_rate": "hit_rate",
}


def score_case(case: str, *, k: tuple[int, ...], threshold: int = 1, gates: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    request = EvaluationRequest(
        judgments_path=fixture_path(case, "judgments.jsonl"),
        run_path=fixture_path(case, "run.jsonl"),
        scoring=ScoreConfig(k=k, threshold=threshold),
        gating=Gating(gates=gates),
    )
    return run_pipeline(request)


def assert_metrics(report_metrics: dict, wanted: dict) -> None:  # type: ignore[type-arg]
    for name, value in wanted.items():
        assert report_metrics[name]["value"] == pytest.approx(value, abs=TOLERANCE), name


def test_basic_metrics_at_both_cutoffs_and_per_query() -> None:
    case = expected("basic")
    evaluation = score_case("basic", k=(case["k"], 1))
    assert_metrics(evaluation.report["metrics"], case["metrics"])
    assert_metrics(evaluation.report["metrics"], case["metrics_k1"])
    for query_id, values in case["per_query"].items():
        for name, value in values.items():
            got = evaluation.report["per_query"][query_id][f"{PER_QUERY_NAMES[name]}@{case['k']}"]
            assert got == pytest.approx(value, abs=TOLERANCE), (query_id, name)


def test_basic_qrels_lines() -> None:
    labels = parse_judgments(fixture_path("basic", "judgments.jsonl")).labels
    assert list(qrels_lines(labels)) == expected("basic")["qrels_lines"]


def test_chunk_id_vectors() -> None:
    case = expected("chunk-id")
    for vector in case["normalize"]:
        assert normalize(vector["in"]) == vector["out"]
    for vector in case["text_sha"]:
        assert text_sha(vector["text"]) == vector["out"]
    for vector in case["chunk_id"]:
        args = {k: v for k, v in vector.items() if k != "out"}
        assert chunk_id(**args) == vector["out"]


def test_qrels_read_both_forms_and_write_back() -> None:
    case = expected("qrels")
    beir = read_beir_qrels(fixture_path("qrels", "beir.tsv"))
    trec = read_trec_qrels(fixture_path("qrels", "trec.qrels"))
    assert [label.record for label in beir.labels] == case["beir"]
    assert [label.record for label in trec.labels] == case["trec"]
    assert list(qrels_lines(beir.labels)) == case["qrels_lines"]


def test_qrels_through_the_cli() -> None:
    result = run_cli("convert", fixture_path("qrels", "beir.tsv"), "--to", "trec-qrels")
    assert result.code == 0, result.stderr
    assert result.stdout.splitlines() == expected("qrels")["qrels_lines"]


def test_strata_metrics_per_stratum_and_worst() -> None:
    case = expected("strata")
    report = score_case("strata", k=(case["k"],)).report
    assert_metrics(report["metrics"], case["metrics"])
    assert set(report["per_stratum"]) == set(case["per_stratum"])
    for name, stratum in case["per_stratum"].items():
        assert report["per_stratum"][name]["n"] == stratum["n"]
        assert_metrics(report["per_stratum"][name]["metrics"], stratum["metrics"])
    assert report["worst_stratum"] == case["worst_stratum"]


def test_stratum_order_is_by_code_point_scored_first() -> None:
    case = expected("stratum-order")
    report = score_case("stratum-order", k=(case["k"],), threshold=case["threshold"]).report
    assert list(report["per_stratum"]) == case["scored_order"] + case["unscored_order"]
    assert {name: s["n"] for name, s in report["per_stratum"].items()} == case["per_stratum_n"]
    assert_metrics(report["metrics"], case["metrics"])


def test_stratum_order_through_the_cli() -> None:
    case = expected("stratum-order")
    result = run_cli(
        "score",
        "-j",
        fixture_path("stratum-order", "judgments.jsonl"),
        "-r",
        fixture_path("stratum-order", "run.jsonl"),
        "-k",
        "3",
        "--threshold",
        "2",
        "--json",
    )
    assert result.code == 0, result.stderr
    assert list(result.json()["per_stratum"]) == case["scored_order"] + case["unscored_order"]


@pytest.mark.parametrize("name", sorted(expected("summarize")["cases"]))
def test_summarize_cases(name: str) -> None:
    case = expected("summarize")["cases"][name]
    got = measurement_to_json(summarize_samples(case["samples"]))
    want = case["expected"]
    assert set(got) == set(want)
    for key, value in want.items():
        if isinstance(value, list):
            assert got[key] == pytest.approx(value, abs=TOLERANCE)
        else:
            assert got[key] == pytest.approx(value, abs=TOLERANCE) if isinstance(value, float) else got[key] == value


def test_no_positives_is_left_out_not_scored_zero() -> None:
    case = expected("no-positives")
    report = score_case("no-positives", k=(case["k"],)).report
    assert report["judgments"]["queries"] == case["queries"]
    assert report["judgments"]["queries_scored"] == case["queries_scored"]
    assert report["queries"]["without_positives"] == case["queries_without_positives"]
    assert_metrics(report["metrics"], case["metrics"])


def test_nothing_scored_emits_no_metric_and_is_indeterminate() -> None:
    case = expected("nothing-scored")
    report = score_case("nothing-scored", k=(3,), threshold=case["threshold"], gates=("recall@3:0.5",)).report
    assert report["metrics"] == {}
    assert report["judgments"]["queries"] == case["queries"]
    assert report["judgments"]["queries_scored"] == case["queries_scored"]
    assert report["verdict"]["status"] == case["status"]
    assert case["reason"] in report["verdict"]["reasons"]
    assert case["gate_reason"] in report["verdict"]["reasons"]


def test_nothing_scored_through_the_cli_exits_1() -> None:
    case = expected("nothing-scored")
    result = run_cli(
        "score",
        "-j",
        fixture_path("nothing-scored", "judgments.jsonl"),
        "-r",
        fixture_path("nothing-scored", "run.jsonl"),
        "-k",
        "3",
        "--threshold",
        str(case["threshold"]),
        "-g",
        "recall@3:0.5",
    )
    assert result.code == 1
    assert case["reason"] in result.stdout
    assert "INDETERMINATE" in result.stdout


def test_duplicate_ranking_counts_a_key_once() -> None:
    case = expected("duplicate-ranking")
    evaluation = score_case("duplicate-ranking", k=(case["k"],))
    report = evaluation.report
    assert report["queries"]["with_duplicates"] == case["queries_with_duplicates"]
    assert report["rankings"] == case["deduped_rankings"]
    assert_metrics(report["metrics"], case["metrics"])
    assert report["verdict"]["status"] == case["verdict"]
    assert case["reason"] in report["verdict"]["reasons"]
    for query_id, values in case["per_query"].items():
        for name, value in values.items():
            if name in PER_QUERY_NAMES:
                got = report["per_query"][query_id][f"{PER_QUERY_NAMES[name]}@{case['k']}"]
                assert got == pytest.approx(value, abs=TOLERANCE), (query_id, name)


@pytest.mark.parametrize("rejected", expected("duplicate-ranking")["rejected"]["cases"], ids=lambda c: c["file"])
def test_malformed_runs_are_refused_with_the_exact_message(rejected: dict) -> None:  # type: ignore[type-arg]
    path = fixture_path("duplicate-ranking", rejected["file"])
    with pytest.raises(InputError) as refusal:
        parse_run(path)
    assert str(refusal.value) == rejected["message"]
    result = run_cli("score", "-j", fixture_path("duplicate-ranking", "judgments.jsonl"), "-r", path)
    assert result.code == 2
    assert result.stderr.splitlines()[0] == f"error  {rejected['message']}"
    assert "Traceback" not in result.stderr


def test_unsound_judgments_cannot_pass() -> None:
    case = expected("unsound-judgments")
    judgments = parse_judgments(fixture_path("unsound-judgments", "judgments.jsonl"))
    validation = validate(judgments)
    assert validation.ok is case["validate"]["ok"]
    assert validation.error_codes() == case["validate"]["error_codes"]
    evaluation = score_case("unsound-judgments", k=(case["k"],), gates=(case["gate"]["expression"],))
    report = evaluation.report
    assert report["judgments"]["queries"] == case["queries"]
    assert report["judgments"]["queries_scored"] == case["queries_scored"]
    assert report["verdict"]["status"] == case["verdict"]
    assert case["reason"] in report["verdict"]["reasons"]
    assert report["verdict"]["gates"][0]["status"] == case["gate"]["gate_status"]


def test_unsound_judgments_through_the_cli() -> None:
    case = expected("unsound-judgments")
    result = run_cli(
        "score",
        "-j",
        fixture_path("unsound-judgments", "judgments.jsonl"),
        "-r",
        fixture_path("unsound-judgments", "run.jsonl"),
        "-k",
        str(case["k"]),
        "-g",
        case["gate"]["expression"],
        "--json",
    )
    assert result.code == case["gate"]["exit_code"]
    assert result.json()["verdict"]["status"] == case["gate"]["verdict"]
    checked = run_cli("validate", "-j", fixture_path("unsound-judgments", "judgments.jsonl"), "--json")
    assert checked.code == 1
    assert [i["code"] for i in checked.json()["issues"] if i["severity"] == "error"] == case["validate"]["error_codes"]


def _issue_keys(issues: list[dict]) -> list[str]:  # type: ignore[type-arg]
    return [f"{i['code']}:{i['subject']}" if i["subject"] else i["code"] for i in issues]


def test_unsorted_queries_issue_order() -> None:
    case = expected("unsorted-queries")
    result = validation_to_json(validate(parse_judgments(fixture_path("unsorted-queries", "judgments.jsonl"))))
    assert _issue_keys(result["issues"]) == case["issue_order"]
    assert result["ok"] is case["ok"]
    assert (result["queries"], result["labels"]) == (case["queries"], case["labels"])


def test_unsorted_queries_issue_order_through_the_cli() -> None:
    case = expected("unsorted-queries")
    result = run_cli("validate", "-j", fixture_path("unsorted-queries", "judgments.jsonl"), "--json")
    assert result.code == 0
    issues = result.json()["issues"]
    assert _issue_keys(issues) == case["issue_order"]
    assert [i["subject"] for i in issues if i["code"] == "missing-query-text"] == case["missing_query_text_order"]
    assert [i["subject"] for i in issues if i["code"] == "thin-stratum"] == case["thin_stratum_order"]


@pytest.mark.parametrize("samples", [[0.5], [1, 2, 3.5], [0.25, 0.25, 0.75, 1.0]])
def test_a_summary_reads_back_as_the_measurement_it_was_written_from(samples: list[float]) -> None:
    measurement = summarize_samples(samples)
    assert from_json(Measurement, measurement_to_json(measurement)) == measurement
    assert (measurement.ci is None) == (len(samples) == 1) and measurement.deterministic is False
