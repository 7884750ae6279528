"""Every form GitHub's autolinker turns into a link, a mention or a reference, made inert;
and every mark that reorders or hides text shown by its code point.

GitHub links, after Markdown: ``#26``, ``GH-26`` (any case), ``org/repo#26``, ``@user``,
``user@sha``, ``owner/repo@sha``, bare commit SHAs (7 to 40 hex digits), URLs (``http://``,
``www.``), e-mail addresses (also after ``mailto:`` and ``xmpp:``). Its autolinker reads
ASCII: any other letter before ``@`` starts a mention (``café@1234`` mentions 1234).
"""

from __future__ import annotations

import re

import pytest

from retrieval_eval.render.escape import escape_markdown, escape_name

BIDI = ["\u061c", "\u200e", "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))]
CONTROLS = [chr(c) for c in [*range(0x00, 0x09), 0x0B, 0x0E, 0x1B, 0x7F, *range(0x80, 0xA0)] if not chr(c).isspace()]

LINKED = [
    "GH-26",
    "gh-26",
    "Gh-7",
    "see GH-26.",
    "(GH-26)",
    "xGH-26",
    "#26",
    "org/repo#26",
    "org/repo@abc1234",
    "owner/repo@1234567",
    "user@abcdef0",
    "café@1234",
    "中@12-ab",
    "é@octocat",
    "ü@x",
    "@octocat",
    "recall@12-ab.com",
    "a@1234.com",
    "a@1234567",
    "mail me: a@b.example",
    "mailto:a@b.example",
    "xmpp:a@b.example",
    "a5c3785ed8d6a35868bc169f07e40e889087fd2e",
    "commit a5c3785",
    "A5C3785ED8",
    "1234567",
    "http://evil.example",
    "HTTPS://evil.example",
    "ftp://evil.example",
    "www.evil.example",
    "WWW.evil.example",
    "éwww.evil.example",
]


def without_code_spans(text: str) -> str:
    return re.sub(r"`[^`]*`", "", text)


def live_forms(text: str) -> list[str]:
    """What GitHub would still link in ``text`` (escaped Markdown, before its rendering)."""
    plain = without_code_spans(text.replace("&#8203;", "\u200b"))
    found = []
    found += re.findall(r"(?i)gh-[0-9]", plain)
    found += re.findall(r"#[0-9]", plain)
    found += re.findall(r"(?i)[a-z]+://|www\.", plain)
    found += re.findall(r"(?<![0-9A-Za-z])[0-9A-Fa-f]{7,40}(?![0-9A-Za-z])", plain)
    for match in re.finditer(r"@(?=[A-Za-z0-9])", plain):
        before, after = plain[: match.start()], plain[match.end() :]
        metric_cutoff = re.search(r"[A-Za-z0-9_]$", before) and re.match(r"[0-9]{1,6}(?![A-Za-z0-9_.+-])", after)
        if not metric_cutoff:
            found.append(plain[max(match.start() - 3, 0) : match.end() + 3])
    return found


@pytest.mark.parametrize("text", LINKED)
def test_no_autolink_form_survives(text: str) -> None:
    assert live_forms(escape_markdown(text)) == [], escape_markdown(text)
    assert live_forms(escape_markdown(f"before {text} after")) == []


@pytest.mark.parametrize("mark", BIDI + CONTROLS, ids=lambda c: f"U+{ord(c):04X}")
def test_bidi_and_control_marks_are_shown_by_code_point(mark: str) -> None:
    escaped = escape_markdown(f"invoice{mark}txt.exe")
    assert mark not in escaped
    assert f"⟨U+{ord(mark):04X}⟩" in escaped


def test_metric_names_and_plain_text_stay_readable() -> None:
    assert escape_markdown("recall@5 and ndcg@10: recall@1000") == "recall@5 and ndcg@10: recall@1000"
    assert escape_markdown("GH-x and gh-") == "GH-x and gh-"
    assert escape_markdown("café, 中文, naïve") == "café, 中文, naïve"
    # A hash still reads and copies as itself.
    assert escape_markdown("judgments b095d5736001") == "judgments `b095d5736001`"


def test_a_metric_name_that_looks_like_a_sha_is_escaped() -> None:
    assert escape_name("recall@5") == "recall@5"
    assert escape_name("deadbeef") == "`deadbeef`"


def _unicode_controls_and_formats() -> list[str]:
    """Every Cc and Cf character this Python's Unicode database knows: the oracle for the hand list."""
    import unicodedata

    return [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cc", "Cf")]


def test_every_control_and_format_character_is_shown_by_code_point() -> None:
    from retrieval_eval.render.html import plain

    for char in _unicode_controls_and_formats():
        if char.isspace():
            continue  # folded into one space, as any white space
        shown = escape_markdown(f"a{char}b")
        assert shown == f"a⟨U+{ord(char):04X}⟩b", (hex(ord(char)), shown)
        assert plain(f"a{char}b") == f"a<U+{ord(char):04X}>b", hex(ord(char))
