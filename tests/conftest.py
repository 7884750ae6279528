"""Pytest configuration: tests/helpers.py importable as ``helpers``; the slow tests first."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_configure(config: pytest.Config) -> None:
    """Write the package's bytecode once, before any worker starts, as ``pip install`` does for
    an installed package. Where PYTHONDONTWRITEBYTECODE is set (CI machines often set it) and the
    package is an editable install, every worker and every command a test starts as its own
    process would otherwise compile all of it again: seconds of the suite, for nothing."""
    if hasattr(config, "workerinput"):  # an xdist worker: the controller has done it
        return
    import compileall

    import retrieval_eval

    compileall.compile_dir(str(Path(retrieval_eval.__file__).parent), quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Start the slow tests first: a long test picked up last would leave one worker running it
    alone while the others wait. A stable sort, so every worker sees the same order."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
