"""The action end to end: the entry point driven with a runner-like environment
against a fake GitHub API on 127.0.0.1, in a workspace that is a real git repo."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from action_workspace import (
    PR_NUMBER,
    REPO,
    ROOT,
    TOKEN,
    Workspace,
    demo_rows,
    git,
    make_workspace,
    rechunked_corpus,
    repack,
    report_zip,
    worse_run,
    write_jsonl,
)
from fake_github import BOT, FakeGitHub
from retrieval_eval.action.main import main
from retrieval_eval.render import comment_marker

GATES = "recall@5:0.8\nrecall@5:-0.05\nndcg@10:0.7"
MARKER = comment_marker("default")


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(repo=REPO).serve() as server:
        yield server


class Run:
    """One run of the action: its exit code, what it printed, and how long it was told to sleep."""

    def __init__(self, workspace: Workspace, fake: FakeGitHub, **inputs: str) -> None:
        self.stdout = io.StringIO()
        self.slept: list[float] = []
        env = workspace.env(fake.url, **{"gates": GATES, **inputs})
        self.code = main(env, stdout=self.stdout, sleep=self.slept.append)
        self.log = self.stdout.getvalue()
        self.outputs = workspace.outputs()
        self.summary = workspace.summary()

    def lines(self, prefix: str) -> list[str]:
        return [line for line in self.log.splitlines() if line.startswith(prefix)]


def act(workspace: Workspace, fake: FakeGitHub, **inputs: str) -> Run:
    workspace.reset_runner_files()
    return Run(workspace, fake, **inputs)


def ours(fake: FakeGitHub, number: int = PR_NUMBER) -> list[dict[str, object]]:
    return [c for c in fake.comments.get(number, []) if c["user"] == BOT]


# -- the comment -------------------------------------------------------------------------


def test_first_run_creates_the_comment_and_publishes_everything(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    run = act(ws, fake)
    assert run.code == 0
    assert run.outputs["verdict"] == "PASS"
    assert run.outputs["comment-posted"] == "true"
    assert run.outputs["comment-url"].endswith(f"#issuecomment-{ours(fake)[0]['id']}")
    assert run.outputs["report-path"] == "retrieval-eval-report.json"
    assert run.outputs["breached-gates"] == ""
    report = json.loads((ws.root / "retrieval-eval-report.json").read_text())
    assert report["verdict"]["status"] == "PASS" and report["generated_at"] == "2026-01-01T00:00:00Z"
    body = (ws.root / run.outputs["comment-path"]).read_text()
    assert MARKER in body and ours(fake)[0]["body"] == body
    assert (ws.root / run.outputs["summary-path"]).read_text() == run.summary
    assert "Baseline: .retrieval-eval/report.json at commit" in run.summary
    assert len(fake.calls("POST", "/comments")) == 1 and not fake.calls("PATCH")


def test_second_run_updates_the_same_comment(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    act(ws, fake)
    write_jsonl(ws.root / "run.jsonl", worse_run())
    second = act(ws, fake)
    assert second.code == 1 and second.outputs["verdict"] == "FAIL"
    assert len(ours(fake)) == 1 and len(fake.comments[PR_NUMBER]) == 1
    assert len(fake.calls("POST", "/comments")) == 1 and len(fake.calls("PATCH", "/comments")) == 1
    assert ours(fake)[0]["body"] == (ws.root / second.outputs["comment-path"]).read_text()


def test_two_comment_ids_keep_two_comments(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    for _ in range(2):
        act(ws, fake, comment_id="dense", report="dense.json")
        act(ws, fake, comment_id="hybrid", report="hybrid.json")
    bodies = [str(c["body"]) for c in ours(fake)]
    assert len(bodies) == 2
    assert comment_marker("dense") in bodies[0] and comment_marker("hybrid") in bodies[1]
    assert len(fake.calls("POST", "/comments")) == 2 and len(fake.calls("PATCH", "/comments")) == 2


def test_finds_its_comment_among_more_than_a_hundred(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    for n in range(130):
        fake.add_comment(PR_NUMBER, f"review remark {n}")
    fake.add_comment(PR_NUMBER, f"{MARKER}\nold results", BOT)
    fake.add_comment(PR_NUMBER, f"quoting you: {MARKER}")  # a person quoting the marker is not us
    for n in range(20):
        fake.add_comment(PR_NUMBER, f"later remark {n}")
    run = act(ws, fake)
    assert run.outputs["comment-posted"] == "true"
    assert not fake.calls("POST", "/comments")
    assert len(fake.calls("GET", f"/issues/{PR_NUMBER}/comments")) == 2
    assert len(fake.calls("PATCH")) == 1 and "old results" not in str(ours(fake)[0]["body"])
    assert fake.comments[PR_NUMBER][131]["body"] == f"quoting you: {MARKER}"


def test_matches_by_login_when_the_token_can_tell_it(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    fake.user = {"login": "eval-app[bot]", "type": "Bot"}
    fake.acting_as = dict(fake.user)
    fake.add_comment(PR_NUMBER, f"{MARKER}\nanother bot's", BOT)
    act(ws, fake)
    assert len(fake.calls("POST", "/comments")) == 1 and not fake.calls("PATCH")


@pytest.mark.parametrize("worse", [False, True])
def test_forbidden_comment_changes_nothing_else(tmp_path: Path, fake: FakeGitHub, worse: bool) -> None:
    ws = make_workspace(tmp_path, head_run=worse_run() if worse else None)
    fake.fail("POST", "/comments", 403)
    run = act(ws, fake)
    assert run.code == (1 if worse else 0)
    assert run.outputs["verdict"] == ("FAIL" if worse else "PASS")
    assert run.outputs["comment-posted"] == "false" and run.outputs["comment-url"] == ""
    assert MARKER in (ws.root / run.outputs["comment-path"]).read_text()
    assert run.summary and (ws.root / "retrieval-eval-report.json").exists()
    notices = run.lines("::notice")
    assert len(notices) == 1 and "read-only token" in notices[0]
    assert len(fake.calls("POST", "/comments")) == 1  # a refusal is not retried


def test_an_answer_that_is_not_a_comment_changes_nothing_else(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    fake.fail("POST", "/comments", 201)  # a success status whose body is no comment (a proxy's page, say)
    run = act(ws, fake)
    assert run.code == 0 and run.outputs["verdict"] == "PASS"
    assert run.outputs["comment-posted"] == "false"
    notices = run.lines("::notice")
    assert len(notices) == 1 and "not posted" in notices[0]


def test_server_error_then_success(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    fake.fail("POST", "/comments", 500)
    fake.fail("GET", "/comments", 503)
    run = act(ws, fake)
    assert run.outputs["comment-posted"] == "true"
    assert len(fake.calls("POST", "/comments")) == 2 and len(ours(fake)) == 1
    assert run.slept == [1.0, 1.0]


@pytest.mark.parametrize("how", ["incomplete", "status-line"])
def test_a_broken_answer_does_not_fail_the_job(tmp_path: Path, fake: FakeGitHub, how: str) -> None:
    ws = make_workspace(tmp_path)
    fake.break_answer("GET", f"/issues/{PR_NUMBER}/comments", how, times=10)
    run = act(ws, fake)
    assert run.code == 0 and run.outputs["verdict"] == "PASS"
    assert run.outputs["comment-posted"] == "false"
    notices = run.lines("::notice")
    assert len(notices) == 1 and "not posted (GET" in notices[0] and "no usable answer" in notices[0]
    assert MARKER in (ws.root / run.outputs["comment-path"]).read_text()
    assert len(fake.calls("GET", "/comments")) == 4 and run.slept == [1.0, 2.0, 4.0]


@pytest.mark.parametrize("failure", ["502 after creating it", "answer cut short"])
def test_a_create_that_succeeded_despite_its_answer_is_not_repeated(
    tmp_path: Path, fake: FakeGitHub, failure: str
) -> None:
    ws = make_workspace(tmp_path)
    if failure == "answer cut short":
        fake.break_answer("POST", "/comments", "incomplete")
    else:
        fake.fail("POST", "/comments", 502, applied=True)
    run = act(ws, fake)
    assert run.code == 0 and run.outputs["comment-posted"] == "true"
    assert len(fake.calls("POST", "/comments")) == 1 and not fake.calls("PATCH")
    assert len(ours(fake)) == 1 and len(fake.comments[PR_NUMBER]) == 1
    assert ours(fake)[0]["body"] == (ws.root / run.outputs["comment-path"]).read_text()
    assert run.outputs["comment-url"].endswith(f"#issuecomment-{ours(fake)[0]['id']}")
    assert run.slept == [1.0]


def test_comment_off_writes_the_file_only(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    run = act(ws, fake, comment="off")
    assert run.outputs["comment-posted"] == "false"
    assert not fake.calls(pattern="/comments")
    assert MARKER in (ws.root / run.outputs["comment-path"]).read_text()


# -- gates, annotations, exit codes ---------------------------------------------------------


def test_breached_gates_fail_the_job_after_publishing(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, head_run=worse_run())
    run = act(ws, fake)
    assert run.code == 1
    breached = run.outputs["breached-gates"].splitlines()
    assert "recall@5:-0.05" in breached and "recall@5:0.8" in breached
    errors = run.lines("::error")
    assert len(errors) == len(breached) and all("title=retrieval-eval%3A gate failed::" in e for e in errors)
    assert ours(fake) and run.summary


@pytest.mark.parametrize("gates", ["", "   ", "\n"])
def test_no_gates_is_warned_of_beside_a_pass_nothing_could_fail(tmp_path: Path, fake: FakeGitHub, gates: str) -> None:
    # `gates: ${{ vars.GATES }}` with the variable unset is an empty input: no gate, and a PASS
    # over a significant regression. The input still means "not set"; the run says so.
    ws = make_workspace(tmp_path, head_run=worse_run())
    run = act(ws, fake, gates=gates)
    assert run.code == 0 and run.outputs["verdict"] == "PASS"
    (warning,) = [line for line in run.lines("::warning") if "no gates" in line]
    assert "no gate is set, so this verdict cannot FAIL whatever the numbers" in warning


def test_a_template_that_breaks_still_gives_the_breached_gates(tmp_path: Path, fake: FakeGitHub) -> None:
    # The comment's own template breaks: the run cannot show its answer (verdict ERROR, exit 2),
    # but the answer exists, and a later step reading breached-gates must not see none.
    ws = make_workspace(tmp_path, head_run=worse_run())
    (ws.root / "templates").mkdir()
    (ws.root / "templates" / "comment.md.j2").write_text(
        '{% extends "builtin/comment.md.j2" %}{% block footer %}{{ verdict.stauts.upper() }}{% endblock %}'
    )
    run = act(ws, fake, template_dir="templates")
    assert run.code == 2 and run.outputs["verdict"] == "ERROR"
    assert "recall@5:-0.05" in run.outputs["breached-gates"].splitlines()
    assert "the answer (FAIL) is not shown here" in run.summary


def test_annotations_are_capped_at_ten(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, head_run=worse_run())
    gates = "\n".join(f"recall@{k}:0.99" for k in range(1, 13))
    run = act(ws, fake, gates=gates, k=",".join(str(k) for k in range(1, 13)))
    assert run.code == 1
    assert len(run.outputs["breached-gates"].splitlines()) == 12
    assert len(run.lines("::error")) == 10
    assert "2 more error annotation(s) left out" in run.log


def test_the_token_is_masked_and_written_nowhere(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, head_run=worse_run())
    run = act(ws, fake)
    assert run.log.splitlines()[0] == f"::add-mask::{TOKEN}"
    assert TOKEN not in "\n".join(run.log.splitlines()[1:])
    for path in [*ws.root.rglob("*"), *ws.runner.rglob("*")]:
        if path.is_file() and ".git" not in path.parts:
            assert TOKEN.encode() not in path.read_bytes(), path
    assert all(r.authorization == f"Bearer {TOKEN}" for r in fake.calls(pattern="^/repos/"))


def test_unreadable_inputs_exit_2_after_explaining(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    (ws.root / "judgments.jsonl").write_text('{"query_id": "q1", "doc_uri": "d", "relevance": "high"}\n')
    run = act(ws, fake)
    assert run.code == 2
    assert run.outputs["verdict"] == "ERROR"
    assert "could not answer" in run.summary and "judgments:1" in run.summary
    assert len(run.lines("::error")) == 1
    # The sticky comment says so too, so an earlier PASS is not left standing.
    assert "could not answer" in str(ours(fake)[0]["body"])


def test_a_missing_input_file_is_looked_for_in_the_workspace(tmp_path: Path, fake: FakeGitHub) -> None:
    # The action reads paths from GITHUB_WORKSPACE (this test's current directory is elsewhere),
    # but the hint said they were "resolved from the current directory".
    ws = make_workspace(tmp_path)
    assert Path.cwd() != ws.root
    run = act(ws, fake, judgments="evals/judgement.jsonl")
    assert run.code == 2 and run.outputs["verdict"] == "ERROR"
    assert f"cannot read {ws.root / 'evals' / 'judgement.jsonl'}" in run.summary
    hint = "Try: check the path under with: (or in the config file); a relative path is read from the workspace"
    assert hint in run.summary and hint in str(ours(fake)[0]["body"])
    assert "current directory" not in run.summary


def test_a_report_that_cannot_be_written_exits_2_after_explaining(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    (ws.root / "out").mkdir()  # the report input names a directory
    run = act(ws, fake, report="out")
    assert run.code == 2
    assert run.outputs["verdict"] == "ERROR" and run.outputs["report-path"] == ""
    assert "could not answer" in run.summary and "is a directory" in run.summary
    assert f"cannot write {ws.root / 'out'}" in run.summary and "Traceback" not in run.log
    assert "Try: set the report input to a file path in the workspace" in run.summary
    assert run.outputs["summary-path"] == "out.summary.md"
    assert (ws.root / "out.summary.md").read_text() == run.summary
    errors = run.lines("::error")
    assert len(errors) == 1 and "cannot write" in errors[0]
    assert "could not answer" in str(ours(fake)[0]["body"])


def test_no_file_can_be_written_still_exits_2_with_the_summary(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    (ws.root / "blocked").write_text("a file where a directory belongs\n")
    run = act(ws, fake, report="blocked/report.json")
    assert run.code == 2 and run.outputs["verdict"] == "ERROR"
    assert "cannot write" in run.summary and "blocked" in run.summary
    assert run.outputs["report-path"] == run.outputs["summary-path"] == run.outputs["comment-path"] == ""
    assert run.outputs["comment-posted"] == "true"


def test_bad_settings_are_all_reported(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    env = ws.env(fake.url, k="zero", comment="loud")
    del env["INPUT_JUDGMENTS"], env["INPUT_RUN"]
    stdout = io.StringIO()
    assert main(env, stdout=stdout) == 2
    summary = ws.summary()
    for name in ("missing required inputs: judgments, run", "k:", "comment:"):
        assert name in summary
    assert ws.outputs()["verdict"] == "ERROR"
    assert len([line for line in stdout.getvalue().splitlines() if line.startswith("::error")]) == 3
    # The pull request hears of it too, so an earlier PASS does not stand: the error comment.
    body = str(ours(fake)[0]["body"])
    assert "could not answer" in body and "missing required inputs: judgments, run" in body
    env["INPUT_COMMENT"] = "off"
    fake.comments.clear()
    assert main(env, stdout=io.StringIO()) == 2 and not ours(fake)


def test_the_log_says_where_the_error_comment_went(tmp_path: Path, fake: FakeGitHub) -> None:
    # Settings that cannot be read still reach the pull request as a comment; the log said so
    # for an unreadable file but not for a bad input, as if nothing had been posted.
    ws = make_workspace(tmp_path)
    first = act(ws, fake, k="5", gates="recall@3:0.8")
    second = act(ws, fake, k="5", gates="recall@3:0.8")
    assert first.code == second.code == 2 and first.outputs["verdict"] == "ERROR"
    (comment,) = ours(fake)
    url = str(comment["html_url"])
    assert first.outputs["comment-url"] == second.outputs["comment-url"] == url
    assert f"retrieval-eval: comment created: {url}" in first.lines("retrieval-eval:")
    assert f"retrieval-eval: comment updated: {url}" in second.lines("retrieval-eval:")


def test_config_file_supplies_inputs(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, head_run=worse_run())
    (ws.root / ".retrieval-eval.yml").write_text(
        "judgments: judgments.jsonl\nrun: run.jsonl\nk: [5, 10]\ngates:\n  - recall@5:0.99\n"
        "fail-on-indeterminate: false\n"
    )
    env = ws.env(fake.url)
    del env["INPUT_JUDGMENTS"], env["INPUT_RUN"], env["INPUT_K"]
    assert main(env, stdout=io.StringIO()) == 1
    assert ws.outputs()["breached-gates"] == "recall@5:0.99"


# -- baselines ----------------------------------------------------------------------------


def tree_state(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time."""
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


def test_baseline_from_the_checkouts_git_objects(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    repack(ws.root)  # the base report now sits in a pack, stored as a delta or not
    run = act(ws, fake)
    assert run.code == 0
    assert f"at commit `{ws.base_sha[:12]}`, read from the checkout's git objects" in run.summary
    assert not fake.calls(pattern="/contents/") and not fake.calls(pattern="/actions/")


def test_a_shallow_checkout_reads_the_base_report_through_the_api(tmp_path: Path, fake: FakeGitHub) -> None:
    # What actions/checkout leaves by default: the checked-out commit, without its parents.
    ws = make_workspace(tmp_path, history="shallow", head_run=worse_run())
    assert git(ws.root, "rev-list", "--count", "HEAD") == "1"
    fake.contents[(ws.base_sha, ".retrieval-eval/report.json")] = ws.base_report.encode()
    before = tree_state(ws.root / ".git")
    run = act(ws, fake)
    assert f"at `{ws.base_sha[:12]}`, read through the Contents API" in run.summary
    assert "recall@5:-0.05" in run.outputs["breached-gates"]
    assert fake.calls("GET", "/contents/.retrieval-eval/report.json")[0].query == {"ref": ws.base_sha}
    assert not fake.calls(pattern="/actions/")
    assert tree_state(ws.root / ".git") == before  # the checkout is read, never written


def test_a_shallow_checkout_without_a_report_anywhere_says_why(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="shallow")
    run = act(ws, fake)
    assert run.outputs["verdict"] == "INDETERMINATE"
    assert "No baseline: no baseline report was found for main" in run.summary
    assert f"commit `{ws.base_sha[:12]}` is not in the checkout" in run.summary


def test_baseline_from_the_contents_api(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="none", head_run=worse_run())
    fake.contents[(ws.base_sha, ".retrieval-eval/report.json")] = ws.base_report.encode()
    run = act(ws, fake)
    assert "read through the Contents API" in run.summary
    assert "recall@5:-0.05" in run.outputs["breached-gates"]
    assert fake.calls("GET", "/contents/.retrieval-eval/report.json")[0].query == {"ref": ws.base_sha}


def test_baseline_from_an_artifact(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="none", head_run=worse_run())
    bad = report_zip('{"spec_version": "1", "metrics": {}}')
    fake.add_run(100, branch="main")
    fake.add_artifact(100, "retrieval-eval-report", report_zip(ws.base_report), created_at="2026-01-01T00:00:00Z")
    fake.add_run(101, branch="main", conclusion="failure")
    fake.add_artifact(101, "retrieval-eval-report", bad, created_at="2026-01-02T00:00:00Z")
    fake.add_run(102, branch="main", fork=True, event="pull_request")  # a fork's "main" is not ours
    fake.add_artifact(102, "retrieval-eval-report", bad, created_at="2026-01-03T00:00:00Z")
    fake.add_run(103, branch="main")
    fake.add_artifact(103, "retrieval-eval-report", bad, created_at="2026-01-04T00:00:00Z", expired=True)
    run = act(ws, fake)
    assert "artifact retrieval-eval-report of run 100 on main" in run.summary
    assert "recall@5:-0.05" in run.outputs["breached-gates"]
    blob = fake.calls("GET", "/storage/blob/")
    assert len(blob) == 1 and blob[0].authorization is None


def test_no_baseline_makes_delta_gates_indeterminate(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="none")
    run = act(ws, fake)
    assert run.code == 1 and run.outputs["verdict"] == "INDETERMINATE"
    assert "No baseline: no baseline report was found for main" in run.summary
    assert "upload it with actions/upload-artifact" in run.summary
    assert any("gate INDETERMINATE" in line for line in run.lines("::warning"))
    relaxed = act(ws, fake, fail_on_indeterminate="false")
    assert relaxed.code == 0 and relaxed.outputs["verdict"] == "INDETERMINATE"


def test_a_delta_gate_without_a_baseline_gives_advice_a_workflow_can_follow(tmp_path: Path, fake: FakeGitHub) -> None:
    # The gate's reason (annotation, gates table, comment) told a workflow to "pass --baseline
    # BASE.json", a flag of the command line; the action's advice is the search it made.
    ws = make_workspace(tmp_path, history="none")
    run = act(ws, fake, gates="recall@5:-0.05")
    (warning,) = [line for line in run.lines("::warning") if "gate INDETERMINATE" in line]
    comment = ours(fake)[0]["body"]
    for text in (warning, run.summary, comment):
        assert "--baseline" not in text
    assert warning.endswith(
        'recall@5:-0.05: there is no baseline report to compare with; none was found for main; the note "No '
        'baseline" says where it was looked for and how to publish one'
    )
    assert "No baseline: no baseline report was found for main" in comment
    explicit = act(ws, fake, gates="recall@5:-0.05", baseline="none")
    assert explicit.outputs["verdict"] == "INDETERMINATE"
    assert "the baseline input is 'none'; set it to auto or to a report to compare with" in explicit.log
    assert "--baseline" not in explicit.log + explicit.summary


def test_a_judged_drop_advises_the_unjudged_input(tmp_path: Path, fake: FakeGitHub) -> None:
    # The reason told a workflow to "score with --unjudged bounded", a flag it has no way to pass;
    # the action's own input is named instead, and it is one action.yml declares.
    import yaml

    ws = make_workspace(tmp_path, head_run=worse_run())
    run = act(ws, fake)
    comment = str(ours(fake)[0]["body"])
    reason = "label them first \\(retrieval-eval holes\\) or set the unjudged input to bounded"
    assert "judged@5 fell from" in run.summary
    assert reason in run.summary and reason in comment
    assert "--unjudged" not in run.summary + comment
    assert "unjudged" in yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    bounded = act(ws, fake, unjudged="bounded")
    assert "the gates read the bounds over their labelings" in bounded.summary


def test_artifacts_need_actions_read(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="none")
    fake.fail("GET", "/actions/artifacts", 403)
    run = act(ws, fake)
    assert run.outputs["verdict"] == "INDETERMINATE"
    assert "actions: read" in run.summary


def test_a_refused_token_is_not_reported_as_no_baseline_published(tmp_path: Path, fake: FakeGitHub) -> None:
    # Every lookup answered 401: the report may well exist, so "publish one" would send the user
    # after the wrong fault. The summary says it could not be looked up, and why that may be.
    ws = make_workspace(tmp_path, history="none")
    fake.fail("GET", "/actions/artifacts", 401)
    fake.fail("GET", "/contents/", 401)
    run = act(ws, fake)
    assert run.outputs["verdict"] == "INDETERMINATE"
    assert "could not be looked up, so whether one was published is not known" in run.summary
    assert "is the github-token input a valid token?" in run.summary
    assert "To publish one" not in run.summary


def test_an_explicit_artifact_the_api_refused_is_not_said_missing(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="none")
    fake.fail("GET", "/actions/artifacts", 401)
    run = act(ws, fake, baseline="artifact:retrieval-eval-report")
    assert run.code == 2
    assert "artifact:retrieval-eval-report could not be looked up" in run.summary
    assert "is the github-token input a valid token?" in run.summary


def test_explicit_baselines(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, head_run=worse_run())
    (ws.root / "base.json").write_text(ws.base_report)
    by_path = act(ws, fake, baseline="base.json")
    assert "Baseline: base.json" in by_path.summary and by_path.code == 1
    by_ref = act(ws, fake, baseline=f"git:{ws.base_sha}:.retrieval-eval/report.json")
    assert f"at `{ws.base_sha}`, read from the checkout's git objects" in by_ref.summary
    git(ws.root, "update-ref", "refs/remotes/origin/release", ws.base_sha)
    by_branch = act(ws, fake, baseline="git:origin/release:.retrieval-eval/report.json")
    assert "at origin/release, read from the checkout's git objects" in by_branch.summary
    assert not fake.calls(pattern="/contents/")
    missing = act(ws, fake, baseline="nowhere.json")
    assert missing.code == 2 and "nowhere.json" in missing.summary
    none = act(ws, fake, baseline="none")
    assert "recall@5:-0.05" not in none.outputs["breached-gates"]  # a delta gate cannot tell without a base
    assert "the baseline input is 'none'" in none.summary


def test_an_explicit_git_ref_the_checkout_lacks_is_read_through_the_api(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="shallow", head_run=worse_run())
    spec = "git:origin/release:.retrieval-eval/report.json"
    missing = act(ws, fake, baseline=spec)
    assert missing.code == 2
    assert f"{spec} was not found (origin/release is not in the checkout)" in missing.summary
    fake.contents[("release", ".retrieval-eval/report.json")] = ws.base_report.encode()
    found = act(ws, fake, baseline=spec)
    assert found.code == 1 and "at release, read through the Contents API" in found.summary
    assert [r.query for r in fake.calls("GET", "/contents/")] == [{"ref": "release"}] * 2


def test_judgments_changed_in_the_pull_request(tmp_path: Path, fake: FakeGitHub) -> None:
    judgments = demo_rows("judgments.jsonl")
    judgments[0]["relevance"] = 1  # a relabel: the yardstick moved, not the retriever
    ws = make_workspace(tmp_path, head_judgments=judgments)
    run = act(ws, fake)
    warnings = run.lines("::warning")
    assert any("baseline rescored::the judgments changed" in line for line in warnings)
    report = json.loads((ws.root / "retrieval-eval-report.json").read_text())
    assert report["inputs"]["judgments_sha256"] != json.loads(ws.base_report)["inputs"]["judgments_sha256"]


def test_push_sets_delta_gates_aside(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    ws.write_event("push", {"ref": "refs/heads/main", "repository": {"default_branch": "main"}})
    run = act(ws, fake)
    assert run.code == 0 and run.outputs["verdict"] == "PASS"
    assert "Delta gates set aside" in run.summary and "`recall@5:-0.05`" in run.summary
    assert "to be committed as .retrieval-eval/report.json" in run.summary
    assert not fake.calls(pattern="/comments")


@pytest.mark.parametrize(
    "pull_request",
    [{"number": "7"}, [], {"number": 7, "base": {"sha": None, "ref": 3}}],
    ids=["no-base", "not-an-object", "base-of-wrong-types"],
)
def test_a_pull_request_payload_without_its_base_commit_keeps_the_delta_gates(
    tmp_path: Path, fake: FakeGitHub, pull_request: object
) -> None:
    # A pull_request event whose payload names no base commit was taken for a push: its delta
    # gate was set aside and the verdict passed a run that is worse than the base.
    ws = make_workspace(tmp_path)
    write_jsonl(ws.root / "run.jsonl", worse_run())
    ws.write_event("pull_request", {"pull_request": pull_request, "repository": {"default_branch": "main"}})
    run = act(ws, fake, gates="recall@5:-0.05")
    assert run.code == 1 and run.outputs["verdict"] == "INDETERMINATE"
    assert "Delta gates set aside" not in run.summary
    assert "event's payload names no base commit \\(pull\\_request.base.sha" in run.summary  # Markdown-escaped
    assert 'the event names no base commit to look it up at (see the note "No baseline")' in run.log


def merge_group_event(ws: Workspace, base_sha: object) -> None:
    """A merge queue's group on main, as GitHub sends it (the payload of a merge_group event)."""
    group = {
        "head_sha": ws.head_sha,
        "head_ref": "refs/heads/gh-readonly-queue/main/pr-7-x",
        "base_ref": "refs/heads/main",
    }
    ws.write_event(
        "merge_group", {"merge_group": {**group, "base_sha": base_sha}, "repository": {"default_branch": "main"}}
    )


def test_a_merge_queue_group_is_gated_against_the_branch_it_lands_on(tmp_path: Path, fake: FakeGitHub) -> None:
    # A merge_group event was taken for a push: its delta gates were set aside, so a group whose
    # pull requests each stayed within a gate, but not together, landed past it.
    ws = make_workspace(tmp_path)
    write_jsonl(ws.root / "run.jsonl", worse_run())
    merge_group_event(ws, ws.base_sha)
    run = act(ws, fake, gates="recall@5:-0.05")
    assert run.code == 1 and run.outputs["verdict"] == "FAIL"
    assert "Delta gates set aside" not in run.summary
    assert not fake.calls(pattern="/comments")  # a group has no pull request to comment on
    # The same group with the head equal to the base passes its gate.
    write_jsonl(ws.root / "run.jsonl", demo_rows("run.jsonl"))
    ws.reset_runner_files()
    merge_group_event(ws, ws.base_sha)
    run = act(ws, fake, gates="recall@5:-0.05")
    assert run.code == 0 and run.outputs["verdict"] == "PASS"


@pytest.mark.parametrize(
    ("base_sha", "says"),
    [
        (None, "event's payload names no base commit \\(merge\\_group.base\\_sha"),  # Markdown-escaped
        (7, "event's payload names no base commit \\(merge\\_group.base\\_sha"),
        ("", "event's payload names no base commit \\(merge\\_group.base\\_sha"),
        ("../../.git/config", "no baseline report was found for main"),  # not a commit: looked up, not found
        ("0" * 40, "no baseline report was found for main"),  # a commit nobody has
    ],
    ids=["absent", "a-number", "empty", "a-path", "unknown-commit"],
)
def test_a_merge_group_without_a_readable_base_keeps_the_delta_gates(
    tmp_path: Path, fake: FakeGitHub, base_sha: object, says: str
) -> None:
    ws = make_workspace(tmp_path)
    write_jsonl(ws.root / "run.jsonl", worse_run())
    merge_group_event(ws, base_sha)
    run = act(ws, fake, gates="recall@5:-0.05")
    assert run.code == 1 and run.outputs["verdict"] == "INDETERMINATE"
    assert "Delta gates set aside" not in run.summary
    assert says in run.summary


def test_comment_always_finds_the_pull_request_of_a_push(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    ws.write_event("push", {"ref": "refs/heads/feature", "repository": {"default_branch": "main"}})
    fake.add_pull(12, ws.head_sha)
    run = act(ws, fake, comment="always")
    assert run.outputs["comment-posted"] == "true" and ours(fake, 12)


# -- drift -----------------------------------------------------------------------------


def test_drift_after_a_chunker_change(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    (ws.root / "corpus.json").write_text(json.dumps(rechunked_corpus("help://billing/refunds")))
    run = act(ws, fake, corpus="corpus.json")
    ratio = float(run.outputs["drift-invalid-ratio"])
    assert 0 < ratio < 1 and run.code == 0  # without max-drift, drift only warns
    warnings = [line for line in run.lines("::warning") if "label drift" in line]
    assert len(warnings) == 1
    assert "labeled against corpus paragraph/400, the corpus is now paragraph/200" in warnings[0]
    assert "retrieval-eval drift -j judgments.jsonl -c corpus.json --fix" in warnings[0]
    assert "```sh\nretrieval-eval drift -j judgments.jsonl -c corpus.json --fix\n```" in run.summary
    assert "Label drift" in run.summary and "Label drift" in str(ours(fake)[0]["body"])
    report = json.loads((ws.root / "retrieval-eval-report.json").read_text())
    assert report["judgments"]["drift"]["invalid_ratio"] == ratio


def test_max_drift_turns_decay_into_fail(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    (ws.root / "corpus.json").write_text(json.dumps(rechunked_corpus("help://billing/refunds")))
    run = act(ws, fake, corpus="corpus.json", max_drift="0.05")
    assert run.code == 1 and run.outputs["verdict"] == "FAIL"
    assert run.outputs["breached-gates"] == "max-drift:0.05"
    assert any("max-drift:0.05" in line for line in run.lines("::error"))
    tolerant = act(ws, fake, corpus="corpus.json", max_drift="0.5")
    assert tolerant.code == 0 and tolerant.outputs["verdict"] == "PASS"


def test_unchanged_corpus_says_nothing_about_drift(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    shutil.copy(ROOT / "src" / "retrieval_eval" / "demo" / "corpus.json", ws.root / "corpus.json")
    run = act(ws, fake, corpus="corpus.json")
    assert run.outputs["drift-invalid-ratio"] == "0"
    assert not [line for line in run.log.splitlines() if "label drift" in line]
    assert "--fix" not in run.summary


# -- post-comment (the fork recipe) -------------------------------------------------------


def fork_run_event(ws: Workspace, *, pull_requests: list[dict[str, object]] | None = None) -> None:
    ws.write_event(
        "workflow_run",
        {
            "action": "completed",
            "workflow_run": {
                "id": 900,
                "event": "pull_request",
                "conclusion": "failure",
                "head_sha": ws.head_sha,
                "head_branch": "main",
                "head_repository": {"owner": {"login": "contributor"}},
                "pull_requests": pull_requests or [],
            },
            "repository": {"full_name": REPO, "default_branch": "main"},
        },
    )


def test_post_comment_from_the_triggering_runs_artifact(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, head_run=worse_run())
    fork = act(ws, fake, comment="off")  # the fork's run: read-only, so it only writes files
    body = (ws.root / fork.outputs["comment-path"]).read_text()
    report = (ws.root / "retrieval-eval-report.json").read_text()
    for name in ("retrieval-eval-report.json", "retrieval-eval-report.comment.md", "retrieval-eval-report.summary.md"):
        (ws.root / name).unlink()
    fake.add_run(900, branch="main", event="pull_request", fork=True, conclusion="failure")
    fake.add_artifact(
        900,
        "retrieval-eval-pr",
        report_zip(report, **{"retrieval-eval-report.comment.md": body}),
        created_at="2026-01-05T00:00:00Z",
    )
    fake.add_pull(3, "0" * 40, head_label="contributor:other")
    fake.add_pull(8, ws.head_sha, head_label="contributor:main")
    fork_run_event(ws)
    run = act(ws, fake, mode="post-comment")
    assert run.code == 0
    assert run.outputs["comment-posted"] == "true" and run.outputs["verdict"] == "FAIL"
    assert ours(fake, 8)[0]["body"] == body and not ours(fake, 3)
    assert fake.calls("GET", "/pulls")[0].query["head"] == "contributor:main"
    second = act(ws, fake, mode="post-comment")
    assert second.outputs["comment-posted"] == "true" and len(ours(fake, 8)) == 1


def test_post_comment_from_a_downloaded_file(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    act(ws, fake, comment="off")
    fork_run_event(ws, pull_requests=[{"number": 5}])
    run = act(ws, fake, mode="post-comment")
    assert run.outputs["comment-posted"] == "true" and ours(fake, 5)
    assert not fake.calls(pattern="/actions/")


def test_post_comment_refuses_a_comment_for_another_id(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    act(ws, fake, comment="off")
    fork_run_event(ws, pull_requests=[{"number": 5}])
    run = act(ws, fake, mode="post-comment", comment_id="other")
    assert run.code == 2 and "same comment-id" in run.summary
    assert not fake.calls("POST")


def test_post_comment_needs_a_workflow_run_event(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    run = act(ws, fake, mode="post-comment")
    assert run.code == 2 and "workflow_run" in run.summary


# -- size limits ---------------------------------------------------------------------------


def test_what_the_action_adds_to_the_comment_counts_toward_its_size_limit(tmp_path: Path, fake: FakeGitHub) -> None:
    from types import SimpleNamespace

    from from_json import render
    from retrieval_eval.action.baseline import Baseline
    from retrieval_eval.action.flow import Outcome, render_outcome
    from retrieval_eval.action.settings import Runner, parse_settings
    from retrieval_eval.formats.report import checked_report
    from retrieval_eval.render import COMMENT_LIMIT

    ws = make_workspace(tmp_path, history="none")
    act(ws, fake, comment="off")
    report = json.loads((ws.root / "retrieval-eval-report.json").read_text())

    def with_reasons(n: int) -> dict[str, object]:
        return {**report, "verdict": {**report["verdict"], "reasons": [f"{'x' * 490} {i}" for i in range(n)]}}

    # The most reasons whose comment fits by itself: nothing left out, a few hundred characters to spare.
    sizes = {n: len(render("comment", report=with_reasons(n))) for n in range(100, 140)}
    n = max(
        (
            n
            for n in sizes
            if sizes[n] > COMMENT_LIMIT - 1000 and "Left out" not in render("comment", report=with_reasons(n))
        ),
        default=None,
    )
    assert n is not None
    settings = parse_settings({"INPUT_JUDGMENTS": "j", "INPUT_RUN": "r"}, runner=Runner(workspace=ws.root))
    outcome = Outcome(
        SimpleNamespace(typed_report=checked_report(with_reasons(n), "report"), comparison=None, queue=(), queued=0),  # type: ignore[arg-type]
        Baseline(None, reason="no baseline report was found for main; " + "publish one " * 150),
        (),
    )
    comment = render_outcome(settings, outcome).comment
    assert len(comment) <= COMMENT_LIMIT
    assert "No baseline: no baseline report was found for main" in comment
    assert "reasons shortened to the first 10" in comment


def test_the_action_writes_the_label_queue_beside_the_report(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    run = act(ws, fake)
    count = int(run.outputs["label-queue-count"])
    assert count > 0  # the demo run returns documents nobody labeled
    assert run.outputs["label-queue-path"] == "retrieval-eval-report.queue.jsonl"
    lines = (ws.root / run.outputs["label-queue-path"]).read_text().splitlines()
    assert len(lines) == count
    first = json.loads(lines[0])
    assert "relevance" not in first and first["labeled_by"] == "todo:human:<your name>"
    assert "Label these first" in run.summary and "retrieval-eval holes" in run.summary


def _group_payload(ws: Workspace, **fields: object) -> dict[str, object]:
    group = {
        "head_sha": ws.head_sha,
        "head_ref": "refs/heads/gh-readonly-queue/main/pr-7-x",
        "base_ref": "refs/heads/main",
    }
    return {"merge_group": {**group, "base_sha": ws.base_sha, **fields}, "repository": {"default_branch": "main"}}


HOSTILE_REF = "refs/heads/<img src=x onerror=alert(1)>\n## Injected [click](https://evil.example) `x` | y"


@pytest.mark.parametrize(
    ("event", "payload", "verdicts"),
    [
        # base_ref not under refs/heads/, or holding Markdown, HTML and a line break; with an
        # unknown base commit the ref is all the summary has to name the branch by.
        ("merge_group", lambda ws: _group_payload(ws, base_ref="main"), {"FAIL"}),
        ("merge_group", lambda ws: _group_payload(ws, base_ref="refs/tags/v1"), {"FAIL"}),
        ("merge_group", lambda ws: _group_payload(ws, base_ref=HOSTILE_REF), {"FAIL"}),
        ("merge_group", lambda ws: _group_payload(ws, base_ref=HOSTILE_REF, base_sha="0" * 40), {"INDETERMINATE"}),
        ("merge_group", lambda ws: _group_payload(ws, base_ref=["refs/heads/main"]), {"FAIL"}),
        # base_sha that is no full commit name: cut short, one too long, upper case, with a newline.
        ("merge_group", lambda ws: _group_payload(ws, base_sha=ws.base_sha[:39]), {"FAIL", "INDETERMINATE"}),
        ("merge_group", lambda ws: _group_payload(ws, base_sha=ws.base_sha + "a"), {"FAIL", "INDETERMINATE"}),
        ("merge_group", lambda ws: _group_payload(ws, base_sha=ws.base_sha.upper()), {"FAIL", "INDETERMINATE"}),
        ("merge_group", lambda ws: _group_payload(ws, base_sha=ws.base_sha + "\n## x"), {"FAIL", "INDETERMINATE"}),
        # A payload of the other kind: each event reads only its own, and names what it lacks.
        ("pull_request", lambda ws: _group_payload(ws), {"INDETERMINATE"}),
        (
            "merge_group",
            lambda ws: {"pull_request": {"number": 7, "base": {"sha": ws.base_sha, "ref": "main"}}},
            {"INDETERMINATE"},
        ),
        ("merge_group", lambda ws: {"merge_group": "refs/heads/main"}, {"INDETERMINATE"}),
        ("merge_group", lambda ws: [], {"INDETERMINATE"}),
    ],
    ids=[
        "ref-not-under-heads", "ref-a-tag", "ref-markdown-html-newline", "ref-hostile-unknown-base",
        "ref-a-list", "sha-39", "sha-41", "sha-upper-case", "sha-newline", "group-under-pull-request",
        "pull-request-under-group", "group-a-string", "payload-a-list",
    ],
)  # fmt: skip
def test_a_hostile_merge_group_payload_never_sets_the_delta_gates_aside(
    tmp_path: Path, fake: FakeGitHub, event: str, payload: Any, verdicts: set[str]
) -> None:
    ws = make_workspace(tmp_path)
    write_jsonl(ws.root / "run.jsonl", worse_run())
    ws.write_event(event, payload(ws))
    run = act(ws, fake, gates="recall@5:-0.05")
    assert run.code == 1 and run.outputs["verdict"] in verdicts, run.summary
    assert "Delta gates set aside" not in run.summary and "Traceback" not in run.summary
    for raw in ("<img", "\n## Injected", "[click](", "\n## x"):
        assert raw not in run.summary


def test_trec_qrels_judgments_are_read_as_score_reads_them(tmp_path: Path, fake: FakeGitHub) -> None:
    """score takes TREC qrels; the action did too, then could not draw its HTML page (which read
    the labels as JSONL) and published no answer. It now takes the page's labels from the
    judgments it scored with."""
    ws = make_workspace(tmp_path)
    rows = [row for row in demo_rows("judgments.jsonl") if "relevance" in row]
    qrels = "".join(f"{row['query_id']} 0 {row.get('chunk_id') or row['doc_uri']} {row['relevance']}\n" for row in rows)
    (ws.root / "qrels.txt").write_text(qrels, encoding="utf-8")
    run = act(ws, fake, judgments="qrels.txt", gates="recall@5:0.1")
    assert run.code == 0, run.log
    page = (ws.root / "retrieval-eval-report.html").read_text(encoding="utf-8")
    assert "<html" in page and ours(fake), run.log
