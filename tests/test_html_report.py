"""The HTML report: what the page says, that user text stays text, that nothing leaves the page.

The pure tests read the page's markup with the standard library's HTML parser;
the browser tests (marked ``browser``) open it in headless Chromium and read
the DOM after the page's script ran.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import re
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from browser import dump_dom, dump_dom_and_screenshot, needs_chromium
from compare_data import labels, run, score, write_jsonl
from from_json import build_comparison, html_report, shown_queries
from helpers import run_cli
from retrieval_eval.formats.judgments import parse_judgments
from retrieval_eval.render.html import plain

DEMO = files("retrieval_eval") / "demo"


class Page(HTMLParser):
    """Every element of a page with its attributes, the text of each element id, and the text shown."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None
        self.feed(markup)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._in = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_endtag(self, tag: str) -> None:
        self._in = None if tag in ("script", "style") else self._in

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in == "style":
            self.styles[-1] += data
        else:
            self.text.append(data)

    def tags(self, name: str) -> list[dict[str, str | None]]:
        return [attrs for tag, attrs in self.elements if tag == name]

    def csp(self) -> str:
        metas = [m for m in self.tags("meta") if (m.get("http-equiv") or "").lower() == "content-security-policy"]
        assert len(metas) == 1, "exactly one Content-Security-Policy meta tag"
        return metas[0]["content"] or ""


def sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


# -- the demo -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The bundled example scored as ``retrieval-eval demo`` scores it, compared, and drawn as a page."""
    folder = tmp_path_factory.mktemp("demo")
    paths = {name: Path(str(DEMO / name)) for name in ("judgments.jsonl", "run.jsonl", "baseline.json", "corpus.json")}
    head, comparison, page = folder / "head.json", folder / "cmp.json", folder / "demo.html"
    scored = run_cli(
        "score", "-j", str(paths["judgments.jsonl"]), "-r", str(paths["run.jsonl"]), "-k", "5,10",
        "--baseline", str(paths["baseline.json"]), "--now", "2026-11-29T12:00:00Z", "--report", str(head),
        "-g", "recall@5:0.8", "-g", "recall@5:-0.05", "-g", "worst-stratum:recall@5:0.6", "--color", "never",
    )  # fmt: skip
    assert scored.code == 0, scored.stderr
    compared = run_cli(
        "compare", "--base", str(paths["baseline.json"]), "--head", str(head),
        "-j", str(paths["judgments.jsonl"]), "--out", str(comparison),
    )  # fmt: skip
    assert compared.code == 0, compared.stderr
    rendered = run_cli(
        "render", "--report", str(head), "--compare", str(comparison), "--format", "html", "--out", str(page),
        "--base", str(paths["baseline.json"]), "-j", str(paths["judgments.jsonl"]),
        "--corpus", str(paths["corpus.json"]),
    )  # fmt: skip
    assert rendered.code == 0, rendered.stderr
    return {"page": page, "head": head, "comparison": comparison, "folder": folder}


def test_the_page_is_self_contained_under_a_strict_policy(demo: dict[str, Path]) -> None:
    page = Page(demo["page"].read_text(encoding="utf-8"))
    policy = dict((part.split()[0], part.split()[1:]) for part in (p.strip() for p in page.csp().split(";")) if part)
    # One inline script and one style sheet, each allowed by its own hash and nothing else.
    assert len(page.scripts) == 1 and len(page.styles) == 1
    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == [sha256_source(page.scripts[0])]
    assert policy["style-src"] == [sha256_source(page.styles[0])]
    assert policy["img-src"] == ["data:"]
    # Nothing is loaded from anywhere: no src or href leaves the page.
    for _, attrs in page.elements:
        for name in ("src", "href", "action", "srcset", "data", "poster"):
            value = attrs.get(name)
            assert value is None or value.startswith("#"), f"{name}={value!r} points outside the page"
    assert not re.search(r"(?i)(src|href)\s*=\s*[\"']?\s*(https?:)?//", demo["page"].read_text(encoding="utf-8"))


def test_the_page_holds_the_verdict_gates_metrics_strata_and_queries(demo: dict[str, Path]) -> None:
    markup = demo["page"].read_text(encoding="utf-8")
    page = Page(markup)
    ids = {attrs.get("id") for _, attrs in page.elements}
    assert {"verdict-status", "gates", "metrics-table", "strata-chart", "strata-table", "queries-table"} <= ids
    text = " ".join(" ".join(page.text).split())
    assert "PASS" in text
    # The demo's head gains a hit on b6 and s4 and loses s1's: recall@5 +1/18 (from 0.7500 to 0.8056).
    assert "recall@5 0.8056, +0.0556 vs base" in text
    assert "All 18 queries, moved most on recall@5 first." in text
    # The history block is left for the history chart: empty, and named in the template.
    assert "{% block history %}{% endblock %}" in (files("retrieval_eval") / "templates" / "report.html.j2").read_text()


def test_queries_that_moved_most_come_first_and_the_rest_are_counted(tmp_path: Path) -> None:
    base = score(tmp_path, "base", labels(6), run(6))
    head = score(tmp_path, "head", labels(6), run(6, misses=[4, 1]))
    # q01 and q04 lost both hits (recall@5 1 -> 0); the others did not move and follow by id.
    assert shown_queries(head, base, 3) == ["q01", "q04", "q00"]
    page = html_report(head, None, base=base, query_limit=3)
    text = " ".join(" ".join(Page(page).text).split())
    assert "The 3 queries moved most on recall@5 of 6; the other 3 are left out of this page" in text


def test_a_comparability_finding_is_shown_whole_up_to_its_limit(tmp_path: Path) -> None:
    """The page is where a reader goes for the detail: a finding's detail and meaning (a re-chunk's
    names the labels that broke, then the command that lists them) are not cut shorter there than
    in the job summary (500 characters); past 2,000 the page cuts them too."""
    base = score(tmp_path, "base", labels(3), run(3))
    head = score(tmp_path, "head", labels(3), run(3, misses=[1]))
    comparison = build_comparison(base, head)
    long_detail = "labels broke: " + ", ".join(f"q{i:03d}/c1:{i:032x}" for i in range(20)) + "; list them: holes"
    longer = "x" * 2_500
    assert 500 < len(long_detail) < 2_000
    comparison["comparability"] = [
        {"code": "rechunk", "effect": "confounds", "detail": long_detail, "meaning": "end of the first"},
        {"code": "other", "effect": "none", "detail": longer, "meaning": "m"},
    ]
    text = " ".join(Page(html_report(head, comparison, base=base)).text)
    assert long_detail in text and "end of the first" in text
    assert "x" * 1_990 in text and "x" * 2_001 not in text


def test_a_reason_is_shown_whole_up_to_the_findings_limit(tmp_path: Path) -> None:
    """A reason is ours as a finding is (the power reason names every stratum with its figures):
    the page cut it at 300 characters, mid-word, where the summary and the terminal show it whole."""
    head = score(tmp_path, "head", labels(3), run(3))
    long_reason = "detectable within each stratum: " + ", ".join(
        f"s{i:02d}: 4 queries detect 0.{i:03d}" for i in range(20)
    )
    assert 500 < len(long_reason) < 2_000
    head["verdict"]["reasons"] = [long_reason, "y" * 2_500]
    text = " ".join(Page(html_report(head)).text)
    assert long_reason in text
    assert "y" * 1_990 in text and "y" * 2_001 not in text


def test_each_key_shows_its_grade_not_relevant_or_unjudged(tmp_path: Path) -> None:
    rows = labels(2)
    base = score(tmp_path, "base", rows, run(2))
    head_run = [{"query_id": "q00", "ranking": ["doc://0/z", "doc://0/a", "doc://new/1"]}, *run(2)[1:]]
    head = score(tmp_path, "head", rows, head_run, threshold=2)
    page = html_report(head, None, base=base, judgments=str(tmp_path / "head-judgments.jsonl"))
    sides = _side_by_side(page, "q00")
    # Threshold 2: a (grade 2) is relevant, b (grade 1) and z (grade 0) are not; doc://new/1 has no label.
    assert sides["head"][:3] == [
        ("not relevant", "doc://0/z"),
        ("grade 2", "doc://0/a"),
        ("unjudged", "doc://new/1"),
    ]
    assert sides["base"][:3] == [
        ("grade 2", "doc://0/a"),
        ("not relevant (grade 1)", "doc://0/b"),
        ("unjudged", "doc://noise/0/0"),
    ]


def _side_by_side(markup: str, query_id: str) -> dict[str, list[tuple[str, str]]]:
    """(label, key) per rank on each side of one query's section, read from the markup."""
    section = re.search(rf'<details class="query"[^>]*data-search="{query_id} .*?</details>', markup, re.S)
    assert section, f"no section for {query_id}"
    sides = {}
    for side in ("base", "head"):
        block = re.search(rf'<div class="side-{side}">(.*?)</ol>', section.group(0), re.S)
        assert block, f"no {side} side"
        sides[side] = re.findall(
            r'<span class="label [^"]*">([^<]*)</span> <span class="key">([^<]*)</span>', block.group(1)
        )
    return sides


def test_a_judgments_file_other_than_the_scored_one_is_refused(demo: dict[str, Path], tmp_path: Path) -> None:
    other = write_jsonl(tmp_path / "other.jsonl", labels(2))
    result = run_cli("render", "--report", str(demo["head"]), "--format", "html", "-j", str(other))
    assert result.code == 2
    assert "other.jsonl" in result.stderr and "not the judgments file the report was scored with" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("--format", "summary", "--corpus", "c.json"), "--corpus is read by --format html only"),
        (("--format", "html", "--template-dir", "."), "--template-dir applies to the Markdown formats"),
    ],
)
def test_options_for_another_format_are_refused(demo: dict[str, Path], args: tuple[str, ...], problem: str) -> None:
    result = run_cli("render", "--report", str(demo["head"]), *args)
    assert result.code == 2 and problem in result.stderr


def test_hidden_characters_are_shown_as_code_points() -> None:
    assert plain("abc\u202edef\u2066x\x07") == "abc<U+202E>def<U+2066>x<U+0007>"


# -- hostile text -------------------------------------------------------------------------------

PWNED = "document.title='pwned'"


def hostile_texts(port: int) -> list[str]:
    """Query texts and strata that try to run script, load something, or reorder the page."""
    local = f"http://127.0.0.1:{port}"
    return [
        f"<script>{PWNED}</script>",
        f'<img src="{local}/img.png" onerror="{PWNED}">',
        f'</textarea></title></style><svg onload="{PWNED}"><iframe src="{local}/frame"></iframe>',
        f'<a href="javascript:{PWNED}">click</a> javascript:alert(1)',
        f'<link rel="stylesheet" href="{local}/style.css"><meta http-equiv="refresh" content="0;url={local}/go">',
        "\u202egnp.exe\u202c safe \u2066isolated\u2069",
    ]


@pytest.fixture
def requests_seen() -> Iterator[tuple[int, list[str]]]:
    """A local web server that records every request: the page must make none."""
    seen: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the handler's required name)
            seen.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], seen
    finally:
        server.shutdown()
        server.server_close()


def hostile_page(directory: Path, port: int) -> Path:
    texts = hostile_texts(port)
    rows = labels(len(texts), texts=texts, strata=texts)
    base = score(directory, "base", rows, run(len(texts)))
    head = score(directory, "head", rows, run(len(texts), misses=[0, 2, 4]), baseline=base)
    comparison = build_comparison(base, head, judgments=parse_judgments(str(directory / "head-judgments.jsonl")))
    page = directory / "hostile.html"
    judgments = str(directory / "head-judgments.jsonl")
    page.write_text(html_report(head, comparison, base=base, judgments=judgments), encoding="utf-8")
    return page


def test_hostile_text_is_escaped_in_the_markup(tmp_path: Path) -> None:
    page = Page(hostile_page(tmp_path, 9).read_text(encoding="utf-8"))
    assert len(page.scripts) == 1 and PWNED not in page.scripts[0]
    assert not page.tags("img") and not page.tags("iframe") and not page.tags("link") and not page.tags("textarea")
    assert [svg.get("class") for svg in page.tags("svg")] == ["chart"]  # ours, the strata chart
    assert all((a.get("href") or "").startswith("#q-") for a in page.tags("a"))
    assert len(page.tags("meta")) == 4  # charset, CSP, viewport, referrer: none from the text
    shown = " ".join(page.text)
    assert f"<script>{PWNED}</script>" in shown  # as text, whole
    assert "<U+202E>gnp.exe<U+202C>" in shown and "\u202e" not in shown


@pytest.mark.browser
@needs_chromium
def test_hostile_text_neither_runs_nor_loads_anything_in_a_browser(
    tmp_path: Path, requests_seen: tuple[int, list[str]]
) -> None:
    port, seen = requests_seen
    page = hostile_page(tmp_path, port)
    dom = dump_dom_and_screenshot(page, tmp_path / "hostile.png", budget_ms=2000)
    after = Page(dom)
    titles = re.findall(r"<title>(.*?)</title>", dom, re.S)
    assert titles[0] == "retrieval-eval · PASS", "a hostile script changed the title"
    assert len(after.scripts) == 1
    assert not after.tags("img") and not after.tags("iframe") and not after.tags("link")
    assert f"<script>{PWNED}</script>" in " ".join(after.text)
    assert seen == [], f"the page made requests: {seen}"


# -- in a browser ---------------------------------------------------------------------------


@pytest.mark.browser
@needs_chromium
def test_the_demo_page_in_a_browser_shows_the_verdict_and_side_by_side_rankings(demo: dict[str, Path]) -> None:
    offline = ("--host-resolver-rules=MAP * ~NOTFOUND",)
    shot = demo["folder"] / "demo.png"
    dom = dump_dom_and_screenshot(demo["page"], shot, extra=offline)
    assert re.search(r'id="verdict-status">PASS<', dom)
    # b6 "discount for teams": recall@5 went from 0 to 1, its relevant chunk now ranked 4th in the head.
    section = re.search(r'<details class="query"[^>]*data-search="b6 .*?</details>', dom, re.S)
    assert section and "discount for teams" in section.group(0)
    head = re.search(r'<div class="side-head">(.*?)</ol>', section.group(0), re.S)
    assert head is not None
    entries = re.findall(r'<li><span class="rank">(\d+)</span>(.*?)</li>', head.group(1), re.S)
    graded = [(rank, body) for rank, body in entries if "grade 3" in body]
    assert [rank for rank, _ in graded] == ["4"]
    assert "Teams of five or more can ask for a volume discount." in graded[0][1]  # the chunk text, from the corpus
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize(
    ("fragment", "table", "first"),
    [
        ("#sort=queries-table.0.desc", "queries-table", "s6"),  # by id, text order
        # by head value, as numbers: 0, the demo run abstains on no answerable query
        ("#sort=metrics-table.2.asc", "metrics-table", "false_abstention_rate"),
        ("#sort=metrics-table.2.desc", "metrics-table", "recall@10"),  # 1.0000; hit_rate@10 ties and follows
    ],
)
def test_sorting_reorders_a_table(demo: dict[str, Path], fragment: str, table: str, first: str) -> None:
    dom = dump_dom(demo["page"], fragment=fragment)
    body = re.search(rf'id="{table}".*?<tbody>(.*?)</tbody>', dom, re.S)
    assert body is not None
    first_cell = re.search(r"<td>(?:<a [^>]*>)?([^<]*)", body.group(1))
    assert first_cell and first_cell.group(1) == first
    assert 'aria-sort="' in re.search(rf'id="{table}".*?</thead>', dom, re.S).group(0)  # type: ignore[union-attr]


@pytest.mark.browser
@needs_chromium
def test_filtering_hides_the_queries_that_do_not_match(demo: dict[str, Path]) -> None:
    dom = dump_dom(demo["page"], fragment="#filter=refund")
    shown = [q for q in re.findall(r'<details class="query( hidden)?"[^>]*data-search="(\w+) ', dom) if not q[0]]
    # "refund" is in b1 and b2's text only.
    assert [q for _, q in shown] == ["b1", "b2"]


# -- the action ---------------------------------------------------------------------------------


def test_the_action_writes_the_page_beside_the_report(tmp_path: Path) -> None:
    from action_workspace import make_workspace
    from fake_github import FakeGitHub
    from test_action_integration import REPO, act

    workspace = make_workspace(tmp_path)
    with FakeGitHub(repo=REPO).serve() as fake:
        run = act(workspace, fake)
    assert run.code == 0 and run.outputs["html-path"] == "retrieval-eval-report.html"
    page = Page((workspace.root / run.outputs["html-path"]).read_text(encoding="utf-8"))
    text = " ".join(" ".join(page.text).split())
    assert "PASS" in text and "compared with the base branch" in text
    # The base report found on the base branch gave its rankings: both sides are drawn.
    markup = (workspace.root / run.outputs["html-path"]).read_text(encoding="utf-8")
    assert 'class="side-base"' in markup and "carries no rankings" not in markup


def test_a_report_alone_draws_the_head_and_says_what_is_missing(tmp_path: Path) -> None:
    head = score(tmp_path, "head", labels(3), run(3, misses=[1]))
    drift = {"valid": 4, "re_anchorable": 1, "orphaned": 0, "invalid_ratio": 0.2, "repair_command": "fix </pre> me"}
    head["judgments"]["drift"] = drift
    markup = html_report(head)
    text = " ".join(" ".join(Page(markup).text).split())
    assert "All 3 queries, lowest on recall@5 first. Each shows the top 5 of the head." in text
    assert "No judgments were given (-j)" in text and "No corpus was given (--corpus)" in text
    assert "20.0% of the labels no longer point at the live corpus" in text
    assert "fix </pre> me" in text and 'class="side-base"' not in markup
    assert shown_queries(head, None)[0] == "q01"  # the one that missed
    # The one stale label orphaned: nothing to re-anchor, so no fix is offered, and the page says so.
    head["judgments"]["drift"] = {**drift, "re_anchorable": 0, "orphaned": 1}
    text = " ".join(" ".join(Page(html_report(head)).text).split())
    assert "fix </pre> me" not in text and "none can be re-anchored automatically" in text


# -- the page has every section the summary has ----------------------------------------------


def _scenario(folder: Path, corpus: Path) -> dict[str, Path]:
    """The demo's own command (floor, gates, corpus) on ``corpus``; the head report, its comparison,
    the job summary and the page, each made by the CLI."""
    from retrieval_eval.commands.demo import DEMO_GATES, DEMO_NOW

    source = {name: Path(str(DEMO / name)) for name in ("judgments.jsonl", "run.jsonl", "baseline.json")}
    out = {name: folder / name for name in ("head.json", "cmp.json", "summary.md", "page.html")}
    gates = [arg for gate in DEMO_GATES for arg in ("-g", gate)]
    scored = run_cli(
        "score", "-j", str(source["judgments.jsonl"]), "-r", str(source["run.jsonl"]), "-k", "5,10",
        "--baseline", str(source["baseline.json"]), "--corpus", str(corpus), "--floor", "bm25",
        "--now", DEMO_NOW, "--report", str(out["head.json"]), *gates,
    )  # fmt: skip
    assert scored.code in (0, 1), scored.stderr
    compared = run_cli(
        "compare", "--base", str(source["baseline.json"]), "--head", str(out["head.json"]),
        "-j", str(source["judgments.jsonl"]), "--out", str(out["cmp.json"]),
    )  # fmt: skip
    assert compared.code == 0, compared.stderr
    both = ("--report", str(out["head.json"]), "--compare", str(out["cmp.json"]))
    assert run_cli("render", *both, "--format", "summary", "--out", str(out["summary.md"])).code == 0
    rendered = run_cli(
        "render", *both, "--format", "html", "--out", str(out["page.html"]), "--base", str(source["baseline.json"]),
        "-j", str(source["judgments.jsonl"]), "--corpus", str(corpus),
    )  # fmt: skip
    assert rendered.code == 0, rendered.stderr
    return out


def _rechunked(folder: Path) -> Path:
    """The demo corpus after a chunker change moved the refunds document's chunks (same text, new ids)."""
    from action_workspace import rechunked_corpus

    path = folder / "rechunked.json"
    path.write_text(json.dumps(rechunked_corpus("help://billing/refunds")), encoding="utf-8")
    return path


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("scenario", ["demo", "rechunk"])
def test_the_page_has_every_section_the_summary_has(scenario: str, tmp_path: Path) -> None:
    from from_json import sections_of
    from test_sections import HTML, SUMMARY, has_marker

    corpus = _rechunked(tmp_path) if scenario == "rechunk" else Path(str(DEMO / "corpus.json"))
    out = _scenario(tmp_path, corpus)
    head = json.loads(out["head.json"].read_text(encoding="utf-8"))
    comparison = json.loads(out["cmp.json"].read_text(encoding="utf-8"))
    sections = sections_of(head, comparison)
    # What the demo holds by construction: a floor, an easy stratum, six gates, two gains, no-answer queries.
    assert {"floor", "eval_set", "gates", "drift", "strata", "movers", "reasons"} <= set(sections)
    summary = out["summary.md"].read_text(encoding="utf-8")
    dom = dump_dom(out["page.html"], extra=("--host-resolver-rules=MAP * ~NOTFOUND",))
    for name in sections:
        assert has_marker(summary, SUMMARY[name]), f"the summary lacks {name}"
        assert HTML[name] in dom, f"the page lacks {name}, which the summary has"
    # Gates with their labels: the table's header names each column, each row its gate and status.
    gates = re.search(r'<table id="gates-table">(.*?)</table>', dom, re.S)
    assert gates and re.search(r"<th>gate</th><th>status</th><th>detail</th>", gates.group(1))
    assert gates.group(1).count("<code>") == 6 and "worst-stratum:recall@5:0.6" in gates.group(1)
    floor = re.search(r'<section id="floor">(.*?)</section>', dom, re.S)
    assert floor and "recall@5" in floor.group(1) and "95% interval" in floor.group(1)
    eval_set = re.search(r'<section id="eval-set">(.*?)</section>', dom, re.S)
    assert eval_set and "easy-set" in eval_set.group(1)
    drift = re.search(r'<section id="drift">(.*?)</section>', dom, re.S)
    assert drift is not None
    if scenario == "demo":
        assert "Every label still points at the live corpus." in drift.group(1)
        assert "repair-command" not in drift.group(1) and "drift --fix" not in drift.group(1)
    else:
        # The refunds document's three chunks got new ids: its 3 labels can be re-anchored, by construction.
        assert "no longer point at the live corpus" in drift.group(1) and "3 re-anchorable" in drift.group(1)
        assert 'id="repair-command"' in drift.group(1) and "--fix" in drift.group(1)
        assert "the chunker changed" in drift.group(1)
        assert "3 re-anchorable" in summary
