"""History over commits: the git walk, breaks where the yardstick changed, the summary, the CLI, the action."""

from __future__ import annotations

import copy
import io
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from action_workspace import git, make_workspace, repack
from compare_data import labels, run, score
from fake_github import FakeGitHub
from from_json import break_reason, build_history, history_metrics, point, render, render_history, segments
from retrieval_eval.action.git import GitObjects
from retrieval_eval.action.main import main
from retrieval_eval.comparison.history import Point
from retrieval_eval.formats.report import dump_report
from test_render import check_golden

REPORT = ".retrieval-eval/report.json"


# -- walking a file's history through first parents ------------------------------------


def commit(repo: Path, message: str, report: str | None = None, other: str | None = None) -> str:
    if report is not None:
        (repo / ".retrieval-eval").mkdir(exist_ok=True)
        (repo / REPORT).write_text(report, encoding="utf-8")
    if other is not None:
        (repo / "other.txt").write_text(other, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message, "--date", "2026-01-01T00:00:00Z")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def line(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """main: v1, an unrelated commit, v2, a merge bringing v-side from a branch, an unrelated commit, v3."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    shas = {"v1": commit(repo, "v1", "one"), "noise": commit(repo, "noise", other="x")}
    shas["v2"] = commit(repo, "v2", "two")
    git(repo, "checkout", "-q", "-b", "side")
    shas["side-only"] = commit(repo, "side", "side")
    git(repo, "checkout", "-q", "main")
    commit(repo, "main moves on", other="y")
    git(repo, "merge", "-q", "--no-ff", "-X", "theirs", "-m", "merge side", "side")
    shas["merge"] = git(repo, "rev-parse", "HEAD")
    shas["tail"] = commit(repo, "noise again", other="z")
    shas["v3"] = commit(repo, "v3", "three")
    shas["tip"] = commit(repo, "after", other="w")
    return repo, shas


def test_versions_newest_first_each_dated_by_the_commit_that_brought_it(line: tuple[Path, dict[str, str]]) -> None:
    repo, shas = line
    found = GitObjects(repo).file_history("main", REPORT, 10)
    assert [(v.commit, v.data) for v in found.versions] == [
        (shas["v3"], b"three"),
        (shas["merge"], b"side"),  # on main's first-parent line the merge brought it, not the side commit
        (shas["v2"], b"two"),
        (shas["v1"], b"one"),
    ]
    assert found.cut == ""
    assert found.versions[0].timestamp > 0


def test_the_walk_stops_at_the_limit_and_reads_packs(line: tuple[Path, dict[str, str]]) -> None:
    repo, shas = line
    repack(repo)
    found = GitObjects(repo).file_history(shas["tip"], REPORT, 2)
    assert [v.data for v in found.versions] == [b"three", b"side"] and found.cut == ""


def test_a_shallow_clone_says_where_its_history_stops(line: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    repo, shas = line
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "3", f"file://{repo}", str(clone)], check=True, timeout=60)
    found = GitObjects(clone).file_history("HEAD", REPORT, 10)
    assert [v.data for v in found.versions] == [b"three", b"side"]  # "side" dated by the oldest commit held
    assert "no history before commit" in found.cut and "shallow" in found.cut
    assert GitObjects(clone).file_history(shas["v1"], REPORT, 10).cut.endswith("is not in the checkout")


# -- breaks: the same notion of yardstick as a comparison --------------------------------


def report(
    recall: float, *, judgments: str = "a" * 64, threshold: int = 1, gain: str = "exponential"
) -> dict[str, Any]:
    return {
        "config": {"k": [5], "threshold": threshold, "gain": gain},
        "inputs": {"judgments_sha256": judgments},
        "metrics": {"recall@5": {"value": recall}, "ndcg@5": {"value": recall / 2}},
        "verdict": {"gates": [{"expression": "ndcg@5:-0.02", "status": "PASS"}]},
    }


def test_a_change_of_judgments_threshold_gain_or_policy_breaks_the_line() -> None:
    base = report(0.8)
    assert break_reason(base, report(0.9)) is None
    assert break_reason(base, report(0.8, judgments="b" * 64)) == "judgments changed (aaaaaaaaaaaa → bbbbbbbbbbbb)"
    assert break_reason(base, report(0.8, threshold=2)) == "threshold 1 → 2"
    assert break_reason(base, report(0.8, gain="linear")) == "gain exponential → linear"
    policy = copy.deepcopy(base)
    policy["config"]["policy"] = "abstain-counts-as-miss"
    assert break_reason(base, policy) == "policy none → abstain-counts-as-miss"
    unknown = {k: v for k, v in base.items() if k != "inputs"}
    assert break_reason(base, unknown) == "a report does not record its judgments"
    assert break_reason(base, {**report(0.8), "config": {"k": [5, 10], "threshold": 1, "gain": "exponential"}}) is None


def test_segments_split_at_breaks_and_missing_values() -> None:
    reports = [report(0.7), report(0.75), report(0.8, threshold=2), report(0.6, threshold=2), report(0.65, threshold=2)]
    reports[3]["metrics"].pop("recall@5")
    history = build_history([point(f"c{i}", None, r) for i, r in enumerate(reports)], history_metrics(reports[-1]))
    assert history["metrics"] == ["recall@5", "ndcg@5"]
    assert [p["break"] for p in history["points"]] == [None, None, "threshold 1 → 2", None, None]
    assert segments(history["points"], "recall@5") == [[0, 1], [2], [4]]
    assert segments(history["points"], "ndcg@5") == [[0, 1], [2, 3, 4]]


# -- rendered: the summary, and the CLI ---------------------------------------------------


def scored_line(tmp_path: Path) -> list[Point]:
    """Three base-branch reports, the third scored with relabelled judgments, then the PR's report."""
    from test_compare import relabelled

    first = score(tmp_path, "c1", labels(), run(misses=[1, 2, 3]), gates=["recall@5:-0.02"])
    second = score(tmp_path, "c2", labels(), run(misses=[1, 2]), gates=["recall@5:-0.02"])
    third = score(tmp_path, "c3", relabelled(), run(misses=[1]), gates=["recall@5:-0.02"])
    head = score(tmp_path, "head", relabelled(), run(misses=[5]), gates=["recall@5:-0.02", "ndcg@10:0.5"])
    dates = ["2026-01-02", "2026-01-05", "2026-01-09", "2026-01-10"]
    labels_ = ["1a2b3c4", "5d6e7f8", "9a0b1c2", "this PR"]
    return [point(label, date, r) for label, date, r in zip(labels_, dates, [first, second, third, head])]


def test_the_summary_charts_the_history_with_a_break(tmp_path: Path) -> None:
    points = scored_line(tmp_path)
    history = build_history(points, history_metrics(points[-1].report))
    history["note"] = "The last 3 versions of .retrieval-eval/report.json on main, then this pull request."
    text = render("summary", report=points[-1].report, history=history)
    check_golden("history_with_break.summary.md", text)
    assert "⟂ `9a0b1c2`" in text and "judgments changed" in text
    # One chart per unbroken stretch: c1-c2 alone, then c3 with this PR.
    assert text.count('title "recall@5 since 1a2b3c4"') == 1 and text.count('title "recall@5 since 9a0b1c2"') == 1
    assert 'x-axis ["1a2b3c4", "5d6e7f8"]' in text and 'x-axis ["9a0b1c2", "this PR"]' in text
    assert "### History" not in render("comment", report=points[-1].report, history=history)


def test_the_history_command_renders_files(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from retrieval_eval.cli import cli

    points = scored_line(tmp_path)
    paths = []
    for each in points:
        path = tmp_path / f"{each.label.replace(' ', '-')}.json"
        path.write_text(dump_report(each.report), encoding="utf-8")
        paths.append(str(path))
    markdown = CliRunner().invoke(cli, ["history", *paths, "--format", "summary"])
    assert markdown.exit_code == 0, markdown.output
    check_golden("history_cli.summary.md", markdown.output)
    text = CliRunner().invoke(cli, ["history", *paths, "--metric", "ndcg@10"])
    assert text.exit_code == 0
    assert text.output.splitlines()[3].startswith("  -- break: not comparable with the line above: judgments changed")
    assert render_history(build_history(points, ["recall@5"]), "text").count("break") == 1
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    refused = CliRunner().invoke(cli, ["history", paths[0], str(bad)])
    assert refused.exit_code == 2 and "bad.json" in refused.output


# -- the action ------------------------------------------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub().serve() as server:
        yield server


def run_action(ws: Any, fake: FakeGitHub, **inputs: str) -> tuple[int, str]:
    ws.reset_runner_files()
    code = main(ws.env(fake.url, **inputs), stdout=io.StringIO(), sleep=lambda _: None)
    return code, ws.summary()


def test_the_action_charts_the_base_branch_from_the_checkout(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    head = git(ws.root, "rev-parse", "HEAD")
    original = json.loads(ws.base_report)
    git(ws.root, "checkout", "-q", "-b", "base-line", ws.base_sha)
    for recall, threshold in ((0.5, 1), (0.6, 2)):
        version = copy.deepcopy(original)
        version["metrics"]["recall@5"]["value"] = recall
        version["config"]["threshold"] = threshold
        (ws.root / REPORT).write_text(json.dumps(version), encoding="utf-8")
        git(ws.root, "commit", "-q", "-am", f"report {recall}")
    (ws.root / REPORT).write_text(ws.base_report, encoding="utf-8")
    git(ws.root, "commit", "-q", "-am", "report as it was")
    ws.base_sha = git(ws.root, "rev-parse", "HEAD")
    git(ws.root, "checkout", "-q", head)
    ws.pull_request_event()
    code, summary = run_action(ws, fake)
    assert code == 0, summary
    history = summary[summary.index("### History on the base branch") :]
    assert "The last 4 versions of .retrieval-eval/report.json on main" in history
    assert "| this PR |" in history
    assert history.count("⟂") == 3  # the note, threshold 1 -> 2, and back to 1
    assert "0.5000" in history and "0.6000" in history
    _, off = run_action(ws, fake, history="0")
    assert "### History" not in off


def test_a_base_branch_with_its_first_report_counts_one_version(tmp_path: Path, fake: FakeGitHub) -> None:
    # The base commit is the only one that holds the report (make_workspace commits it once):
    # a team that just adopted the action read "The last 1 versions".
    ws = make_workspace(tmp_path)
    code, summary = run_action(ws, fake)
    assert code == 0, summary
    assert "The last 1 version of .retrieval-eval/report.json on main" in summary
    assert "1 versions" not in summary


def test_a_shallow_checkout_shows_the_base_report_and_says_how_to_get_more(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path, history="shallow")
    fake.contents[(ws.base_sha, REPORT)] = ws.base_report.encode()
    code, summary = run_action(ws, fake)
    assert code == 0, summary
    assert f"| `{ws.base_sha[:7]}` |" in summary and "| this PR |" in summary
    assert "set fetch-depth: 0 in actions/checkout" in summary


def test_a_history_setting_out_of_range_is_refused(tmp_path: Path, fake: FakeGitHub) -> None:
    ws = make_workspace(tmp_path)
    code, _ = run_action(ws, fake, history="-1")
    assert code == 2


def test_which_optional_measures_were_computed_breaks_no_line() -> None:
    from from_json import break_reason

    inputs = {"judgments_sha256": "a" * 64, "query_set_sha256": "b" * 64}
    config = {"k": [5], "threshold": 1, "gain": "exponential", "unjudged": "assume-irrelevant"}
    older = {"config": config, "inputs": inputs}
    newer = {"config": config, "inputs": inputs, "computed": ["bounds"]}
    assert break_reason(older, newer) is None
    other = {"config": {**config, "unjudged": "condensed"}, "inputs": inputs, "computed": ["bounds"]}
    assert (break_reason(newer, other) or "").endswith("unjudged assume-irrelevant → condensed")


def test_the_bounded_policy_scores_as_assume_irrelevant_and_breaks_no_line(tmp_path: Path) -> None:
    """The truth from the CLI itself: the same run under both policies has the same values."""
    from compare_data import write_jsonl
    from from_json import break_reason
    from helpers import run_cli

    judgments = write_jsonl(tmp_path / "judgments.jsonl", labels())
    ranked = write_jsonl(tmp_path / "run.jsonl", run(misses=[1, 2]))
    reports = {}
    for policy in ("assume-irrelevant", "bounded", "condensed"):
        out = tmp_path / f"{policy}.json"
        done = run_cli(
            "score", "-j", str(judgments), "-r", str(ranked), "-k", "5", "--unjudged", policy, "--out", str(out)
        )
        assert done.code == 0, done.stderr
        reports[policy] = json.loads(out.read_text())
    values = {p: {m: v["value"] for m, v in r["metrics"].items()} for p, r in reports.items()}
    assert values["bounded"] == values["assume-irrelevant"]
    assert break_reason(reports["assume-irrelevant"], reports["bounded"]) is None
    assert break_reason(reports["bounded"], reports["assume-irrelevant"]) is None


def test_reports_that_differ_only_in_what_they_computed_stay_on_one_line(tmp_path: Path) -> None:
    # A report committed from `score --out` leaves its bounds out; the action's report computes
    # them. Every value is the same either way, so the line must not break between them.
    from compare_data import write_jsonl
    from helpers import run_cli

    judgments = write_jsonl(tmp_path / "judgments.jsonl", labels())
    runs = {"lean": run(misses=[1, 2]), "bounded": run(misses=[3])}
    paths = []
    for name, rows in runs.items():
        out = tmp_path / f"{name}.json"
        flag = "--bounds" if name == "bounded" else "--no-bounds"
        result = run_cli("score", "-j", str(judgments), "-r", str(write_jsonl(tmp_path / f"{name}.jsonl", rows)),
                         "-k", "5", flag, "--out", str(out))  # fmt: skip
        assert result.code == 0, result.stderr
        paths.append(out)
    reports = [json.loads(path.read_text()) for path in paths]
    assert reports[0]["computed"] != reports[1]["computed"]
    assert break_reason(reports[0], reports[1]) is None
    shown = run_cli("history", *map(str, paths))
    assert shown.code == 0 and "break" not in shown.stdout, shown.stdout


def test_a_user_summary_template_reads_a_rows_break_as_documented(tmp_path: Path) -> None:
    """``break`` is a Python keyword, so a history row keeps it under another field; a template
    still reads it as docs/compare.md names it, ``row.break`` or ``row["break"]``, None on an unbroken row."""
    points = scored_line(tmp_path)
    history = build_history(points, ["recall@5"])
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "summary.md.j2").write_text(
        '{% for row in history.rows %}{{ row.label }}: {{ row.break }} / {{ row["break"] }}\n{% endfor %}',
        encoding="utf-8",
    )
    text = render("summary", report=points[-1].report, history=history, template_dir=str(folder))
    lines = text.splitlines()
    assert lines[0] == "`1a2b3c4`: None / None" and lines[1] == "`5d6e7f8`: None / None"
    assert lines[2].startswith("`9a0b1c2`: judgments changed") and lines[2].count("judgments changed") == 2
