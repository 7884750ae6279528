"""Action settings: inputs as the runner passes them, the config file, and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval_eval.action.event import Event, load_event
from retrieval_eval.action.publish import escape_data, escape_property, fit_comment, format_outputs
from retrieval_eval.action.settings import (
    BaselineSpec,
    Runner,
    SettingsError,
    config_location,
    parse_config_text,
    parse_settings,
)
from retrieval_eval.core.errors import UsageError
from retrieval_eval.render import comment_marker

RUNNER = Runner(workspace=Path("/ws"))
REQUIRED = {"INPUT_JUDGMENTS": "judgments.jsonl", "INPUT_RUN": "run.jsonl"}


def parse(env: dict[str, str], config: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return parse_settings(env, config, runner=RUNNER)


def test_defaults() -> None:
    settings = parse(REQUIRED)
    assert settings.k == (10,) and settings.threshold == 1 and settings.gates == ()
    assert settings.baseline == BaselineSpec("auto")
    assert settings.baseline_path == ".retrieval-eval/report.json"
    assert settings.report == "retrieval-eval-report.json"
    assert settings.summary_file == "retrieval-eval-report.summary.md"
    assert settings.comment_file == "retrieval-eval-report.comment.md"
    assert settings.comment == "auto" and settings.comment_id == "default"
    assert settings.fail_on_indeterminate is True and settings.mode == "evaluate"
    assert settings.max_drift is None and settings.api_url == "https://api.github.com"


def test_inputs_keep_their_hyphens() -> None:
    env = {
        **REQUIRED,
        "INPUT_GITHUB-TOKEN": "tok",
        "INPUT_COMMENT-ID": "nightly",
        "INPUT_FAIL-ON-INDETERMINATE": "false",
        "INPUT_MAX-DRIFT": "0.1",
        "INPUT_CORPUS": "corpus.json",
        "INPUT_BASELINE-PATH": "r/base.json",
        "INPUT_API-URL": "http://127.0.0.1:9/",
        "INPUT_K": "5, 10",
        "INPUT_GATES": "recall@5:0.5\nmrr@10:-0.1",
    }
    settings = parse(env)
    assert settings.github_token == "tok" and settings.comment_id == "nightly"
    assert settings.fail_on_indeterminate is False and settings.max_drift == 0.1
    assert settings.baseline_path == "r/base.json" and settings.api_url == "http://127.0.0.1:9"
    assert settings.k == (5, 10) and settings.gates == ("recall@5:0.5", "mrr@10:-0.1")


def test_api_url_falls_back_to_the_runner() -> None:
    assert parse({**REQUIRED, "GITHUB_API_URL": "https://ghe.example/api/v3"}).api_url == "https://ghe.example/api/v3"


def test_token_is_never_in_repr() -> None:
    settings = parse({**REQUIRED, "INPUT_GITHUB-TOKEN": "ghs_topsecret"})
    assert "ghs_topsecret" not in repr(settings)


def test_all_missing_required_inputs_at_once() -> None:
    with pytest.raises(SettingsError) as caught:
        parse({})
    assert caught.value.problems[0].startswith("missing required inputs: judgments, run")


def test_max_drift_needs_a_corpus() -> None:
    with pytest.raises(SettingsError, match="max-drift: drift is measured against a corpus"):
        parse({**REQUIRED, "INPUT_MAX-DRIFT": "0.1"})


def test_post_comment_mode_needs_no_judgments() -> None:
    assert parse({"INPUT_MODE": "post-comment"}).mode == "post-comment"


def test_every_bad_input_is_named() -> None:
    env = {
        **REQUIRED,
        "INPUT_K": "0",
        "INPUT_THRESHOLD": "x",
        "INPUT_COMMENT": "sometimes",
        "INPUT_FAIL-ON-INDETERMINATE": "maybe",
        "INPUT_MAX-DRIFT": "2",
        "INPUT_COMMENT-ID": "a b",
        "INPUT_MODE": "fast",
        "INPUT_BASELINE": "git:main",
        "INPUT_API-URL": "ftp://x",
    }
    with pytest.raises(SettingsError) as caught:
        parse(env)
    named = [problem.split(":")[0] for problem in caught.value.problems]
    assert named == [
        "mode",
        "k",
        "threshold",
        "max-drift",
        "baseline",
        "comment",
        "comment-id",
        "fail-on-indeterminate",
        "api-url",
    ]


@pytest.mark.parametrize("name", ["report", "baseline-path"])
@pytest.mark.parametrize("path", ["/tmp/report.json", "../report.json", "out/../../report.json"])
def test_paths_written_or_read_stay_inside_the_repository(name: str, path: str) -> None:
    with pytest.raises(SettingsError) as caught:
        parse({**REQUIRED, f"INPUT_{name.upper()}": path})
    assert caught.value.problems == [
        f"{name}: {path!r} must be a path inside the repository, e.g. "
        + ("retrieval-eval-report.json" if name == "report" else ".retrieval-eval/report.json")
    ]


@pytest.mark.parametrize("path", ["reports/", "out/reports/"])
def test_a_report_path_naming_a_folder_is_refused(path: str) -> None:
    # "reports/" was written as a file named "reports", with reports.html and the rest beside it.
    with pytest.raises(SettingsError) as caught:
        parse({**REQUIRED, "INPUT_REPORT": path})
    assert caught.value.problems == [
        f"report: {path!r} names a folder; name the report file, e.g. {path}retrieval-eval-report.json"
    ]


def test_bad_gate_is_reported_with_the_input_name() -> None:
    with pytest.raises(SettingsError) as caught:
        parse({**REQUIRED, "INPUT_GATES": "recall@5:0.5, nonsense@3:0.1"})
    assert len(caught.value.problems) == 2
    assert caught.value.problems[0].startswith("gates: gate 'recall@5:0.5'")
    assert "k: 10,5" in caught.value.problems[0]
    assert "unknown metric" in caught.value.problems[1]


@pytest.mark.parametrize(
    ("k", "gate", "problem"),
    [
        (
            "5",
            "recall@3:0.8",
            "gates: gate 'recall@3:0.8': recall@3 is not computed at the cutoffs given (k: 5) "
            "(add 3 to k, e.g. k: 5,3)",
        ),
        (
            "10",
            "map:0.5",
            "gates: gate 'map:0.5': map without a cutoff is the full-depth metric, computed with k: all "
            "(add all to k, or name a cutoff, e.g. map@10)",
        ),
    ],
)
def test_a_gate_at_a_cutoff_not_scored_names_the_k_input(k: str, gate: str, problem: str) -> None:
    # A workflow has an input k, not the command line's -k: "(-k 5) (add 3 to -k, e.g. k: 5,3)"
    # mixed the two in one sentence.
    with pytest.raises(SettingsError) as caught:
        parse({**REQUIRED, "INPUT_K": k, "INPUT_GATES": gate})
    assert caught.value.problems == [problem]


def test_baseline_forms() -> None:
    def baseline(text: str) -> BaselineSpec:
        return parse({**REQUIRED, "INPUT_BASELINE": text}).baseline

    assert baseline("none") == BaselineSpec("none")
    assert baseline("base/report.json") == BaselineSpec("path", path="base/report.json")
    assert baseline("git:origin/main:.re/report.json") == BaselineSpec("git", path=".re/report.json", ref="origin/main")
    assert baseline("artifact:nightly") == BaselineSpec("artifact", name="nightly")


def test_config_file_sets_keys_and_inputs_win() -> None:
    config = parse_config_text(
        "judgments: j.jsonl\nrun: r.jsonl\nk: [5, 10]\ngates:\n  - recall@5:0.5\n"
        "  - recall@10:-0.02\nfail_on_indeterminate: false\nthreshold: 2\n",
        source=".retrieval-eval.yml",
    )
    settings = parse({"INPUT_THRESHOLD": "3"}, config)
    assert settings.judgments == "j.jsonl" and settings.k == (5, 10)
    assert settings.gates == ("recall@5:0.5", "recall@10:-0.02")
    assert settings.fail_on_indeterminate is False
    assert settings.threshold == 3


def test_config_file_refusals() -> None:
    with pytest.raises(SettingsError) as caught:
        parse_config_text("github-token: x\nflavour: y\nk: {a: 1}\n", source="c.yml")
    problems = caught.value.problems
    assert "'github-token' cannot be set in the config file" in problems[0]
    assert "'flavour' is not a setting" in problems[1]
    assert problems[2].startswith("config: c.yml: k:")
    with pytest.raises(SettingsError, match="not valid YAML"):
        parse_config_text("k: [", source="c.yml")
    with pytest.raises(SettingsError, match="must be a mapping"):
        parse_config_text("- a\n", source="c.yml")
    assert parse_config_text("", source="c.yml") == {}
    assert parse_config_text("comment: off\n", source="c.yml") == {"comment": "off"}


def test_config_location(tmp_path: Path) -> None:
    assert config_location({}, tmp_path) == (None, False)
    (tmp_path / ".retrieval-eval.yml").write_text("k: 5\n")
    assert config_location({}, tmp_path) == (tmp_path / ".retrieval-eval.yml", False)
    assert config_location({"INPUT_CONFIG": "ci/eval.yml"}, tmp_path) == (tmp_path / "ci/eval.yml", True)


def test_event_payload(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text(
        '{"pull_request": {"number": 7, "base": {"sha": "abc", "ref": "main"}},'
        ' "repository": {"default_branch": "main"}}'
    )
    event = load_event("pull_request", str(path))
    assert (event.pr_number, event.base_sha, event.base_ref, event.default_branch) == (7, "abc", "main", "main")
    assert load_event("push", str(path)).pr_number is None
    assert load_event("push", "") == Event("push")  # no payload: nothing read


def test_workflow_command_escaping() -> None:
    assert escape_data("50% drop\r\nnext") == "50%25 drop%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_outputs_use_the_heredoc_form_for_multi_line_values() -> None:
    text = format_outputs({"verdict": "FAIL", "breached-gates": "recall@5:0.9\nmrr@10:0.9"})
    lines = text.splitlines()
    assert lines[0] == "verdict=FAIL"
    delimiter = lines[1].split("<<", 1)[1]
    assert lines[1] == f"breached-gates<<{delimiter}" and lines[2:] == ["recall@5:0.9", "mrr@10:0.9", delimiter]


def test_long_comments_are_cut_but_keep_the_marker() -> None:
    marker = "<!-- retrieval-eval:comment id=default -->"
    body = fit_comment(marker + "\n" + "x" * 70000, marker)
    assert len(body) <= 65536 and body.startswith(marker) and "size limit" in body


@pytest.mark.parametrize("report", [b'{"verdict": "PASS"}', b'{"verdict": ["FAIL"]}', b"[1]", b"\xff"])
def test_post_comment_reads_any_shape_of_the_forks_report(report: bytes) -> None:
    from retrieval_eval.action.postcomment import _verdict

    assert _verdict(report) == ""


@pytest.mark.parametrize(("name", "value"), [("INPUT_K", "5,²"), ("INPUT_K", "05"), ("INPUT_THRESHOLD", "²")])
def test_numbers_are_ascii_decimals(name: str, value: str) -> None:
    with pytest.raises(SettingsError) as caught:
        parse({**REQUIRED, name: value})
    assert caught.value.problems[0].startswith(name.removeprefix("INPUT_").lower() + ":")


# The action's comment-id and `render --comment-id` follow one rule: an id one accepts, the other
# accepts too, so a comment rendered by hand is found again by the action.
@pytest.mark.parametrize(
    "comment_id", ["default", "nightly-2", "a.b_c", "a--b", "x-->y", "-lead", "two words", "", "a" * 64, "a" * 65]
)
def test_the_action_and_render_accept_the_same_comment_ids(comment_id: str) -> None:
    try:
        comment_marker(comment_id)
        rendered = True
    except UsageError:
        rendered = False
    try:
        parse({**REQUIRED, "INPUT_COMMENT-ID": comment_id})
        parsed = True
    except SettingsError:
        parsed = False
    # An empty input means "not given" to the action (the default id), so it is parsed there.
    assert rendered == (parsed if comment_id else False)
    assert parsed == (comment_id in {"default", "nightly-2", "a.b_c", "a" * 64, ""})


@pytest.mark.parametrize("path", [".", "reports/.", "reports//.", "a/..", "./"])
def test_a_report_path_ending_in_a_dot_part_names_a_folder_too(path: str) -> None:
    # "reports/." normalised to "reports" and was written as a file; "." crashed naming its side files.
    with pytest.raises(SettingsError) as caught:
        parse({**REQUIRED, "INPUT_REPORT": path})
    assert "names a folder" in caught.value.problems[0]
