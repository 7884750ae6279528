"""Abstention: no_answer lines, how they are read and validated, the two rates and their gates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare_data import write_jsonl
from helpers import run_cli
from retrieval_eval.core.errors import InputError, UsageError
from retrieval_eval.core.gates import FAIL, INDETERMINATE, PASS, GateReadings, Gating, evaluate_gate, parse_gate
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.core.validate import validate
from retrieval_eval.formats.judgment_records import write_judgments
from retrieval_eval.formats.judgments import parse_judgments, read_label_index
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

KS = (5, 10)


def label(query: str, doc: str, grade: int = 1, **more: Any) -> dict[str, Any]:
    return {"query_id": query, "query": f"text of {query}", "doc_uri": doc, "relevance": grade, **more}


def no_answer(query: str, **more: Any) -> dict[str, Any]:
    return {"query_id": query, "query": f"text of {query}", "expect": "no_answer", **more}


# Four answerable queries (a1..a4) and three with no answer (n1..n3).
ROWS = [
    label("a1", "d1"),
    label("a2", "d2"),
    label("a3", "d3"),
    label("a4", "d4"),
    no_answer("n1"),
    no_answer("n2"),
    no_answer("n3"),
]
# a3 abstains (empty), a4 is absent: two false abstentions of four. n1 abstains (empty),
# n2 is absent (which is abstaining too), n3 answers: two abstentions of three.
RUN = [
    {"query_id": "a1", "ranking": ["d1"]},
    {"query_id": "a2", "ranking": ["x", "d2"]},
    {"query_id": "a3", "ranking": []},
    {"query_id": "n1", "ranking": []},
    {"query_id": "n3", "ranking": ["d1"]},
]


def scored(
    tmp_path: Path, rows: list[dict[str, Any]] = ROWS, run: list[dict[str, Any]] = RUN, gates: tuple[str, ...] = ()
):  # type: ignore[no-untyped-def]
    request = EvaluationRequest(
        str(write_jsonl(tmp_path / "j.jsonl", rows)),
        str(write_jsonl(tmp_path / "r.jsonl", run)),
        ScoreConfig(k=KS),
        gating=Gating(gates=gates),
    )
    return run_pipeline(request)


# -- reading -------------------------------------------------------------------------------


def test_a_no_answer_line_is_read_kept_and_written_back_in_place(tmp_path: Path) -> None:
    source = tmp_path / "j.jsonl"
    source.write_text(
        '{"relevance":1,"doc_uri":"d1","query_id":"a1"}\n'
        "// nothing in the corpus answers these\n"
        '{"stratum":"s","expect":"no_answer","query":"is there a Linux app","query_id":"n1"}\n'
        '{"query_id":"a2","doc_uri":"d2","relevance":0}\n'
    )
    judgments = parse_judgments(str(source))
    assert [label.query_id for label in judgments.labels] == ["a1", "a2"]
    assert [(m.query_id, m.query, m.line) for m in judgments.no_answer] == [("n1", "is there a Linux app", 3)]
    assert write_judgments(judgments) == (
        '{"query_id":"a1","doc_uri":"d1","relevance":1}\n'
        "// nothing in the corpus answers these\n"
        '{"query_id":"n1","query":"is there a Linux app","expect":"no_answer","stratum":"s"}\n'
        '{"query_id":"a2","doc_uri":"d2","relevance":0}\n'
    )


def test_the_streamed_index_and_the_parsed_set_agree(tmp_path: Path) -> None:
    path = str(write_jsonl(tmp_path / "j.jsonl", [no_answer("n1", stratum="x"), *ROWS]))
    streamed, parsed = read_label_index(path), LabelIndex.from_judgments(parse_judgments(path))
    for index in (streamed, parsed):
        assert index.labels == 4  # a no-answer line labels nothing
        assert [q for q, query in index.queries.items() if query.no_answer] == ["n1", "n2", "n3"]
        assert index.queries["n1"].stratum == "x" and index.queries["n1"].text == "text of n1"


def test_another_expect_is_an_unknown_field_of_a_label(tmp_path: Path) -> None:
    path = str(write_jsonl(tmp_path / "j.jsonl", [label("a1", "d1", expect="answer")]))
    judgments = parse_judgments(path)
    assert judgments.labels[0].record["expect"] == "answer" and judgments.no_answer == ()


def test_a_file_of_no_answer_lines_alone_is_a_judgment_set(tmp_path: Path) -> None:
    path = str(write_jsonl(tmp_path / "j.jsonl", [no_answer("n1")]))
    assert list(read_label_index(path).queries) == ["n1"]


@pytest.mark.parametrize(
    ("record", "message"),
    [
        # Any other expect is a label's unknown field, as before the field was known.
        ({"query_id": "n", "expect": "answer"}, "judgments:2: missing required field doc_uri"),
        (
            {"query_id": "n", "expect": "no_answer", "doc_uri": "d", "relevance": 0},
            "judgments:2: a no_answer line must not carry doc_uri, relevance",
        ),
        (
            {"query_id": "n", "expect": "no_answer", "relevance": 1},
            "judgments:2: a no_answer line must not carry relevance",
        ),
        ({"expect": "no_answer"}, "judgments:2: missing required field query_id"),
        ({"query_id": "n", "expect": "no_answer", "query": 7}, "judgments:2: query must be a string"),
    ],
)
def test_a_malformed_no_answer_line_is_refused_with_its_line(
    tmp_path: Path, record: dict[str, Any], message: str
) -> None:
    path = str(write_jsonl(tmp_path / "j.jsonl", [label("a1", "d1"), record]))
    for read in (parse_judgments, read_label_index):
        with pytest.raises(InputError) as refused:
            read(path)
        assert message in refused.value.message
    result = run_cli("validate", "-j", path)
    assert result.code == 2 and f"error  {message}" in result.stderr and "Traceback" not in result.stderr


def test_a_no_answer_query_with_a_positive_label_makes_the_set_unsound(tmp_path: Path) -> None:
    rows = [no_answer("n1"), label("n1", "d9", 2), label("n2", "d8", 0), no_answer("n2")]
    result = validate(parse_judgments(str(write_jsonl(tmp_path / "j.jsonl", rows))))
    assert [(i.code, i.subject) for i in result.errors] == [("no-answer-with-positives", "n1")]
    assert "no-positives" not in {i.code for i in result.issues}  # expected of a no-answer query
    assert "labels d9 relevant" in result.errors[0].message
    assert (
        run_pipeline(
            EvaluationRequest(
                str(tmp_path / "j.jsonl"),
                str(write_jsonl(tmp_path / "r.jsonl", [{"query_id": "n2", "ranking": []}])),
            )
        ).verdict.status
        == INDETERMINATE
    )


# -- the rates -------------------------------------------------------------------------------


def test_the_rates_count_empty_and_absent_rankings(tmp_path: Path) -> None:
    report = scored(tmp_path).report
    metrics = report["metrics"]
    assert metrics["abstention_rate"] == {"value": round(2 / 3, 12), "n": 3, "deterministic": True}
    assert metrics["false_abstention_rate"] == {"value": 0.5, "n": 4, "deterministic": True}
    queries = report["queries"]
    assert queries["no_answer"] == ["n1", "n2", "n3"]
    assert queries["abstained"] == ["n1", "n2"]
    assert queries["false_abstentions"] == ["a3", "a4"]
    # No-answer queries are out of the ranking metrics: recall@5 is (1 + 1 + 0 + 0) / 4.
    assert queries["scored"] == ["a1", "a2", "a3", "a4"] and queries["without_positives"] == []
    assert metrics["recall@5"]["value"] == 0.5 and metrics["recall@5"]["n"] == 4
    assert "n3" not in report["per_query"] and "n3" not in queries["unjudged"]
    assert any("3 queries are marked no_answer" in reason for reason in report["verdict"]["reasons"])


def test_a_set_without_no_answer_queries_reports_no_rate(tmp_path: Path) -> None:
    report = scored(tmp_path, ROWS[:4]).report
    assert "abstention_rate" not in report["metrics"] and "no_answer" not in report["queries"]


# -- gates -------------------------------------------------------------------------------


def test_at_most_is_written_with_a_less_or_equal_sign_for_any_absolute_gate() -> None:
    gate = parse_gate("false_abstention_rate:<=0.02", ks=KS)
    assert gate.at_most and gate.threshold == 0.02
    context = GateReadings({"false_abstention_rate": 0.02, "recall@5": 0.91})
    assert evaluate_gate(gate, context).status == PASS  # at the bound exactly
    assert evaluate_gate(gate, GateReadings({"false_abstention_rate": 0.0200001})).status == FAIL
    assert evaluate_gate(parse_gate("recall@5:<=0.9", ks=KS), context).status == FAIL
    with pytest.raises(UsageError):
        parse_gate("recall@5:<=high", ks=KS)


@pytest.mark.parametrize("text", ["worst-stratum:abstention_rate:0.9", "floor:false_abstention_rate:+0.1"])
def test_the_rates_have_no_stratum_and_no_floor(text: str) -> None:
    with pytest.raises(UsageError, match="measured over the whole set"):
        parse_gate(text, ks=KS)


def test_abstention_gates_pass_fail_and_are_indeterminate_without_no_answer_queries(tmp_path: Path) -> None:
    gates = (
        "abstention_rate:0.6",
        "abstention_rate:0.9",
        "false_abstention_rate:<=0.5",
        "false_abstention_rate:<=0.02",
    )
    statuses = [g["status"] for g in scored(tmp_path, gates=gates).report["verdict"]["gates"]]
    assert statuses == [PASS, FAIL, PASS, FAIL]
    unmarked = scored(tmp_path, ROWS[:4], gates=gates[:1]).report["verdict"]
    assert unmarked["status"] == INDETERMINATE
    assert "no query is marked no_answer" in unmarked["gates"][0]["reason"]


def test_score_prints_the_rates(tmp_path: Path) -> None:
    j, r = write_jsonl(tmp_path / "j.jsonl", ROWS), write_jsonl(tmp_path / "r.jsonl", RUN)
    result = run_cli("score", "-j", str(j), "-r", str(r), "-k", "5", "--color", "never", "--json")
    assert json.loads(result.stdout)["metrics"]["abstention_rate"]["n"] == 3
    text = run_cli("score", "-j", str(j), "-r", str(r), "-k", "5", "--color", "never").stdout
    assert "abstention_rate           0.6667  n=3" in text and "false_abstention_rate     0.5000  n=4" in text


# -- the schema ------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "spec" / "judgments.schema.json").read_text())


def test_every_judgments_file_we_ship_stays_valid_under_the_schema() -> None:
    import jsonschema

    files = [*(ROOT / "spec" / "fixtures").rglob("*judgments*.jsonl"), ROOT / "src/retrieval_eval/demo/judgments.jsonl"]
    assert len(files) > 5
    for path in files:
        for line in path.read_text(encoding="utf-8-sig").splitlines():
            if line.strip() and not line.startswith("//"):
                jsonschema.validate(json.loads(line), SCHEMA)


@pytest.mark.parametrize(
    ("record", "valid"),
    [
        (no_answer("n1"), True),
        ({"query_id": "n1", "expect": "no_answer"}, True),
        (label("a1", "d1", expect="answer"), True),
        ({"query_id": "n1", "expect": "no_answer", "doc_uri": "d"}, False),
        ({"query_id": "n1", "expect": "no_answer", "relevance": 0}, False),
        ({"query_id": "n1", "expect": "answer"}, False),
        ({"expect": "no_answer"}, False),
    ],
)
def test_the_schema_and_the_reader_agree_on_no_answer_lines(
    tmp_path: Path, record: dict[str, Any], valid: bool
) -> None:
    import jsonschema

    assert jsonschema.Draft202012Validator(SCHEMA).is_valid(record) is valid
    path = str(write_jsonl(tmp_path / "j.jsonl", [record]))
    if valid:
        parse_judgments(path)
    else:
        with pytest.raises(InputError):
            parse_judgments(path)


def test_converting_to_qrels_says_that_no_answer_lines_are_left_out(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "j.jsonl", ROWS)
    result = run_cli("convert", str(path), "--to", "trec-qrels")
    assert result.code == 0 and result.stdout.count("\n") == 4
    assert "warning  3 no_answer lines cannot be written as qrels and are left out" in result.stderr


def _rescored_rates(tmp_path: Path, base_rows: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The two rates' rows of the comparison of RUN under ROWS with RUN under ``base_rows``."""
    base = run_pipeline(
        EvaluationRequest(
            str(write_jsonl(tmp_path / "base-j.jsonl", base_rows)),
            str(write_jsonl(tmp_path / "base-r.jsonl", RUN)),
            ScoreConfig(k=KS),
        )
    ).typed_report
    request = EvaluationRequest(
        str(write_jsonl(tmp_path / "j.jsonl", ROWS)),
        str(write_jsonl(tmp_path / "r.jsonl", RUN)),
        ScoreConfig(k=KS),
        baseline=base,
    )
    head = run_pipeline(request)
    assert head.comparison is not None
    document = head.comparison.document
    assert document is not None and document.yardstick == "rescored"
    return document.metrics["abstention_rate"], document.metrics["false_abstention_rate"]


def test_a_label_edit_leaves_the_base_runs_abstention_rates_as_they_were(tmp_path: Path) -> None:
    # The base was scored under other judgments (a2's answer was d9), so the comparison scores its
    # rankings again under the head's. The rates are shares of the queries with no per-query value
    # to pair; the same no_answer queries and the same answerable ones on both sides, and the same
    # run: 2 of 3 abstain and 2 of 4 answerable abstain on both (by hand above), a delta of 0.
    # (The base's figures were once not known here, and a gate on them said the base had none.)
    base_rows = [label("a2", "d9") if row.get("query_id") == "a2" else row for row in ROWS]
    abstaining, answerable = _rescored_rates(tmp_path, base_rows)
    assert (round(abstaining.base, 6), round(abstaining.head, 6), abstaining.delta) == (0.666667, 0.666667, 0)
    assert (answerable.base, answerable.head, answerable.delta) == (0.5, 0.5, 0)
    assert abstaining.confounded is None and answerable.confounded is None


def test_a_query_newly_marked_no_answer_leaves_the_base_rate_unknown_and_says_why(tmp_path: Path) -> None:
    # The base's judgments did not mark n3: the head's rate counts it, the base report's does not.
    base_rows = [row for row in ROWS if row.get("query_id") != "n3"]
    abstaining, _answerable = _rescored_rates(tmp_path, base_rows)
    assert abstaining.base is None and round(abstaining.head, 6) == 0.666667
    assert abstaining.confounded is not None and "counts other queries" in abstaining.confounded


def test_a_label_edit_beside_an_abstention_regression_does_not_hide_it(tmp_path: Path) -> None:
    # The head answers n1 and n2 (abstention 2/3 -> 0) and its pull request also edits a label: the
    # comparison is rescored, and the gate must still see the drop, not say the base has no rate.
    base_rows = [label("a2", "d9") if row.get("query_id") == "a2" else row for row in ROWS]
    base = _base_report(tmp_path, base_rows)
    answered = [{"query_id": q, "ranking": ["d1"]} for q in ("n1", "n2")]
    head_run = [row for row in RUN if row["query_id"] not in ("n1", "n2")] + answered
    gate = _gated(tmp_path, base, ROWS, write_jsonl(tmp_path / "r.jsonl", head_run), "abstention_rate:-0.1")
    assert gate["status"] == FAIL, gate["reason"]
    assert "moved -0.6667" in gate["reason"], gate["reason"]


def test_a_gate_on_a_rate_over_other_queries_says_so_not_that_the_base_has_none(tmp_path: Path) -> None:
    # The head's judgments make a5 scored (its only label raised from 0 to 1): the answerable
    # queries are no longer the base's, so the base's false_abstention_rate stands for other
    # queries. The gate said "the baseline report has no false_abstention_rate", of a base that has it.
    base = _base_report(tmp_path, [*ROWS, label("a5", "d5", 0)])
    gate = _gated(tmp_path, base, [*ROWS, label("a5", "d5", 1)], tmp_path / "base-r.jsonl", "false_abstention_rate:+0")
    assert gate["status"] == INDETERMINATE, gate["reason"]
    assert "counts other queries" in gate["reason"] and "has no" not in gate["reason"], gate["reason"]


def _base_report(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    """RUN scored under ``rows`` (its run in base-r.jsonl), written as base.json."""
    base_j, base_r = write_jsonl(tmp_path / "base-j.jsonl", rows), write_jsonl(tmp_path / "base-r.jsonl", RUN)
    base = tmp_path / "base.json"
    assert run_cli("score", "-j", str(base_j), "-r", str(base_r), "-k", "1,3", "--report", str(base)).code == 0
    return base


def _gated(tmp_path: Path, base: Path, rows: list[dict[str, Any]], run: Path, gate: str) -> dict[str, Any]:
    """The one gate's result of ``run`` scored under ``rows`` against ``base``."""
    judgments = write_jsonl(tmp_path / "j.jsonl", rows)
    done = run_cli(
        "score", "-j", str(judgments), "-r", str(run), "-k", "1,3", "--baseline", str(base), "-g", gate, "--json"
    )
    (result,) = done.json()["verdict"]["gates"]
    return dict(result)
