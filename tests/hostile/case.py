"""One hostile-input case: files to lay down, a command to run, what must come back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class HostileCase:
    """``argv`` may hold ``{tmp}``, replaced by the case's own temporary folder.

    ``item`` names the defect class the case belongs to (the hardening list's number), so a
    reader can find every variant of one defect together.
    """

    item: str
    name: str
    argv: tuple[str, ...]
    files: dict[str, bytes] = field(default_factory=dict)
    exit_code: int = 2
    stderr_has: str = ""
    stdout_has: str = ""
    stdout_lacks: tuple[str, ...] = ()  # texts that must appear on neither output stream
    # Python run with ``python -c`` instead of the CLI (the library's API; argv is then its sys.argv).
    code: str = ""
    # Called with the case's folder before the run: lays down what bytes cannot (links, modes).
    setup: Callable[[Path], None] | None = None
    # Called with the case's folder after the run: asserts nothing the user owns was damaged.
    check: Callable[[Path], None] | None = None
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    # Run against the fake GitHub (a real local server) on a pull request: the case must end
    # with our comment on it, so the pull request hears of the failure, never an old PASS.
    github: bool = False
    comment_has: str | None = ""  # what our comment must say; None: no comment can be posted

    @property
    def id(self) -> str:
        return f"{self.item}-{self.name}"
