"""One grammar for numbers: plain ASCII decimals, or a clear refusal, wherever a number is read.

Python's float() and int() read "0_1", " -0.1" and other scripts' digits; YAML 1.1 reads
010 as 8, 1:30 as 90 and 0x2 as 2. None of these is a number anyone meant to give.
"""

from __future__ import annotations

import pytest

from retrieval_eval.action.settings import SettingsError
from retrieval_eval.action.settings import parse_config_text as action_config
from retrieval_eval.core.errors import UsageError
from retrieval_eval.core.fusion import parse_weights
from retrieval_eval.core.gates import parse_gate
from retrieval_eval.core.numbers import parse_decimal
from retrieval_eval.pipeline.settings import parse_easy_set

NOT_PLAIN = [" -0.1", "-0_1", "0_1", "\u0660.\u0665", "\uff10.5", "1e-1", "inf", "nan", "0x2", "", "+", "."]
NOT_PLAIN += ["1.2.3", "0.5 "]
PLAIN = {"0.5": 0.5, "-0.1": -0.1, "+0.05": 0.05, ".5": 0.5, "1": 1.0, "1.": 1.0, "010": 10.0}


@pytest.mark.parametrize("text", NOT_PLAIN)
def test_only_plain_decimals_are_numbers(text: str) -> None:
    with pytest.raises(ValueError):
        parse_decimal(text)


def test_plain_decimals_read_as_decimals() -> None:
    assert {text: parse_decimal(text) for text in PLAIN} == PLAIN


@pytest.mark.parametrize("text", ["recall@5: -0.1", "recall@5:-0_1", "recall@5:\u0660.\u0665", "recall@5: 0.5"])
def test_a_gate_number_is_a_plain_decimal(text: str) -> None:
    with pytest.raises(UsageError, match="not a plain decimal"):
        parse_gate(text, ks=(5,))


def test_a_signed_gate_is_a_delta_and_an_unsigned_one_absolute() -> None:
    assert parse_gate("recall@5:-0.1", ks=(5,)).kind == "delta"
    assert parse_gate("recall@5:0.1", ks=(5,)).kind == "absolute"


@pytest.mark.parametrize("text", ["0_1", "\u0660.\u0665", "1e-1"])
def test_settings_and_fusion_weights_read_the_same_grammar(text: str) -> None:
    with pytest.raises(ValueError):
        parse_easy_set(text)
    with pytest.raises(ValueError):
        parse_weights(f"1,{text}", 2)


@pytest.mark.parametrize(
    ("line", "kept"), [("k: 010", "010"), ("k: 1:30", "1:30"), ("threshold: 0x2", "0x2"), ("easy-set: 0.50", "0.50")]
)
def test_the_config_file_keeps_numbers_as_written(line: str, kept: str) -> None:
    """The YAML is read without retyping: the setting's own parser then reads (or refuses) the text."""
    name = line.partition(":")[0]
    assert action_config(line + "\n", source=".retrieval-eval.yml")[name] == kept


def test_a_setting_given_under_both_spellings_is_refused() -> None:
    with pytest.raises(SettingsError, match="fail-on-indeterminate"):
        action_config("fail-on-indeterminate: true\nfail_on_indeterminate: false\n", source=".retrieval-eval.yml")
