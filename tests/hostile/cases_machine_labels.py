"""A hand-edited machine-labels file read by ``score --unjudged machine``: a grade its own
samples do not give, a grade beside a status that has none, a temperature no judge ran at.
Each is refused with the file and line, and no report is written."""

from __future__ import annotations

import json

from hostile.case import HostileCase
from hostile.cases_judge import NEVER, QUEUE_LINE, _absent, _label, _score_case

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
    # one pair labeled twice: whichever came last would be read, so the file is refused; the
    # same grade twice, the pair by its doc_uri alone, and a label 40 lines on are refused alike
    _score_case(
        "score-machine-pair-labeled-twice-other-grade",
        _label() + _label(grade=0, majority=0, samples=[0, 0, 0]),
        "machine labels:2: query 'q1', key 'd1' (hole) is labeled again (first on line 1)",
    ),
    _score_case(
        "score-machine-pair-labeled-twice-same-grade",
        _label() + _label(),
        "machine labels:2: query 'q1', key 'd1' (hole) is labeled again",
    ),
    _score_case(
        "score-machine-pair-labeled-twice-far-apart",
        _label()
        + b"".join(_label(doc_uri=f"other{i}") for i in range(40))
        + _label(grade=3, majority=3, samples=[3, 3, 3]),
        "machine labels:42: query 'q1', key 'd1' (hole) is labeled again (first on line 1)",
    ),
    _score_case(
        "score-machine-temperature-negative",
        _label(temperature=-0.5),
        "machine labels:1: temperature must be 0-2 or null",
    ),
]

# chunk ids the judgments refuse are refused in the judge's queue and in its labels too: a
# label keyed by one could never be matched to a labeled chunk
_BAD_IDS = {
    "space": "doc #3",
    "escape": "doc\x1b[31m#3",
    "bidi-override": "doc\u202e#3",
    "10-kb": "x" * 10240,
    "c1-lookalike": "c1:not-hex",
}
CASES += [
    _score_case(f"score-machine-chunk-id-{name}", _label(chunk_id=value), "machine labels:1: chunk_id must be a c1 id")
    for name, value in _BAD_IDS.items()
]
CASES += [
    HostileCase(
        "judge",
        f"queue-chunk-id-{name}",
        ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", NEVER),
        files={"q.jsonl": (json.dumps({**QUEUE_LINE, "chunk_id": value}) + "\n").encode()},
        stderr_has="queue:1: chunk_id must be a c1 id",
        check=_absent("m.jsonl"),
    )
    for name, value in _BAD_IDS.items()
]
# an opaque id of the team's own (a UUID) is a chunk id like any other
CASES.append(
    HostileCase(
        "judge",
        "queue-chunk-id-uuid-accepted",
        ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", NEVER, "--samples", "1"),
        files={
            "q.jsonl": (json.dumps({**QUEUE_LINE, "chunk_id": "3f2504e0-4f89-11d3-9a0c-0305e82c3301"}) + "\n").encode()
        },
        exit_code=2,  # the queue is read (the judge is asked); the judge answers nothing, so the run fails
        stdout_has="exit status 9",
    )
)

CASES.append(
    _score_case(
        "score-machine-tokens-4300-digits",
        _label().replace(b'"tokens": 0', b'"tokens": ' + b"9" * 4300),
        "machine labels:1: tokens must be a whole number 0-",
    )
)
