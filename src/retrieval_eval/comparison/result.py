"""The comparison as gates read it: one MetricDelta per metric, and what makes it incomparable.

The document is the comparison; this is a typed view of it. Gates only ever
see what the document says, so a comparison read back from a file gates the
same way as one just built.
"""

from __future__ import annotations

from collections.abc import Callable, Container

from ..core.comparison import Deltas, MetricDelta
from ..core.comparison_document import ComparisonDocument, PowerDesign
from ..core.errors import InputError
from ..core.judgments import JudgmentSet
from ..core.labelindex import LabelIndex
from ..core.lenient import number
from ..core.power import DEFAULT_ALPHA, DEFAULT_POWER, Design
from ..core.report_model import Report
from ..core.significance import DEFAULT_RESAMPLES, DEFAULT_SEED, BlockMap
from .bounds import drop_unknown_bounds
from .document import build_document
from .findings import CONFOUNDS
from .power import GATE_METHOD, gate_design


def compared_document(
    base: Report,
    head: Report,
    *,
    judgments: JudgmentSet | LabelIndex | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    map_blocks: BlockMap = map,
    power: float = DEFAULT_POWER,
    bounds: Callable[[], tuple[Report, Report]] | None = None,
    live: Container[str] | None = None,
) -> ComparisonDocument:
    """The comparison document, its deltas' bounds dropped where a side's could not be known.

    A side that left its bounds out and could not have them computed (a base that kept no
    rankings) gives the deltas no bounds: read as values they would claim a delta cannot move.
    ``bounds``: the two reports with their bounds, computed meanwhile (see :func:`build_document`)."""
    document = build_document(
        base,
        head,
        judgments=judgments,
        resamples=resamples,
        seed=seed,
        map_blocks=map_blocks,
        power=power,
        bounds=bounds,
        live=live,
    )
    if bounds is not None:
        base, head = bounds()
    return drop_unknown_bounds(document, base, head)


def comparison_from_document(document: ComparisonDocument) -> Deltas:
    """What gates read from a comparison document (its records; a file's JSON is read into them
    by :func:`retrieval_eval.formats.comparison.comparison_from_json`)."""
    comparison = Deltas(document=document)
    for name, row in document.metrics.items():
        power = row.power
        comparison.metrics[name] = MetricDelta(
            name,
            row.base,
            row.head,
            _ci(row.ci),
            row.p_value,
            row.significant,
            row.confounded,
            row.n,
            _ci(row.bounds),
            row.unjudged,
            None if power is None else number(power.sd_diff),
            None if power is None else number(power.mde),
        )
    comparison.design = document_design(document.power or PowerDesign())
    for finding in document.findings:
        if finding.effect == CONFOUNDS and not finding.metrics:
            # What changed and why it could not be undone: a gate's reason should say both.
            comparison.problems.append(f"{finding.detail}; {finding.meaning}")
        elif finding.effect != CONFOUNDS:
            comparison.notes.append(finding.detail)
    return comparison


def document_design(power: PowerDesign) -> Design:
    """The design a document states its ``mde`` at; the gate's own when it states none (or not in our shape)."""
    try:
        return Design(
            power=number(power.power) or DEFAULT_POWER,
            alpha=number(power.alpha) or DEFAULT_ALPHA,
            method=power.method or GATE_METHOD,
        )
    except ValueError:
        return gate_design(DEFAULT_POWER)


def _ci(value: tuple[float, float] | None) -> tuple[float, float] | None:
    return None if value is None else (float(value[0]), float(value[1]))


def check_head_judgments(sha256: str | None, head: Report, path: str, *, side: str = "head") -> None:
    """Refuse judgments that are not the ones the head report (or ``side``'s) was scored with."""
    recorded = head.inputs.judgments_sha256 if head.inputs is not None else None
    if recorded and sha256 != recorded:
        branch = "of the head branch" if side == "head" else f"the {side} report was scored with"
        raise InputError(
            "judgments",
            None,
            f"this is not the judgments file the {side} report was scored with "
            "(its sha256 differs from the report's inputs.judgments_sha256)",
            path=path,
            hint=f"{path} is not it: pass the judgments file {branch}, unchanged since it was scored",
        )
