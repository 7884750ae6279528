"""Pytest configuration: tests/helpers.py importable as ``helpers``; the slow tests first."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the slow tests first: a long test picked up last would leave one worker running it
    alone while the others wait. A stable sort, so every worker sees the same order."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
