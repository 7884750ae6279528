"""A rewrite never turns a valid file into an invalid one: what we do not interpret comes back as written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers import fixture_path, run_cli

# Numbers no rule reads, in forms a float cannot carry: past a double's range, under it, more
# digits than a double holds, a negative zero, an exponent's own spelling.
ODD_NUMBERS = '"score":1e400,"tiny":1e-400,"long":0.12345678901234567890123,"zero":-0.0,"exp":2E+3'


def test_convert_gives_back_unknown_numbers_as_written_and_the_result_validates(tmp_path: Path) -> None:
    source = tmp_path / "j.jsonl"
    source.write_text('{"query_id":"q1","doc_uri":"d1","relevance":1,"extra":{' + ODD_NUMBERS + "}}\n")
    out = tmp_path / "out.jsonl"
    assert run_cli("convert", str(source), "--to", "judgments", "--out", str(out)).code == 0
    assert out.read_text() == source.read_text()  # already canonical: byte for byte
    assert run_cli("validate", "-j", str(out)).code == 0


def test_drift_fix_keeps_unknown_numbers_of_the_labels_it_repairs(tmp_path: Path) -> None:
    judgments = tmp_path / "judgments.jsonl"
    lines = Path(fixture_path("drift", "judgments.jsonl")).read_text().splitlines()
    odd = json.loads("{" + ODD_NUMBERS + "}")
    assert odd["score"] == float("inf")  # what a plain reading would write back
    judgments.write_text("\n".join(line[:-1] + ", " + ODD_NUMBERS + "}" for line in lines) + "\n")
    corpus = tmp_path / "corpus.json"
    shutil.copy(fixture_path("drift", "corpus.json"), corpus)
    fixed = run_cli("drift", "-j", str(judgments), "-c", str(corpus), "--fix")
    assert fixed.code in (0, 1) and "Traceback" not in fixed.stderr, fixed.stderr
    text = judgments.read_text()
    assert "Infinity" not in text and '"tiny":0.0' not in text
    assert text.count('"score":1e400') >= len(lines) - 2  # collapsed labels keep theirs inside collapsed_from
    assert run_cli("validate", "-j", str(judgments)).code in (0, 1)
    assert "not valid JSON" not in run_cli("validate", "-j", str(judgments)).stderr
