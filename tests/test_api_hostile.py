"""The Python API raises only its documented errors (RetrievalEvalError: UsageError, InputError)
for a bad argument, whatever its type or size, and checks numbers through the settings table."""

from __future__ import annotations

import contextlib
import math
from pathlib import Path
from typing import Any

import pytest

import retrieval_eval as re_api
from retrieval_eval import RetrievalEvalError

DEMO = Path(__file__).resolve().parent.parent / "src" / "retrieval_eval" / "demo"
JUDGMENTS, RUN, CORPUS = DEMO / "judgments.jsonl", DEMO / "run.jsonl", DEMO / "corpus.json"
BAD: list[Any] = [
    None,
    True,
    -1,
    0,
    10**400,
    math.nan,
    math.inf,
    -math.inf,
    1.5,
    "",
    "x",
    "\0",
    b"bytes",
    [],
    [None],
    ["x", 1],
    {},
    {"q": None},
    {"q": {"d": math.nan}},
    object(),
    Path("/nonexistent/file"),
    Path("/dev/zero"),
]
GOOD = {
    "evaluate": {"judgments": JUDGMENTS, "run": RUN},
    "compare": {},
    "drift": {"judgments": JUDGMENTS, "corpus": CORPUS},
    "load_judgments": {"source": JUDGMENTS},
    "load_run": {"source": RUN},
    "load_report": {},
    "canonical_metric": {"name": "ndcg@10"},
    "plan": {},
}
PARAMETERS = {
    "evaluate": [
        "judgments",
        "run",
        "k",
        "threshold",
        "gain",
        "gates",
        "baseline",
        "corpus",
        "collapse_to_documents",
        "max_drift",
        "generated_at",
        "unjudged",
        "power",
        "require_detectable",
        "run_format",
        "judged",
        "floor",
        "easy_set",
        "answer_in_query",
        "machine_labels",
    ],
    "compare": ["base", "head", "judgments", "resamples", "seed", "power"],
    "drift": ["judgments", "corpus"],
    "load_judgments": ["source", "format"],
    "load_run": ["source", "format"],
    "load_report": ["source"],
    "canonical_metric": ["name"],
    "plan": [
        "report",
        "baseline",
        "judgments",
        "metrics",
        "changes",
        "queries",
        "power",
        "alpha",
        "method",
        "correlation",
    ],
}
CASES = [(function, name, value) for function, names in PARAMETERS.items() for name in names for value in BAD]


@pytest.fixture(scope="module")
def evaluation() -> Any:
    return re_api.evaluate(JUDGMENTS, RUN)


def _call(function: str, name: str, value: Any, evaluation: Any) -> Any:
    arguments = dict(GOOD[function])
    if function == "compare":
        arguments = {"base": evaluation, "head": evaluation, "resamples": 200}
    if function == "plan":
        arguments = {"report": evaluation}
    if function == "evaluate" and name in (
        "max_drift",
        "collapse_to_documents",
        "floor",
        "easy_set",
        "answer_in_query",
    ):
        arguments["corpus"] = CORPUS  # so that the value itself is what is checked
    if function == "evaluate" and name == "machine_labels":
        arguments["unjudged"] = "machine"
    arguments[name] = value
    return getattr(re_api, function)(**arguments)


@pytest.mark.parametrize(("function", "name", "value"), CASES, ids=lambda v: repr(v)[:20])
def test_a_bad_argument_raises_only_our_errors(function: str, name: str, value: Any, evaluation: Any) -> None:
    # A report's JSON object in place of a report is deprecated (retrieval_eval.load_report reads one).
    deprecated = isinstance(value, dict) and name in ("baseline", "base", "head", "report")
    with pytest.warns(DeprecationWarning, match="load_report") if deprecated else contextlib.nullcontext():
        try:
            _call(function, name, value, evaluation)
        except RetrievalEvalError:
            pass  # documented: UsageError or InputError, each naming the argument


@pytest.mark.parametrize("value", [math.nan, math.inf, -0.5, 1.5, 10**400, True, "0.1"])
def test_max_drift_outside_zero_to_one_is_refused(value: Any) -> None:
    with pytest.raises(RetrievalEvalError, match="max_drift"):
        re_api.evaluate(JUDGMENTS, RUN, corpus=CORPUS, max_drift=value)


@pytest.mark.parametrize(("name", "value"), [("threshold", 1024), ("k", 10**7), ("k", [5, 10**7])])
def test_numbers_follow_the_settings_table(name: str, value: Any) -> None:
    with pytest.raises(RetrievalEvalError, match="out of range"):
        re_api.evaluate(JUDGMENTS, RUN, **{name: value})


@pytest.mark.parametrize("value", [0.3, 1.0, math.nan, True, "0.8"])
def test_power_means_what_compare_power_means(value: Any, evaluation: Any) -> None:
    # compare --power and plan --power take 0.5 to below 1; so do evaluate(), compare() and plan()
    with pytest.raises(RetrievalEvalError, match="power"):
        re_api.compare(evaluation, evaluation, resamples=200, power=value)
    with pytest.raises(RetrievalEvalError, match="power"):
        re_api.evaluate(JUDGMENTS, RUN, power=value)
    with pytest.raises(RetrievalEvalError, match="power"):
        re_api.plan(evaluation, power=value)
