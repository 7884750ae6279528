"""The Python API: the same data through dicts, DataFrames, paths and the CLI gives one report."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections import namedtuple
from pathlib import Path
from typing import Any

import pytest

import retrieval_eval
from helpers import run_cli

NOW = "2026-01-01T00:00:00Z"
# Grades 0-3; q4 has no positive label; q5 is judged but not in the run.
QRELS = {
    "q1": {"d1": 3, "d2": 1, "d3": 0},
    "q2": {"d4": 2, "d5": 2},
    "q3": {"d6": 1, "d7": 1, "d8": 2},
    "q4": {"d9": 0},
    "q5": {"d1": 1},
}
# q9 is not judged.
RANKINGS = {
    "q1": ["d2", "d9", "d1", "d3"],
    "q2": ["d5", "d1", "d2", "d4", "d7", "d8"],
    "q3": ["d0", "d1", "d2"],
    "q4": ["d9"],
    "q9": ["d1"],
}
BASE_RANKINGS = {q: list(reversed(r)) for q, r in RANKINGS.items()}
SETTINGS: dict[str, Any] = {"k": (3, 5), "gain": "linear", "gates": ["nDCG@3:0.2", "P_5:-0.5", "R@3:-0.1:significant"]}


def compact(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def write_canonical(tmp: Path) -> tuple[Path, Path, Path]:
    """The judgments and run as the canonical JSONL files, and a base report."""
    judgments = tmp / "judgments.jsonl"
    judgments.write_text(
        "".join(
            compact({"query_id": q, "doc_uri": d, "relevance": g}) for q, docs in QRELS.items() for d, g in docs.items()
        )
    )
    run = tmp / "run.jsonl"
    run.write_text("".join(compact({"query_id": q, "ranking": r}) for q, r in RANKINGS.items()))
    base = retrieval_eval.evaluate(QRELS, BASE_RANKINGS, k=(3, 5), gain="linear", generated_at=NOW)
    (tmp / "base.json").write_text(json.dumps(base.to_dict(), indent=2) + "\n")  # as score --out writes it
    return judgments, run, tmp / "base.json"


def without_time(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key != "generated_at"}


def test_dicts_frames_paths_and_the_cli_give_one_report(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    judgments, run, base = write_canonical(tmp_path)
    baseline = retrieval_eval.load_report(json.loads(base.read_text()))
    from_dicts = retrieval_eval.evaluate(QRELS, RANKINGS, baseline=baseline, generated_at=NOW, **SETTINGS)
    qrels_frame = pd.DataFrame(
        [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()], columns=["query_id", "doc_id", "relevance"]
    )
    # Scores that trec_eval's order turns back into the rankings above.
    run_frame = pd.DataFrame(
        [(q, d, float(len(r) - i)) for q, r in RANKINGS.items() for i, d in enumerate(r)],
        columns=["query_id", "doc_id", "score"],
    )
    from_frames = retrieval_eval.evaluate(qrels_frame, run_frame, baseline=baseline, generated_at=NOW, **SETTINGS)
    from_paths = retrieval_eval.evaluate(judgments, str(run), baseline=base, generated_at=NOW, **SETTINGS)
    cli = run_cli(
        "score", "-j", str(judgments), "-r", str(run), "-k", "3,5", "--gain", "linear",
        *[part for gate in SETTINGS["gates"] for part in ("-g", gate)],
        "--baseline", str(base), "--report", str(tmp_path / "cli.json"), "--now", "2026-02-02T00:00:00Z",
        "--config", "none",
    )  # fmt: skip
    assert cli.code in (0, 1), cli.stderr
    from_cli = json.loads((tmp_path / "cli.json").read_text())
    expected = without_time(from_cli)
    assert without_time(from_dicts.to_dict()) == expected
    assert without_time(from_frames.to_dict()) == expected
    assert without_time(from_paths.to_dict()) == expected
    assert [g["expression"] for g in expected["verdict"]["gates"]] == SETTINGS["gates"]


def test_values_by_hand() -> None:
    evaluation = retrieval_eval.evaluate(QRELS, RANKINGS, k=(3,), gain="linear", generated_at=NOW)
    # q1: d2 (1) at 1, d1 (3) at 3; two relevant labels. q2: d5 at 1; two relevant. q3: nothing in the top 3.
    assert evaluation.per_query["q1"]["precision@3"] == pytest.approx(2 / 3)
    assert evaluation.per_query["q2"]["recall@3"] == 0.5
    assert evaluation.per_query["q5"]["recall@3"] == 0.0  # judged, missing from the run: scores 0
    assert sorted(evaluation.per_query) == ["q1", "q2", "q3", "q5"]  # q4 has no positive label
    assert evaluation.value("RR@3") == evaluation.metrics["mrr@3"] == pytest.approx((1 + 1 + 0 + 0) / 4)
    assert evaluation.worst_queries("Success@3", n=2) == [("q3", 0.0), ("q5", 0.0)]
    assert evaluation.to_dict()["queries"]["unjudged"] == ["q9"]


def test_scores_are_ordered_as_trec_eval_orders_them() -> None:
    run = retrieval_eval.load_run({"q1": {"a": 1.0, "b": 2.0, "c": 1.0, "d": 0.5}})
    assert run.to_dict() == {"q1": ["b", "c", "a", "d"]}  # ties by document id, descending


def test_qrels_rows_of_every_shape_read_alike() -> None:
    from_dict = retrieval_eval.load_judgments(QRELS)
    rows = [(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    qrel = namedtuple("qrel", ["query_id", "doc_id", "relevance", "iteration"])  # ir_measures' and ir_datasets' shape
    named = [qrel(q, d, g, "0") for q, d, g in rows]
    records = [{"query_id": q, "doc_uri": d, "relevance": g} for q, d, g in rows]
    for other in (rows, named, records):
        loaded = retrieval_eval.load_judgments(other)
        assert loaded.to_dict() == from_dict.to_dict() == QRELS
        assert loaded.sha256 == from_dict.sha256


def test_a_negative_grade_reads_as_not_relevant_as_in_trec_qrels() -> None:
    assert retrieval_eval.load_judgments({"q1": {"d1": -1}}).to_dict() == {"q1": {"d1": 0}}


@pytest.mark.parametrize(
    ("judgments", "run", "message"),
    [
        ({"q1": {"d1": "2"}}, {"q1": ["d1"]}, "judgments:1: relevance must be an integer, got '2'"),
        ({"q1": {"d1": 1, "": 2}}, {"q1": ["d1"]}, "judgments:2: doc_uri must be a non-empty string"),
        ({"q1": {"d1": 1}}, {"q1": ["d1", 3]}, "run:1: ranking[1] must be a non-empty string"),
        ({"q1": {"d1": 1}}, {"q1": {"d1": float("nan")}}, "run:1: score must be a finite number, got nan"),
        ({"q1": {"d1": 1}}, "missing.jsonl", "cannot read missing.jsonl: no such file"),
        ({"q1": {"d1": 1}}, 42, "cannot read a run from int"),
        ({}, {"q1": ["d1"]}, "judgments: no label was given"),
        ({"q1": {"d1": 1}}, {"q1": ["d1"]}, None),
    ],
)
def test_bad_input_is_refused_naming_the_row(judgments: Any, run: Any, message: str | None, tmp_path: Path) -> None:
    if message is None:
        assert retrieval_eval.evaluate(judgments, run, gates="P@10:1").status == "FAIL"  # 0.1 of 1
        return
    with pytest.raises(retrieval_eval.RetrievalEvalError) as caught:
        retrieval_eval.evaluate(judgments, run)
    assert str(caught.value).startswith(message)


def test_a_gate_on_a_full_depth_name_says_it_needs_the_whole_ranking() -> None:
    with pytest.raises(retrieval_eval.UsageError, match="mrr without a cutoff is the full-depth metric"):
        retrieval_eval.evaluate(QRELS, RANKINGS, gates=["recip_rank:0.5"])
    evaluation = retrieval_eval.evaluate(QRELS, RANKINGS, k="10,all", gates=["recip_rank:0.5"])
    assert [gate["expression"] for gate in evaluation.to_dict()["verdict"]["gates"]] == ["recip_rank:0.5"]


def test_results_cannot_be_changed() -> None:
    evaluation = retrieval_eval.evaluate(QRELS, RANKINGS, generated_at=NOW)
    with pytest.raises(AttributeError):
        evaluation.report = {}  # type: ignore[misc]
    report = evaluation.to_dict()
    report["metrics"].clear()
    evaluation.per_query["q1"]["precision@10"] = 5.0
    assert evaluation.to_dict()["metrics"] and evaluation.per_query["q1"]["precision@10"] == 0.2


def test_records_are_the_per_query_values_as_ir_measures_yields_them() -> None:
    evaluation = retrieval_eval.evaluate(QRELS, RANKINGS, k=(3,))
    records = list(evaluation.iter_records())
    assert records[0] == ("q1", "precision@3", pytest.approx(2 / 3))
    assert {(r.query_id, r.measure): r.value for r in records} == {
        (q, m): v for q, values in evaluation.per_query.items() for m, v in values.items()
    }


def test_frames() -> None:
    pytest.importorskip("pandas")
    evaluation = retrieval_eval.evaluate(QRELS, RANKINGS, k=(3,))
    per_query, aggregate = evaluation.to_pandas()
    assert per_query.loc["q1", "precision@3"] == pytest.approx(2 / 3)
    assert aggregate.loc["mrr@3", "all"] == evaluation.metrics["mrr@3"]
    comparison = retrieval_eval.compare(evaluation, evaluation, resamples=200)
    assert comparison.to_pandas().loc["recall@3", "delta"] == 0.0


def test_without_pandas_to_pandas_says_how_to_install_it_and_the_rest_works(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    evaluation = retrieval_eval.evaluate(QRELS, RANKINGS)
    comparison = retrieval_eval.compare(evaluation, evaluation, resamples=200)
    for call in (evaluation.to_pandas, comparison.to_pandas):
        with pytest.raises(ModuleNotFoundError, match="pip install pandas"):
            call()
    assert comparison.metric("nDCG@10").delta == 0.0


def test_importing_the_package_loads_no_layer() -> None:
    """What keeps ``import retrieval_eval`` cheap (bench/import_bench.py measures it)."""
    code = "import sys, retrieval_eval; print(sorted(m for m in sys.modules if m in WATCH or m.startswith(PKG)))"
    watch = "WATCH = {'collections', 'dataclasses', 'typing', 'json', 'pandas'}; PKG = 'retrieval_eval.'; "
    done = subprocess.run([sys.executable, "-c", watch + code], capture_output=True, text=True, check=True)
    loaded = eval(done.stdout)  # a printed list of names
    assert loaded == ["retrieval_eval._public", "retrieval_eval._version"]  # the API loads on first use


def test_a_public_name_loads_the_api_on_first_use_and_every_name_resolves() -> None:
    code = (
        "import sys, retrieval_eval; from retrieval_eval import evaluate; "
        "print('retrieval_eval.api' in sys.modules, all(hasattr(retrieval_eval, n) for n in retrieval_eval.__all__))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True"]
    with pytest.raises(AttributeError, match="no attribute 'evaluat'"):
        retrieval_eval.evaluat  # noqa: B018  # a typo is an AttributeError, as on any module


def test_the_api_functions_stay_bound_once_the_layers_load() -> None:
    retrieval_eval.evaluate(QRELS, RANKINGS, baseline=retrieval_eval.evaluate(QRELS, BASE_RANKINGS))
    importlib.import_module("retrieval_eval.comparison.document")  # the comparison layer, in full
    assert callable(retrieval_eval.compare) and callable(retrieval_eval.evaluate)
    assert callable(retrieval_eval.drift)


@pytest.mark.parametrize("unordered", [{"d1", "d2"}, frozenset({"d1", "d2"}), {"d1": 1, "d2": 2}.keys()])
def test_a_ranking_given_as_a_set_is_refused(unordered: object) -> None:
    """A set has no rank order (its iteration order follows the hash seed): scoring it would
    give a number that changes from one process to the next."""
    with pytest.raises(retrieval_eval.InputError, match="not ordered"):
        retrieval_eval.load_run({"q1": unordered})


# -- reports, comparisons and drift are typed; their JSON is written by the formats layer -------------


def test_a_report_reads_back_from_its_file_and_its_json_into_the_same_report(tmp_path: Path) -> None:
    _, _, base = write_canonical(tmp_path)
    written = json.loads(base.read_text())
    from_file, from_json = retrieval_eval.load_report(base), retrieval_eval.load_report(written)
    assert from_file == from_json
    evaluation = retrieval_eval.evaluate(QRELS, BASE_RANKINGS, k=(3, 5), gain="linear", generated_at=NOW)
    assert from_file == evaluation.typed_report == retrieval_eval.load_report(evaluation)
    assert retrieval_eval.load_report(from_file) is from_file
    # Round trip: the typed report writes the very JSON it was read from, and the same bytes.
    assert evaluation.to_dict() == written
    assert json.dumps(retrieval_eval.evaluate(QRELS, BASE_RANKINGS, baseline=from_file).to_dict()["inputs"]) == (
        json.dumps(retrieval_eval.evaluate(QRELS, BASE_RANKINGS, baseline=base).to_dict()["inputs"])
    )


def test_a_report_that_is_no_report_is_refused_naming_it(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"spec_version": "1", "metrics": []}\n')
    with pytest.raises(retrieval_eval.InputError, match="broken.json") as raised:
        retrieval_eval.load_report(broken)
    assert "metrics object" in str(raised.value)
    with pytest.raises(retrieval_eval.InputError, match="^report: .*spec v1"):
        retrieval_eval.load_report({"metrics": {}})
    with pytest.raises(retrieval_eval.UsageError, match="report: expected a report's path or its JSON object"):
        retrieval_eval.load_report(3)
    result = run_cli("compare", "--base", str(broken), "--head", str(broken))
    assert result.code == 2 and "broken.json" in result.stderr and "Traceback" not in result.stderr


def test_a_report_dict_still_works_for_a_release_and_says_what_replaces_it(tmp_path: Path) -> None:
    _, _, base = write_canonical(tmp_path)
    written = json.loads(base.read_text())
    typed = retrieval_eval.evaluate(QRELS, RANKINGS, baseline=base, generated_at=NOW, **SETTINGS)
    with pytest.warns(DeprecationWarning, match=r"baseline: .*retrieval_eval\.load_report\(\)") as caught:
        from_dict = retrieval_eval.evaluate(QRELS, RANKINGS, baseline=written, generated_at=NOW, **SETTINGS)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert from_dict.to_dict() == typed.to_dict()  # the dict is hashed as score --out wrote it: the file's bytes
    with pytest.warns(DeprecationWarning, match=r"^base: .*load_report") as caught:
        compared = retrieval_eval.compare(written, typed, resamples=200)
    assert caught[0].filename == __file__
    assert compared.to_dict() == retrieval_eval.compare(base, typed, resamples=200).to_dict()
    with pytest.warns(DeprecationWarning, match=r"^report: .*load_report"):
        planned = retrieval_eval.plan(written, changes=[0.05])
    assert planned.as_dict() == retrieval_eval.plan(base, changes=[0.05]).as_dict()
    # The typed replacement gives the same answers, without a warning (a warning fails this suite).
    report = retrieval_eval.load_report(written)
    assert retrieval_eval.compare(report, typed, resamples=200).to_dict() == compared.to_dict()
    assert retrieval_eval.plan(report, changes=[0.05]).as_dict() == planned.as_dict()


def test_a_comparison_is_its_typed_document_and_writes_what_compare_writes(tmp_path: Path) -> None:
    _, _, base = write_canonical(tmp_path)
    head = tmp_path / "head.json"
    head.write_text(json.dumps(retrieval_eval.evaluate(QRELS, RANKINGS, k=(3, 5), gain="linear").to_dict()))
    comparison = retrieval_eval.compare(base, head, resamples=200)
    cli = run_cli("compare", "--base", str(base), "--head", str(head), "--resamples", "200", "--json")
    assert cli.code == 0, cli.stderr
    assert comparison.to_dict() == json.loads(cli.stdout)
    row = comparison.typed_document.metrics["recall@3"]
    change = comparison.metric("R@3")
    assert (change.base, change.head, change.delta, change.ci, change.n) == (
        row.base,
        row.head,
        row.delta,
        row.ci,
        row.n,
    )
    assert change.delta == json.loads(cli.stdout)["metrics"]["recall@3"]["delta"]
    # The JSON object a Comparison was built from until this release: still read, with a warning.
    with pytest.warns(DeprecationWarning, match="typed_document"):
        again = retrieval_eval.Comparison(comparison.to_dict())  # type: ignore[arg-type]
    assert again.to_dict() == comparison.to_dict() and again.typed_document == comparison.typed_document


def test_drift_is_the_typed_check_and_writes_what_drift_json_prints(tmp_path: Path) -> None:
    demo = Path(retrieval_eval.__file__).parent / "demo"
    found = retrieval_eval.drift(demo / "judgments.jsonl", demo / "corpus.json")
    cli = run_cli("drift", "-j", str(demo / "judgments.jsonl"), "-c", str(demo / "corpus.json"), "--json")
    printed = json.loads(cli.stdout)
    assert found.to_dict() == printed
    assert found.summary == printed["summary"] and found.labels == printed["labels"]
    assert found.invalid_ratio == printed["summary"]["invalid_ratio"]
    assert found.summary["labels"] == len(found.check.result.labels) == len(printed["labels"])
    found.to_dict()["summary"]["labels"] = -1  # a copy each time
    assert found.summary == printed["summary"]
