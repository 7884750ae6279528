"""What the comparison and the gates say about detectability, on a scenario worked by hand.

40 queries in three strata; the base run finds both relevant documents of every query in
its top 5, the head misses queries q00..q03. recall@5's paired differences are then four
-1s and thirty-six 0s: mean -0.1, sample sd sqrt(3.6 / 39) = 0.303822, and at 80% power and
the 5% level the minimum detectable effect is (1.959964 + 0.841621) * 0.303822 / sqrt(40)
= 0.134584. The faq stratum (q00, q03, ..., q39: 14 queries) holds two of the misses:
mean -1/7, sd sqrt((2 * (6/7)^2 + 12 * (1/7)^2) / 13) = 0.363137, effect 0.271900.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compare_data import NOW, labels, run, score, write_jsonl
from from_json import build_comparison
from retrieval_eval.core.gates import Gating
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.formats.report import as_report
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

MDE = 0.134584
SD = 0.303822


@pytest.fixture(scope="module")
def sides(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], dict[str, Any], Path]:
    directory = tmp_path_factory.mktemp("power")
    base = score(directory, "base", labels(), run())
    head = score(directory, "head", labels(), run(misses=range(4)))
    judgments = write_jsonl(directory / "judgments.jsonl", labels())
    return base, head, judgments


Sides = tuple[dict[str, Any], dict[str, Any], Path]


def test_every_metric_row_states_its_spread_effect_and_moves(sides: Sides) -> None:
    base, head, _ = sides
    document = build_comparison(base, head)
    row = document["metrics"]["recall@5"]
    assert row["sd_diff"] == pytest.approx(SD, abs=1e-6)
    assert row["mde"] == pytest.approx(MDE, abs=1e-6)
    assert row["moved"] == {"improved": 0, "tied": 36, "worsened": 4}
    assert document["power"]["power"] == 0.8 and document["power"]["alpha"] == 0.05
    assert document["power"]["method"] == "normal" and row["mde_source"] == "paired"


def test_a_higher_power_states_a_larger_effect(sides: tuple[dict[str, Any], dict[str, Any], Path]) -> None:
    base, head, _ = sides
    row = build_comparison(base, head, power=0.9)["metrics"]["recall@5"]
    # (1.959964 + 1.281552) * 0.303822 / sqrt(40) = 0.155717
    assert row["mde"] == pytest.approx(0.155717, abs=1e-6)


def test_each_paired_stratum_states_its_own(sides: tuple[dict[str, Any], dict[str, Any], Path]) -> None:
    base, head, _ = sides
    document = build_comparison(base, head, judgments=_index(sides[2]))
    faq = document["per_stratum"]["faq"]
    assert faq["n"] == 14
    assert faq["sd_diff"] == pytest.approx(0.363137, abs=1e-6)
    assert faq["mde"] == pytest.approx(0.271900, abs=1e-6)
    assert faq["moved"] == {"improved": 0, "tied": 12, "worsened": 2}


def _index(path: Path) -> Any:
    from retrieval_eval.formats.judgments import read_label_index

    return read_label_index(str(path))


def gate(directory: Path, base: dict[str, Any], expression: str, *, require: bool = False) -> dict[str, Any]:
    request = EvaluationRequest(
        str(write_jsonl(directory / "j.jsonl", labels())),
        str(write_jsonl(directory / "r.jsonl", run(misses=range(4)))),
        ScoreConfig(k=(5, 10)),
        baseline=as_report(base),
        generated_at=NOW,
        gating=Gating(gates=[expression], require_detectable=require),
    )
    found: dict[str, Any] = run_pipeline(request).report["verdict"]["gates"][0]
    return found


def test_a_gate_that_cannot_see_its_tolerance_says_so(
    tmp_path: Path, sides: tuple[dict[str, Any], dict[str, Any], Path]
) -> None:
    found = gate(tmp_path, sides[0], "recall@5:-0.12")
    assert found["status"] == "PASS"
    # ((1.959964 + 0.841621) * 0.303822 / 0.12)^2 = 50.31 -> 51 queries
    assert found["reason"].endswith(
        "; but with 40 queries this set detects drops of recall@5 of 0.135 or more (80% power, 5% level); "
        "about 51 queries are needed to tell a change of 0.12 from none"
    ), found["reason"]
    assert found["detectable"]["needed"] == 51 and found["detectable"]["seen"] is False


def test_the_setting_makes_it_indeterminate(tmp_path: Path, sides: tuple[dict[str, Any], dict[str, Any], Path]) -> None:
    found = gate(tmp_path, sides[0], "recall@5:-0.12", require=True)
    assert found["status"] == "INDETERMINATE"
    assert "about 51 queries are needed" in found["reason"]


def test_a_gate_that_sees_its_tolerance_stays_quiet(
    tmp_path: Path, sides: tuple[dict[str, Any], dict[str, Any], Path]
) -> None:
    found = gate(tmp_path, sides[0], "recall@5:-0.2", require=True)
    assert found["status"] == "PASS" and "detects" not in found["reason"]
    assert found["detectable"]["seen"] is True and found["detectable"]["mde"] == pytest.approx(MDE, abs=1e-6)


def test_a_failing_gate_carries_the_effect_but_no_excuse(
    tmp_path: Path, sides: tuple[dict[str, Any], dict[str, Any], Path]
) -> None:
    found = gate(tmp_path, sides[0], "recall@5:-0.05")
    assert found["status"] == "FAIL" and "detects" not in found["reason"]
    assert found["detectable"]["tolerance"] == 0.05


def test_the_report_round_trips_as_json(sides: tuple[dict[str, Any], dict[str, Any], Path]) -> None:
    base, head, _ = sides
    document = build_comparison(base, head)
    assert json.loads(json.dumps(document)) == document


def test_differences_without_spread_borrow_the_bases(sides: Sides) -> None:
    # The head compared with itself: every difference is 0, which says nothing about the next
    # change's spread; the base's per-query sd (0.303822, rho 0.5: the same) stands in.
    _, head, _ = sides
    row = build_comparison(head, head)["metrics"]["recall@5"]
    assert row["mde_source"] == "base-proxy"
    assert row["sd_diff"] == pytest.approx(SD, abs=1e-6) and row["mde"] == pytest.approx(MDE, abs=1e-6)
    assert row["moved"] == {"improved": 0, "tied": 40, "worsened": 0}


def test_the_gate_field_follows_the_schema(tmp_path: Path, sides: Sides) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((Path(__file__).resolve().parent.parent / "spec" / "report.schema.json").read_text())
    gate_schema = schema["properties"]["verdict"]["properties"]["gates"]["items"]
    for expression in ("recall@5:-0.12", "recall@5:-0.2", "recall@5:-0"):
        jsonschema.validate(gate(tmp_path, sides[0], expression), gate_schema)
    found = gate(tmp_path, sides[0], "recall@5:-0")
    assert found["detectable"]["needed"] is None and found["detectable"]["direction"] == "drops"


def notes(directory: Path, base: dict[str, Any], expression: str) -> list[str]:
    request = EvaluationRequest(
        str(write_jsonl(directory / "j.jsonl", labels())),
        str(write_jsonl(directory / "r.jsonl", run(misses=range(4)))),
        ScoreConfig(k=(5, 10)),
        baseline=as_report(base),
        generated_at=NOW,
        gating=Gating(gates=[expression]),
    )
    return [r for r in run_pipeline(request).report["verdict"]["reasons"] if r.startswith("strata too small")]


def test_a_stratum_too_small_for_the_delta_gates_is_told(tmp_path: Path, sides: Sides) -> None:
    # This run's recall@5 in faq: twelve 1s and two 0s, sd 0.363137 (rho 0.5: the same), effect 0.271900.
    # In howto and billing: twelve 1s and one 0, sd sqrt(1/13) = 0.277350, effect
    # 2.801585 * 0.277350 / sqrt(13) = 0.215503: a tolerance of 0.25 is seen there, not in faq.
    found = notes(tmp_path, sides[0], "recall@5:-0.25")
    # ((2.801585 * 0.363137) / 0.25)^2 = 16.56 -> 17
    assert found == [
        "strata too small to see the 0.25 that recall@5:-0.25 allows within them (from this run's spread, "
        "80% power, 5% level): faq: 14 queries detect 0.272 or more, about 17 are needed"
    ]
    assert notes(tmp_path, sides[0], "recall@5:-0.12")[0].count("queries detect") == 3
    assert notes(tmp_path, sides[0], "recall@5:-0.3") == []


def test_validate_says_how_coarse_a_thin_stratum_is(tmp_path: Path) -> None:
    from helpers import run_cli

    path = write_jsonl(tmp_path / "thin.jsonl", labels(5, strata=("big", "big", "big", "big", "one")))
    done = run_cli("validate", "-j", str(path), "--json")
    messages = {i["subject"]: i["message"] for i in done.json()["issues"] if i["code"] == "thin-stratum"}
    # 4 queries: (1.959964 + 0.841621) / sqrt(4) = 1.40 times the differences' spread
    assert "detects only changes of 1.4 times the spread" in messages["big"]
    assert "one query has no spread" in messages["one"]


def test_the_terminal_and_the_page_say_it_too(tmp_path: Path, sides: Sides) -> None:
    from from_json import render_html, render_score

    base = sides[0]
    request = EvaluationRequest(
        str(write_jsonl(tmp_path / "j.jsonl", labels())),
        str(write_jsonl(tmp_path / "r.jsonl", run(misses=range(4)))),
        ScoreConfig(k=(5, 10)),
        baseline=as_report(base),
        generated_at=NOW,
        gating=Gating(gates=["recall@5:-0.12"]),
    )
    evaluation = run_pipeline(request)
    line = "with 40 queries this set detects drops of recall@5 of 0.135 or more (80% power, 5% level)"
    text = render_score(evaluation.report)
    needed = "; about 51 queries are needed to tell a change of 0.12 from none"
    assert "detectable\n  recall@5:-0.12  " + line + needed in text
    assert evaluation.comparison is not None and evaluation.comparison.document is not None
    page = render_html(evaluation.report, evaluation.comparison.document)
    assert '<section id="power">' in page and line in page
    # 0 improved, 36 tied, 4 worsened of 40
    assert "0% of queries improved, 90% tied, 10% worsened" in page


def test_the_compare_text_lists_each_metrics_effect(sides: Sides) -> None:
    from from_json import comparison_text

    base, head, _ = sides
    text = comparison_text(build_comparison(base, head))
    assert "detectable effect (80% power, 5% level) and queries moved" in text
    assert "  recall@5          0.1346   0 improved 36 tied 4 worsened" in text


def test_the_compare_text_keeps_a_metric_without_spread_with_its_moves(sides: Sides) -> None:
    # The base against itself: every recall@5 difference is 0 and the base's own values are all 1,
    # so no spread is there to state an effect from (docs/compare.md: "—"). The row still says how
    # the queries moved; a head that worsened every query alike would otherwise vanish from the list.
    from from_json import comparison_text

    base, _, _ = sides
    comparison = build_comparison(base, base)
    assert comparison["metrics"]["recall@5"]["mde"] is None
    text = comparison_text(comparison)
    assert "  recall@5               —   0 improved 40 tied 0 worsened" in text


def test_a_metric_on_one_side_only_is_not_listed_as_moved(tmp_path: Path) -> None:
    # Cutoff 5 on one side only: nothing is paired there, so no row claims "0 improved 0 tied".
    from from_json import comparison_text

    base = score(tmp_path, "base", labels(), run(), k=(5, 10))
    head = score(tmp_path, "head", labels(), run(misses=range(4)), k=(10,))
    text = comparison_text(build_comparison(base, head))
    assert "  recall@10 " in text and "  recall@5 " not in text.split("queries moved")[1]


def test_a_metric_without_spread_in_a_stratum_hides_it_from_no_other_gate() -> None:
    """Every mrr@10 alike in a stratum says nothing of how a change would spread there; it
    hid the stratum from the note, though recall@5 varies there and cannot see its 0.05."""
    from types import SimpleNamespace

    from retrieval_eval.core.gates import parse_gate
    from retrieval_eval.core.power import DEFAULT_ALPHA, NORMAL, Design
    from retrieval_eval.pipeline.reach import _reach

    ids = [f"q{i}" for i in range(6)]
    per_query = {q: {"mrr@10": 1.0, "recall@5": float(i % 2)} for i, q in enumerate(ids)}
    scores = SimpleNamespace(per_query=per_query)
    design = Design(power=0.8, alpha=DEFAULT_ALPHA, method=NORMAL)
    mrr, recall = parse_gate("mrr@10:-0.05", ks=(5, 10)), parse_gate("recall@5:-0.05", ks=(5, 10))
    told = _reach("faq", ids, scores, [mrr, recall], design)  # type: ignore[arg-type]
    assert told is not None and told.startswith("faq: 6 queries detect ")
    assert "(of recall@5, for recall@5:-0.05)" in told  # the note is headed by mrr@10's gate
    # Alone, the gate without spread says nothing, and the other gate alone names no other.
    assert _reach("faq", ids, scores, [mrr], design) is None  # type: ignore[arg-type]
    alone = _reach("faq", ids, scores, [recall], design)  # type: ignore[arg-type]
    assert alone is not None and "(of " not in alone


def test_a_thin_stratum_is_counted_as_its_average_is_over_scored_queries(tmp_path: Path) -> None:
    from helpers import run_cli

    # Stratum "s": two scored queries, one whose labels are all 0, one marked no_answer. Its
    # average (and score's n) is over 2 queries; the warning once said 4.
    rows = [
        {"query_id": "a", "doc_uri": "d1", "relevance": 1, "stratum": "s"},
        {"query_id": "b", "doc_uri": "d2", "relevance": 2, "stratum": "s"},
        {"query_id": "c", "doc_uri": "d3", "relevance": 0, "stratum": "s"},
        {"query_id": "n", "query": "x", "expect": "no_answer", "stratum": "s"},
        {"query_id": "z", "doc_uri": "d4", "relevance": 0, "stratum": "empty"},
    ]
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    done = run_cli("validate", "-j", str(path), "--json")
    messages = {i["subject"]: i["message"] for i in done.json()["issues"] if i["code"] == "thin-stratum"}
    assert messages["s"].startswith("stratum s has 2 scored queries (and 2 not scored: no relevant label, or marked")
    assert "none of its queries is scored" in messages["empty"]
    # At threshold 2 only b counts.
    done = run_cli("validate", "-j", str(path), "--threshold", "2", "--json")
    messages = {i["subject"]: i["message"] for i in done.json()["issues"] if i["code"] == "thin-stratum"}
    assert messages["s"].startswith("stratum s has 1 scored query (and 3 not scored")
