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
