"""The few git commands the action needs, run in the workspace checkout."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


class Git(Protocol):
    def has_commit(self, ref: str) -> bool: ...

    def fetch(self, ref: str) -> bool: ...

    def show(self, ref: str, path: str) -> bytes | None: ...


@dataclass(frozen=True)
class GitCli:
    """``git`` in ``cwd``. Failures are answers (False, None), not exceptions:
    a missing commit or file only means the next baseline source is tried."""

    cwd: Path
    timeout: float = 120.0

    def _run(self, *args: str) -> subprocess.CompletedProcess[bytes] | None:
        try:
            return subprocess.run(["git", *args], cwd=self.cwd, capture_output=True, timeout=self.timeout, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None  # no git, or a fetch that hangs: treat as "not available"

    def has_commit(self, ref: str) -> bool:
        result = self._run("cat-file", "-e", f"{ref}^{{commit}}")
        return result is not None and result.returncode == 0

    def fetch(self, ref: str) -> bool:
        """Fetch one commit (or branch tip) without history: enough for ``git show``."""
        result = self._run("fetch", "--no-tags", "--no-recurse-submodules", "--depth=1", "origin", ref)
        return result is not None and result.returncode == 0

    def show(self, ref: str, path: str) -> bytes | None:
        result = self._run("show", f"{ref}:{path}")
        return result.stdout if result is not None and result.returncode == 0 else None
