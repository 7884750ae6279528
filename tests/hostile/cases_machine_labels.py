"""A hand-edited machine-labels file read by ``score --unjudged machine``: a grade its own
samples do not give, a grade beside a status that has none, a temperature no judge ran at.
Each is refused with the file and line, and no report is written."""

from __future__ import annotations

from hostile.case import HostileCase
from hostile.cases_judge import _label, _score_case

CASES: list[HostileCase] = [
    _score_case(
        "score-machine-grade-not-its-samples",
        _label(grade=3, majority=3, samples=[0, 0, 0]),
        "machine labels:1: status labeled with grade 3 and majority 3, but its 3 sample(s) give 0",
    ),
    _score_case(
        "score-machine-labeled-without-grade",
        _label(grade=None),
        "machine labels:1: status labeled with grade None",
    ),
    _score_case(
        "score-machine-labeled-with-a-refusal",
        _label(samples=[2, "refused", 2]),
        "but its 3 sample(s) give None",
    ),
    _score_case(
        "score-machine-labeled-no-samples",
        _label(samples=[]),
        "but its 0 sample(s) give None",
    ),
    _score_case(
        "score-machine-split-with-grade",
        _label(status="split", grade=3, majority=2, samples=[0, 3, 3]),
        "machine labels:1: grade 3 with status 'split': only a labeled pair has a grade",
    ),
    _score_case(
        "score-machine-refused-with-grade",
        _label(status="refused", grade=0, majority=None, samples=["refused"]),
        "grade 0 with status 'refused'",
    ),
    _score_case(
        "score-machine-temperature-infinite",
        _label().replace(b'"temperature": null', b'"temperature": 1e999'),
        "machine labels:1: temperature must be 0-2 or null",
    ),
    _score_case(
        "score-machine-temperature-negative",
        _label(temperature=-0.5),
        "machine labels:1: temperature must be 0-2 or null",
    ),
]
