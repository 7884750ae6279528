"""The comparison as gates read it: one MetricDelta per metric, and what makes it incomparable.

The document is the comparison; this is a typed view of it. Gates only ever
see what the document says, so a comparison read back from a file gates the
same way as one just built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.comparison import Deltas, MetricDelta
from ..core.errors import InputError
from ..core.judgments import JudgmentSet
from ..core.labelindex import LabelIndex
from ..core.lenient import number, section
from ..core.power import DEFAULT_ALPHA, DEFAULT_POWER, Design
from ..core.report_model import Report
from ..core.significance import DEFAULT_RESAMPLES, DEFAULT_SEED, BlockMap
from .document import build_comparison
from .findings import CONFOUNDS
from .power import GATE_METHOD, gate_design


def compare_reports(
    base: Report | Mapping[str, Any],
    head: Report | Mapping[str, Any],
    *,
    judgments: JudgmentSet | LabelIndex | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    map_blocks: BlockMap = map,
    power: float = DEFAULT_POWER,
) -> Deltas:
    """The full comparison, in the form gates read (its document rides along)."""
    document = build_comparison(
        base, head, judgments=judgments, resamples=resamples, seed=seed, map_blocks=map_blocks, power=power
    )
    return comparison_from_document(document)


def comparison_from_document(document: Mapping[str, Any]) -> Deltas:
    """What gates read from a comparison document."""
    comparison = Deltas(document=dict(document))
    for name, row in section(document, "metrics").items():
        comparison.metrics[name] = MetricDelta(
            name,
            row.get("base"),
            row.get("head"),
            _ci(row.get("ci")),
            row.get("p_value"),
            row.get("significant"),
            row.get("confounded"),
            row.get("n"),
            _ci(row.get("bounds")),
            row.get("unjudged") if isinstance(row.get("unjudged"), int) else None,
            number(row.get("sd_diff")),
            number(row.get("mde")),
        )
    comparison.design = document_design(section(document, "power"))
    for finding in document.get("comparability") or []:
        if finding.get("effect") == CONFOUNDS and not finding.get("metrics"):
            # What changed and why it could not be undone: a gate's reason should say both.
            comparison.problems.append(f"{finding.get('detail', '')}; {finding.get('meaning', '')}")
        elif finding.get("effect") != CONFOUNDS:
            comparison.notes.append(finding.get("detail", ""))
    return comparison


def document_design(power: Mapping[str, Any]) -> Design:
    """The design a document states its ``mde`` at; the gate's own when it states none (or not in our shape)."""
    try:
        return Design(
            power=number(power.get("power")) or DEFAULT_POWER,
            alpha=number(power.get("alpha")) or DEFAULT_ALPHA,
            method=str(power.get("method") or GATE_METHOD),
        )
    except ValueError:
        return gate_design(DEFAULT_POWER)


def _ci(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list) and len(value) == 2 and all(number(v) is not None for v in value):
        return float(value[0]), float(value[1])
    return None


def check_head_judgments(sha256: str | None, head: Report, path: str) -> None:
    """Refuse judgments that are not the ones the head report was scored with."""
    recorded = head.inputs.judgments_sha256 if head.inputs is not None else None
    if recorded and sha256 != recorded:
        raise InputError(
            "judgments",
            None,
            "this is not the judgments file the head report was scored with "
            "(its sha256 differs from the report's inputs.judgments_sha256)",
            path=path,
            hint="pass the judgments file of the head branch, unchanged since it was scored",
        )
