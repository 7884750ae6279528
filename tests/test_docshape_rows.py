"""The bulk check of a report's rows (per_query, rankings) accepts exactly what JSON Schema accepts,
and leaves the wording of a fault to the row-by-row walk."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from retrieval_eval.formats.docshape import Checker, ShapeError
from retrieval_eval.formats.shapes import NUMBER, STRINGS

SHAPE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "per_query": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": NUMBER}},
        "rankings": {"type": "object", "additionalProperties": STRINGS},
    },
}

GOOD: dict[str, Any] = {
    "per_query": {f"q{i}": {"recall@10": i / 7, "mrr@10": 1, "ndcg@10": 0.0} for i in range(50)},
    "rankings": {f"q{i}": [f"d{i}", f"d{i + 1}"] for i in range(50)},
}


def spoiled(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    document = copy.deepcopy(GOOD)
    target = document
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return document


CASES = [
    (("per_query", "q31", "mrr@10"), "0.5", '"mrr@10" must be a number', "$.per_query.q31"),
    (("per_query", "q31", "mrr@10"), True, '"mrr@10" must be a number', "$.per_query.q31"),
    (("per_query", "q31", "mrr@10"), 1e300, '"mrr@10" must be at most', "$.per_query.q31"),
    (("per_query", "q40"), [0.5], "q40 must be an object", "$.per_query"),
    (("per_query", "q40"), None, "q40 must be an object", "$.per_query"),
    (("rankings", "q12"), ["d1", 3], "q12[1] must be a string", "$.rankings.q12"),
    (("rankings", "q12"), {"0": "d1"}, "q12 must be an array", "$.rankings"),
]


def test_a_well_formed_document_passes_both_checkers() -> None:
    jsonschema.validate(GOOD, SHAPE)
    Checker(SHAPE).check(GOOD)


@pytest.mark.parametrize(("path", "value", "problem", "at"), CASES)
def test_a_bad_row_is_refused_where_json_schema_refuses_it(
    path: tuple[str, ...], value: Any, problem: str, at: str
) -> None:
    document = spoiled(path, value)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, SHAPE)
    with pytest.raises(ShapeError) as refused:
        Checker(SHAPE).check(document)
    assert refused.value.problem.startswith(problem)
    assert refused.value.at.startswith(at)


def test_a_nan_in_a_row_is_refused() -> None:
    with pytest.raises(ShapeError, match="ndcg@10"):
        Checker(SHAPE).check(spoiled(("per_query", "q3", "ndcg@10"), float("nan")))


@pytest.mark.parametrize(
    ("shape", "value"),
    [
        ({"const": 1}, True),
        ({"const": 0}, False),
        ({"const": True}, 1),
        ({"enum": [1, 2]}, True),
    ],
)
def test_a_boolean_is_not_the_number_a_constant_names(shape: dict[str, Any], value: Any) -> None:
    # JSON Schema tells true from 1 (Python's True == 1 does not): a comparison with "version": true is refused.
    assert not jsonschema.Draft202012Validator(shape).is_valid(value)
    with pytest.raises(ShapeError, match="must be"):
        Checker(shape).check(value)


@pytest.mark.parametrize(("shape", "value"), [({"const": 1}, 1), ({"const": 1}, 1.0), ({"enum": ["a", 1]}, 1)])
def test_an_equal_value_of_the_same_kind_meets_the_constant(shape: dict[str, Any], value: Any) -> None:
    assert jsonschema.Draft202012Validator(shape).is_valid(value)
    Checker(shape).check(value)
