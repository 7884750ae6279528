"""Test helpers: where the spec fixtures live, and running the real CLI in a child process."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "spec" / "fixtures"


def fixture_path(case: str, name: str) -> str:
    return str(FIXTURES / case / name)


def expected(case: str) -> dict[str, Any]:
    return json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def run_cli(*args: str, cwd: str | Path | None = None, env: dict[str, str] | None = None) -> CliResult:
    """Run the real console entry point in a child process: exit codes and stderr as users see them."""
    completed = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )
    return CliResult(completed.returncode, completed.stdout, completed.stderr)
