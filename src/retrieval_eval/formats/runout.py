"""Writing runs: JSONL lines with a fixed byte form, and the metadata sidecar beside them.

A run line is ``{"query_id":...,"ranking":[...]}``, compact, non-ASCII kept
as UTF-8, LF line ends: the same rankings give the same bytes everywhere.
The sidecar ``<run>.meta.json`` says how the run was made (see docs/floors.md,
"baseline"); it is written after the run, so it can hold the run's hash.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from .fileio import SIDECAR_SUFFIX, atomic_writer, output_kind, refuse_output_over_input, write_atomic

META_SUFFIX = SIDECAR_SUFFIX


def run_line(query_id: str, ranking: list[str]) -> str:
    return json.dumps({"query_id": query_id, "ranking": ranking}, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_run(path: str | os.PathLike[str], rankings: Iterable[tuple[str, list[str]]]) -> tuple[int, str]:
    """Write the run atomically, one line per (query_id, ranking); (lines written, sha256 of the bytes)."""
    digest = hashlib.sha256()
    lines = 0
    with atomic_writer(path) as handle:
        for query_id, ranking in rankings:
            line = run_line(query_id, ranking)
            digest.update(line.encode("utf-8"))
            handle.write(line)
            lines += 1
    return lines, digest.hexdigest()


def meta_path(run_path: str | os.PathLike[str]) -> str:
    return os.fspath(run_path) + META_SUFFIX


def refuse_run_over_input(out: str, inputs: Iterable[tuple[str, str | None]]) -> None:
    """Refuse a run output whose file, or whose sidecar, is one of ``inputs`` (``(role, path)``):
    both are replaced, and the sidecar's name is one the user never typed. A run written to a
    device or a pipe has no sidecar (``/dev/stdout.meta.json`` is no place for one)."""
    sidecar = [] if output_kind(out) == "stream" else [("the sidecar of --out", meta_path(out))]
    refuse_output_over_input([("--out", out), *sidecar], inputs)


def write_meta(run_path: str | os.PathLike[str], meta: Mapping[str, Any]) -> str:
    """Write ``<run>.meta.json`` atomically and return its path; "" (nothing written) when the run
    went to a device or a pipe, whose folder is not the user's to fill."""
    if output_kind(os.fspath(run_path)) == "stream":
        return ""
    target = meta_path(run_path)
    write_atomic(target, json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    return target
