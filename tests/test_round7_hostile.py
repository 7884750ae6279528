"""Round 7: hostile strings in the page's new sections, checked where the page is built."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from helpers import run_cli
from retrieval_eval.core.report_model import Calibration, Config, MachineGate, MachineLabels
from retrieval_eval.formats.report import load_report
from retrieval_eval.pipeline.compare import compare_documents
from retrieval_eval.render.html import html_report

EVIL = "ok\u202eexe.txt\x1b[31m\u2066"


def _report(tmp_path: Path) -> Path:
    (tmp_path / "j.jsonl").write_text('{"query_id":"q1","query":"x","doc_uri":"d1","relevance":1}\n')
    (tmp_path / "r.jsonl").write_text('{"query_id":"q1","ranking":["d1","d2"]}\n')
    out = tmp_path / "report.json"
    result = run_cli("score", "-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / "r.jsonl"), "--out", str(out))
    assert result.code == 0, result.stderr
    return out


def test_the_machine_labels_section_shows_hidden_characters_by_code_point(tmp_path: Path) -> None:
    # A report read back (render --report) may hold anything in its machine-labels block: the
    # page shows every other user string's reordering and control characters by code point.
    report = load_report(str(_report(tmp_path)))
    gate = MachineGate(
        expression="recall@10:0.5" + EVIL, metric="recall@10", human_status="PASS" + EVIL, status="FAIL", note=EVIL
    )
    machine = MachineLabels(
        holes=3,
        machine_labeled=1,
        human_labels_verdict="PASS" + EVIL,
        calibration=Calibration(status="calibrated" + EVIL),
        gates=(gate,),
    )
    page = html_report(dataclasses.replace(report, machine_labels=machine))
    section = page[page.index('id="machine-labels"') : page.index("</section>", page.index('id="machine-labels"'))]
    assert "&lt;U+202E&gt;" in section
    assert "\u202e" not in section and "\x1b" not in section and "\u2066" not in section


def test_the_unjudged_section_of_the_page_shows_a_policy_s_hidden_characters(tmp_path: Path) -> None:
    # judged@10 falls (the head ranks keys nobody labeled): the page's unjudged section names the
    # policy the report states, which a report read back may hold anything in.
    (tmp_path / "j.jsonl").write_text(
        "".join(f'{{"query_id":"q{i}","query":"x","doc_uri":"d{i}","relevance":1}}\n' for i in range(4))
    )
    for side, keys in (("base", '"d{i}"'), ("head", '"u{i}","v{i}","d{i}"')):
        lines = "".join(f'{{"query_id":"q{i}","ranking":[{keys.format(i=i)}]}}\n' for i in range(4))
        (tmp_path / f"{side}.jsonl").write_text(lines)
        args = ("-j", str(tmp_path / "j.jsonl"), "-r", str(tmp_path / f"{side}.jsonl"))
        result = run_cli("score", *args, "--out", str(tmp_path / f"{side}.json"))
        assert result.code == 0, result.stderr
    base, head = (load_report(str(tmp_path / f"{side}.json")) for side in ("base", "head"))
    head = dataclasses.replace(head, config=dataclasses.replace(head.config or Config(), unjudged="x" + EVIL))
    document = compare_documents(base, head, None, resamples=200, seed=1, power=0.8)
    page = html_report(head, document, base=base)
    start = page.index('<section id="unjudged">')
    section = page[start : page.index("</section>", start)]
    assert "&lt;U+202E&gt;" in section and "\u202e" not in section and "\x1b" not in section
