"""Secrets taken out of any text before it leaves the process: the last line of defence.

Nothing we render should hold the token, but a template, a report or a note might carry it by
a path nobody foresaw. So every comment, summary and file the action publishes is scrubbed
of the token and of every input whose name says it is a secret, also in the forms our own
escaping gives it (``ghs\\_abc``, ``&#8203;`` breaks, code spans, HTML entities), and in
the encodings tools store a credential in: URL-encoded, and base64 (actions/checkout keeps
``AUTHORIZATION: basic base64("x-access-token:TOKEN")`` in ``.git/config``).
"""

from __future__ import annotations

import base64
import functools
import re
import urllib.parse
from collections.abc import Iterable, Mapping

from .escape import _ESCAPES

MASK = "***"
MIN_LENGTH = 4  # shorter values would match ordinary text; no real secret is that short
SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "PRIVATE")
# What our escaping may put between two characters of a secret.
_BETWEEN = r"(?:\\|`|&#8203;|\u200b)*"


def secret_inputs(env: Mapping[str, str], *, encoded: bool = True) -> tuple[str, ...]:
    """Values of the action's inputs (``INPUT_*``) whose name says they are secret, and each of their
    lines (the runner masks a multi-line secret line by line), longest first; with ``encoded``,
    also the forms :func:`encoded_forms` gives them."""
    found: set[str] = set()
    for name, value in env.items():
        if name.upper().startswith("INPUT_") and any(word in name.upper() for word in SECRET_WORDS):
            for part in (value, *value.splitlines()):
                if len(part.strip()) >= MIN_LENGTH:
                    found.add(part.strip())
    if encoded:
        found |= {form for secret in tuple(found) for form in encoded_forms(secret)}
    return tuple(sorted(found, key=lambda s: (-len(s), s)))


def encoded_forms(secret: str) -> set[str]:
    """The forms a tool may store ``secret`` in: URL-encoded, and base64 at any alignment.

    Base64 of data that holds the secret (``x-access-token:TOKEN``, or anything else) contains,
    for the secret's offset modulo 3, one fixed run of characters that only the secret's bytes
    decide; masking those three runs masks every base64 the secret can appear in.
    """
    # The environment holds bytes: one that is not UTF-8 is read as a lone surrogate, and is that
    # byte again here (a strict encoding failed the action before it published anything).
    raw = secret.encode("utf-8", "surrogateescape")
    forms = {urllib.parse.quote(raw, safe=""), urllib.parse.quote(raw)}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode("ascii")
        first = -(-shift * 8 // 6)  # the first character decided by the secret's bits alone
        last = (shift + len(raw)) * 8 // 6  # past the last character decided by them alone
        forms.add(encoded[first:last])
    return {form for form in forms if len(form) >= MIN_LENGTH and form != secret}


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret (as written, or as our escaping writes it) replaced by ``***``.

    A secret's pattern is searched only where it could match (:func:`_cannot_hold`): on the
    action's 9 MB report, four secrets searched in full were 0.11 s.
    """
    plain = "&" not in text
    bare = _bare(text) if plain else ""
    for secret in secrets:
        if len(secret) >= MIN_LENGTH and not (plain and _cannot_hold(bare, secret)):
            text = _pattern(secret).sub(MASK, text)
    return text


_BETWEEN_CHARACTERS = ("\\", "`", "\u200b")  # what _BETWEEN allows, but for "&#8203;"


def _bare(text: str) -> str:
    """``text`` without the characters our escaping puts around or between a secret's."""
    for character in _BETWEEN_CHARACTERS:
        if character in text:
            text = text.replace(character, "")
    return text


def _cannot_hold(bare: str, secret: str) -> bool:
    """Whether a text without ``&`` whose :func:`_bare` form is ``bare`` cannot hold ``secret``
    in any form :func:`_pattern` matches.

    Without ``&`` there is no entity, so every form of a character is the character, or it
    with a backslash before it, and what may come between two is a backslash, a backtick or
    a zero-width space: removing those from a match leaves the secret with them removed, a
    substring of ``bare``. (A secret holding ``*`` is always searched: ``***`` masks written
    before it could become part of a match.)
    """
    return "*" not in secret and _bare(secret) not in bare


@functools.lru_cache(maxsize=64)
def _pattern(secret: str) -> re.Pattern[str]:
    return re.compile(_BETWEEN.join(_forms(char) for char in secret))


def _forms(char: str) -> str:
    forms = {char, "\\" + char, _ESCAPES.get(char, char), f"&#{ord(char)};", f"&#x{ord(char):x};"}
    return "(?:" + "|".join(re.escape(form) for form in sorted(forms, key=len, reverse=True)) + ")"
