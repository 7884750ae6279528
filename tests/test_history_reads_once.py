"""The base report is parsed once: the history reuses the baseline when a version is its very bytes."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from retrieval_eval.action import history as history_module
from retrieval_eval.action.baseline import Baseline
from retrieval_eval.action.git import FileHistory, FileVersion
from retrieval_eval.action.settings import Runner, parse_settings
from retrieval_eval.formats.github import event_from_json
from retrieval_eval.formats.history import history_to_json
from retrieval_eval.formats.report import as_report

BASE_SHA = "b" * 40


def report(recall: float) -> dict[str, Any]:
    return {
        "config": {"k": [5], "threshold": 1, "gain": "exponential"},
        "inputs": {"judgments_sha256": "j" * 64},
        "metrics": {"recall@5": {"value": recall, "n": 3}},
    }


@dataclass
class Versions:
    """A git store holding only the report's versions (newest first)."""

    versions: list[FileVersion]
    problem: str = ""

    def file_history(self, rev: str, path: str, limit: int) -> FileHistory:
        return FileHistory(self.versions[:limit])


def _history(tmp_path: Path, baseline: Baseline, versions: list[FileVersion]) -> dict[str, Any] | None:
    settings = parse_settings({"INPUT_JUDGMENTS": "j", "INPUT_RUN": "r"}, runner=Runner(workspace=tmp_path))
    event = event_from_json("pull_request", {"pull_request": {"number": 1, "base": {"sha": BASE_SHA, "ref": "main"}}})
    history = history_module.base_history_records(
        settings, event, Versions(versions), baseline, as_report(report(0.7)), "2026-01-01T00:00:00Z"
    )
    return None if history is None else history_to_json(history)


def test_the_base_commits_version_is_the_baseline_already_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    older, newest = json.dumps(report(0.5)).encode(), json.dumps(report(0.6)).encode()
    versions = [FileVersion(BASE_SHA, 1_767_225_600, newest), FileVersion("a" * 40, 1_767_139_200, older)]
    parsed: list[bytes] = []
    real = history_module.parse_document

    def counting(data: bytes, source: str) -> Any:
        parsed.append(data)
        return real(data, source)

    monkeypatch.setattr(history_module, "parse_document", counting)
    read = Baseline(as_report(json.loads(newest)), source="git", sha256=hashlib.sha256(newest).hexdigest())
    reused = _history(tmp_path, read, versions)
    assert parsed == [older]  # the newest version is the baseline's bytes: not parsed again
    # The same history as parsing every version: a baseline read from other bytes reuses nothing.
    parsed.clear()
    other = Baseline(as_report(json.loads(newest)), source="file", sha256=hashlib.sha256(b"other bytes").hexdigest())
    assert _history(tmp_path, other, versions) == reused
    assert parsed == [older, newest]
    assert reused is not None and [p["label"] for p in reused["points"]] == ["aaaaaaa", "bbbbbbb", "this PR"]
