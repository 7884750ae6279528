"""Time to verdict: the action's image, run as the Actions runner runs it, against ``score`` alone.

Run from the repository root, with Docker and git on the machine:

    docker build --network host -t retrieval-eval:dev .
    python bench/verdict_bench.py                                # M, 5 rounds
    python bench/verdict_bench.py --write-docs docs/benchmarks.md --write-docs docs/action.md

The workload is M (``bench/workload.py``: 10k judged queries x 1k ranked ids,
the head run reshuffled in every query's top 20, so every query moves). A
workspace like the runner's is built once under ``bench/generated/``: a git
repository whose base commit holds the base branch's report at
``.retrieval-eval/report.json`` (scored by the image itself), a head commit
on top, an event payload for a pull request, and the runner's summary and
output files. Judgments and runs sit in the working tree, as a checkout
would put them.

Each program is one ``docker run --rm --network host`` with the workspace
mounted at /github/workspace and the GITHUB_* variables the runner sets
(as ``tests/test_container.py`` does), timed from ``docker run`` to exit:

- ``docker run --version``: starting a container at all;
- ``score``: ``score -j judgments.jsonl -r run.jsonl -k 10 --out ...``, the head run;
- ``action``: the action's own arguments from action.yml: settings, the base report read
  from the checkout's git objects, score, compare (10,000 resamples over the paired queries,
  and the strata), history, the summary, the comment and the HTML page, and publishing to a
  fake GitHub (``tests/fake_github.py``, a real HTTP server on 127.0.0.1);
- ``compare``: ``compare --base ... --head ... -j ...`` alone, for the breakdown.

One warm-up round, then ``--rounds`` rounds, each running every program once in turn, so a
burst of load on a shared machine lands on every row; the table shows the median and the
spread. The target: the action within 2x of ``score`` alone.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))

import workload as wl  # noqa: E402  (bench/ is not a package)
from fake_github import FakeGitHub  # noqa: E402  (the fake the container tests use)

BEGIN, END = "<!-- verdict:begin -->", "<!-- verdict:end -->"
FIXED_NOW = "2026-01-01T00:00:00Z"
REPORT = ".retrieval-eval/report.json"
GATES = "recall@10:-0.05\nrecall@10:-0.02:significant"
TOKEN = "ghs_benchToken"
REPO, PR = "octo/widgets", 7
TARGET = 2.0
# The container's CPU time: the CLI runs under a small Python parent that reads getrusage for
# its children (workers included: each is waited for) and leaves it in the runner's folder.
CPU_WRAPPER = (
    "import resource, subprocess, sys; code = subprocess.call(['retrieval-eval', *sys.argv[1:]]); "
    "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
    "open('/github/file_commands/cpu-seconds', 'w').write(repr(u.ru_utime + u.ru_stime)); sys.exit(code)"
)


@dataclass
class Row:
    name: str
    args: list[str]
    inputs: dict[str, str] = field(default_factory=dict)
    ok: tuple[int, ...] = (0,)
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)


def git(cwd: Path, *args: str) -> str:
    identity = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]
    done = subprocess.run(["git", *identity, *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=120)
    return done.stdout.strip()


def docker_run(
    image: str, workspace: Path, runner: Path, args: Sequence[str], env: dict[str, str], *, cpu: bool = False
) -> list[str]:
    command = ["docker", "run", "--rm", "--network", "host", "--workdir", "/github/workspace"]
    command += ["-v", f"{workspace}:/github/workspace", "-v", f"{runner}:/github/file_commands"]
    command += ["-v", f"{runner}:/github/workflow"]
    for name in env:
        command += ["-e", name]  # values from the environment, as the runner passes them
    if cpu:
        return [*command, "--entrypoint", "python", image, "-c", CPU_WRAPPER, *args]
    return [*command, image, *args]


def runner_env(base_sha: str, head_sha: str) -> dict[str, str]:
    return {
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_SHA": head_sha,
        "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary",
        "GITHUB_OUTPUT": "/github/file_commands/set_output",
        "GITHUB_RUN_ID": "555",
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "SOURCE_DATE_EPOCH": "1767225600",
    }


def action_inputs(api_url: str) -> dict[str, str]:
    values = {
        "judgments": "judgments.jsonl",
        "run": "run.jsonl",
        "k": "10",
        "gates": GATES,
        "github-token": TOKEN,
        "api-url": api_url,
    }
    return {f"INPUT_{name.upper()}": value for name, value in values.items()}


def action_args() -> list[str]:
    import yaml

    with open(ROOT / "action.yml", encoding="utf-8") as handle:
        return [str(arg) for arg in yaml.safe_load(handle)["runs"]["args"]]


@dataclass(frozen=True)
class Space:
    workspace: Path
    runner: Path
    base_sha: str
    head_sha: str


def build_workspace(work: wl.Workload, image: str, directory: Path) -> Space:
    """The runner's workspace for the M workload: built once, reused while its stamp matches."""
    workspace, runner = directory / "workspace", directory / "runner"
    stamp = directory / "stamp.json"
    expected = {"image": _image_id(image), "workload": json.loads(work.manifest.read_text())}
    found = json.loads(stamp.read_text()) if stamp.exists() else {}
    if all(found.get(key) == value for key, value in expected.items()):
        return Space(workspace, runner, found["base_sha"], found["head_sha"])
    shutil.rmtree(directory, ignore_errors=True)
    workspace.mkdir(parents=True)
    runner.mkdir()
    git(workspace, "init", "-q", "-b", "main")
    # Judgments and runs in the working tree, as a checkout puts them; only the report is committed
    # (the action reads them from the tree, never from git).
    (workspace / ".gitignore").write_text("*.jsonl\nretrieval-eval-report*\n", encoding="utf-8")
    os.link(work.judgments, workspace / "judgments.jsonl")
    os.link(work.run, workspace / "run.jsonl")
    (workspace / ".retrieval-eval").mkdir()
    score = ["score", "-j", "judgments.jsonl", "-r", "run.jsonl", "-k", "10", "--out", REPORT, "--now", FIXED_NOW]
    env = runner_env("0" * 40, "0" * 40)
    subprocess.run(
        docker_run(image, workspace, runner, score, env),
        env={**os.environ, **env},
        check=True,
        capture_output=True,
        timeout=600,
    )
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "base: its report")
    base_sha = git(workspace, "rev-parse", "HEAD")
    (workspace / "run.jsonl").unlink()
    os.link(work.run_head, workspace / "run.jsonl")
    (workspace / "README.md").write_text("the head\n", encoding="utf-8")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-q", "-m", "head: a reshuffled run")
    head_sha = git(workspace, "rev-parse", "HEAD")
    event = {
        "action": "synchronize",
        "number": PR,
        "pull_request": {
            "number": PR,
            "head": {"sha": head_sha, "ref": "feature"},
            "base": {"sha": base_sha, "ref": "main"},
        },
        "repository": {"full_name": REPO, "default_branch": "main"},
    }
    (runner / "event.json").write_text(json.dumps(event), encoding="utf-8")
    stamp.write_text(json.dumps({**expected, "base_sha": base_sha, "head_sha": head_sha}), encoding="utf-8")
    return Space(workspace, runner, base_sha, head_sha)


def _image_id(image: str) -> str:
    inspected = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{.Id}}", image], capture_output=True, text=True, check=False
    )
    if inspected.returncode != 0:
        raise SystemExit(f"no image {image}: build it with docker build --network host -t {image} .")
    return inspected.stdout.strip()


def time_row(row: Row, image: str, space: Space, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds from ``docker run`` to exit, and the CPU seconds the CLI used in the container."""
    for name in ("step_summary", "set_output", "cpu-seconds"):
        (space.runner / name).write_text("", encoding="utf-8")
    full = {**env, **row.inputs}
    command = docker_run(image, space.workspace, space.runner, row.args, full, cpu=True)
    started = time.perf_counter()
    done = subprocess.run(command, env={**os.environ, **full}, capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - started
    if done.returncode not in row.ok:
        raise SystemExit(f"{row.name} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return wall, float((space.runner / "cpu-seconds").read_text(encoding="utf-8"))


def check_action(space: Space, fake: FakeGitHub) -> str:
    """What the action published, so a fast run that skipped work cannot pass for one."""
    summary = (space.runner / "step_summary").read_text(encoding="utf-8")
    outputs = (space.runner / "set_output").read_text(encoding="utf-8")
    assert "paired bootstrap over 9898 queries, 10,000 resamples" in summary, summary[:2000]
    assert "### History on the base branch" in summary and "verdict=" in outputs
    assert fake.calls("POST", "/comments") or fake.calls("PATCH", "/comments"), "no comment was published"
    verdict = next(line for line in outputs.splitlines() if line.startswith("verdict="))
    return verdict.removeprefix("verdict=")


def measure(image: str, rounds: int, work_dir: Path) -> tuple[list[Row], str]:
    work = wl.generate(wl.SIZES["M"], work_dir / "M", head=True)
    space = build_workspace(work, image, work_dir / "M-action")
    env = runner_env(space.base_sha, space.head_sha)
    head_report = "/github/file_commands/head.json"
    with FakeGitHub().serve() as fake:
        rows = [
            Row("docker run --version", ["--version"]),
            Row(
                "score",
                [
                    "score",
                    "-j",
                    "judgments.jsonl",
                    "-r",
                    "run.jsonl",
                    "-k",
                    "10",
                    "--out",
                    head_report,
                    "--now",
                    FIXED_NOW,
                ],
            ),
            Row("action", action_args(), action_inputs(fake.url), ok=(0, 1)),
            Row(
                "compare",
                [
                    "compare",
                    "--base",
                    REPORT,
                    "--head",
                    head_report,
                    "-j",
                    "judgments.jsonl",
                    "--out",
                    "/github/file_commands/comparison.json",
                ],
            ),
        ]
        verdict = ""
        for round_number in range(rounds + 1):  # the first round warms the page cache and is not counted
            for row in rows:
                wall, cpu = time_row(row, image, space, env)
                if row.name == "action":
                    verdict = check_action(space, fake)
                if round_number:
                    row.walls.append(wall)
                    row.cpus.append(cpu)
            print(
                f"  round {round_number}: " + ", ".join(f"{r.name} {r.walls[-1]:.2f}s" for r in rows if r.walls),
                flush=True,
            )
    return rows, verdict


def table(rows: list[Row], verdict: str, image: str, rounds: int) -> str:
    by_name = {row.name: statistics.median(row.walls) for row in rows}
    cpu = {row.name: statistics.median(row.cpus) for row in rows}
    ratio = by_name["action"] / by_name["score"]
    met = "met" if ratio <= TARGET else "**not met**"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} with `python bench/verdict_bench.py` (image `{image}`, "
        f"{rounds} rounds after a warm-up; {os.cpu_count()} CPUs, {platform.machine()}, "
        f"load average at the end {load}).",
        "",
        "| program (one `docker run`, M: 10k queries x 1k ids) | median wall (s) | min-max (s) | wall / score "
        "| CPU in the container (s) | CPU / score |",
        "|:--|--:|--:|--:|--:|--:|",
    ]
    for row in rows:
        median = by_name[row.name]
        lines.append(
            f"| {row.name} | {median:.2f} | {min(row.walls):.2f}-{max(row.walls):.2f} | "
            f"{median / by_name['score']:.2f}x | {cpu[row.name]:.2f} | {cpu[row.name] / cpu['score']:.2f}x |"
        )
    lines += [
        "",
        f"**Target**: the whole action within {TARGET:g}x of `score` alone: **{ratio:.2f}x** wall, {met} "
        f"({cpu['action'] / cpu['score']:.2f}x in CPU time; verdict {verdict}; the comment published to the "
        "fake GitHub).",
    ]
    return "\n".join(lines)


def write_docs(path: Path, block: str) -> None:
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text:
        raise SystemExit(f"{path} has no {BEGIN} ... {END} block to fill")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    path.write_text(f"{head}{BEGIN}\n{block}\n{END}{tail}", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--image", default="retrieval-eval:dev", help="the built image (default: retrieval-eval:dev)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds after the warm-up (default: 5)")
    parser.add_argument("--work", type=Path, default=HERE / "generated", help="where workloads are written")
    parser.add_argument("--write-docs", type=Path, action="append", default=[], help="fill its verdict block")
    args = parser.parse_args(argv)
    rows, verdict = measure(args.image, args.rounds, args.work)
    block = table(rows, verdict, args.image, args.rounds)
    print(block)
    for path in args.write_docs:
        write_docs(path, block)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
