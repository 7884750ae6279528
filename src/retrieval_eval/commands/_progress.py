"""A one-line progress bar on stderr, for the long steps of big drift runs.

Drawn only when stderr is a terminal (a CI log or a pipe gets nothing), only
once a step has run for a moment (short runs stay quiet), and redrawn at most
ten times a second so the bar never costs more than the work it reports.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 24
DELAY = 0.5
INTERVAL = 0.1


class ProgressBar:
    def __init__(self, label: str, *, stream: TextIO | None = None, enabled: bool | None = None) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.started = time.monotonic()
        self.next_draw = self.started + DELAY
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now < self.next_draw and done < total:
            return
        self.next_draw = now + INTERVAL
        share = 1.0 if total <= 0 else min(1.0, done / total)
        filled = round(share * WIDTH)
        self.stream.write(f"\r{self.label}  [{'#' * filled}{'.' * (WIDTH - filled)}] {share:4.0%}")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
