"""``retrieval-eval verify-chain``: do these reports, oldest first, link up by their receipts?

Each report records ``inputs.baseline_sha256``: the SHA-256 of the exact bytes of the
base report it was compared with. Reports committed on the base branch one after the
other therefore form a hash chain: report n+1 names the hash of report n's file.
"""

from __future__ import annotations

import hashlib

import click

from ..formats.jsondoc import parse_document, read_document_bytes
from ..formats.report import checked_report
from ._common import EXIT_BAD_ANSWER, EXIT_OK, handles_errors, say


def _short(sha: object) -> str:
    return str(sha)[:12] if isinstance(sha, str) else "none"


@click.command()
@click.argument("reports", nargs=-1, required=True, metavar="REPORT...")
@handles_errors
def command(reports: tuple[str, ...]) -> None:
    """Check that each REPORT was compared with the one before it (oldest first).

    A report links to the previous one when its inputs.baseline_sha256 is the
    SHA-256 of the previous file's bytes. Exit code 0 when every link holds, 1 at
    a break (each break is named), 2 when a report cannot be read.
    """
    read = []
    for path in reports:
        data = read_document_bytes(path, path)
        report = checked_report(parse_document(data, path, path=path), path, path=path)
        inputs = report.inputs
        claimed = inputs.baseline_sha256 if inputs is not None else None
        floor = inputs.floor_sha256 if inputs is not None else None
        read.append((path, hashlib.sha256(data).hexdigest(), claimed, floor))
    breaks = 0
    for number, (path, sha, claimed, floor) in enumerate(read, 1):
        say(f"{number:>3}  {path}  sha256 {sha[:12]}  baseline {_short(claimed)}  floor {_short(floor)}")
        if number == 1:
            continue
        previous, previous_sha = read[number - 2][0], read[number - 2][1]
        if claimed == previous_sha:
            continue
        breaks += 1
        if claimed is None:
            why = "it records no baseline_sha256 (it was compared with no base report)"
        else:
            why = f"it was compared with a report whose sha256 is {claimed[:12]}, not {previous} ({previous_sha[:12]})"
        say(f"break  between {previous} and {path}: {why}")
    if breaks:
        say(f"the chain breaks {breaks} time(s) in {len(read)} reports")
        raise SystemExit(EXIT_BAD_ANSWER)
    say(f"ok  {len(read)} report(s) link up, each compared with the one before")
    raise SystemExit(EXIT_OK)
