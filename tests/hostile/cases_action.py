"""The action's own inputs, as a pull request or a thin runner could set them.

Each case runs ``retrieval-eval action`` as the image does, with the runner's variables set to
the case's folder. A config file is the pull request's to write; the runner's files may point
nowhere. Every case must end in exit 2 with a message naming what is wrong, after publishing
what still can be.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

from hostile.case import HostileCase

JUDGMENTS = b'{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n'
RUN = b'{"query_id":"q1","ranking":["d1"]}\n'
WORKSPACE = {"judgments.jsonl": JUDGMENTS, "run.jsonl": RUN}


def runner(**extra: str) -> dict[str, str]:
    env = {
        "GITHUB_WORKSPACE": "{tmp}",
        "GITHUB_STEP_SUMMARY": "{tmp}/runner/summary.md",
        "GITHUB_OUTPUT": "{tmp}/runner/output",
        "INPUT_JUDGMENTS": "judgments.jsonl",
        "INPUT_RUN": "run.jsonl",
        "INPUT_BASELINE": "none",
        "INPUT_GITHUB-TOKEN": "ghs_secret_never_printed",
    }
    return {**env, **extra}


def with_runner_folder(tmp: Path) -> None:
    (tmp / "runner").mkdir()


def with_a_fifo(name: str):  # type: ignore[no-untyped-def]
    def setup(tmp: Path) -> None:
        with_runner_folder(tmp)
        os.mkfifo(tmp / "runner" / name)

    return setup


def summary_written(tmp: Path) -> None:
    assert "retrieval-eval" in (tmp / "runner" / "summary.md").read_text()


def outputs_say(verdict: str):  # type: ignore[no-untyped-def]
    def check(tmp: Path) -> None:
        assert f"verdict={verdict}" in (tmp / "runner" / "output").read_text()

    return check


def nothing_outside(tmp: Path) -> None:
    assert not any((tmp.parent / f"{tmp.name}-outside").iterdir())


def link_reports_outside(tmp: Path) -> None:
    with_runner_folder(tmp)
    outside = tmp.parent / f"{tmp.name}-outside"
    outside.mkdir()
    os.symlink(outside, tmp / "reports")


def link_judgments_to_a_secret(tmp: Path) -> None:
    with_runner_folder(tmp)
    secret = tmp.parent / f"{tmp.name}-secret.jsonl"
    secret.write_text("TOKEN=ghs_from_the_environment\n")
    (tmp / "labels.jsonl").unlink(missing_ok=True)
    os.symlink(secret, tmp / "labels.jsonl")


def link_config_to_a_secret(tmp: Path) -> None:
    with_runner_folder(tmp)
    secret = tmp.parent / f"{tmp.name}-environ"
    secret.write_text("GITHUB_TOKEN=ghs_from_the_environment\x00HOME=/root\x00")
    os.symlink(secret, tmp / ".retrieval-eval.yml")


def no_secret_anywhere(tmp: Path) -> None:
    for path in (tmp / "runner").iterdir():
        assert "ghs_from_the_environment" not in path.read_text(errors="replace"), path


ALIAS_BOMB = b"a: &a [x, x, x, x, x, x, x, x, x]\n" + b"".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n".encode()
    for i in range(12)
)

CASES = [
    # Every case of this table runs on a pull request against the fake GitHub (``github=True``
    # below), and must leave our comment there.
    # 10: the config file is the pull request's.
    HostileCase(
        "10",
        "config-nested-20000-deep",
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"k: " + b"[" * 20_000 + b"\n"},
        env=runner(),
        setup=with_runner_folder,
        stdout_has="nests deeper than 16 levels",
        check=outputs_say("ERROR"),
    ),
    HostileCase(
        "10",
        "config-alias-bomb",
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": ALIAS_BOMB},
        env=runner(),
        setup=with_runner_folder,
        stdout_has="uses a YAML anchor or alias",
        check=outputs_say("ERROR"),
    ),
    HostileCase(
        "10",
        "config-key-given-twice",  # a reviewer reads the first; YAML keeps the last
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"k: [10]\nthreshold: 1\n\n# ...\nk: [1]\n"},
        env=runner(),
        setup=with_runner_folder,
        stdout_has="5: the key 'k' is given twice",
        check=outputs_say("ERROR"),
    ),
    HostileCase(
        "10",
        "config-number-yaml-would-retype",  # YAML 1.1 reads 010 as 8; the setting reads the text
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"k: 010\n"},
        env=runner(),
        setup=with_runner_folder,
        stdout_has="'010' must be positive whole numbers",
        check=outputs_say("ERROR"),
    ),
    HostileCase(
        "10",
        "config-key-given-under-both-spellings",
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"fail-on-indeterminate: true\nfail_on_indeterminate: false\n"},
        env=runner(),
        setup=with_runner_folder,
        stdout_has="'fail-on-indeterminate' and 'fail_on_indeterminate' are one setting",
        check=outputs_say("ERROR"),
    ),
    HostileCase(
        "10",
        "config-nested-key-given-twice",
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"drift:\n  max: 0.1\n  max: 0.9\n"},
        env=runner(),
        setup=with_runner_folder,
        stdout_has="3: the key 'max' is given twice",
        check=outputs_say("ERROR"),
    ),
    HostileCase(
        "10",
        "config-too-large",
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"# padding\n" * 40_000},
        env=runner(),
        setup=with_runner_folder,
        stdout_has="larger than 256 KiB",
        check=outputs_say("ERROR"),
    ),
    HostileCase(
        "10",
        "config-huge-integer",
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": b"threshold: " + b"9" * 5000 + b"\n"},
        env=runner(),
        setup=with_runner_folder,
        stdout_has=".retrieval-eval.yml:1: a number of 5000 digits",
        check=outputs_say("ERROR"),
    ),
    # 12b: a runner that gives less than GitHub does.
    HostileCase(
        "12b",
        "summary-folder-missing",
        ("action",),
        files=WORKSPACE,
        env=runner(GITHUB_STEP_SUMMARY="{tmp}/no-such-folder/summary.md"),
        setup=with_runner_folder,
        stdout_has="GITHUB_STEP_SUMMARY points to",
        check=outputs_say("PASS"),
    ),
    HostileCase(
        "12b",
        "output-folder-missing",
        ("action",),
        files=WORKSPACE,
        env=runner(GITHUB_OUTPUT="{tmp}/no-such-folder/output"),
        setup=with_runner_folder,
        stdout_has="GITHUB_OUTPUT points to",
    ),
    HostileCase(
        "12b",
        "output-a-pipe-nobody-reads",
        ("action",),
        files=WORKSPACE,
        env=runner(GITHUB_OUTPUT="{tmp}/runner/output.fifo"),
        setup=with_a_fifo("output.fifo"),
        stdout_has="GITHUB_OUTPUT points to",
        check=summary_written,
        timeout=30,
    ),
    HostileCase(
        "12b",
        "summary-a-pipe-nobody-reads",
        ("action",),
        files=WORKSPACE,
        env=runner(GITHUB_STEP_SUMMARY="{tmp}/runner/summary.fifo"),
        setup=with_a_fifo("summary.fifo"),
        stdout_has="GITHUB_STEP_SUMMARY points to",
        check=outputs_say("PASS"),
        timeout=30,
    ),
    HostileCase(
        "12b",
        "event-file-unreadable-and-summary-missing",
        ("action",),
        files=WORKSPACE,
        env=runner(
            GITHUB_EVENT_NAME="pull_request",
            GITHUB_EVENT_PATH="{tmp}/no-event.json",
            GITHUB_STEP_SUMMARY="{tmp}/nowhere/summary.md",
        ),
        setup=with_runner_folder,
        stdout_has="event",
        check=outputs_say("ERROR"),
    ),
    # 16: links the pull request commits never take the action outside the workspace.
    HostileCase(
        "16",
        "report-folder-linked-outside",
        ("action",),
        files=WORKSPACE,
        env=runner(INPUT_REPORT="reports/eval.json"),
        setup=link_reports_outside,
        stdout_has="leads outside the workspace",
        check=nothing_outside,
    ),
    HostileCase(
        "16",
        "judgments-linked-to-a-secret",
        ("action",),
        files=WORKSPACE,
        env=runner(INPUT_JUDGMENTS="labels.jsonl"),
        setup=link_judgments_to_a_secret,
        stdout_has="leads outside the workspace",
        check=no_secret_anywhere,
    ),
    HostileCase(
        "16",
        "config-linked-to-the-environment",
        ("action",),
        files=WORKSPACE,
        env=runner(),
        setup=link_config_to_a_secret,
        stdout_has="leads outside the workspace",
        check=no_secret_anywhere,
    ),
]

# A refusal reaches the pull request as our error comment; a broken runner file does not stop the
# answer from reaching it; an event that cannot be read names no pull request to comment on.
COMMENT = {
    "12b-summary-folder-missing": "PASS",
    "12b-output-folder-missing": "PASS",
    "12b-output-a-pipe-nobody-reads": "PASS",
    "12b-summary-a-pipe-nobody-reads": "PASS",
}
NO_COMMENT = {"12b-event-file-unreadable-and-summary-missing"}
CASES = [
    dataclasses.replace(
        case, github=True, comment_has=None if case.id in NO_COMMENT else COMMENT.get(case.id, "could not answer")
    )
    for case in CASES
]


def endless_rendered_comment(tmp: Path) -> None:
    """The fork recipe's second workflow reads files a first run left: one may be huge (a sparse
    file costs no disk); a link to /dev/zero is already refused as leaving the workspace."""
    with_runner_folder(tmp)
    with open(tmp / "retrieval-eval-report.comment.md", "wb") as handle:
        handle.truncate(65 << 20)


def workflow_run_event(tmp: Path) -> None:
    endless_rendered_comment(tmp)
    event = {"workflow_run": {"id": 1, "event": "pull_request", "head_sha": "a" * 40, "pull_requests": [{"number": 7}]}}
    (tmp / "run-event.json").write_text(json.dumps(event))


CASES.append(
    HostileCase(
        "12b",
        "post-comment-reads-a-huge-comment-file",
        ("action",),
        env=runner(
            **{"INPUT_MODE": "post-comment", "GITHUB_EVENT_NAME": "workflow_run"},
            GITHUB_EVENT_PATH="{tmp}/run-event.json",
        ),
        setup=workflow_run_event,
        stdout_has="is larger than 67,108,864 bytes",
        github=True,
        comment_has=None,
    )
)
