"""Secrets are scrubbed from published text, in every form our own escaping gives them."""

from __future__ import annotations

import base64
import re
import urllib.parse

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


@pytest.mark.parametrize("prefix", [b"", b"x-access-token:", b"a", b"ab", b"AUTHORIZATION: basic x"])
@pytest.mark.parametrize("suffix", [b"", b"\n", b"@github.com"])
def test_base64_of_the_token_is_scrubbed_at_every_alignment(prefix: bytes, suffix: bytes) -> None:
    token = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
    secrets = secret_inputs({"INPUT_GITHUB-TOKEN": token})
    encoded = base64.b64encode(prefix + token.encode() + suffix).decode()
    published = scrub(f"header: {encoded} end", secrets)
    assert MASK in published
    assert not _decodes_to_part_of(published, token.encode())


def _decodes_to_part_of(text: str, secret: bytes) -> bool:
    """Whether any run of base64 letters in ``text``, decoded at any of its four alignments,
    holds six consecutive bytes of ``secret``: read back as an attacker would."""
    windows = [secret[i : i + 6] for i in range(len(secret) - 5)]
    for run in re.findall(r"[A-Za-z0-9+/]+", text):
        for start in range(4):
            chunk = run[start:][: (len(run) - start) // 4 * 4]
            decoded = base64.b64decode(chunk) if chunk else b""
            if any(window in decoded for window in windows):
                return True
    return False


def test_url_encoded_token_is_scrubbed() -> None:
    token = "p@ss/word:with spaces"
    secrets = secret_inputs({"INPUT_API-PASSWORD": token})
    assert scrub(f"https://u:{urllib.parse.quote(token, safe='')}@host/", secrets) == "https://u:***@host/"


def _one_by_one(text: str, secrets: list[str]) -> str:
    """The plain masking: each secret's pattern over the whole text, in turn."""
    from retrieval_eval.render.scrub import MIN_LENGTH, _pattern

    for secret in secrets:
        if len(secret) >= MIN_LENGTH:
            text = _pattern(secret).sub(MASK, text)
    return text


def test_a_secret_skipped_as_absent_is_one_its_pattern_would_not_find() -> None:
    """scrub() searches a secret's pattern only where it could match: over texts made of the
    secrets' forms (escaped, entities, zero-width spaces, backticks), pieces of them, masks and
    other text, with and without an ampersand, it masks exactly what searching every secret's
    pattern in turn masks."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from retrieval_eval.render.scrub import encoded_forms

    secrets = sorted(
        {TOKEN, "doNotLeak", "a*b*c", "x`y\\z", "p&q_r", "zzzzzz", "q***r", *encoded_forms(TOKEN)},
        key=lambda s: (-len(s), s),
    )
    pieces = st.one_of(
        st.sampled_from(secrets),
        st.sampled_from(secrets).map(escape_markdown),
        st.sampled_from(["ghs&#95;doNot", "LeakThis`Token42`", "ghs\\_do", "\u200b", "\\", "`", "&#8203;", "***", "&"]),
        st.just("qzzzzzzr"),  # masking zzzzzz makes q***r, a secret searched after it
        st.sampled_from(secrets).map(lambda s: s[: len(s) // 2]),
        st.sampled_from(secrets).map(lambda s: s[len(s) // 2 :]),
        st.sampled_from(secrets).map(lambda s: "\u200b".join(s)),
        st.sampled_from(secrets).map(lambda s: "`".join(s)),
        st.text(alphabet="ab*`\\_&#;x01\u200b", max_size=6),
    )

    @settings(max_examples=300, deadline=None)
    @given(st.lists(pieces, max_size=8).map("".join))
    def check(text: str) -> None:
        assert scrub(text, secrets) == _one_by_one(text, secrets)

    check()
