"""Exit codes, for every command and the action: the one contract a CI script reads.

0: the answer is good. 1: the answer is bad (a gate failed, the verdict is INDETERMINATE,
labels decayed, the judgment set is unsound). 2: the question could not be answered (bad
usage, a file that cannot be read or does not follow its format).
"""

from __future__ import annotations

from .gates import INDETERMINATE, PASS

EXIT_OK = 0
EXIT_BAD_ANSWER = 1
EXIT_NO_ANSWER = 2


def exit_code(status: str, *, fail_on_indeterminate: bool = True) -> int:
    """A verdict's exit code; INDETERMINATE passes only when the user said it may."""
    if status == PASS or (status == INDETERMINATE and not fail_on_indeterminate):
        return EXIT_OK
    return EXIT_BAD_ANSWER
