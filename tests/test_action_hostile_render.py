"""The action against hostile answers and artifacts, on the fake GitHub (a real HTTP server):
Retry-After values no server should send, zip members whose header lies about their size,
user templates that ask for too much, and secrets that must never be posted."""

from __future__ import annotations

import io
import json
import math
import re
import struct
import tracemalloc
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_workspace import PR_NUMBER, TOKEN, Workspace, demo_rows, make_workspace, worse_run
from fake_github import BOT, FakeGitHub
from retrieval_eval.action.baseline import MAX_MEMBER_BYTES, read_zip_member
from retrieval_eval.action.github import MAX_RETRY_AFTER
from retrieval_eval.action.main import main
from retrieval_eval.core.errors import InputError

GATES = "recall@5:0.8\nrecall@5:-0.05"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(repo="octo/widgets").serve() as server:
        yield server


class Slept(list[float]):
    """A sleep that refuses what time.sleep refuses (nan, negative), and what we promise never to ask."""

    def __call__(self, seconds: float) -> None:
        assert isinstance(seconds, float | int) and math.isfinite(seconds), seconds
        assert 0 <= seconds <= MAX_RETRY_AFTER, seconds
        self.append(seconds)


def act(ws: Workspace, fake: FakeGitHub, **inputs: str) -> tuple[int, Slept, str]:
    ws.reset_runner_files()
    slept = Slept()
    out = io.StringIO()
    code = main(ws.env(fake.url, gates=GATES, **inputs), stdout=out, sleep=slept)
    return code, slept, out.getvalue()


def ours(fake: FakeGitHub) -> list[dict[str, object]]:
    return [c for c in fake.comments.get(PR_NUMBER, []) if c["user"] == BOT]


# -- 11: Retry-After --------------------------------------------------------------------------

RETRY_AFTER = [
    "nan",
    "NaN",
    "-5",
    "-inf",
    "inf",
    "1e400",
    "99999999999",
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "soon",
    "",
    "5_0",
]
ENDPOINTS = [
    ("GET", r"/issues/\d+/comments$"),
    ("POST", r"/issues/\d+/comments$"),
    ("GET", r"/contents/"),
]


@pytest.mark.parametrize("value", RETRY_AFTER)
@pytest.mark.parametrize(("method", "pattern"), ENDPOINTS)
def test_any_retry_after_is_absent_or_capped_never_a_crash(
    tmp_path: Path, fake: FakeGitHub, value: str, method: str, pattern: str
) -> None:
    ws = make_workspace(tmp_path, history="none")
    fake.contents[(ws.base_sha, ".retrieval-eval/report.json")] = ws.base_report.encode()
    fake.fail(method, pattern, 503, times=2, **{"retry-after": value})
    code, slept, _ = act(ws, fake)
    assert code == 0 and len(slept) == 2
    assert len(ours(fake)) == 1


def test_retry_after_on_the_artifact_download(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="none", head_run=worse_run())
    fake.add_run(100, branch="main")
    fake.add_artifact(100, "retrieval-eval-report", _zip(ws.base_report.encode()), created_at="2026-01-01T00:00:00Z")
    fake.fail("GET", r"/storage/blob/", 429, **{"retry-after": "nan"})
    fake.fail("GET", r"/actions/artifacts$", 502, **{"retry-after": "-1"})
    code, slept, _ = act(ws, fake)
    assert code == 1 and len(slept) == 2
    assert "artifact retrieval-eval-report of run 100 on main" in ws.summary()


def test_a_well_formed_retry_after_is_honoured_up_to_the_cap(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    fake.fail("GET", r"/issues/\d+/comments$", 503, **{"retry-after": "7"})
    fake.fail("GET", r"/issues/\d+/comments$", 503, **{"retry-after": "3600"})
    _, slept, _ = act(ws, fake)
    assert slept == [7.0, MAX_RETRY_AFTER]


# -- 15: zip members whose header lies --------------------------------------------------------


def _zip(data: bytes, name: str = "retrieval-eval-report.json") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def lying_zip(inflated: int, declared: int, name: str = "retrieval-eval-report.json") -> bytes:
    """A deflated member of ``inflated`` zero bytes whose headers (local and central) say ``declared``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w", force_zip64=False) as member:
            chunk = b"\0" * (1 << 20)
            for _ in range(inflated // len(chunk)):
                member.write(chunk)
    data = bytearray(buffer.getvalue())
    struct.pack_into("<I", data, 22, declared)  # local file header: uncompressed size
    central = data.rindex(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, declared)  # central directory: uncompressed size
    return bytes(data)


def test_a_member_that_lies_about_its_size_is_never_inflated_whole() -> None:
    bomb = lying_zip(256 << 20, declared=1_000)
    assert len(bomb) < 1 << 20  # a quarter of a gigabyte of zeros, in a few hundred kilobytes
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="artifact x"):
            read_zip_member(bomb, ("retrieval-eval-report.json",), where="artifact x", source="baseline")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak:,} bytes held at once"


def test_a_member_larger_than_the_cap_is_refused_while_inflating() -> None:
    bomb = lying_zip(MAX_MEMBER_BYTES + (1 << 20), declared=MAX_MEMBER_BYTES)  # declares exactly the cap
    with pytest.raises(InputError, match="artifact x"):
        read_zip_member(bomb, ("retrieval-eval-report.json",), where="artifact x", source="baseline")


@pytest.mark.parametrize(
    "archive",
    [b"PK\x03\x04" + b"\0" * 40, b"not a zip", _zip(b"{}")[:-30]],
    ids=["truncated-header", "not-zip", "cut-central-directory"],
)
def test_damaged_archives_are_refused_by_name(archive: bytes) -> None:
    with pytest.raises(InputError, match="artifact x"):
        read_zip_member(archive, ("retrieval-eval-report.json",), where="artifact x", source="baseline")


def test_the_action_refuses_a_baseline_artifact_bomb_and_says_so(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="none")
    fake.add_run(100, branch="main")
    fake.add_artifact(100, "retrieval-eval-report", lying_zip(96 << 20, 1_000), created_at="2026-01-01T00:00:00Z")
    code, _, _ = act(ws, fake)
    assert code == 2
    assert "artifact retrieval-eval-report" in ws.summary()
    assert json.loads(json.dumps(ws.outputs()))["verdict"] == "ERROR"


# -- 9 and 13: user templates and secrets -----------------------------------------------------

DEPLOY_KEY = "sk-live-0123456789abcdef"


def everything_published(ws: Workspace, fake: FakeGitHub, log: str) -> str:
    """Every text the run let out: comments, the summary, outputs, the log and the files it wrote."""
    files = [p.read_text(encoding="utf-8") for p in ws.root.glob("retrieval-eval-report*") if p.is_file()]
    bodies = [str(c["body"]) for c in fake.comments.get(PR_NUMBER, [])]
    return "\n".join([*bodies, ws.summary(), ws.output_path.read_text(encoding="utf-8"), log, *files])


def leaked(text: str, secret: str) -> bool:
    """The secret in any form our escaping could give it (backslashes, breaks, code spans)."""
    plain = re.sub(r"\\|`|&#8203;|\u200b", "", text)
    return secret in plain or secret[4:] in plain


def test_a_secret_that_reaches_a_rendering_is_scrubbed_everywhere(tmp_path: Path, fake: FakeGitHub) -> None:
    rows = [dict(row) for row in demo_rows("judgments.jsonl")]
    for row in rows[:6]:
        row["stratum"] = f"team {TOKEN} and {DEPLOY_KEY}"
    ws = make_workspace(tmp_path, head_judgments=rows)
    env = ws.env(fake.url, gates=GATES, **{"deploy-key": DEPLOY_KEY})
    out = io.StringIO()
    code = main(env, stdout=out, sleep=Slept())
    published = everything_published(ws, fake, out.getvalue().replace(f"::add-mask::{TOKEN}", ""))
    published = published.replace(f"::add-mask::{DEPLOY_KEY}", "")
    assert code in (0, 1)
    assert "team *** and ***" in ws.summary()
    assert not leaked(published, TOKEN) and not leaked(published, DEPLOY_KEY)


def test_a_template_linked_out_of_the_workspace_is_refused_and_the_failure_published(
    tmp_path: Path, fake: FakeGitHub
) -> None:
    ws = make_workspace(tmp_path)
    secret = tmp_path / "environ"
    secret.write_text(f"INPUT_GITHUB-TOKEN={TOKEN}\n", encoding="utf-8")
    (ws.root / "templates").mkdir()
    (ws.root / "templates" / "comment.md.j2").symlink_to(secret)
    code, _, log = act(ws, fake, template_dir="templates")
    assert code == 2
    assert "template comment.md.j2 leads outside the template directory" in ws.summary()
    assert ws.outputs()["verdict"] == "ERROR" and len(ours(fake)) == 1
    assert not leaked(everything_published(ws, fake, log.replace(f"::add-mask::{TOKEN}", "")), TOKEN)


@pytest.mark.parametrize(
    "body",
    ['{{ "x" * 10**10 }}', "{{ range(10**9) }}", '{{ "{:>999999999}".format(1) }}', "{{ 1 / 0 }}"],
)
def test_a_template_that_asks_too_much_is_refused_and_the_failure_published(
    tmp_path: Path, fake: FakeGitHub, body: str
) -> None:
    ws = make_workspace(tmp_path)
    (ws.root / "templates").mkdir()
    (ws.root / "templates" / "summary.md.j2").write_text(body + "\n", encoding="utf-8")
    code, _, log = act(ws, fake, template_dir="templates")
    assert code == 2 and "Traceback" not in log
    assert "template summary.md.j2:1" in ws.summary()
    assert ws.outputs()["verdict"] == "ERROR"
    assert "template summary.md.j2:1" in str(ours(fake)[0]["body"])
    # The answer was reached before the template failed: it is kept in the report file, and said so.
    assert ws.outputs()["report-path"] == "retrieval-eval-report.json"
    assert json.loads((ws.root / "retrieval-eval-report.json").read_text())["verdict"]["status"] in ("PASS", "FAIL")
    assert "is in retrieval-eval-report.json" in ws.summary()
