"""Secrets are scrubbed from published text, in every form our own escaping gives them."""

from __future__ import annotations

import pytest

from retrieval_eval.render.escape import escape_markdown
from retrieval_eval.render.scrub import MASK, scrub, secret_inputs

TOKEN = "ghs_doNotLeakThisToken42"


@pytest.mark.parametrize(
    "form",
    [
        TOKEN,
        escape_markdown(TOKEN),  # ghs\_doNotLeak...
        escape_markdown(f"@{TOKEN}"),
        "ghs&#95;doNotLeakThisToken42",
        "ghs&#x5f;doNotLeakThisToken42",
        "ghs_doNot\u200bLeakThis`Token42`",
    ],
)
def test_every_form_of_the_secret_is_masked(form: str) -> None:
    scrubbed = scrub(f"before {form} after", [TOKEN])
    assert scrubbed.startswith("before ") and scrubbed.endswith(" after") and MASK in scrubbed
    assert "doNot" not in scrubbed and "Token42" not in scrubbed and "ghs" not in scrubbed


def test_text_without_the_secret_is_unchanged() -> None:
    text = "recall@5 **0.8889** · judgments `b095d5736001` · ghs_other"
    assert scrub(text, [TOKEN]) == text


def test_secret_inputs_are_the_inputs_whose_name_says_so() -> None:
    env = {
        "INPUT_GITHUB-TOKEN": TOKEN,
        "INPUT_DEPLOY_KEY": "sk-1234567",
        "INPUT_DB-PASSWORD": "hunter22",
        "INPUT_SSH-PRIVATE": "-----BEGIN KEY-----\nAAAAB3Nza\n-----END KEY-----",
        "INPUT_K": "5,10",
        "INPUT_API-KEY": "abc",  # too short to scrub without mangling ordinary text
        "GITHUB_TOKEN_PATH": "/not/an/input",
    }
    found = secret_inputs(env)
    assert TOKEN in found and "sk-1234567" in found and "hunter22" in found
    assert "AAAAB3Nza" in found and "-----BEGIN KEY-----" in found
    assert "5,10" not in found and "abc" not in found and "/not/an/input" not in found
    assert [len(s) for s in found] == sorted((len(s) for s in found), reverse=True)
