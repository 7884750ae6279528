"""The surfaces added since the last hardening: templates beside ``.git``, workflow commands,
the git object reader, the settings' numbers, ``-k all``, the Python API.

``item`` is ``R3.<n>``, the class of defect; every class has the case that found it and
variants of our own.
"""

from __future__ import annotations

import base64
import dataclasses
from pathlib import Path

from hostile.case import HostileCase
from hostile.cases_action import WORKSPACE, runner, with_runner_folder

TOKEN = "ghs_secret_never_printed"  # what runner() gives as the job's token
# What actions/checkout leaves in the checkout: the token, base64-encoded with its user name.
EXTRAHEADER = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
GIT_CONFIG = (
    '[core]\n\trepositoryformatversion = 0\n[http "https://github.com/"]\n'
    f"\textraheader = AUTHORIZATION: basic {EXTRAHEADER}\n"
).encode()


def _template(body: str) -> bytes:
    return ('{% extends "builtin/summary.md.j2" %}{% block verdict %}' + body + "{% endblock %}\n").encode()


def no_token_published(tmp: Path) -> None:
    """Neither the token nor its base64 in anything the action wrote."""
    published = [p for p in tmp.rglob("*") if p.is_file() and ".git" not in p.parts and p.suffix != ".j2"]
    for path in published:
        text = path.read_text(errors="replace")
        assert EXTRAHEADER[:-4] not in text and TOKEN not in text, path


def link_template_to_git_config(tmp: Path) -> None:
    with_runner_folder(tmp)
    (tmp / "summary.md.j2").symlink_to(tmp / ".git" / "config")


def _leak(name: str, *, config: bytes, files: dict[str, bytes], says: str, setup=with_runner_folder):  # type: ignore[no-untyped-def]
    return HostileCase(
        "R3.1",
        name,
        ("action",),
        files={**WORKSPACE, ".git/config": GIT_CONFIG, ".retrieval-eval.yml": config, **files},
        env=runner(),
        setup=setup,
        stdout_has=says,
        check=no_token_published,
        github=True,
        comment_has="could not answer",
    )


TOKEN_LEAKS = [
    # The review's probe: the template folder is the workspace, and a template includes .git/config.
    _leak(
        "include-git-config",
        config=b"template-dir: .\n",
        files={"summary.md.j2": _template('{% include ".git/config" %}')},
        says="inside a .git folder",
    ),
    _leak(
        "include-git-config-other-case",
        config=b"template-dir: .\n",
        files={"summary.md.j2": _template('{% include ".GIT/config" %}')},
        says="inside a .git folder",
    ),
    _leak(
        "import-git-config",
        config=b"template-dir: .\n",
        files={"summary.md.j2": _template('{% import ".git/config" as c %}')},
        says="inside a .git folder",
    ),
    _leak(
        "template-dir-is-git",
        config=b"template-dir: .git\n",
        files={".git/summary.md.j2": _template('{% include "config" %}')},
        says="inside a .git folder",
    ),
    _leak(
        "template-linked-to-git-config",
        config=b"template-dir: .\n",
        files={},
        says="leads into a .git folder",
        setup=link_template_to_git_config,
    ),
    _leak(
        "include-a-file-that-is-no-template",
        config=b"template-dir: .\n",
        files={"summary.md.j2": _template('{% include "judgments.jsonl" %}')},
        says="is not a template file",
    ),
]
TOKEN_LEAKS[-1] = dataclasses.replace(TOKEN_LEAKS[-1], check=None)

CASES: list[HostileCase] = [*TOKEN_LEAKS]


# -- R3.2: no text from a pull request becomes a workflow command ----------------------------------
# The runner reads a line (ended by \n or \r) that starts with ``::`` as a command.
INJECTED = tuple(
    f"{end}::{name}::injected" for end in "\r\n" for name in ("warning", "error", "notice", "stop-commands")
)


def _command_case(name: str, config: bytes, *, exit_code: int = 0, says: str = "") -> HostileCase:
    return HostileCase(
        "R3.2",
        name,
        ("action",),
        files={**WORKSPACE, ".retrieval-eval.yml": config},
        env=runner(),
        setup=with_runner_folder,
        exit_code=exit_code,
        stdout_has=says,
        github=True,
        comment_has="",
    )


COMMAND_CASES = [
    # The review's probe: a report path with a line break, then a command of its own.
    _command_case("report-path-line-break", b'report: "out\\n::warning::injected.json"\n', says="%0A::warning"),
    _command_case("report-path-carriage-return", b'report: "out\\r::error::injected.json"\n', says="%0D::error"),
    _command_case(
        "report-path-percent-escape",  # %0A written by the user must stay text, not become a break
        b'report: "out%0A::notice::injected.json"\n',
        says="out%250A",
    ),
    _command_case(
        "stop-commands-in-path",
        b'report: "out\\n::stop-commands::injected\\n::warning::injected.json"\n',
        says="%0A::stop-commands",
    ),
]
COMMAND_CASES = [dataclasses.replace(case, stdout_lacks=INJECTED) for case in COMMAND_CASES]
CASES += COMMAND_CASES
