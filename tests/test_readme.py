"""The README is a front door that works: every command in it runs, every file it shows is real.

The walkthrough's commands run in a copy of examples/first-eval-set/; their numbers are checked
against values computed by hand, and the example's chunk ids against the spec's formula computed
here with hashlib (not with the package).
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import unicodedata
from pathlib import Path

import pytest
import yaml

from helpers import CliResult, run_cli
from retrieval_eval.core.gates import parse_gate

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
EXAMPLE = ROOT / "examples" / "first-eval-set"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(README.read_text(encoding="utf-8")) if lang == language]


def commands() -> list[str]:
    return [line[2:] for block in blocks("console") for line in block.splitlines() if line.startswith("$ ")]


def test_the_readme_is_a_front_door_of_at_most_250_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_quick_start_is_two_lines_and_ci_runs_the_second() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quick start") :]
    lang, body = FENCE.search(section).groups()  # type: ignore[union-attr]
    demo, tests = body.splitlines()
    assert demo.endswith("pip install -q . && retrieval-eval demo")
    assert tests.endswith("pip install -q -e '.[test]' && python -m pytest -q")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci, "CI's test command must be the README's second Quick start line"


def test_the_readme_links_resolve() -> None:
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8")):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CliResult]:
    """Every README command, run in order in a copy of the example folder, as a user would."""
    folder = tmp_path_factory.mktemp("first-eval-set")
    shutil.copytree(EXAMPLE, folder, dirs_exist_ok=True)
    done = {}
    for command in commands():
        argv = shlex.split(command)
        assert argv[0] == "retrieval-eval", command
        done[command] = run_cli(*argv[1:], cwd=folder)
    done["report"] = json.loads((folder / "report.json").read_text(encoding="utf-8"))  # type: ignore[assignment]
    return done


def test_every_readme_command_runs_and_prints_what_the_readme_shows(
    walkthrough: dict[str, CliResult],
) -> None:
    assert len(commands()) >= 6
    for block in blocks("console"):
        command = ""
        for line in block.splitlines():
            if line.startswith("$ "):
                command = line[2:]
                result = walkthrough[command]
                assert result.code == 0, (command, result.stderr)
            else:
                assert line in walkthrough[command].stdout, (command, line)


def test_the_walkthrough_numbers_are_the_hand_computed_ones(
    walkthrough: dict[str, CliResult],
) -> None:
    metrics = walkthrough["report"]["metrics"]  # type: ignore[index]
    # q1 finds its first relevant chunk at rank 1, q2 at rank 2, q3 at rank 3; each query's
    # relevant chunks are all in its top 3; of 3 keys in each top 3, 2, 1 and 1 are relevant.
    assert metrics["mrr@3"]["value"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3, abs=1e-12)
    assert metrics["recall@3"]["value"] == 1
    assert metrics["precision@3"]["value"] == pytest.approx((2 + 1 + 1) / 9, abs=1e-12)
    assert metrics["recall@1"]["value"] == pytest.approx((1 / 2) / 3, abs=1e-12)
    assert walkthrough["report"]["verdict"]["status"] == "PASS"  # type: ignore[index]


def _spec_chunk_id(chunk: dict[str, object], chunker: str) -> str:
    text = unicodedata.normalize("NFC", str(chunk["text"])).replace("\r\n", "\n").replace("\r", "\n").strip()
    fields = [str(chunk["doc_uri"]), str(chunk["doc_revision"]), str(chunk["ordinal"]), text, chunker]
    return "c1:" + hashlib.sha256("\x1f".join(fields).encode("utf-8")).hexdigest()[:32]


def test_the_example_chunk_ids_follow_the_spec_formula() -> None:
    header, *chunks = (json.loads(line) for line in (EXAMPLE / "corpus.jsonl").read_text(encoding="utf-8").splitlines())
    for chunk in chunks:
        assert chunk["chunk_id"] == _spec_chunk_id(chunk, header["chunker_fingerprint"])
    ids = {chunk["chunk_id"] for chunk in chunks}
    for name in ("judgments.jsonl", "run.jsonl"):
        for line in (EXAMPLE / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            assert set(record.get("ranking", [record.get("chunk_id")])) <= ids, (name, line)


def test_the_file_format_examples_are_lines_of_the_example_files() -> None:
    lines = {
        json.dumps(json.loads(line), sort_keys=True)
        for name in ("judgments.jsonl", "run.jsonl", "corpus.jsonl")
        for line in (EXAMPLE / name).read_text(encoding="utf-8").splitlines()
    }
    shown = [json.loads(line) for block in blocks("json") for line in block.splitlines()]
    assert len(shown) == 4
    for record in shown:
        assert json.dumps(record, sort_keys=True) in lines


def test_the_workflow_file_uses_only_real_inputs_and_valid_gates() -> None:
    (workflow,) = blocks("yaml")
    steps = yaml.safe_load(workflow)["jobs"]["eval"]["steps"]
    (action,) = [step for step in steps if str(step.get("uses", "")).startswith("aton-of-data/retrieval-eval@")]
    inputs = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    assert set(action["with"]) <= set(inputs)
    ks = tuple(int(k) for k in str(action["with"]["k"]).split(","))
    for gate in action["with"]["gates"].split():
        parse_gate(gate, ks=ks)
