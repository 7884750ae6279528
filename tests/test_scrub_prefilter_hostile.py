"""The scrubbing prefilter against the full search, on texts built to slip past it.

``scrub`` skips a secret's pattern in a text without ``&`` whose bare form (backslashes,
backticks and zero-width spaces removed) does not hold the secret's bare form. A text the full
search would mask and the prefilter rules out is a leak: every form ``_pattern`` reads is built
here (each character as itself, backslash-escaped, entity-escaped in decimal and hex, as our
Markdown escaping writes it), with every filler ``_BETWEEN`` allows between two characters, and
secrets made of the characters the bare form removes.
"""

from __future__ import annotations

import itertools
import random

from retrieval_eval.render.escape import _ESCAPES, escape_markdown
from retrieval_eval.render.scrub import MASK, MIN_LENGTH, _pattern, encoded_forms, scrub

FILLERS = ("", "\\", "`", "\u200b", "&#8203;", "\\\\", "`\u200b\\")
# Secrets whose characters have forms of their own, or are what the bare form removes.
SECRETS = (
    "ghs_Tok#en",
    "a\\`b",
    "\u200bzw\u200bx",
    "````\\",
    "p&q<r>",
    "ÉtéSecret",
    "x*y*z",
    "AbCd",
    "tok\u0130en",
)


def _full(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if len(secret) >= MIN_LENGTH:
            text = _pattern(secret).sub(MASK, text)
    return text


def _forms(char: str) -> list[str]:
    return sorted({char, "\\" + char, _ESCAPES.get(char, char), f"&#{ord(char)};", f"&#x{ord(char):x};"})


def _written(secret: str, rng: random.Random, *, plain: bool) -> str:
    """``secret`` in one of the forms ``_pattern`` reads; ``plain``: without any ``&``."""
    parts = []
    for index, char in enumerate(secret):
        forms = [form for form in _forms(char) if not (plain and "&" in form)] or [char]
        if index:
            fillers = [f for f in FILLERS if not (plain and "&" in f)]
            parts.append(rng.choice(fillers))
        parts.append(rng.choice(forms))
    return "".join(parts)


def test_every_written_form_of_a_secret_is_masked_as_the_full_search_masks_it() -> None:
    rng = random.Random(6)
    secrets = sorted({*SECRETS, *(form for s in SECRETS for form in encoded_forms(s))}, key=lambda s: (-len(s), s))
    for _ in range(3000):
        secret = rng.choice(SECRETS)
        plain = rng.random() < 0.8
        around = ["", "x", "\\", "`", "***", "\u200b", secret[: rng.randrange(len(secret))]]
        text = rng.choice(around) + _written(secret, rng, plain=plain) + rng.choice(around)
        assert scrub(text, secrets) == _full(text, secrets), (secret, text)
        assert _full(text, [secret]) != text, (secret, text)  # the form is one the full search reads


def test_every_short_text_over_the_escaping_alphabet_is_masked_as_the_full_search_masks_it() -> None:
    """Exhaustive up to five characters over the secrets' characters and every filler's."""
    secrets = ["a\\`b", "ab`\u200b", "\\\\\\\\", "a*ab", "`a`a"]
    alphabet = ("a", "b", "\\", "`", "\u200b", "*", "x")
    for size in range(MIN_LENGTH, 6):
        for letters in itertools.product(alphabet, repeat=size):
            text = "".join(letters)
            assert scrub(text, secrets) == _full(text, secrets), text


def test_secrets_as_our_escaping_writes_them_are_masked_as_the_full_search_masks_them() -> None:
    """The Markdown escaping of a secret (code points, zero-width spaces after @ and #, code spans
    around hex runs) inside longer texts, with and without an ampersand elsewhere."""
    secrets = sorted(
        {"ghs_a@b#c", "deadbeef1234", "tok`en\\x", *encoded_forms("ghs_a@b#c")}, key=lambda s: (-len(s), s)
    )
    for secret, before, after in itertools.product(secrets, ("", "see ", "&amp; "), ("", " and more", "\\")):
        text = before + escape_markdown(secret) + after
        assert scrub(text, secrets) == _full(text, secrets), text
