"""The two ways a question cannot be answered: bad input and bad usage.

Both map to exit code 2 in the CLI. Messages follow one shape so users (and the
conformance fixtures) can rely on them: ``<source>:<line>: <what is wrong>``.
"""

from __future__ import annotations


class RetrievalEvalError(Exception):
    """Base class: a problem the user can fix, reported without a traceback."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message


class InputError(RetrievalEvalError):
    """A file could not be read or does not follow its format.

    ``source`` is the role of the file (``judgments``, ``run``, ``corpus``...),
    which is what the message names, so that messages are identical whatever
    the path; ``path`` is kept for the hint that tells the user where to look.
    """

    def __init__(
        self,
        source: str,
        line: int | None,
        problem: str,
        *,
        path: str | None = None,
        hint: str | None = None,
    ) -> None:
        where = f"{source}:{line}" if line is not None else source
        if hint is None and path is not None and (line is not None or path not in source):
            # A whole document's refusal that names the file already says where to look.
            hint = f"fix line {line} of {path}" if line is not None else f"check {path}"
        super().__init__(f"{where}: {problem}", hint=hint)
        self.source = source
        self.line = line
        self.problem = problem
        self.path = path


class UsageError(RetrievalEvalError):
    """The command was asked something it cannot do (bad option, unknown metric)."""
