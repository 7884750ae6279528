"""Making user strings inert for GitHub Markdown and HTML.

Query text, ids, stratum names, gate expressions, reasons and hashes come
from files a pull request can change. Each is put on one line, shortened and
escaped before any template sees it, so no mention, issue reference, link,
image, HTML tag, emphasis or table break survives.
"""

from __future__ import annotations

import re
from typing import Any

TEXT_LIMIT = 200  # characters of one user string shown in a cell

# Characters that Markdown or HTML would read as syntax anywhere in a line.
_ESCAPES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "|": "&#124;",
    '"': "&quot;",
    "\\": "\\\\",
    "`": "\\`",
    "*": "\\*",
    "_": "\\_",
    "[": "\\[",
    "]": "\\]",
    "(": "\\(",
    ")": "\\)",
    "!": "\\!",
    "~": "\\~",
    "$": "\\$",
    "{": "\\{",
    "}": "\\}",
    # A zero-width space after @ and # stops GitHub turning them into mentions and
    # issue links, which it does after Markdown, so a backslash would not help.
    "#": "#&#8203;",
    "\u200b": "&#8203;",
}
# An @ starts a mention, or an e-mail address that becomes a link. Only the
# "recall@5" shape (an ASCII word, @, a short number, then nothing a user name or
# domain could go on with) is neither, and is left readable. GitHub's autolinker
# reads ASCII: "café@1234" mentions user 1234, so the classes here are ASCII too.
_AT = re.compile(r"(?<![A-Za-z0-9_])@|@(?![0-9]{1,6}(?![A-Za-z0-9_.+-]))")
# Bare URLs become links through GitHub's autolinker; break the patterns it looks for:
# a scheme's "//", "www.", and the GH-26 form of an issue reference.
_AUTOLINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=www)(?=\.)|(?<=gh-)(?=[0-9])")
# A run of 7 to 40 hex digits is linked to the commit it names, when there is one; in a
# code span it is not, and it still copies as it reads.
_SHA = re.compile(r"(?<![0-9A-Za-z])[0-9A-Fa-f]{7,40}(?![0-9A-Za-z])")
# Every control (Cc) and format (Cf) character of Unicode: the marks that reorder text (U+202E
# shows "txt.exe" as "exe.txt"), and those that draw nothing at all (tag characters spell a whole
# hidden sentence, joiners, U+FEFF). Each is shown by its code point, so a reviewer reads what is
# there. Listed by hand, not built from unicodedata at start-up; a test checks it against it.
HIDDEN_CLASS = (
    "\x00-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
_INVISIBLE = re.compile(f"[{HIDDEN_CLASS}]")
_LINE_START = re.compile(r"^(\d{1,9}(?=[.)](?:\s|$))|[-+](?=\s|$))")
# Metric names from our registry need no escaping (an @ after a letter is no mention).
_PLAIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(@[0-9]{1,6})?")


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# As above but tab and newline, which whitespace folding handles: the page's rule.
_HIDDEN_ON_PAGE = re.compile(f"(?![\t\n])[{HIDDEN_CLASS}]")


def page_text(value: Any, limit: int) -> str:
    """A user string for the HTML page (whose template escapes markup): one line, hidden
    characters made visible as ``<U+202E>``, at most ``limit`` long. Every block of the page
    takes its user strings through here, so none shows a reordering mark the others would."""
    return shorten(" ".join(_HIDDEN_ON_PAGE.sub(lambda m: f"<U+{ord(m.group()):04X}>", str(value)).split()), limit)


def escape_markdown(value: Any, *, limit: int = TEXT_LIMIT) -> str:
    """A user string made inert for GitHub Markdown and HTML, on one line, at most ``limit`` long.

    No mention, issue reference, link, image, HTML tag, emphasis or table
    break survives; the text still reads the same once rendered.
    """
    text = shorten(_INVISIBLE.sub(_code_point, " ".join(str(value).split())), limit)
    text = _AUTOLINK.sub("\u200b", text)
    text = _AT.sub("@\u200b", text)
    text = "".join(_ESCAPES.get(char, char) for char in text)
    # A leading list or heading marker would make a block if the text starts a line.
    text = _LINE_START.sub(lambda m: m.group(1) + "\\" if m.group(1).isdigit() else "\\" + m.group(1), text, count=1)
    return _SHA.sub(lambda m: f"`{m.group(0)}`", text)


def show_hidden(text: str) -> str:
    """``text`` with every hidden character (see HIDDEN_CLASS) shown by its code point: the one
    rule for what is published, also where no other escaping applies (a command to copy)."""
    return _INVISIBLE.sub(_code_point, text)


def _code_point(match: re.Match[str]) -> str:
    return f"⟨U+{ord(match.group(0)):04X}⟩"


def escape_name(value: Any, *, limit: int = 60) -> str:
    """A metric name: shown as is when it looks like one of ours, escaped otherwise."""
    text = str(value)
    plain = len(text) <= limit and _PLAIN_NAME.fullmatch(text) and not _SHA.search(text)
    return text if plain else escape_markdown(text, limit=limit)


def mermaid_label(value: Any, *, limit: int = 24) -> str:
    """A name safe inside a quoted Mermaid label: letters, digits, spaces, - _ . and the @ of a cutoff."""
    text = re.sub(r"[^\w .@-]", "_", _AT.sub("_", " ".join(str(value).split())))
    return shorten(text, limit) or "_"


def code_fence(text: str) -> str:
    """A Markdown fence longer than any run of backticks in ``text``, so the text cannot close it."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)
