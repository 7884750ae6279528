"""Round 6: judgments in qrels form everywhere score reads them, lone surrogates in documents,
the event's payload read with them let through, and the page's labels taken from the index.

``item`` is ``R6.<n>``, the class of defect.
"""

from __future__ import annotations

import json
from pathlib import Path

from hostile.case import HostileCase
from hostile.cases_action import WORKSPACE, runner, with_runner_folder

CASES: list[HostileCase] = []

PULL_PAYLOAD = {"number": 7, "pull_request": {"number": 7, "base": {"sha": "0" * 40, "ref": "main"}}}


def _event(**base: str) -> bytes:
    payload = json.loads(json.dumps(PULL_PAYLOAD))
    payload["pull_request"]["base"].update(base)
    return json.dumps(payload).encode()


def _nothing_unscrubbed(tmp: Path) -> None:
    for path in tmp.rglob("*"):
        if path.is_file():
            path.read_bytes().decode("utf-8")  # every file written is UTF-8 text


CASES.append(
    HostileCase(
        "R6.1",
        "event-base-ref-lone-surrogate",
        ("action",),
        files={**WORKSPACE, "event.json": _event(ref="main\ud800")},
        env=runner(GITHUB_EVENT_PATH="{tmp}/event.json"),
        setup=with_runner_folder,
        exit_code=0,
        check=_nothing_unscrubbed,
        github=True,
        comment_has="retrieval-eval",
    )
)
for _name, _base in (
    ("event-base-sha-lone-surrogate", {"sha": "0" * 39 + "\ud800"}),
    ("event-base-sha-surrogate-only", {"sha": "\udfff"}),
    ("event-base-ref-lone-low-surrogate", {"ref": "\udc00main"}),
):
    CASES.append(
        HostileCase(
            "R6.1",
            _name,
            ("action",),
            files={**WORKSPACE, "event.json": _event(**_base)},
            env=runner(GITHUB_EVENT_PATH="{tmp}/event.json"),
            setup=with_runner_folder,
            exit_code=0,
            check=_nothing_unscrubbed,
            github=True,
            comment_has="retrieval-eval",
        )
    )


# R6.2: a document's lone surrogate is named by the line of its escape, not of another text
# that reads alike: an escaped backslash before "ud800", a paired half, a lowercase fold that
# lengthens the text before it ("İ" is two characters lowercased).
_SURROGATE_LINES = {
    "after-escaped-backslash": (b'{\n "note": "\\\\ud800",\n "name": "x\\ud800"\n}\n', 3),
    "after-its-pair": (b'{\n "ok": "\\ud83d\\ude00",\n "bad": "\\ud83d"\n}\n', 3),
    "after-dotted-capitals": (('{\n "n": "' + "\u0130" * 40 + '",\n "g": "\\uD800"\n}\n').encode(), 3),
    "low-half-after-a-pair": (b'{"a": "\\ud83d\\ude00",\n"b": 1,\n"c": "\\ude00"}', 3),
}
for _name, (_data, _line) in _SURROGATE_LINES.items():
    CASES.append(
        HostileCase(
            "R6.2",
            f"report-lone-surrogate-line-{_name}",
            ("render", "--report", "r.json", "--format", "text"),
            files={"r.json": _data},
            stderr_has=f"report (r.json):{_line}: not valid Unicode",
        )
    )
