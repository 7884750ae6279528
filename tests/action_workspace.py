"""A workspace like the runner's, for driving the action: a real git repository with
a base commit (holding the base branch's report) and a head commit, an event
payload, and the runner's summary and output files.

Shared by the in-process integration tests and the container test.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "src" / "retrieval_eval" / "demo"
REPO = "octo/widgets"
PR_NUMBER = 7
TOKEN = "ghs_doNotLeakThisToken42"
EPOCH = "1767225600"  # 2026-01-01T00:00:00Z: reports are byte-stable across runs
GIT_IDENTITY = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false")


def git(cwd: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", *GIT_IDENTITY, *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60
    )
    return completed.stdout.strip()


def repack(repo: Path, offset_deltas: str = "true") -> None:
    """Every object into one pack with deltas computed afresh, each delta naming its base by
    offset or by SHA-1. pack-objects is driven directly, with its object list on stdin."""
    objects = subprocess.run(
        ["git", "rev-list", "--objects", "--all"], cwd=repo, input=b"", capture_output=True, timeout=60, check=True
    ).stdout
    offsets = ["--delta-base-offset"] if offset_deltas == "true" else []
    subprocess.run(
        ["git", "pack-objects", "-q", "--window=50", "--depth=50", *offsets, ".git/objects/pack/pack"],
        cwd=repo,
        input=objects,
        capture_output=True,
        timeout=120,
        check=True,
    )
    subprocess.run(["git", "prune-packed"], cwd=repo, input=b"", capture_output=True, timeout=60, check=True)


def demo_rows(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DEMO / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def worse_run() -> list[dict[str, Any]]:
    """The demo run with the first six queries' top ten pushed down the ranking."""
    rows = demo_rows("run.jsonl")
    for row in rows[:6]:
        row["ranking"] = row["ranking"][10:] + row["ranking"][:10]
    return rows


def rechunked_corpus(document: str, fingerprint: str = "paragraph/200") -> dict[str, Any]:
    """The demo corpus after a chunker change that moved the chunks of one document:
    new fingerprints, and new chunk ids (same text) for that document's chunks."""
    from retrieval_eval.core.identity import chunk_id

    corpus = json.loads((DEMO / "corpus.json").read_text(encoding="utf-8"))
    corpus["corpus_fingerprint"] = corpus["chunker_fingerprint"] = fingerprint
    for chunk in corpus["chunks"]:
        if chunk["doc_uri"] == document:
            chunk["chunk_id"] = chunk_id(
                chunk["doc_uri"], chunk["doc_revision"], chunk["ordinal"], chunk["text"], fingerprint
            )
    return corpus


def base_report(judgments: Path, run: Path) -> str:
    """The base branch's report, made by the same pipeline the action runs."""
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.formats.report import dump_report
    from retrieval_eval.pipeline.evaluate import run_pipeline
    from retrieval_eval.pipeline.request import EvaluationRequest

    request = EvaluationRequest(
        judgments_path=str(judgments),
        run_path=str(run),
        scoring=ScoreConfig(k=(5, 10)),
        generated_at="2025-12-31T00:00:00Z",
    )
    return dump_report(run_pipeline(request).report)


def report_zip(report: str, name: str = "retrieval-eval-report.json", **extra: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(name, report)
        for member, text in extra.items():
            archive.writestr(member, text)
    return buffer.getvalue()


@dataclass
class Workspace:
    """``root`` is GITHUB_WORKSPACE; ``runner`` holds the event and the runner's files."""

    root: Path
    runner: Path
    base_sha: str
    head_sha: str
    base_report: str
    event_name: str = "pull_request"
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def event_path(self) -> Path:
        return self.runner / "event.json"

    @property
    def summary_path(self) -> Path:
        return self.runner / "step_summary"

    @property
    def output_path(self) -> Path:
        return self.runner / "set_output"

    def write_event(self, name: str, payload: dict[str, Any]) -> None:
        self.event_name = name
        self.event_path.write_text(json.dumps(payload), encoding="utf-8")

    def pull_request_event(self) -> None:
        self.write_event(
            "pull_request",
            {
                "action": "synchronize",
                "number": PR_NUMBER,
                "pull_request": {
                    "number": PR_NUMBER,
                    "head": {"sha": self.head_sha, "ref": "feature"},
                    "base": {"sha": self.base_sha, "ref": "main"},
                },
                "repository": {"full_name": REPO, "default_branch": "main"},
            },
        )

    def env(self, api_url: str, **inputs: str) -> dict[str, str]:
        values = {
            "judgments": "judgments.jsonl",
            "run": "run.jsonl",
            "k": "5,10",
            "github-token": TOKEN,
            "api-url": api_url,
            **{name.replace("_", "-"): value for name, value in inputs.items()},
        }
        env = {f"INPUT_{name.upper()}": value for name, value in values.items()}
        env.update(self.runner_env())
        return env

    def runner_env(self) -> dict[str, str]:
        return {
            "GITHUB_WORKSPACE": str(self.root),
            "GITHUB_EVENT_NAME": self.event_name,
            "GITHUB_EVENT_PATH": str(self.event_path),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_SHA": self.head_sha,
            "GITHUB_STEP_SUMMARY": str(self.summary_path),
            "GITHUB_OUTPUT": str(self.output_path),
            "GITHUB_RUN_ID": "555",
            "SOURCE_DATE_EPOCH": EPOCH,
        }

    def outputs(self) -> dict[str, str]:
        return parse_outputs(self.output_path.read_text(encoding="utf-8"))

    def summary(self) -> str:
        return self.summary_path.read_text(encoding="utf-8") if self.summary_path.exists() else ""

    def reset_runner_files(self) -> None:
        for path in (self.summary_path, self.output_path):
            path.write_text("", encoding="utf-8")


def parse_outputs(text: str) -> dict[str, str]:
    """The GITHUB_OUTPUT file as the runner reads it: name=value lines and heredoc blocks."""
    outputs, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        block = re.fullmatch(r"([\w-]+)<<(\S+)", line)
        if block:
            name, delimiter = block.groups()
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        i += 1
    return outputs


def make_workspace(
    tmp: Path,
    *,
    history: str = "full",
    head_run: list[dict[str, Any]] | None = None,
    head_judgments: list[dict[str, Any]] | None = None,
    report_in_base: bool = True,
) -> Workspace:
    """history: "full" (base commit in the checkout), "shallow" (a depth-1 clone whose origin
    has the base commit), or "none" (a checkout with no history and no origin)."""
    origin = tmp / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    write_jsonl(origin / "judgments.jsonl", demo_rows("judgments.jsonl"))
    write_jsonl(origin / "run.jsonl", demo_rows("run.jsonl"))
    report = base_report(origin / "judgments.jsonl", origin / "run.jsonl")
    if report_in_base:
        (origin / ".retrieval-eval").mkdir()
        (origin / ".retrieval-eval" / "report.json").write_text(report, encoding="utf-8")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "base")
    base_sha = git(origin, "rev-parse", "HEAD")
    write_jsonl(origin / "run.jsonl", head_run if head_run is not None else demo_rows("run.jsonl"))
    if head_judgments is not None:
        write_jsonl(origin / "judgments.jsonl", head_judgments)
    (origin / "README.md").write_text("head\n", encoding="utf-8")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "head")
    head_sha = git(origin, "rev-parse", "HEAD")
    root = _checkout(tmp, origin, history)
    runner = tmp / "runner"
    runner.mkdir()
    workspace = Workspace(root, runner, base_sha, head_sha, report)
    workspace.reset_runner_files()
    workspace.pull_request_event()
    return workspace


def _checkout(tmp: Path, origin: Path, history: str) -> Path:
    if history == "full":
        return origin
    root = tmp / "workspace"
    if history == "shallow":
        subprocess.run(
            ["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(root)],
            check=True,
            capture_output=True,
            timeout=60,
        )
        return root
    shutil.copytree(origin, root, ignore=shutil.ignore_patterns(".git"))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "squashed checkout without history")
    return root
