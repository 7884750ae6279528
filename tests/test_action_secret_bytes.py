"""A secret input whose value is not UTF-8: the environment holds bytes, and Python reads each
stray byte as a lone surrogate. It is masked as the runner holds it, scrubbed in its encoded
forms, and fails nothing (its URL and base64 forms were taken with a strict encoding, and the
add-mask line written through one: a traceback before anything was published)."""

from __future__ import annotations

import base64
import io
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_workspace import REPO, make_workspace
from fake_github import FakeGitHub
from retrieval_eval.action.publish import Console
from retrieval_eval.render.scrub import scrub, secret_inputs
from test_action_integration import act

RAW = b"ghs_raw\xffsecret"
SECRET = RAW.decode("utf-8", "surrogateescape")  # as os.environ holds it


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(repo=REPO).serve() as server:
        yield server


def test_its_encoded_forms_are_those_of_its_bytes() -> None:
    secrets = secret_inputs({"INPUT_API-KEY": SECRET})
    assert SECRET in secrets and urllib.parse.quote(RAW, safe="") in secrets
    header = base64.b64encode(b"x-access-token:" + RAW).decode()
    assert header[:-4] not in scrub(f"basic {header}", secrets)


def test_its_mask_gives_the_runner_its_bytes() -> None:
    out = io.BytesIO()
    stream = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    console = Console(stream)
    console.mask(SECRET)
    console.log("after")
    assert out.getvalue() == b"::add-mask::" + RAW + b"\nafter\n"


def test_the_action_runs_and_publishes_nothing_of_it(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    run = act(ws, fake, **{"api-key": SECRET})
    assert run.code == 0, run.log
    assert f"::add-mask::{SECRET}" in run.log
    assert "ghs_raw" not in run.summary and run.outputs["comment-posted"] == "true"
    for path in ws.root.rglob("*"):
        if path.is_file() and ".git" not in path.parts:
            assert b"ghs_raw" not in path.read_bytes(), path
