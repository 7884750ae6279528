"""Reports on disk: written atomically, read back only when they are one.

What a report holds is built by :mod:`retrieval_eval.core.report` as the typed values of
:mod:`retrieval_eval.core.report_model`; here, and only here, one becomes JSON
(:func:`report_to_json`) and JSON, once its shape is checked, becomes one (:func:`report_from_json`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ..core.errors import InputError
from ..core.report_model import Report
from .jsondoc import named, parse_document, read_document_bytes
from .jsonout import iter_indented_fast, write_json_atomic
from .kinds import first_block, kind_of
from .shapes import report_problem
from .typedjson import from_json, from_json_lenient, to_json


def report_to_json(report: Report) -> dict[str, Any]:
    """The report as its JSON holds it, byte for byte what has always been written."""
    data: dict[str, Any] = to_json(report)
    return data


def report_from_json(data: Mapping[str, Any]) -> Report:
    """The report in ``data``, which :func:`checked_json` has accepted (its shape is not checked again)."""
    return from_json(Report, data)


def as_report(report: Report | Mapping[str, Any]) -> Report:
    """``report`` typed: as it is, or read from JSON handed over in memory (the library's callers',
    a test's), which may hold anything: what does not fit its type reads as missing, as the
    readers of reports have always had it. A file is read with :func:`load_report` instead."""
    if isinstance(report, Report):
        return report
    return from_json_lenient(Report, report) or Report()


def dump_report(report: Report | Mapping[str, Any]) -> str:
    """A report as written (two spaces of indent, UTF-8 kept, a final new line); also its JSON
    as :func:`report_to_json` gives it (and any JSON document written alike)."""
    data = report_to_json(report) if isinstance(report, Report) else report
    # The same text as json.dumps(data, indent=2, ensure_ascii=False), written by orjson a block
    # of rows at a time where it writes the same (formats/jsonout.py): a fifth of the time on M.
    return "".join(iter_indented_fast(data)) + "\n"


def write_report(path: str, report: Report) -> None:
    """Write what ``dump_report`` returns, atomically, without holding the whole text."""
    write_json_atomic(path, report_to_json(report))


def load_report(path: str, *, source: str = "baseline", option: str | None = None) -> Report:
    """Read a report written by us (or any spec-v1 tool), refusing what is not one. ``option``:
    what gave it, when not the option ``source`` names (an argument, as history's REPORT)."""
    return load_report_hashed(path, source=source, option=option)[0]


def load_report_hashed(path: str, *, source: str = "baseline", option: str | None = None) -> tuple[Report, str]:
    """A report and the sha256 of the very bytes it was read from (a receipt names them)."""
    try:
        data = read_document_bytes(path, source)
    except InputError:
        # Refused at its first bytes (a TREC run starts with a letter): still say what it is.
        _refuse_other_input(first_block(path), source, path=path, option=option)
        raise
    return _report_from(data, source, path=path, option=option), hashlib.sha256(data).hexdigest()


def parse_report(data: bytes, source: str, *, where: str = "") -> Report:
    """A report from bytes that never were a file here (a commit's blob, an artifact's member)."""
    return _report_from(data, source, where=where)


def _report_from(
    data: bytes, source: str, *, path: str | None = None, where: str = "", option: str | None = None
) -> Report:
    """The report in ``data``; a run or judgments given instead are named as such, not as broken JSON."""
    try:
        return checked_report(parse_document(data, source, path=path, where=where), source, path=path, where=where)
    except InputError:
        _refuse_other_input(data, source, path=path, where=where, option=option)
        raise


# The option each source of a report is given by, and what to score for it: compare --head
# given judgments said "--baseline takes a report", an option compare does not have.
_OPTION = {"baseline": "--baseline", "base": "--base", "head": "--head", "report": "--report"}
_SCORE_FOR = {"head": "the head with --out head.json", "report": "the run with --out report.json"}


def _refuse_other_input(
    data: bytes, source: str, *, path: str | None = None, where: str = "", option: str | None = None
) -> None:
    """Raise, naming what ``data`` is, when it reads as a run or judgments; else return."""
    kind = other_input(data)
    if kind is not None:
        option = option or _OPTION.get(source, source)
        raise InputError(
            named(source, path),
            None,
            f"{where}this is {kind}, not a report; {option} takes a report (what score --out writes)",
            path=path,
            hint=f"score {_SCORE_FOR.get(source, 'the base branch with --out base.json')} and pass that file",
        ) from None


def other_input(data: bytes) -> str | None:
    """What ``data`` is when it reads as another kind of file than a report (formats/kinds.py), else None."""
    kind = kind_of(data)
    return None if kind == "a report" else kind


def checked_report(report: Any, source: str, *, path: str | None = None, where: str = "") -> Report:
    """``report`` typed, when it has the shape of a report (spec v1 and our additions); else the first fault."""
    return report_from_json(checked_json(report, source, path=path, where=where))


def checked_json(report: Any, source: str, *, path: str | None = None, where: str = "") -> dict[str, Any]:
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
