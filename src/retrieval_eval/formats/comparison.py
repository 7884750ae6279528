"""The comparison document as JSON: written from its records, read back into them.

:func:`comparison_to_json` gives the very object ``compare`` has always written (same keys,
same order, same numbers); :func:`comparison_from_json` reads one back, after
``formats.shapes.COMPARISON`` accepted it when it came from a file (:func:`read_comparison`).
Read from a mapping that was never checked (a caller's dict), a value of another type than
its field's reads as missing, as :mod:`retrieval_eval.formats.lenient` reads documents.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..core.comparison_document import (
    ComparisonDocument,
    Finding,
    Holm,
    MetricRow,
    Mover,
    Movers,
    PowerDesign,
    QueryCounts,
    RowPower,
    SideSummary,
    SignificanceMethod,
    StratumRow,
    StratumTest,
    Tool,
)
from ..core.errors import InputError
from ..core.power import Moved
from .jsondoc import named, read_document
from .shapes import comparison_problem

KIND = "retrieval-eval comparison"

T = TypeVar("T")
Json = dict[str, Any]  # a JSON object: this module is the boundary where documents are plain JSON


# Writing ---------------------------------------------------------------------------------


def comparison_to_json(document: ComparisonDocument) -> Json:
    """The JSON object of ``document``, key for key what ``compare`` writes."""
    data: Json = {"kind": document.kind, "version": document.version}
    _put(data, "tool", None if document.tool is None else _present(_tool_pairs(document.tool)))
    _put(data, "primary", document.primary)
    data["base"] = side_to_json(document.base)
    data["head"] = side_to_json(document.head)
    _put(data, "yardstick", document.yardstick)
    _put(data, "comparable", document.comparable)
    if document.comparability is not None:
        data["comparability"] = [finding_to_json(f) for f in document.comparability]
    if document.significance is not None:
        data["significance"] = _present(vars(document.significance).items())
    if document.power is not None:
        data["power"] = _present(vars(document.power).items())
    if document.queries is not None:
        data["queries"] = _present(
            [
                ("paired", document.queries.paired),
                ("added", _list(document.queries.added)),
                ("removed", _list(document.queries.removed)),
            ]
        )
    data["metrics"] = {name: metric_row_to_json(row) for name, row in document.metrics.items()}
    if document.per_stratum is not None:
        data["per_stratum"] = {name: stratum_row_to_json(row) for name, row in document.per_stratum.items()}
    if document.movers is not None:
        data["movers"] = movers_to_json(document.movers)
    return data


def _tool_pairs(tool: Tool) -> list[tuple[str, Any]]:
    return [("name", tool.name), ("version", tool.version)]


def _put(data: Json, key: str, value: Any) -> None:
    if value is not None:
        data[key] = value


def _present(pairs: Any) -> Json:
    """The pairs whose value is there (a part a file lacked stays out, as it was)."""
    return {key: value for key, value in pairs if value is not None}


def _list(values: tuple[Any, ...] | None) -> list[Any] | None:
    return None if values is None else list(values)


def side_to_json(side: SideSummary) -> Json:
    return dict(vars(side))


def finding_to_json(finding: Finding) -> Json:
    data: Json = {"code": finding.code, "effect": finding.effect, "detail": finding.detail, "meaning": finding.meaning}
    if finding.metrics:
        data["metrics"] = list(finding.metrics)
    return data


def _pair(value: tuple[float, float] | None) -> list[float] | None:
    return None if value is None else [value[0], value[1]]


def metric_row_to_json(row: MetricRow) -> Json:
    data: Json = {
        "base": row.base,
        "head": row.head,
        "delta": row.delta,
        "n": row.n,
        "ci": _pair(row.ci),
        "p_value": row.p_value,
        "significant": row.significant,
        "confounded": row.confounded,
    }
    _holm(data, row.holm)
    if row.bounds is not None:
        data["bounds"] = _pair(row.bounds)
    if row.unjudged is not None:
        data["unjudged"] = row.unjudged
    _power(data, row.power)
    return data


def stratum_row_to_json(row: StratumRow) -> Json:
    data: Json = {"n": row.n, "base": row.base, "head": row.head, "delta": row.delta}
    if row.test is not None:
        data.update(ci=_pair(row.test.ci), p_value=row.test.p_value, significant=row.test.significant)
    _holm(data, row.holm)
    _power(data, row.power)
    return data


def _holm(data: Json, holm: Holm | None) -> None:
    if holm is not None:
        data.update(p_adjusted=holm.p_adjusted, significant_adjusted=holm.significant_adjusted)


def _power(data: Json, power: RowPower | None) -> None:
    if power is not None:
        data.update(
            sd_diff=power.sd_diff,
            mde=power.mde,
            mde_source=power.mde_source,
            moved=None if power.moved is None else moved_to_json(power.moved),
        )


def moved_to_json(moved: Moved) -> Json:
    return {"improved": moved.improved, "tied": moved.tied, "worsened": moved.worsened}


def movers_to_json(movers: Movers) -> Json:
    return _present(
        [
            ("metric", movers.metric),
            ("down", movers.down),
            ("up", movers.up),
            ("unchanged", movers.unchanged),
            ("drops", None if movers.drops is None else [mover_to_json(m) for m in movers.drops]),
            ("gains", None if movers.gains is None else [mover_to_json(m) for m in movers.gains]),
        ]
    )


def mover_to_json(mover: Mover) -> Json:
    return {
        "query_id": mover.query_id,
        "query": mover.query,
        "stratum": mover.stratum,
        "base": mover.base,
        "head": mover.head,
        "delta": mover.delta,
    }


# Reading ---------------------------------------------------------------------------------


def read_comparison(path: str) -> ComparisonDocument:
    """A comparison document written by ``compare``, refused (naming the file) when it is not one."""
    data = read_document(path, "comparison")
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise InputError(
            named("comparison", path),
            None,
            f"not a comparison document (kind is not {KIND!r})",
            path=path,
            hint="write one with: retrieval-eval compare --base BASE.json --head HEAD.json --out CMP.json",
        )
    problem = comparison_problem(data)
    if problem is not None:
        raise InputError(named("comparison", path), None, str(problem), path=path)
    return comparison_from_json(data)


def comparison_from_json(data: Mapping[str, Any]) -> ComparisonDocument:
    """The records of a comparison's JSON object (see the module's note on values of another type)."""
    return ComparisonDocument(
        kind=_text(data.get("kind")) or "",
        version=_integer(data.get("version")) or 0,
        tool=_maybe(data, "tool", lambda t: Tool(_text(t.get("name")), _text(t.get("version")))),
        primary=_text(data.get("primary")),
        base=side_from_json(_object(data.get("base")) or {}),
        head=side_from_json(_object(data.get("head")) or {}),
        yardstick=_text(data.get("yardstick")),
        comparable=_flag(data.get("comparable")),
        comparability=_findings(data.get("comparability")),
        significance=_maybe(data, "significance", _significance),
        power=_maybe(data, "power", _design),
        queries=_maybe(data, "queries", _queries),
        metrics=_rows(data.get("metrics"), metric_row_from_json) or {},
        per_stratum=_rows(data.get("per_stratum"), stratum_row_from_json),
        movers=_maybe(data, "movers", movers_from_json),
    )


def side_from_json(side: Mapping[str, Any]) -> SideSummary:
    return SideSummary(
        generated_at=_text(side.get("generated_at")),
        tool_version=_text(side.get("tool_version")),
        judgments_sha256=_text(side.get("judgments_sha256")),
        run_sha256=_text(side.get("run_sha256")),
        query_set_sha256=_text(side.get("query_set_sha256")),
        corpus_fingerprint=_text(side.get("corpus_fingerprint")),
        verdict=_text(side.get("verdict")),
    )


def _findings(value: Any) -> tuple[Finding, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(finding_from_json(f) for f in value if isinstance(f, Mapping))


def finding_from_json(finding: Mapping[str, Any]) -> Finding:
    return Finding(
        code=_text(finding.get("code")) or "",
        effect=_text(finding.get("effect")) or "",
        detail=_text(finding.get("detail")) or "",
        meaning=_text(finding.get("meaning")) or "",
        metrics=_texts(finding.get("metrics")) or (),
    )


def _significance(method: Mapping[str, Any]) -> SignificanceMethod:
    return SignificanceMethod(
        name=_text(method.get("name")),
        resamples=_integer(method.get("resamples")),
        seed=_integer(method.get("seed")),
        draws=_text(method.get("draws")),
        confidence=_number(method.get("confidence")),
        interval=_text(method.get("interval")),
        p_value=_text(method.get("p_value")),
        adjustment=_text(method.get("adjustment")),
        strata=_text(method.get("strata")),
        paired_queries=_integer(method.get("paired_queries")),
    )


def _design(power: Mapping[str, Any]) -> PowerDesign:
    return PowerDesign(
        power=_number(power.get("power")),
        alpha=_number(power.get("alpha")),
        method=_text(power.get("method")),
        formula=_text(power.get("formula")),
        sd_diff=_text(power.get("sd_diff")),
        base_proxy=_text(power.get("base_proxy")),
    )


def _queries(counts: Mapping[str, Any]) -> QueryCounts:
    return QueryCounts(
        paired=_integer(counts.get("paired")),
        added=_texts(counts.get("added")),
        removed=_texts(counts.get("removed")),
    )


def metric_row_from_json(row: Mapping[str, Any]) -> MetricRow:
    return MetricRow(
        base=_number(row.get("base")),
        head=_number(row.get("head")),
        delta=_number(row.get("delta")),
        n=_integer(row.get("n")),
        ci=_interval(row.get("ci")),
        p_value=_number(row.get("p_value")),
        significant=_flag(row.get("significant")),
        confounded=_text(row.get("confounded")),
        holm=_holm_from(row),
        bounds=_interval(row.get("bounds")),
        unjudged=_integer(row.get("unjudged")),
        power=_power_from(row),
    )


def stratum_row_from_json(row: Mapping[str, Any]) -> StratumRow:
    test = None
    if any(key in row for key in ("ci", "p_value", "significant")):
        test = StratumTest(_interval(row.get("ci")), _number(row.get("p_value")), _flag(row.get("significant")))
    return StratumRow(
        n=_integer(row.get("n")),
        base=_number(row.get("base")),
        head=_number(row.get("head")),
        delta=_number(row.get("delta")),
        test=test,
        holm=_holm_from(row),
        power=_power_from(row),
    )


def _holm_from(row: Mapping[str, Any]) -> Holm | None:
    if "p_adjusted" not in row and "significant_adjusted" not in row:
        return None  # a comparison made before Holm's adjustment
    return Holm(_number(row.get("p_adjusted")), _flag(row.get("significant_adjusted")))


def _power_from(row: Mapping[str, Any]) -> RowPower | None:
    if not any(key in row for key in ("sd_diff", "mde", "mde_source", "moved")):
        return None  # a comparison made before power was stated
    moved = _object(row.get("moved"))
    counts = None if moved is None else [_integer(moved.get(key)) for key in ("improved", "tied", "worsened")]
    return RowPower(
        sd_diff=_number(row.get("sd_diff")),
        mde=_number(row.get("mde")),
        mde_source=_text(row.get("mde_source")),
        moved=None if counts is None or None in counts else Moved(*(c or 0 for c in counts)),
    )


def movers_from_json(movers: Mapping[str, Any]) -> Movers:
    return Movers(
        metric=_text(movers.get("metric")),
        down=_integer(movers.get("down")),
        up=_integer(movers.get("up")),
        unchanged=_integer(movers.get("unchanged")),
        drops=_movers(movers.get("drops")),
        gains=_movers(movers.get("gains")),
    )


def _movers(value: Any) -> tuple[Mover, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(mover_from_json(m) for m in value if isinstance(m, Mapping))


def mover_from_json(mover: Mapping[str, Any]) -> Mover:
    return Mover(
        query_id=_text(mover.get("query_id")) or "",
        query=_text(mover.get("query")),
        stratum=_text(mover.get("stratum")),
        base=_number(mover.get("base")),
        head=_number(mover.get("head")),
        delta=_number(mover.get("delta")),
    )


# Values: as they are in the JSON (an integer stays one, so it is written back alike), or missing.


def _maybe(data: Mapping[str, Any], key: str, read: Callable[[Mapping[str, Any]], T]) -> T | None:
    part = _object(data.get(key))
    return None if part is None else read(part)


def _rows(value: Any, read: Callable[[Mapping[str, Any]], T]) -> dict[str, T] | None:
    rows = _object(value)
    if rows is None:
        return None
    return {str(name): read(row) for name, row in rows.items() if isinstance(row, Mapping)}


def _object(value: Any) -> Mapping[str, Any] | None:
    return value if isinstance(value, Mapping) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _texts(value: Any) -> tuple[str, ...] | None:
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else None


def _number(value: Any) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _interval(value: Any) -> tuple[float, float] | None:
    if isinstance(value, list) and len(value) == 2 and all(_number(v) is not None for v in value):
        return value[0], value[1]
    return None
