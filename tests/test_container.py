"""The image, run the way the Actions runner runs a Docker action.

The workspace is mounted at /github/workspace and is the working directory,
the event sits at /github/workflow/event.json, the summary and output files
under /github/file_commands, inputs arrive as INPUT_* variables and the fake
API listens on 127.0.0.1 (the container shares the host's network). Skipped
when no Docker daemon is reachable, or when RETRIEVAL_EVAL_DOCKER=0.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from action_workspace import ROOT, TOKEN, Workspace, make_workspace, parse_outputs, repack, worse_run
from fake_github import FakeGitHub

# One worker runs them all, so the image is built once per run, not once per worker.
pytestmark = [pytest.mark.docker, pytest.mark.xdist_group("docker")]
IMAGE = "retrieval-eval:container-test"
GATES = "recall@5:0.8\nrecall@5:-0.05"


def docker_available() -> str | None:
    """Why the container tests cannot run here, or None when they can."""
    if os.environ.get("RETRIEVAL_EVAL_DOCKER", "").lower() in ("0", "false", "skip"):
        return "RETRIEVAL_EVAL_DOCKER says to skip"
    if shutil.which("docker") is None:
        return "no docker client"
    probe = subprocess.run(["docker", "info"], capture_output=True, timeout=60, check=False)
    return None if probe.returncode == 0 else "no reachable Docker daemon"


@pytest.fixture(scope="module")
def image() -> str:
    reason = docker_available()
    if reason:
        pytest.skip(reason)
    # --network host: some build machines have no route out of the default bridge.
    build = subprocess.run(
        ["docker", "build", "--network", "host", "-q", "-t", IMAGE, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    return IMAGE


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub().serve() as server:
        yield server


def action_args() -> list[str]:
    """What the runner passes after the image: runs.args from action.yml."""
    with open(ROOT / "action.yml", encoding="utf-8") as handle:
        return [str(arg) for arg in yaml.safe_load(handle)["runs"]["args"]]


def run_like_the_runner(image: str, ws: Workspace, fake: FakeGitHub, **inputs: str) -> subprocess.CompletedProcess[str]:
    if os.geteuid() == 0:
        # The runner's checkout belongs to another uid than the container's root:
        # the base report must still be read from it.
        for path in [ws.root, *ws.root.rglob("*")]:
            os.lchown(path, 1001, 1001)
    env = ws.env(fake.url, gates=GATES, **inputs)
    env.update(
        {
            "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_STEP_SUMMARY": f"/github/file_commands/{ws.summary_path.name}",
            "GITHUB_OUTPUT": f"/github/file_commands/{ws.output_path.name}",
            "GITHUB_ACTIONS": "true",
            "CI": "true",
        }
    )
    command = [
        "docker",
        "run",
        "--rm",
        "--network",
        "host",
        "--workdir",
        "/github/workspace",
        "-v",
        f"{ws.root}:/github/workspace",
        "-v",
        f"{ws.runner}:/github/file_commands",
        "-v",
        f"{ws.runner}:/github/workflow",
    ]
    for name in env:
        command += ["-e", name]  # values come from the environment, never from the command line
    return subprocess.run(
        [*command, image, *action_args()],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
        check=False,
    )


def assert_published(ws: Workspace, result: subprocess.CompletedProcess[str]) -> dict[str, str]:
    outputs = parse_outputs(ws.output_path.read_text(encoding="utf-8"))
    assert (ws.root / outputs["report-path"]).is_file()
    assert (ws.root / outputs["comment-path"]).is_file()
    assert ws.summary_path.read_text(encoding="utf-8").startswith("## ")
    assert result.stdout.splitlines()[0] == f"::add-mask::{TOKEN}"
    for path in [ws.summary_path, ws.output_path, *ws.root.glob("retrieval-eval-report*")]:
        assert TOKEN not in path.read_text(encoding="utf-8")
    return outputs


def test_pass(image: str, tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    repack(ws.root)  # the base report in a pack
    result = run_like_the_runner(image, ws, fake)
    assert result.returncode == 0, result.stdout + result.stderr
    outputs = assert_published(ws, result)
    assert outputs["verdict"] == "PASS" and outputs["comment-posted"] == "true"
    # Read without git, from a checkout that belongs to another uid.
    assert "read from the checkout's git objects" in ws.summary()
    assert [(r.method, r.path) for r in fake.requests] == [
        ("GET", "/user"),
        ("GET", "/repos/octo/widgets/issues/7/comments"),
        ("POST", "/repos/octo/widgets/issues/7/comments"),
    ]
    assert all(r.authorization == f"Bearer {TOKEN}" for r in fake.requests)


def test_a_shallow_checkout(image: str, tmp_path: Path, fake: FakeGitHub) -> None:
    """actions/checkout's default: the base commit is not there, so its report comes from the API,
    and the checkout is left as it was (a fetch as root would write root-owned objects into it)."""
    ws = make_workspace(tmp_path, history="shallow")
    fake.contents[(ws.base_sha, ".retrieval-eval/report.json")] = ws.base_report.encode()
    before = {str(p): p.stat().st_mtime_ns for p in (ws.root / ".git").rglob("*")}
    result = run_like_the_runner(image, ws, fake)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "read through the Contents API" in ws.summary()
    assert {str(p): p.stat().st_mtime_ns for p in (ws.root / ".git").rglob("*")} == before


def test_fail(image: str, tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, head_run=worse_run())
    result = run_like_the_runner(image, ws, fake)
    assert result.returncode == 1, result.stdout + result.stderr
    outputs = assert_published(ws, result)
    assert outputs["verdict"] == "FAIL"
    assert set(outputs["breached-gates"].splitlines()) == {"recall@5:0.8", "recall@5:-0.05"}
    assert sum(line.startswith("::error") for line in result.stdout.splitlines()) == 2
    assert fake.calls("POST", "/comments")


def test_indeterminate(image: str, tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="none")
    fake.fail("POST", "/comments", 403)  # as for a fork: the outcome must not change
    result = run_like_the_runner(image, ws, fake)
    assert result.returncode == 1, result.stdout + result.stderr
    outputs = assert_published(ws, result)
    assert outputs["verdict"] == "INDETERMINATE" and outputs["comment-posted"] == "false"
    paths = [r.path for r in fake.requests]
    assert "/repos/octo/widgets/contents/.retrieval-eval/report.json" in paths
    assert "/repos/octo/widgets/actions/artifacts" in paths
    relaxed = run_like_the_runner(image, ws, fake, fail_on_indeterminate="false")
    assert relaxed.returncode == 0


def test_the_image_is_the_cli(image: str, tmp_path: Path) -> None:
    demo = ROOT / "src" / "retrieval_eval" / "demo"
    result = subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "--network",
            "host",
            "-v",
            f"{demo}:/data:ro",
            image,
            "score",
            "-j",
            "/data/judgments.jsonl",
            "-r",
            "/data/run.jsonl",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["verdict"]["status"] == "PASS"


def base_image() -> str:
    return next(
        line.split()[1]
        for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
        if line.startswith("FROM ")
    )


def test_the_image_adds_no_git_and_under_60_mb_besides_the_lanes(image: str) -> None:
    git = subprocess.run(
        ["docker", "run", "--rm", "--entrypoint", "sh", image, "-c", "command -v git"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert git.returncode != 0 and git.stdout == ""

    def size(name: str) -> int:
        inspected = subprocess.run(
            ["docker", "image", "inspect", "--format", "{{.Size}}", name],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return int(inspected.stdout)

    # The lanes extra (numpy, scipy, bm25s, PyStemmer: 172 MB measured) has its own layer and budget.
    history = subprocess.run(
        ["docker", "history", "--no-trunc", "--human=false", "--format", "{{.Size}}\t{{.CreatedBy}}", image],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lanes = sum(int(line.split("\t")[0]) for line in history.stdout.splitlines() if "-r /tmp/lanes.txt" in line)
    assert 0 < lanes < 200 * 1000 * 1000, f"the lanes layer takes {lanes / 1e6:.1f} MB"
    added = size(image) - size(base_image()) - lanes
    assert 0 < added < 60 * 1000 * 1000, f"the layers on top of {base_image()} take {added / 1e6:.1f} MB"


def test_the_image_draws_the_bootstrap_with_numpy(image: str) -> None:
    """numpy is in the image, stripped of what is never imported, and draws what the pure path draws."""
    probe = (
        "import random; "
        "from retrieval_eval.core.significance import _numpy_draws, resample_sums; "
        "assert _numpy_draws() is not None; "
        "columns = [[random.Random(i).randint(-9, 9) for i in range(999)]]; "
        "assert resample_sums(columns, resamples=300, seed=1) == resample_sums(columns, resamples=300, seed=1, "
        "use_numpy=False); print('same')"
    )
    result = subprocess.run(
        ["docker", "run", "--rm", "--entrypoint", "python", image, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and result.stdout.strip() == "same", result.stderr[-2000:]
