"""Documents read back: the shape checker against a full JSON Schema validator and the spec's
schema, random damage fed to every reader and renderer, and the action's two JSON readers."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from from_json import comparison_text, render
from hostile.cases_io import COMPARISON as GOOD_COMPARISON  # noqa: E402  (tests/ is on the path)
from hostile.cases_io import REPORT as GOOD_REPORT
from retrieval_eval.action.baseline import _parse
from retrieval_eval.action.event import load_event
from retrieval_eval.commands.render import load_comparison
from retrieval_eval.core.errors import InputError
from retrieval_eval.formats.jsondoc import parse_document
from retrieval_eval.formats.report import as_report, checked_report
from retrieval_eval.formats.shapes import COMPARISON, REPORT, comparison_problem, report_problem

ROOT = Path(__file__).resolve().parent.parent
SPEC = json.loads((ROOT / "spec" / "report.schema.json").read_text())
DEMO = ROOT / "src" / "retrieval_eval" / "demo" / "baseline.json"

# Anything JSON can hold, including the values that broke readers before: long integers,
# numbers at the edge of a double, wrong types, and nesting.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e308, -1.7e308, 1e15, 1e16, 10**400 // 10**300]),
    st.text(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def paths(document: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``document`` (keys and indexes), the document itself first."""
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found.extend(paths(value, (*prefix, key)))
    elif isinstance(document, list):
        for position, value in enumerate(document):
            found.extend(paths(value, (*prefix, position)))
    return found


def replace(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copied = copy.deepcopy(document)
    node = copied
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return copied


REPORT_PATHS = paths(GOOD_REPORT)
COMPARISON_PATHS = paths(GOOD_COMPARISON)


@st.composite
def damaged(draw: Any, document: Any, where: list[tuple[Any, ...]]) -> Any:
    result = document
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(where))
        try:
            result = replace(result, path, draw(values))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed the path
    return result


def test_the_documents_we_write_have_their_shapes() -> None:
    assert report_problem(GOOD_REPORT) is None
    assert report_problem(json.loads(DEMO.read_text())) is None
    assert comparison_problem(GOOD_COMPARISON) is None
    jsonschema.validate(GOOD_REPORT, SPEC)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(GOOD_REPORT, REPORT_PATHS))
def test_the_report_shape_agrees_with_jsonschema_and_is_within_the_spec(document: Any) -> None:
    ours = report_problem(document) is None
    full = jsonschema.Draft202012Validator(REPORT).is_valid(document)
    # Ours is stricter in one way only: an integer is a JSON integer, 2.0 is not one.
    assert ours == full or (full and not ours and _has_integral_float(document))
    if ours:
        jsonschema.validate(document, SPEC)  # every report we accept is a spec report


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(GOOD_COMPARISON, COMPARISON_PATHS))
def test_the_comparison_shape_agrees_with_jsonschema(document: Any) -> None:
    ours = comparison_problem(document) is None
    full = jsonschema.Draft202012Validator(COMPARISON).is_valid(document)
    assert ours == full or (full and not ours and _has_integral_float(document))


def _has_integral_float(document: Any) -> bool:
    return any(isinstance(v, float) and v.is_integer() for v in _leaves(document))


def _leaves(document: Any) -> list[Any]:
    if isinstance(document, dict):
        return [leaf for value in document.values() for leaf in _leaves(value)]
    if isinstance(document, list):
        return [leaf for value in document for leaf in _leaves(value)]
    return [document]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(GOOD_REPORT, REPORT_PATHS), st.sampled_from(["text", "summary", "comment"]))
def test_a_damaged_report_is_rendered_or_refused_never_crashes(document: Any, kind: str) -> None:
    try:
        report = checked_report(parse_document(json.dumps(document).encode(), "report"), "report")
    except InputError:
        return
    render(kind, report=report, comparison=None, template_dir=None, comment_id="x")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=damaged(GOOD_COMPARISON, COMPARISON_PATHS), kind=st.sampled_from(["text", "summary", "comment"]))
def test_a_damaged_comparison_is_rendered_or_refused_never_crashes(
    document: Any, kind: str, tmp_path_factory: Any
) -> None:
    path = tmp_path_factory.mktemp("cmp") / "c.json"
    path.write_text(json.dumps(document))
    try:
        comparison = load_comparison(str(path), as_report(GOOD_REPORT))
    except InputError:
        return
    render(kind, report=GOOD_REPORT, comparison=comparison, template_dir=None, comment_id="x")
    comparison_text(comparison)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged(GOOD_REPORT, REPORT_PATHS), damaged(GOOD_REPORT, REPORT_PATHS))
def test_damaged_reports_are_compared_or_refused_never_crash(base: Any, head: Any) -> None:
    from from_json import build_comparison

    try:
        base = checked_report(base, "base")
        head = checked_report(head, "head")
    except InputError:
        return
    document = build_comparison(base, head, resamples=100)
    assert comparison_problem(document) is None  # what compare writes, render reads back


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"[" * 5000 + b"]" * 5000, "nested more than 64 levels"),
        (b'{"n": ' + b"7" * 5000 + b"}", "an integer of 5000 digits"),
        (b'{"n": 1e999}', "too large for a double"),
        (b"\xff", "not valid UTF-8"),
    ],
)
def test_the_event_payload_and_an_artifacts_report_are_read_within_bounds(
    data: bytes, says: str, tmp_path: Path
) -> None:
    event = tmp_path / "event.json"
    event.write_bytes(data)
    with pytest.raises(InputError, match=f"^event \\(.*event.json\\)(:1)?: .*{re.escape(says)}"):
        load_event("pull_request", str(event))
    with pytest.raises(InputError, match=f"^baseline(:1)?: .*the report in artifact x: .*{re.escape(says)}"):
        _parse(data, "the report in artifact x")


@pytest.mark.parametrize("corpus", ['"x"', "[]", "3"])
def test_an_artifacts_report_with_a_corpus_of_another_type_is_refused(corpus: str) -> None:
    report = dict(GOOD_REPORT, corpus="@@")
    data = json.dumps(report).replace('"@@"', corpus).encode()
    with pytest.raises(InputError, match=r"corpus must be an object \(at \$\.corpus\)"):
        _parse(data, "x")
