"""Markdown, terminal and HTML renderings pinned by golden files, escaping, size budgets and user templates.

Golden files live in tests/golden/. After a deliberate change of a template,
regenerate them and review the diff:

    UPDATE_GOLDEN=1 python -m pytest tests/test_render.py
"""

from __future__ import annotations

import os
import re
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from from_json import render
from helpers import run_cli
from render_cases import CASES, HOSTILE_TEXTS, QUEUES
from retrieval_eval.core.errors import InputError, UsageError
from retrieval_eval.formats.report import as_report
from retrieval_eval.render import COMMENT_LIMIT, comment_marker, escape_markdown

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
KINDS = {
    "pass_without_baseline": ("comment", "summary", "text"),
    "delta_fail": ("comment", "text"),
    "significant_drop": ("comment",),
    "not_significant_drop": ("comment",),
    "no_gates": ("comment", "summary", "text"),
    "holm_unmarks_a_drop": ("comment", "summary"),
    "indeterminate_nothing_scored": ("comment",),
    "judgments_rescored": ("comment", "summary"),
    "drift_warning": ("comment",),
    "drift_after_rechunk": ("comment", "summary", "text"),
    "drift_nothing_recoverable": ("summary", "text"),
    "oversized_truncated": ("comment",),
    "hostile_text_escaped": ("comment", "summary"),
    "floor_and_abstention_gates": ("comment", "summary", "text"),
    "floor_and_abstention_indeterminate": ("comment", "summary"),
    "floor_unavailable": ("comment", "summary", "text"),
    "judged_drop_with_queue": ("comment", "summary"),
    "machine_labels_policy": ("comment", "summary", "text"),
    "undetectable_tolerance": ("comment", "summary"),
}


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {name}; create it with UPDATE_GOLDEN=1 python -m pytest {__file__}"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs; if intended, regenerate with UPDATE_GOLDEN=1"


@pytest.mark.parametrize("case", sorted(KINDS))
def test_renderings_match_their_golden_files(case: str, tmp_path: Path) -> None:
    report, comparison = CASES[case](tmp_path)
    for kind in KINDS[case]:
        suffix = "txt" if kind == "text" else "md"
        text = render(kind, report=report, comparison=comparison, queue=QUEUES.get(case))
        check_golden(f"{case}.{kind}.{suffix}", text)


HTML_CASES = (
    "drift_after_rechunk",
    "drift_nothing_recoverable",
    "floor_and_abstention_gates",
    "floor_unavailable",
    "no_gates",
)


@pytest.mark.parametrize("case", HTML_CASES)
def test_html_pages_match_their_golden_files(case: str, tmp_path: Path) -> None:
    from from_json import render_html

    report, comparison = CASES[case](tmp_path)
    page = render_html(report, comparison, query_limit=3)  # three queries show their part; the rest is counted
    # The style sheet and the script are the package's own files, the same on every page: left
    # out, so the golden file shows what the report put on the page (their hashes stay, in the CSP).
    page = re.sub(r"<style>.*?</style>", "<style>…</style>", page, flags=re.S)
    page = re.sub(r"<script>.*?</script>", "<script>…</script>", page, flags=re.S)
    check_golden(f"{case}.page.html", page)


def test_the_text_kind_renders_the_terminal_view_and_the_comparison(tmp_path: Path) -> None:
    report, comparison = CASES["delta_fail"](tmp_path)
    text = render("text", report=report, comparison=comparison)
    assert "verdict  FAIL" in text
    assert "compared with base (same yardstick, 40 paired queries)" in text
    assert "\x1b[" not in text


# -- what the renderings say ---------------------------------------------------------


def test_significance_is_what_sets_the_delta_in_bold(tmp_path: Path) -> None:
    real = render(
        "comment", report=CASES["significant_drop"](tmp_path)[0], comparison=CASES["significant_drop"](tmp_path)[1]
    )
    noise = render(
        "comment",
        report=CASES["not_significant_drop"](tmp_path)[0],
        comparison=CASES["not_significant_drop"](tmp_path)[1],
    )
    assert "| recall@5 | 0.9750 | 0.7000 | **-0.2750** |" in real
    assert ", significant)" in real and "❌" in real
    assert "| recall@5 | 0.9750 | 0.9500 | -0.0250 |" in noise
    assert "not significant)" in noise and "✅ retrieval-eval · PASS" in noise


def test_confounded_deltas_are_flagged_not_judged(tmp_path: Path) -> None:
    from compare_data import labels, run, score
    from from_json import build_comparison
    from test_compare import relabelled

    base = score(tmp_path, "base", labels(), run(41))
    head = score(tmp_path, "head", relabelled(), run(41))
    comment = render("comment", report=head, comparison=build_comparison(base, head, resamples=200))
    assert "> [!WARNING]\n> Some deltas compare two different yardsticks" in comment
    assert "| recall@5 | 1.0000 | 0.8750 | -0.1250 ⚠️ | confounded | — |" in comment
    assert "(-0.1250 vs base, confounded)" in comment


def test_drift_is_warned_about(tmp_path: Path) -> None:
    report, comparison = CASES["drift_warning"](tmp_path)
    comment = render("comment", report=report, comparison=comparison)
    assert "> [!WARNING]\n> Label drift: 12.5% of the labels" in comment
    assert "3 orphaned, 9 re-anchorable, 2 merged, 1 split" in comment


def test_the_strata_count_counts_the_strata_listed(tmp_path: Path) -> None:
    from compare_data import labels, run, score
    from from_json import build_comparison

    base = score(tmp_path, "base", labels(strata=("faq", "howto", "billing", "retired")), run())
    head = score(tmp_path, "head", labels(), run(misses=[4]))
    comment = render("comment", report=head, comparison=build_comparison(base, head, resamples=200))
    assert "| retired |" in comment  # a stratum the head dropped is still shown, beside the others
    assert "<summary>Strata (4)</summary>" in comment


def test_the_headline_reads_the_primary_metric_the_comparison_reads(tmp_path: Path) -> None:
    report, comparison = CASES["delta_fail"](tmp_path)
    assert comparison is not None and comparison["primary"] == "recall@5"
    report["config"]["k"] = [0, 5, 10]  # a hand-edited report: a cutoff of 0 is no cutoff
    for kind in ("comment", "text"):
        assert "recall@0" not in render(kind, report=report, comparison=comparison)
    assert "recall@5 **0.9250** (-0.0750 vs base" in render("comment", report=report, comparison=comparison)


def test_oversized_input_drops_whole_sections_and_says_so(tmp_path: Path) -> None:
    report, comparison = CASES["oversized_truncated"](tmp_path)
    comment = render("comment", report=report, comparison=comparison)
    assert len(comment) <= COMMENT_LIMIT
    assert "strata shortened to the first 10 of 1503" in comment
    assert_tables_whole(comment)
    summary = render("summary", report=report, comparison=comparison)
    assert "Left out" not in summary and summary.count("| stratum 1") == 500


def test_a_flood_of_findings_is_shortened_not_the_whole_comment(tmp_path: Path) -> None:
    report, comparison = CASES["delta_fail"](tmp_path)
    assert comparison is not None
    comparison["comparability"] = [
        {"code": "x", "effect": "confounds", "detail": "d" * 400, "meaning": "m" * 400} for _ in range(1_000)
    ]
    comment = render("comment", report=report, comparison=comparison)
    assert len(comment) <= COMMENT_LIMIT
    assert "| recall@5 | 1.0000 | 0.9250 |" in comment
    assert "all but three of the confounding changes" in comment


def assert_tables_whole(markdown: str) -> None:
    """Every table has its header, its delimiter row and rows of the same width."""
    for block in re.split(r"\n\n+", markdown):
        lines = [line for line in block.splitlines() if line.startswith("|")]
        if not lines:
            continue
        assert re.fullmatch(r"\|(:?-+:?\|)+", lines[1]), block
        widths = {line.count(" | ") for line in lines if not line.startswith("|:")}
        assert len(widths) == 1, block


# -- escaping ------------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_user_text_cannot_inject_markup(text: str) -> None:
    escaped = escape_markdown(text)
    assert "\n" not in escaped
    assert not re.search(r"<[A-Za-z!/]", escaped), "an HTML tag or comment survived"
    assert not re.search(r"(?<!\\)\|", escaped), "a table break survived"
    assert not re.search(r"(?<!\\)\]\(", escaped), "a link survived"
    assert not re.search(r"(?<![\\\w])@\w", escaped), "a mention survived"
    assert not re.search(r"(?i)https?://|www\.", escaped), "a bare URL survived"
    assert not re.search(r"(?<!\\)[`*_~$]", escaped), "emphasis or code survived"


def test_escaping_keeps_plain_text_and_our_metric_names_readable() -> None:
    assert escape_markdown("how do I reset my password") == "how do I reset my password"
    assert escape_markdown("recall@5:-0.02: recall@5 moved") == "recall@5:-0.02: recall@5 moved"
    assert escape_markdown("mail a@b.example") == "mail a@&#8203;b.example"
    assert escape_markdown("x" * 300).endswith("x…") and len(escape_markdown("x" * 300)) == 200


def test_hostile_text_is_escaped_in_both_kinds(tmp_path: Path) -> None:
    report, comparison = CASES["hostile_text_escaped"](tmp_path)
    for kind in ("comment", "summary"):
        text = render(kind, report=report, comparison=comparison)
        body = text.replace(comment_marker(), "")
        assert "<img" not in body and "<script" not in body and "<b>" not in body
        assert "@octocat" not in body and "@admins" not in body
        assert "](https" not in body
        assert_tables_whole(text)
        assert body.count("<details>") == body.count("</details>")


def test_mermaid_labels_are_reduced_to_safe_characters(tmp_path: Path) -> None:
    report, comparison = CASES["hostile_text_escaped"](tmp_path)
    summary = render("summary", report=report, comparison=comparison)
    chart = summary.split("```mermaid\n", 1)[1].split("```", 1)[0]
    axis = chart.split("x-axis [", 1)[1].split("]", 1)[0]
    assert set(axis) <= set(string.ascii_letters + string.digits + ' "_.,-@…')


def test_the_documented_mermaid_rule_is_the_codes() -> None:
    from retrieval_eval.render.escape import mermaid_label

    docs = " ".join((Path(__file__).resolve().parent.parent / "docs" / "compare.md").read_text().split())
    assert (
        "Names in the Mermaid chart are reduced to letters, digits, spaces and `-_.`, plus an `@` "
        "between a name and a cutoff (`recall@10`); any other character becomes `_`."
    ) in docs
    assert mermaid_label("recall@10 -_.") == "recall@10 -_."
    assert [mermaid_label(text) for text in ("@you", "a@b", "team@10x", "x<y>|z")] == [
        "_you",
        "a_b",
        "team_10x",
        "x_y__z",
    ]


# -- the marker and user templates ---------------------------------------------------


def test_every_comment_carries_the_marker_with_its_id(tmp_path: Path) -> None:
    report, _ = CASES["pass_without_baseline"](tmp_path)
    assert render("comment", report=report, comment_id="nightly-2").startswith(
        "<!-- retrieval-eval:comment id=nightly-2 -->\n"
    )


@pytest.mark.parametrize("bad", ["", "two words", "x-->y", "a--b", "a" * 65, "new\nline"])
def test_comment_ids_that_could_break_the_marker_are_refused(bad: str) -> None:
    with pytest.raises(UsageError):
        comment_marker(bad)


def templates(tmp_path: Path, text: str, name: str = "comment.md.j2") -> str:
    directory = tmp_path / "templates"
    directory.mkdir(exist_ok=True)
    (directory / name).write_text(text, encoding="utf-8")
    return str(directory)


def test_a_user_template_that_overrides_the_drift_block_changes_the_drift_section(tmp_path: Path) -> None:
    report, comparison = CASES["drift_after_rechunk"](tmp_path)
    directory = templates(
        tmp_path,
        '{% extends "builtin/summary.md.j2" %}\n'
        "{% block drift %}\n\n**Stale labels.** {{ corpus_changes | length }} corpus change(s); repair with:\n\n"
        "{{ drift_repair }}\n{% endblock %}\n",
        name="summary.md.j2",
    )
    overridden = render("summary", report=report, comparison=comparison, template_dir=directory)
    check_golden("drift_block_overridden.summary.md", overridden)
    assert "> Corpus:" not in overridden and "**Stale labels.**" in overridden
    assert overridden != render("summary", report=report, comparison=comparison)


def test_a_user_template_overrides_named_blocks_of_the_builtin(tmp_path: Path) -> None:
    report, comparison = CASES["delta_fail"](tmp_path)
    directory = templates(
        tmp_path,
        '{% extends "builtin/comment.md.j2" %}\n'
        "{% block footer %}\nOwned by the search team · {{ verdict.status }}\n{% endblock %}\n",
    )
    comment = render("comment", report=report, comparison=comparison, template_dir=directory)
    assert comment.startswith(comment_marker())
    assert comment.endswith("Owned by the search team · FAIL\n")
    assert "| recall@5 | 1.0000 | 0.9250 |" in comment
    # The summary has no user template here, so it is the built-in one.
    assert render("summary", report=report, comparison=comparison, template_dir=directory).startswith("## ❌")


def test_a_user_template_edited_between_two_renders_is_drawn_as_it_now_reads(tmp_path: Path) -> None:
    """Compiled templates are kept for the process: an edit on disk (same file, same name) must
    still show on the next render, and the first text must not come back."""
    report, comparison = CASES["delta_fail"](tmp_path)
    footer = (
        '{% extends "builtin/comment.md.j2" %}\n{% block footer %}\nfooter one · {{ verdict.status }}\n{% endblock %}\n'
    )
    directory = templates(tmp_path, footer)
    assert render("comment", report=report, comparison=comparison, template_dir=directory).endswith(
        "footer one · FAIL\n"
    )
    templates(tmp_path, footer.replace("footer one", "footer two"))
    again = render("comment", report=report, comparison=comparison, template_dir=directory)
    assert again.endswith("footer two · FAIL\n") and "footer one" not in again
    # The same name in another folder is another template; the built-in one is untouched.
    (tmp_path / "other").mkdir()
    other = templates(tmp_path / "other", footer.replace("footer one", "footer three"))
    assert render("comment", report=report, comparison=comparison, template_dir=other).endswith("footer three · FAIL\n")
    builtin = render("comment", report=report, comparison=comparison)
    assert "footer" not in builtin.splitlines()[-1]


def test_compiled_templates_are_the_ones_a_fresh_compile_gives(tmp_path: Path) -> None:
    """Every render draws what an environment without the kept code draws, byte for byte."""
    from retrieval_eval.render import sandbox

    report, comparison = CASES["delta_fail"](tmp_path)
    for kind in ("comment", "summary"):
        kept = render(kind, report=report, comparison=comparison)
        fresh = sandbox._CompiledTemplates()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sandbox, "_COMPILED", fresh)
            assert render(kind, report=report, comparison=comparison) == kept
        assert fresh._codes, "the fresh environment compiled the templates itself"


def test_the_kept_templates_stay_few() -> None:
    from jinja2.bccache import Bucket

    from retrieval_eval.render.sandbox import _CompiledTemplates

    cache = _CompiledTemplates()
    for number in range(3 * cache.SIZE):
        bucket = Bucket(None, f"key{number}", "checksum")  # type: ignore[arg-type]
        bucket.code = compile(str(number), "<t>", "eval")
        cache.dump_bytecode(bucket)
    assert len(cache._codes) == cache.SIZE
    newest = Bucket(None, f"key{3 * cache.SIZE - 1}", "checksum")  # type: ignore[arg-type]
    cache.load_bytecode(newest)
    assert newest.code is not None and eval(newest.code) == 3 * cache.SIZE - 1  # noqa: S307
    oldest = Bucket(None, "key0", "checksum")  # type: ignore[arg-type]
    cache.load_bytecode(oldest)
    assert oldest.code is None


def test_a_user_template_that_drops_the_marker_is_refused(tmp_path: Path) -> None:
    report, _ = CASES["pass_without_baseline"](tmp_path)
    directory = templates(tmp_path, "{{ verdict.status }}\n")
    with pytest.raises(UsageError, match="dropped the marker"):
        render("comment", report=report, template_dir=directory)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{% extends "builtin/comment.md.j2" %}\n{% block footer %}{{ nope }}{% endblock %}', "'nope' is undefined"),
        (
            '{% extends "builtin/comment.md.j2" %}\n{% block footer %}\n{% if %}{% endblock %}',
            "template comment.md.j2:3",
        ),
        ("{{ marker }}{{ verdict.__class__.__mro__ }}", "unsafe"),
    ],
)
def test_broken_or_unsafe_templates_are_refused(tmp_path: Path, text: str, problem: str) -> None:
    report, _ = CASES["pass_without_baseline"](tmp_path)
    with pytest.raises(InputError) as caught:
        render("comment", report=report, template_dir=templates(tmp_path, text))
    assert problem in caught.value.message


@pytest.mark.parametrize("call", ['verdict.get("status")', "metrics.items()", "row.keys()"])
def test_a_template_treating_a_record_as_a_dict_is_told_how_to_read_it(tmp_path: Path, call: str) -> None:
    # The views became records: a template written against dicts gets the way to read a field,
    # and the hint names the template's own file and line.
    report, comparison = CASES["delta_fail"](tmp_path)
    body = (
        f"{{% for row in metrics.rows %}}{{{{ {call} }}}}{{% endfor %}}"
        if call.startswith("row")
        else f"{{{{ {call} }}}}"
    )
    text = f'{{% extends "builtin/comment.md.j2" %}}\n{{% block footer %}}\n{body}\n{{% endblock %}}'
    directory = templates(tmp_path, text)
    with pytest.raises(InputError) as caught:
        render("comment", report=report, comparison=comparison, template_dir=directory)
    assert caught.value.message.startswith("template comment.md.j2:3: ")
    assert 'a record is not a dict: read a field as verdict.status or verdict["status"]' in caught.value.message
    assert caught.value.hint == f"fix line 3 of {os.path.join(directory, 'comment.md.j2')}"


def test_render_command_refuses_a_template_without_marker_and_writes_nothing(tmp_path: Path) -> None:
    report, _ = CASES["pass_without_baseline"](tmp_path)
    path = tmp_path / "report.json"
    path.write_text(__import__("json").dumps(report))
    out = tmp_path / "comment.md"
    result = run_cli(
        "render",
        "--report",
        str(path),
        "--format",
        "comment",
        "--out",
        str(out),
        "--template-dir",
        templates(tmp_path, "just text\n"),
    )
    assert result.code == 2 and "dropped the marker" in result.stderr
    assert not out.exists()
    ok = run_cli("render", "--report", str(path), "--format", "comment", "--out", str(out), "--comment-id", "x1")
    assert ok.code == 0 and out.read_text().startswith(comment_marker("x1"))


# -- the budget holds for any report -------------------------------------------------

names = st.text(min_size=0, max_size=300)
number = st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 5))


@st.composite
def reports(draw: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
    scale = draw(st.sampled_from([1, 30, 400]))
    strata = draw(st.lists(names, max_size=scale))
    metrics = {draw(names): {"value": draw(number)} for _ in range(draw(st.integers(0, 3)))}
    metrics["recall@5"] = {"value": draw(number)}
    report = {
        "tool": {"name": draw(names), "version": draw(names)},
        "config": {"k": [5]},
        "generated_at": draw(names),
        "inputs": {"judgments_sha256": draw(names), "run_sha256": draw(names)},
        "judgments": {
            "queries": draw(st.integers(0, 10**6)),
            "drift": {"invalid_ratio": draw(number), "orphaned": draw(number)},
        },
        "metrics": metrics,
        "per_stratum": {name: {"n": 3, "metrics": {"recall@5": {"value": draw(number)}}} for name in strata},
        "worst_stratum": {"name": draw(names), "metric": "recall@5", "value": draw(number)},
        "verdict": {
            "status": draw(st.sampled_from(["PASS", "FAIL", "INDETERMINATE", "??"])),
            "reasons": draw(st.lists(names, max_size=scale)),
            "gates": [
                {"expression": draw(names), "status": "FAIL", "reason": draw(names)}
                for _ in range(draw(st.integers(0, scale)))
            ],
        },
    }
    if draw(st.booleans()):
        return report, None
    mover = st.fixed_dictionaries(
        {
            "query_id": names,
            "query": st.one_of(st.none(), names),
            "stratum": names,
            "base": number,
            "head": number,
            "delta": number,
        }
    )
    comparison = {
        "metrics": {
            name: {
                "base": draw(number),
                "head": draw(number),
                "delta": draw(number),
                "ci": [0.1, 0.2],
                "confounded": draw(st.one_of(st.none(), names)),
            }
            for name in metrics
        },
        "per_stratum": {name: {"base": draw(number), "delta": draw(number)} for name in strata},
        "movers": {
            "metric": "recall@5",
            "drops": draw(st.lists(mover, max_size=scale)),
            "gains": draw(st.lists(mover, max_size=scale)),
        },
        "comparability": [
            {"code": draw(names), "effect": "confounds", "detail": draw(names), "meaning": draw(names)}
            for _ in range(draw(st.integers(0, scale)))
        ],
        "queries": {"paired": draw(st.integers(0, 10))},
    }
    return report, comparison


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(reports())
def test_any_comment_fits_githubs_limit_and_carries_the_marker(
    case: tuple[dict[str, Any], dict[str, Any] | None],
) -> None:
    report, comparison = case
    comment = render("comment", report=report, comparison=comparison, comment_id="prop")
    assert len(comment) <= COMMENT_LIMIT
    assert comment.startswith(comment_marker("prop") + "\n")
    assert comment.count(comment_marker("prop")) == 1


@pytest.mark.parametrize("name", [["faq"], {"faq": 1}, None, 3])
def test_a_worst_stratum_named_by_anything_but_a_string_still_renders(tmp_path: Path, name: Any) -> None:
    report, _ = CASES["pass_without_baseline"](tmp_path)
    report["worst_stratum"]["name"] = name
    for kind in ("comment", "summary", "text"):
        assert "PASS" in render(kind, report=report)


def test_the_comparison_an_evaluation_carries_renders_like_its_document(tmp_path: Path) -> None:
    from compare_data import NOW, labels, run, write_jsonl
    from retrieval_eval.core.gates import Gating
    from retrieval_eval.core.scoring import ScoreConfig
    from retrieval_eval.pipeline.evaluate import run_pipeline
    from retrieval_eval.pipeline.request import EvaluationRequest

    judgments = write_jsonl(tmp_path / "again-judgments.jsonl", labels())
    runs = write_jsonl(tmp_path / "again-run.jsonl", run(misses=[2, 9, 30]))
    evaluation = run_pipeline(
        EvaluationRequest(
            str(judgments),
            str(runs),
            ScoreConfig(k=(5, 10)),
            baseline=as_report(comparison_base(tmp_path)),
            generated_at=NOW,
            gating=Gating(gates=["recall@5:-0.02"]),
        )
    )
    assert evaluation.comparison is not None
    assert render("comment", report=evaluation.report, comparison=evaluation.comparison) == render(
        "comment", report=evaluation.report, comparison=evaluation.comparison.document
    )


def comparison_base(directory: Path) -> dict[str, Any]:
    from compare_data import labels, run, score

    return score(directory, "evaluated-base", labels(), run())


def test_terminal_text_carries_no_control_characters(tmp_path: Path) -> None:
    report, comparison = CASES["delta_fail"](tmp_path)
    assert comparison is not None
    comparison["movers"]["drops"][0]["query_id"] = "q\x1b[31mred\x07"
    text = render("text", report=report, comparison=comparison)
    assert "\x1b[31m" not in text and "\x07" not in text and "q\\x1b[31mred\\x07" in text


def test_interval_ends_print_as_signed_numbers() -> None:
    from retrieval_eval.render.numbers import fmt_delta, fmt_interval

    # An end at exactly zero is a number with a sign, not ±: the interval [0, 0.2778] touches 0 from above.
    assert fmt_interval([0.0, 0.277777777778]) == "[+0.0000, +0.2778]"
    assert fmt_interval([-0.0, 0.0]) == "[+0.0000, +0.0000]"
    assert fmt_interval([-0.175, 0.0]) == "[-0.1750, +0.0000]"
    assert fmt_interval([-0.00001, 0.1]) == "[-0.0000, +0.1000]"  # below zero, if not by four decimals
    assert fmt_interval(None) == "—" and fmt_interval([0.1]) == "—"
    assert fmt_delta(0.0) == "±0.0000"  # a delta of zero moved neither way


def test_the_queue_excerpt_reads_back_what_the_queue_lines_say() -> None:
    """Queue lines as the label queue writes them (a chunk key, a document key) come back in the
    excerpt field by field: the chunk id for a chunk, the URI for a document, only the first five."""
    from retrieval_eval.core.unjudged import QueueEntry
    from retrieval_eval.formats.queue import queue_line
    from retrieval_eval.pipeline.holes import queue_excerpt
    from retrieval_eval.render.unjudged import _queue_row

    chunk = QueueEntry(query_id="q1", key="doc://a#c2", rank=3, surfaced_by="head", move=0.25, query_moved=0.0)
    document = QueueEntry(query_id="q2", key="doc://b", rank=1, surfaced_by="both", move=0.5, query_moved=0.1)
    lines = [
        queue_line(chunk, query_text="refund?", document="doc://a", chunk_text="text", is_chunk=True),
        queue_line(document, query_text=None, document=None, chunk_text=None, is_chunk=False),
    ]
    excerpt = queue_excerpt(lines * 3, "retrieval-eval holes --queue q.jsonl")
    assert excerpt.count == 6 and excerpt.command == "retrieval-eval holes --queue q.jsonl"
    rows = [_queue_row(line) for line in excerpt.top[:2]]
    assert [(r.query_id, r.query, r.key, r.rank, r.side, r.move) for r in rows] == [
        ("q1", "refund?", escape_markdown("doc://a#c2", limit=80), "3", "head", "+0.2500"),
        ("q2", "—", escape_markdown("doc://b", limit=80), "1", "both", "+0.5000"),
    ]  # a chunk shows its chunk id, a document its URI, both as the comment escapes them
    assert len(excerpt.top) == 5
    assert queue_excerpt([], "cmd", count=40).count == 40  # counted, not built


ATTRIBUTES = (
    "{{ marker }}\n{{ verdict.status }} {{ verdict.icon }} {{ scored.queries }} {{ metrics.total }}\n"
    "{% for row in metrics.rows %}{{ row.name }} {{ row.delta }} {{ row.gate }} {{ row.p_adjusted }}\n{% endfor %}"
    "{% for row in strata.rows %}{{ row.name }} {{ row.n }}\n{% endfor %}"
    "{% for row in unjudged.queue %}{{ row.query_id }} {{ row.key }} {{ row.move }}\n{% endfor %}"
    "{{ unjudged.metric }} {{ unjudged.queued }} {{ movers.drops | length }} {{ queries.paired }}\n"
)


def test_a_user_template_reads_the_documented_names_by_attribute_or_by_subscript(tmp_path: Path) -> None:
    """docs/compare.md names what a template sees as ``verdict.status``, ``metrics.rows`` and so on;
    a template written with subscripts (``verdict["status"]``) reads the very same values."""
    report, comparison = CASES["judged_drop_with_queue"](tmp_path)
    queue = QUEUES["judged_drop_with_queue"]
    subscripts = re.sub(
        r"\b(verdict|scored|metrics|row|unjudged|movers|queries|strata)\.(\w+)", r'\1["\2"]', ATTRIBUTES
    )
    assert subscripts.count('["') == 20
    drawn = [
        render("comment", report=report, comparison=comparison, queue=queue, template_dir=templates(tmp_path, text))
        for text in (ATTRIBUTES, subscripts)
    ]
    assert drawn[0] == drawn[1]
    assert "\nFAIL ❌ 12 15\nrecall@3 **-0.5000** ❌" in drawn[0] and "\njudged@3 24 10 12\n" in drawn[0]
    first = queue.top[0]
    key = (first.chunk_id or first.doc_uri).replace("//", "&#8203;//")
    assert f"{first.query_id} {key} +{first.move:.4f}" in drawn[0]
