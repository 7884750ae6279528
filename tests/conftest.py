"""Pytest configuration: tests/helpers.py importable as ``helpers``; the slow tests first."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

# ranx, an oracle in a few tests, compiles its numba kernels on first use: on a fresh machine
# that is about a minute of one core before its first answer, a third of the suite's wall time
# on two cores. Run by the interpreter, the same ranx source gives the same answers (the tests
# compare its scores to 1e-12 and its printed values at their digits) in a second. Set before
# any test module imports numba; `.ci/run` runs the ranx tests once more with the kernels
# compiled (NUMBA_DISABLE_JIT=0), as a user of ranx runs them.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")


def pytest_configure(config: pytest.Config) -> None:
    """Write the package's bytecode once, before any worker starts, as ``pip install`` does for
    an installed package. Where PYTHONDONTWRITEBYTECODE is set (CI machines often set it) and the
    package is an editable install, every worker and every command a test starts as its own
    process would otherwise compile all of it again: seconds of the suite, for nothing."""
    # pytest keeps each test module's assertion-rewritten code in tests/__pycache__, unless
    # bytecode writing is off: then every worker rewrites all 120-odd modules on every run
    # (about 7 s of CPU each, measured with cProfile over --collect-only). Turned on here, in
    # every process, before any test module is imported.
    sys.dont_write_bytecode = False
    if hasattr(config, "workerinput"):  # an xdist worker: the controller has compiled the package
        return
    import compileall

    import retrieval_eval

    compileall.compile_dir(str(Path(retrieval_eval.__file__).parent), quiet=1)


@pytest.hookimpl(trylast=True)  # after pytest-xdist's own, which names each test's group
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Start the slow tests first: a long test picked up last would leave one worker running it
    alone while the others wait. A stable sort, so every worker sees the same order."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    groups_hold(config, items)


GROUP_LOST = pytest.StashKey[str]()


def groups_hold(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Fail, with the reason, every grouped test whose ``xdist_group`` mark would not hold. pytest-xdist
    groups a test by the ``@group`` it appends to the test's id; where that append has no effect
    (pytest 9.2 with pytest-xdist 3.8) every group is silently spread over the workers: the image
    is built on each, and Mermaid is fetched twice into one folder."""
    if not getattr(config.option, "loadgroup", False):  # one process, or another --dist
        return
    for item in items:
        marks = item.iter_markers("xdist_group")
        names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default")) for mark in marks}
        if names and not item.nodeid.endswith("@" + "_".join(sorted(names))):
            item.stash[GROUP_LOST] = (
                f"pytest {pytest.__version__} with this pytest-xdist ignores xdist_group: this test would run apart "
                "from its group. Install the versions the test extra asks for (pip install -e '.[test]'), or run "
                "in one process (-n0)."
            )


def pytest_runtest_setup(item: pytest.Item) -> None:
    lost = item.stash.get(GROUP_LOST, None)
    if lost is not None:
        pytest.fail(lost, pytrace=False)
