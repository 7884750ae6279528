"""Run the CLI with every file write held just before it is made durable.

``python tests/held_writer.py HELD ARGS...`` runs ``retrieval-eval ARGS...``; once a writer has
the whole content in its temporary file and asks for it to be synced (``os.fsync``, which only
atomic writes call), this creates the file ``HELD`` and sleeps, so a test can signal a process
that is mid-write. The package itself carries no hook for this.
"""

from __future__ import annotations

import os
import sys
import time

_HELD = sys.argv[1] if len(sys.argv) > 1 else ""


def _hold(fd: int) -> None:
    with open(_HELD, "w", encoding="utf-8"):
        pass
    time.sleep(60)


if __name__ == "__main__":
    os.fsync = _hold
    sys.argv = [sys.argv[0], *sys.argv[2:]]
    from retrieval_eval.entry import main

    main()
