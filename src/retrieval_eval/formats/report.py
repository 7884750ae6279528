"""Reports on disk: written atomically, read back only when they are one.

What a report holds is built by :mod:`retrieval_eval.core.report`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ..core.errors import InputError
from ..core.shapes import report_problem
from .jsondoc import named, parse_document, read_document, read_document_bytes
from .jsonout import write_json_atomic


def dump_report(report: Mapping[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def write_report(path: str, report: Mapping[str, Any]) -> None:
    """Write what ``dump_report`` returns, atomically, without holding the whole text."""
    write_json_atomic(path, report)


def load_report(path: str, *, source: str = "baseline") -> dict[str, Any]:
    """Read a report written by us (or any spec-v1 tool), refusing what is not one."""
    return checked_report(read_document(path, source), source, path=path)


def load_report_hashed(path: str, *, source: str = "baseline") -> tuple[dict[str, Any], str]:
    """A report and the sha256 of the very bytes it was read from (a receipt names them)."""
    data = read_document_bytes(path, source)
    return checked_report(parse_document(data, source, path=path), source, path=path), hashlib.sha256(data).hexdigest()


def parse_report(data: bytes, source: str, *, where: str = "") -> dict[str, Any]:
    """A report from bytes that never were a file here (a commit's blob, an artifact's member)."""
    return checked_report(parse_document(data, source, where=where), source, where=where)


def checked_report(report: Any, source: str, *, path: str | None = None, where: str = "") -> dict[str, Any]:
    """``report`` when it has the shape of a report (spec v1 and our additions); else the first fault."""
    source = named(source, path)
    if not isinstance(report, dict):
        raise InputError(source, None, f"{where}a report must be a JSON object", path=path)
    if report.get("spec_version") != "1":
        raise InputError(source, None, f'{where}not a spec v1 report (spec_version is not "1")', path=path)
    if not isinstance(report.get("metrics"), dict):
        raise InputError(source, None, f"{where}a report must carry a metrics object", path=path)
    problem = report_problem(report)
    if problem is not None:
        raise InputError(source, None, f"{where}{problem}", path=path)
    return report
