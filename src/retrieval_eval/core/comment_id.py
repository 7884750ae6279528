"""The one rule for a comment id, read by the action's ``comment-id`` and ``render --comment-id``.

The id is written into the hidden HTML comment that marks our pull-request comment, so it must
not end that comment early or make it invalid: no spaces, no ``-->``, and no ``--`` at all (HTML
forbids ``--`` inside a comment).
"""

from __future__ import annotations

import re

_COMMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
RULE = "1-64 letters, digits, '.', '_' or single '-', e.g. nightly-eval"


def check_comment_id(text: str) -> str:
    """``text`` when it is a valid comment id; ValueError saying the rule otherwise."""
    if not isinstance(text, str) or not _COMMENT_ID.fullmatch(text) or "--" in text:
        raise ValueError(f"{text!r} must be {RULE}")
    return text
