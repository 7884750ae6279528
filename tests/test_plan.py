"""``retrieval-eval plan`` and ``retrieval_eval.plan``, on a pilot worked by hand.

The pilot: 40 queries in three strata; its run misses q00..q03, so recall@5 is 1 on 36
queries and 0 on 4: sample sd sqrt(3.6 / 39) = 0.303822. Against a base report that finds
everything, the paired differences are four -1s and thirty-six 0s: the same sd. At 80% power
and the 5% level, z(0.975) + z(0.8) = 2.801585, so:

- a change of 0.05 needs (2.801585 * 0.303822 / 0.05)^2 = 289.8 -> 290 queries;
- 500 queries detect 2.801585 * 0.303822 / sqrt(500) = 0.038066;
- with rho 0 the proxy is sqrt(2) * 0.303822 = 0.429669, and 0.05 needs 579.6 -> 580;
- the faq stratum (14 queries, two misses) has sd 0.363137: 0.05 needs 414.008 -> 415.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import retrieval_eval
from compare_data import labels, run, score, write_jsonl
from helpers import run_cli
from retrieval_eval.core.errors import UsageError


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("plan")
    base = score(directory, "base", labels(), run())
    head = score(directory, "head", labels(), run(misses=range(4)))
    paths = {"base": directory / "base.json", "head": directory / "head.json"}
    paths["base"].write_text(json.dumps(base))
    paths["head"].write_text(json.dumps(head))
    paths["judgments"] = write_jsonl(directory / "judgments.jsonl", labels())
    return paths


def rows(found: dict[str, Any]) -> dict[str | None, dict[str, Any]]:
    return {row["stratum"]: row for row in found["rows"]}


def test_from_one_report_with_the_proxy(pilot: dict[str, Path]) -> None:
    found = retrieval_eval.plan(pilot["head"], changes=[0.05], queries=[500]).as_dict()
    whole = rows(found)[None]
    assert whole["source"] == "proxy" and whole["n"] == 40
    assert whole["sd_diff"] == pytest.approx(0.303822, abs=1e-6)
    assert whole["needed"] == [{"change": 0.05, "queries": 290}]
    assert whole["detectable"][0]["change"] == pytest.approx(0.038066, abs=1e-6)
    assert found["correlation"] == 0.5 and len(found["assumptions"]) == 3  # the method, the proxy, the spread


def test_an_assumed_correlation_of_zero_is_the_cautious_bound(pilot: dict[str, Path]) -> None:
    whole = rows(retrieval_eval.plan(pilot["head"], changes=[0.05], correlation=0.0).as_dict())[None]
    assert whole["sd_diff"] == pytest.approx(0.429669, abs=1e-6)
    assert whole["needed"] == [{"change": 0.05, "queries": 580}]


def test_paired_with_strata_from_the_judgments(pilot: dict[str, Path]) -> None:
    found = retrieval_eval.plan(
        pilot["head"], baseline=pilot["base"], judgments=pilot["judgments"], changes=[0.05]
    ).as_dict()
    assert found["correlation"] is None and len(found["assumptions"]) == 2  # the method, the spread
    table = rows(found)
    assert table[None]["source"] == "paired" and table[None]["needed"][0]["queries"] == 290
    assert table["faq"]["n"] == 14 and table["faq"]["sd_diff"] == pytest.approx(0.363137, abs=1e-6)
    assert table["faq"]["needed"][0]["queries"] == 415


def test_without_judgments_a_stratum_borrows_the_whole_sets_spread(pilot: dict[str, Path]) -> None:
    table = rows(retrieval_eval.plan(pilot["head"], changes=[0.05]).as_dict())
    assert table["faq"]["source"] == "whole set's spread" and table["faq"]["n"] == 14
    # 2.801585 * 0.303822 / sqrt(14) = 0.227488
    assert table["faq"]["mde"] == pytest.approx(0.227488, abs=1e-6)


def test_the_api_refuses_a_bad_design(pilot: dict[str, Path]) -> None:
    with pytest.raises(UsageError, match="power"):
        retrieval_eval.plan(pilot["head"], power=1.2)


def test_the_command_prints_the_table_and_the_assumptions(pilot: dict[str, Path]) -> None:
    done = run_cli("plan", "--report", str(pilot["head"]), "--change", "0.05", "--queries", "500")
    assert done.code == 0, done.stderr
    assert "whole set" in done.stdout and "290" in done.stdout and "0.0381" in done.stdout
    assert "assumptions" in done.stdout and "rho" in done.stdout
    as_json = run_cli("plan", "--report", str(pilot["head"]), "--change", "0.05", "--json")
    assert rows(as_json.json())[None]["needed"][0]["queries"] == 290


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--metric", "bogus"), "unknown metric 'bogus'"),
        (("--metric", "recall@7"), "no per-query values of recall@7"),  # a metric, not scored here
        (("--power", "1.5"), "--power"),
        (("--change", "0"), "--change"),
        (("--queries", "1"), "--queries"),
        # a size past a float's range once crashed the square root with a traceback
        (("--queries", "1" + "0" * 400), "--queries"),
        (("--queries", "1000000001"), "--queries"),
    ],
)
def test_the_command_refuses_cleanly(pilot: dict[str, Path], args: tuple[str, ...], says: str) -> None:
    done = run_cli("plan", "--report", str(pilot["head"]), *args)
    assert done.code == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_the_table_keeps_each_value_under_its_header(pilot: dict[str, Path]) -> None:
    # "seen at 1000000000" is wider than a 14-character column: it ran into "n for 0.05" and
    # pushed every value off its header. 500 queries see 2.801585 * 0.303822 / sqrt(500) = 0.0381;
    # a billion see 2.7e-5, shown as below the fourth place rather than as a bare 0.
    done = run_cli("plan", "--report", str(pilot["head"]), "--change", "0.05", "--queries", "1000000000",
                   "--queries", "500")  # fmt: skip
    assert done.code == 0, done.stderr
    header, whole = done.stdout.splitlines()[2:4]
    titles = ["queries", "sd_diff", "detects", "n for 0.05", "seen at 1000000000", "seen at 500"]
    values = ["40", "0.3038", "0.1346", "290", "< 0.0001", "0.0381"]
    for title, value in zip(titles, values, strict=True):
        end = header.index(title) + len(title)
        assert header[end - len(title) - 1] == " "  # a space before every header
        assert whole[end - len(value) : end] == value, (title, value, whole)
    assert len(whole) == len(header)


def test_one_metric_change_or_size_stands_for_a_list_of_one(pilot: dict[str, Path]) -> None:
    # A string is one metric, as gates="R@5:0.8" is one gate: never read letter by letter.
    listed = retrieval_eval.plan(pilot["head"], metrics=["recall@5"], changes=[0.05], queries=[500]).as_dict()
    alone = retrieval_eval.plan(pilot["head"], metrics="recall@5", changes=0.05, queries=500).as_dict()
    assert alone == listed and rows(alone)[None]["needed"] == [{"change": 0.05, "queries": 290}]


@pytest.mark.parametrize(
    ("argument", "value", "says"),
    [
        ("metrics", ["recall@5", 5], "metrics: expected a metric name"),
        ("changes", None, "changes: expected a change"),
        ("changes", [0.05, 0.0], "changes: 0.0 is out of range"),
        ("changes", 1.5, "changes: 1.5 is out of range"),
        ("queries", [500, 1], "queries: 1 is out of range"),
        ("queries", 10**400, "queries: a number of about 401 digits is out of range"),
        ("queries", 500.0, "queries: expected a set size"),
        ("alpha", None, "alpha: expected a number"),
        ("alpha", 0.6, "alpha: 0.6 is out of range"),
        ("method", None, "method: expected"),
        ("method", "bayes", "method must be normal or t"),
        ("correlation", "0.5", "correlation: '0.5' is not a number"),
        ("correlation", 2, "correlation: 2 is out of range"),
    ],
)
def test_the_api_names_the_argument_it_refuses(pilot: dict[str, Path], argument: str, value: Any, says: str) -> None:
    with pytest.raises(UsageError) as refused:
        retrieval_eval.plan(pilot["head"], **{argument: value})
    assert says in str(refused.value)


def test_compare_states_effects_at_the_power_asked(pilot: dict[str, Path]) -> None:
    # (1.959964 + 1.281552) * 0.303822 / sqrt(40) = 0.155717
    found = retrieval_eval.compare(pilot["base"], pilot["head"], resamples=200, power=0.9)
    assert found.to_dict()["metrics"]["recall@5"]["mde"] == pytest.approx(0.155717, abs=1e-6)
    with pytest.raises(UsageError, match="power"):
        retrieval_eval.compare(pilot["base"], pilot["head"], power=1.0)
    done = run_cli("compare", "--base", str(pilot["base"]), "--head", str(pilot["head"]), "--power", "0.9", "--json")
    assert done.json()["metrics"]["recall@5"]["mde"] == pytest.approx(0.155717, abs=1e-6)


def test_a_metric_named_as_ir_measures_names_it(pilot: dict[str, Path]) -> None:
    ours = retrieval_eval.plan(pilot["head"], metrics=["recall@5"], changes=[0.05]).as_dict()
    theirs = retrieval_eval.plan(pilot["head"], metrics=["R@5"], changes=[0.05]).as_dict()
    assert theirs == ours


def test_evaluate_takes_the_power_and_the_requirement(tmp_path: Path) -> None:
    judgments = write_jsonl(tmp_path / "j.jsonl", labels())
    base = retrieval_eval.evaluate(judgments, write_jsonl(tmp_path / "b.jsonl", run()), k=(5, 10))
    head_run = write_jsonl(tmp_path / "h.jsonl", run(misses=range(4)))
    head = retrieval_eval.evaluate(
        judgments, head_run, k=(5, 10), gates="recall@5:-0.12", baseline=base, require_detectable=True
    )
    assert head.status == "INDETERMINATE" and "about 51 queries are needed" in head.reasons[0]
    # At 50% power: (1.959964 + 0) * 0.303822 / sqrt(40) = 0.094154, below 0.12: seen, a PASS
    relaxed = retrieval_eval.evaluate(
        judgments, head_run, k=(5, 10), gates="recall@5:-0.12", baseline=base, require_detectable=True, power=0.5
    )
    assert relaxed.status == "PASS"
    gate = relaxed.report["verdict"]["gates"][0]["detectable"]
    assert gate["mde"] == pytest.approx(0.094154, abs=1e-6)


def test_every_figure_of_the_table_has_four_places_and_headers_keep_the_change_as_given() -> None:
    # 0.25 beside 0.4082 read as two precisions; a header says the change the user gave.
    from retrieval_eval.render.plan import _change, _given, _num

    assert (_num(0.25), _change(0.07), _num(0.40824829)) == ("0.2500", "0.0700", "0.4082")
    assert (_given(0.05), _given(0.1)) == ("0.05", "0.1")


def test_judgments_other_than_the_pilots_are_refused(pilot: dict[str, Path], tmp_path: Path) -> None:
    # Strata read from another file would plan each stratum over another's queries, silently.
    rows = [json.loads(line) for line in pilot["judgments"].read_text().splitlines()]
    other = write_jsonl(tmp_path / "other.jsonl", [{**row, "stratum": "swapped"} for row in rows])
    done = run_cli("plan", "--report", str(pilot["head"]), "-j", str(other))
    assert done.code == 2 and "Traceback" not in done.stderr, done.stderr
    assert "not the judgments file the pilot report was scored with" in done.stderr, done.stderr
    assert str(other) in done.stderr, done.stderr


@pytest.mark.parametrize("n", [6, 8, 10, 30, 40, 100, 1000])
def test_the_spreads_interval_is_the_chi_square_one(n: int) -> None:
    # sqrt((n-1)/chi2(0.95, n-1)) to sqrt((n-1)/chi2(0.05, n-1)), from scipy's exact quantiles.
    from scipy.stats import chi2

    from retrieval_eval.core.power import spread_interval

    interval = spread_interval(n)
    assert interval is not None
    exact = ((n - 1) / chi2.ppf(0.95, n - 1)) ** 0.5, ((n - 1) / chi2.ppf(0.05, n - 1)) ** 0.5
    assert interval == pytest.approx(exact, rel=0.01)


def test_a_small_pilot_says_how_loosely_it_measured_the_spread(pilot: dict[str, Path]) -> None:
    # 40 queries: the spread's 90% interval is 0.85x to 1.23x (chi-square, 39 degrees of freedom:
    # sqrt(39 / 54.57) and sqrt(39 / 25.70)), so the queries needed may be 0.71x to 1.52x.
    found = retrieval_eval.plan(pilot["head"], baseline=pilot["base"]).as_dict()
    (spread,) = [text for text in found["assumptions"] if text.startswith("from a pilot of 40 queries")]
    assert "0.85x to 1.23x" in spread and "0.71x to 1.52x" in spread, spread


def test_a_pilot_of_five_queries_is_said_to_be_too_small_to_plan_from(tmp_path: Path) -> None:
    from retrieval_eval.core.power import spread_interval

    assert spread_interval(5) is None and spread_interval(6) is not None
    five = [row for row in labels() if row["query_id"] in {"q00", "q01", "q02", "q03", "q04"}]
    base = score(tmp_path, "base", five, run())
    head = score(tmp_path, "head", five, run(misses=range(2)))
    (tmp_path / "b.json").write_text(json.dumps(base))
    (tmp_path / "h.json").write_text(json.dumps(head))
    found = retrieval_eval.plan(tmp_path / "h.json", baseline=tmp_path / "b.json").as_dict()
    (said,) = [text for text in found["assumptions"] if "is barely measured" in text]
    # The figures it quotes for 5 queries are the exact chi-square ones (4 degrees of freedom).
    from scipy.stats import chi2

    low, high = (4 / chi2.ppf(0.95, 4)) ** 0.5, (4 / chi2.ppf(0.05, 4)) ** 0.5
    assert f"{low:.2f}x to {high:.2f}x the pilot's at 5 queries" in said, said
    assert f"{low * low:.2f}x to {high * high:.1f}x or more" in said, said


def test_the_api_refuses_judgments_other_than_the_pilots_too(pilot: dict[str, Path], tmp_path: Path) -> None:
    from retrieval_eval.core.errors import InputError

    rows = [json.loads(line) for line in pilot["judgments"].read_text().splitlines()]
    other = write_jsonl(tmp_path / "other.jsonl", [{**row, "stratum": "swapped"} for row in rows])
    with pytest.raises(InputError, match="not the judgments file the pilot report was scored with"):
        retrieval_eval.plan(pilot["head"], judgments=other)
    assert retrieval_eval.plan(pilot["head"], judgments=pilot["judgments"]).rows  # its own file is read
