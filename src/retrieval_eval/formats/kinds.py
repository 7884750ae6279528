"""What a file given in the wrong place is: a run, judgments, a report, a comparison, a corpus.

Swapping ``-j`` and ``-r``, or passing a report where judgments go, is the commonest slip, and
the reader's own refusal ("judgments:1: missing required field doc_uri", "try fix line 1 of
run.jsonl") sends the user to edit a file that is fine. The kind is read from the first line (a
JSONL record or a TREC line) or, for a JSON document, from its first block; a refusal of a
file's first line (or of the whole file) is then said as what it is.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, KeysView
from typing import ParamSpec, TypeVar

from ..core.errors import InputError
from .fileio import open_binary

P = ParamSpec("P")
T = TypeVar("T")

BOM = b"\xef\xbb\xbf"
FIRST_BLOCK = 1 << 16  # a report or a corpus snapshot names its kind within its first lines
_COMPARISON = b'"retrieval-eval comparison"'

# Each role, and the kinds that are the file of another role (a qrels file is judgments, in any form).
_RUNS = ("a run", "a run (TREC)")
_JUDGMENTS = ("judgments", "judgments (TREC qrels)")
_NOT = {
    "judgments": (*_RUNS, "a report", "a comparison", "a corpus"),
    "run": (*_JUDGMENTS, "a report", "a comparison", "a corpus"),
    "corpus": (*_RUNS, *_JUDGMENTS, "a report", "a comparison"),
}
_NOUN = {"judgments": "judgments", "run": "a run", "corpus": "a corpus"}


def kind_of(data: bytes) -> str | None:
    """The kind of file ``data`` begins like, or None when it is none of them (or cannot tell)."""
    text = data.removeprefix(BOM)
    # The first line that says anything: a JSONL file may open with // comments.
    first = next(
        (line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(b"//")), b""
    )
    try:  # a line of a run or judgments file is shallow; anything that recurses deep is neither
        record = json.loads(first)
    except (ValueError, RecursionError):
        return _document_kind(text) if first.startswith((b"{", b"[")) else trec_kind(first)
    if not isinstance(record, dict):
        return None
    return _record_kind(record.keys())


def _record_kind(keys: KeysView[str]) -> str | None:
    """The one kind a JSONL record's fields name, or None when they name none or several.

    A line is free to carry fields of its own (a judge's ``score`` and ``doc_id`` beside a
    label's ``relevance``, a ``ranking`` note): a line that reads as two kinds is the file's own
    kind with extra fields as often as another's, and calling it the other would hide the fault
    the reader found ("this is a run" for a judgments file whose line 2 has a bad relevance).
    """
    query = "query_id" in keys  # every run and judgments line names its query; a report, a corpus none
    found = [
        kind
        for kind, named in (
            ("a report", "spec_version" in keys and not query),
            ("a run", "ranking" in keys or {"doc_id", "score"} <= keys),
            ("judgments", "relevance" in keys or "doc_uri" in keys and query),
            ("a corpus", ("corpus_fingerprint" in keys or {"chunk_id", "text"} <= keys) and not query),
        )
        if named
    ]
    return found[0] if len(found) == 1 else None


def _document_kind(text: bytes) -> str | None:
    """A JSON document (pretty-printed: its first line is ``{``) by what its first block names."""
    head = text[:FIRST_BLOCK]
    if b'"spec_version"' in head:
        return "a report"
    if _COMPARISON in head:
        return "a comparison"
    if b'"corpus_fingerprint"' in head or b'"chunks"' in head:
        return "a corpus"
    return None


def trec_kind(line: bytes) -> str | None:
    """``a run (TREC)`` for ``QID Q0 DOC RANK SCORE TAG``, ``judgments (TREC qrels)`` for ``QID 0 DOC
    GRADE``; None for anything else (random bytes that happen to hold spaces included)."""
    try:
        fields = line.decode("ascii").split()
    except UnicodeDecodeError:
        return None
    if len(fields) == 6 and fields[3].isdigit() and _is_number(fields[4]):
        return "a run (TREC)"
    if len(fields) == 4 and fields[3].lstrip("-").isdigit():
        return "judgments (TREC qrels)"
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def first_block(path: str) -> bytes:
    """The first 64 KiB of ``path``; nothing when it is not a regular file (a pipe is read once,
    and reading it again could wait on a writer) or cannot be read."""
    if not os.path.isfile(path):
        return b""
    try:
        with open_binary(path) as handle:
            return handle.read(FIRST_BLOCK)
    except (InputError, OSError):
        return b""


def mistaken(exc: InputError, role: str, path: str | None) -> InputError:
    """``exc`` (a refusal of the ``role`` file's first lines, or of the whole file) said as what the
    file is, when it is another role's file: "this is a run, not judgments". Any other refusal is
    returned as it is: a fault further down is the file's own."""
    named = exc.source == role or exc.source.startswith(f"{role} (")  # a reader may name the file
    # A corpus snapshot's reader meets another kind's file at its second line (the first read as
    # the snapshot's header); whatever the line, the kind the first line reads as decides.
    if path is None or exc.line not in (None, 1, 2) or role not in _NOT or not named:
        return exc
    kind = kind_of(first_block(path))
    if kind not in _NOT[role]:
        return exc
    swapped = kind in {"judgments": _RUNS, "run": _JUDGMENTS}.get(role, ())
    return InputError(
        exc.source,
        None,
        f"this is {kind}, not {_NOUN[role]}",
        path=path,
        hint=f"the judgments and the run look swapped: check {path}"
        if swapped
        else f"check {path}: pass the {role} file here",
    )


def says_what_it_is(role: str) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """A reader of the ``role`` file (its path first) whose refusal of another role's file says so."""

    def decorate(read: Callable[P, T]) -> Callable[P, T]:
        @functools.wraps(read)
        def reading(*args: P.args, **kwargs: P.kwargs) -> T:
            try:
                return read(*args, **kwargs)
            except InputError as exc:
                path = args[0] if args and isinstance(args[0], str) else None
                raise mistaken(exc, role, path) from None

        return reading

    return decorate
