"""Reports on disk: written atomically, read back only when they are one.

What a report holds is built by :mod:`retrieval_eval.core.report`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..core.errors import InputError
from .fileio import read_bytes
from .jsonout import write_json_atomic


def dump_report(report: Mapping[str, Any]) -> str:
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"


def write_report(path: str, report: Mapping[str, Any]) -> None:
    """Write what ``dump_report`` returns, atomically, without holding the whole text."""
    write_json_atomic(path, report)


def load_report(path: str, *, source: str = "baseline") -> dict[str, Any]:
    """Read a report written by us (or any spec-v1 tool), refusing what is not one."""
    data = read_bytes(path)
    try:
        report = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(source, None, "not valid UTF-8", path=path) from None
    except json.JSONDecodeError as exc:
        raise InputError(source, exc.lineno, f"not valid JSON ({exc.msg})", path=path) from None
    if not isinstance(report, dict):
        raise InputError(source, None, "a report must be a JSON object", path=path)
    if report.get("spec_version") != "1":
        raise InputError(source, None, 'not a spec v1 report (spec_version is not "1")', path=path)
    if not isinstance(report.get("metrics"), dict):
        raise InputError(source, None, "a report must carry a metrics object", path=path)
    return report
