"""The label queue file: one judgments line per unjudged (query, key), without relevance."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from .fileio import write_atomic


def queue_text(lines: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n" for line in lines)


def write_queue(path: str | os.PathLike[str], lines: Iterable[Mapping[str, Any]]) -> None:
    write_atomic(path, queue_text(lines))
