"""What ``--json`` prints is json.dumps(indent=2, ensure_ascii=False), character for character.

The truth is the standard library itself, over generated JSON values: every scalar (floats
with NaN and the infinities, big integers, strings with control, non-ASCII and surrogate
characters), nested lists, tuples and objects, and the values it treats its own way
(non-string keys, other types), where the answer or the error must be json's.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.formats.jsontext import indented_text

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)


def expected(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_the_text_is_json_dumps_indented(value: Any) -> None:
    assert indented_text(value) == expected(value)


@pytest.mark.parametrize(
    "value",
    [
        {1: "a", "b": [True, None]},  # json turns the key into "1"
        {"nested": {None: 1.5, 2.5: [], False: {}}},
        [{"x": float("nan")}, {"y": -float("inf")}, [], {}],
        {"line\u2028sep": "\x1b[31m", "é": "\ud800"},
    ],
)
def test_what_json_writes_its_own_way_is_json_s(value: Any) -> None:
    assert indented_text(value) == expected(value)


def test_what_json_refuses_it_refuses_alike() -> None:
    with pytest.raises(TypeError, match="Decimal"):
        expected({"a": Decimal("1.5")})
    with pytest.raises(TypeError, match="Decimal"):
        indented_text({"a": Decimal("1.5")})
