"""Headless Chromium for the tests: the DOM after scripts ran, and screenshots.

Debian's ``chromium`` package is driven from the command line, no driver
library: ``--dump-dom`` prints the document once the page has loaded and its
scripts ran (``--virtual-time-budget`` lets asynchronous work finish first).
Tests that need it are marked ``browser`` and skip where it is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian's chromium) is not installed")

# Everything Chromium would otherwise fetch on its own (updates, sync, safe browsing) is off,
# so any request seen during a test came from the page.
_QUIET = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--metrics-recording-only",
    "--hide-scrollbars",
)


def _run(args: list[str], profile: Path, timeout: int = 90) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    completed = subprocess.run(
        [CHROMIUM, *_QUIET, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return completed


def dump_dom(page: Path, profile: Path, *, fragment: str = "", budget_ms: int = 0, extra: tuple[str, ...] = ()) -> str:
    """The page's DOM, serialized after load (and ``budget_ms`` of virtual time, for async work)."""
    budget = [f"--virtual-time-budget={budget_ms}"] if budget_ms else []
    return _run([*extra, *budget, "--dump-dom", page.resolve().as_uri() + fragment], profile).stdout


def dump_dom_and_screenshot(
    page: Path, out: Path, profile: Path, *, size: str = "1280,2000", budget_ms: int = 0, extra: tuple[str, ...] = ()
) -> str:
    """The page's DOM and a screenshot of it from one load: one Chromium start, not two."""
    budget = [f"--virtual-time-budget={budget_ms}"] if budget_ms else []
    shot = [f"--screenshot={out}", f"--window-size={size}"]
    dom = _run([*extra, *budget, *shot, "--dump-dom", page.resolve().as_uri()], profile).stdout
    assert out.exists() and out.stat().st_size > 10_000, "the screenshot is missing or blank"
    return dom
