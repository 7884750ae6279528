"""Hostile inputs, every area's table through one runner: clean refusals, nothing damaged."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hostile.case import HostileCase

AREAS = sorted(p.stem for p in (Path(__file__).parent / "hostile").glob("cases_*.py"))


def all_cases() -> list[HostileCase]:
    cases: list[HostileCase] = []
    for area in AREAS:
        cases.extend(importlib.import_module(f"hostile.{area}").CASES)
    return cases


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_hostile_input_is_refused_cleanly(case: HostileCase, tmp_path: Path) -> None:
    for name, data in case.files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if case.setup is not None:
        case.setup(tmp_path)
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in case.argv]
    env = {**os.environ, **{k: v.replace("{tmp}", str(tmp_path)) for k, v in case.env.items()}}
    done = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=case.timeout,
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == case.exit_code, (done.returncode, done.stderr)
    assert case.stderr_has in done.stderr, done.stderr
    assert case.stdout_has in done.stdout, done.stdout
    if case.check is not None:
        case.check(tmp_path)
