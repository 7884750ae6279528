"""Hostile inputs, every area's table through one runner: clean refusals, nothing damaged."""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import pytest

from fake_github import BOT, FakeGitHub
from helpers import run_entry_point
from hostile.case import HostileCase

AREAS = sorted(p.stem for p in (Path(__file__).parent / "hostile").glob("cases_*.py"))


def all_cases() -> list[HostileCase]:
    cases: list[HostileCase] = []
    for area in AREAS:
        cases.extend(importlib.import_module(f"hostile.{area}").CASES)
    return cases


PR = 7


def pull_request_env(tmp_path: Path, api_url: str) -> dict[str, str]:
    event = tmp_path.parent / f"{tmp_path.name}-event.json"
    payload = {"number": PR, "pull_request": {"number": PR, "base": {"sha": "0" * 40, "ref": "main"}}}
    event.write_text(json.dumps(payload))
    return {
        "INPUT_API-URL": api_url,
        "GITHUB_REPOSITORY": "octo/widgets",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
    }


@pytest.mark.parametrize("case", all_cases(), ids=lambda c: c.id)
def test_hostile_input_is_refused_cleanly(case: HostileCase, tmp_path: Path) -> None:
    if not case.github:
        run_case(case, tmp_path, {})
        return
    with FakeGitHub(repo="octo/widgets").serve() as fake:
        run_case(case, tmp_path, pull_request_env(tmp_path, fake.url))
        ours = [c for c in fake.comments.get(PR, []) if c["user"] == BOT]
        if case.comment_has is None:
            assert not ours
        else:
            assert len(ours) == 1, fake.comments
            assert case.comment_has in str(ours[0]["body"]), ours[0]["body"]


def run_case(case: HostileCase, tmp_path: Path, github_env: dict[str, str]) -> None:
    for name, data in case.files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    if case.setup is not None:
        case.setup(tmp_path)
    argv = [arg.replace("{tmp}", str(tmp_path)) for arg in case.argv]
    env = {**os.environ, **github_env, **{k: v.replace("{tmp}", str(tmp_path)) for k, v in case.env.items()}}
    # A Python API case runs its snippet as python -c would (forked after the imports, as a command is).
    done = run_entry_point(argv, cwd=tmp_path, env=env, timeout=case.timeout, code=case.code or None)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == case.exit_code, (done.returncode, done.stderr)
    assert case.stderr_has in done.stderr, done.stderr
    assert case.stdout_has in done.stdout, done.stdout
    for text in case.stdout_lacks:
        assert text not in done.stdout and text not in done.stderr, (text, done.stdout, done.stderr)
    if case.check is not None:
        case.check(tmp_path)
