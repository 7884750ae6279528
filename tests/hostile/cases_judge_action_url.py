"""The action's judge-endpoint input holding a key (in the user part or a query): refused, and
the key is on neither output stream nor in the step summary or outputs."""

from __future__ import annotations

from pathlib import Path

from hostile.case import HostileCase
from hostile.cases_action import WORKSPACE, runner, with_runner_folder

KEY = "sk-action-SECRET-7171"


def _no_key_in_runner_files(tmp: Path) -> None:
    for path in (tmp / "runner").iterdir():
        assert KEY not in path.read_text(errors="replace"), f"the key is in {path.name}"


def _case(name: str, url: str, says: str) -> HostileCase:
    return HostileCase(
        "judge-endpoint",
        name,
        ("action",),
        files=WORKSPACE,
        env=runner(
            **{
                "INPUT_UNJUDGED": "machine",
                "INPUT_JUDGE-ENDPOINT": url,
                "INPUT_JUDGE-MODEL": "m",
                "INPUT_MACHINE-LABELS": "machine.jsonl",
            }
        ),
        setup=with_runner_folder,
        stdout_has=says,
        stdout_lacks=(KEY,),
        check=_no_key_in_runner_files,
    )


CASES: list[HostileCase] = [
    _case("action-key-in-url-userinfo", f"http://user:{KEY}@127.0.0.1:9/v1", "carries a user, a password or a query"),
    _case("action-key-in-url-query", f"http://127.0.0.1:9/v1?api_key={KEY}", "carries a user, a password or a query"),
    _case("action-key-in-url-not-http", f"ftp://user:{KEY}@127.0.0.1:9/v1", "must be an http(s) URL"),
    _case("action-url-port-not-a-number", "http://127.0.0.1:abc/v1", "is not a URL"),
    _case("action-url-unclosed-ipv6-bracket", "http://[::1/v1", "is not a URL"),
]


# the judge's key comes from a variable, not an input: the runner masks only what a workflow
# marked secret, so the action registers it itself before anything else can print it
CASES.append(
    HostileCase(
        "judge-endpoint",
        "action-masks-the-judge-key",
        ("action",),
        files=WORKSPACE,
        env=runner(
            **{
                "INPUT_UNJUDGED": "machine",
                "INPUT_JUDGE-ENDPOINT": "http://127.0.0.1:9/v1",
                "INPUT_JUDGE-MODEL": "m",
                "INPUT_JUDGE-KEY-ENV": "JUDGE_KEY_FOR_ROW",
                "INPUT_MACHINE-LABELS": "machine.jsonl",
                "JUDGE_KEY_FOR_ROW": KEY,
            }
        ),
        setup=with_runner_folder,
        exit_code=0,
        stdout_has=f"::add-mask::{KEY}",
        check=_no_key_in_runner_files,
        timeout=120,
    )
)
