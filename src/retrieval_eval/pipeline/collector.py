"""The cyclic garbage collector, kept off while a command builds what it found.

Nothing the pipeline builds (the judgments' index, the heads, the report, the comparison, the
pages) forms a reference cycle, so the collector finds nothing in it; it would still walk every
live object again and again as they are made. Measured on M (10k queries, docs/benchmarks.md):
0.06 s of ``score``'s main process, 0.17 s of ``compare``, 0.44 s of the action (five full
collections over two reports, the comparison and the index), 0.6 s of ``drift`` on 500k chunks.
What is made meanwhile and is not garbage is left out of later collections (frozen).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Keep the cyclic garbage collector off while a command reads its inputs and builds and
    writes what it found (drift's corpus and findings, score's index, heads and report,
    compare's comparison, the action's evaluation and pages). Forked workers inherit it off.

    Code that may make cycles without bound (the judge's requests, one per label) runs
    outside it: off, the collector would never free them.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            # What was made meanwhile is left out of later collections: re-enabled, the collector
            # would walk all of it at the next allocation (0.4 s of CPU on 500k chunks), to find
            # no cycle, just before the command ends.
            gc.freeze()
            gc.enable()
