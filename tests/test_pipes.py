"""An input read from a pipe is read once: its numbers are those of the same bytes in a file.

Format detection, hashing and reading each used to open the path again; a pipe gives
its bytes only once, so the second reader saw nothing (a run scoring zeros, a floor
with no queries) and the command still exited 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

JUDGMENTS = [{"query_id": f"q{i}", "query": "t", "doc_uri": f"d{i}", "relevance": 1} for i in range(4)]
RUN = [{"query_id": f"q{i}", "ranking": [f"d{i}", "x"]} for i in range(4)]
FLOOR = [{"query_id": f"q{i}", "ranking": ["x", "y"]} for i in range(4)]


def write(path: Path, lines: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def cli(*args: str, stdin: bytes, report: Path) -> tuple[int, dict]:  # type: ignore[type-arg]
    done = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", *args, "--report", str(report)],
        input=stdin,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr.decode()
    return done.returncode, json.loads(report.read_text())


def test_a_run_on_stdin_scores_as_the_same_file(tmp_path: Path) -> None:
    judgments = write(tmp_path / "j.jsonl", JUDGMENTS)
    run = write(tmp_path / "run.jsonl", RUN)
    _, from_file = cli("score", "-j", str(judgments), "-r", str(run), "-k", "1", stdin=b"", report=tmp_path / "a.json")
    _, piped = cli(
        "score", "-j", str(judgments), "-r", "/dev/stdin", "-k", "1", stdin=run.read_bytes(), report=tmp_path / "b.json"
    )
    assert from_file["metrics"]["recall@1"]["value"] == 1.0
    assert piped["metrics"] == from_file["metrics"]
    assert piped["inputs"]["run_sha256"] == from_file["inputs"]["run_sha256"]


def test_a_floor_on_stdin_is_read_and_its_gate_judged(tmp_path: Path) -> None:
    judgments = write(tmp_path / "j.jsonl", JUDGMENTS)
    run = write(tmp_path / "run.jsonl", FLOOR)  # the head finds nothing the floor finds
    floor = write(tmp_path / "floor.jsonl", RUN)
    args = ("score", "-j", str(judgments), "-r", str(run), "-k", "1", "--gate", "floor:recall@1:+0.1")
    code, from_file = cli(*args, "--floor", str(floor), stdin=b"", report=tmp_path / "a.json")
    piped_code, piped = cli(*args, "--floor", "/dev/stdin", stdin=floor.read_bytes(), report=tmp_path / "b.json")
    assert code == piped_code == 1
    assert piped["floor"]["metrics"] == from_file["floor"]["metrics"]
    assert piped["verdict"]["status"] == "FAIL"


def test_validate_and_fuse_read_a_piped_input_once(tmp_path: Path) -> None:
    judgments = write(tmp_path / "j.jsonl", JUDGMENTS)
    run = write(tmp_path / "run.jsonl", RUN)
    piped = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", "validate", "-j", "/dev/stdin", "-r", str(run), "--json"],
        input=judgments.read_bytes(),
        capture_output=True,
        timeout=120,
    )
    from_file = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", "validate", "-j", str(judgments), "-r", str(run), "--json"],
        capture_output=True,
        timeout=120,
    )
    assert piped.returncode == from_file.returncode == 0, piped.stderr.decode()
    assert json.loads(piped.stdout) == json.loads(from_file.stdout)
    out = tmp_path / "fused.jsonl"
    fused = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", "fuse", "/dev/stdin", str(run), "--out", str(out)],
        input=run.read_bytes(),
        capture_output=True,
        timeout=120,
    )
    assert fused.returncode == 0, fused.stderr.decode()
    assert [json.loads(line)["ranking"] for line in out.read_text().splitlines()] == [r["ranking"] for r in RUN]


def test_a_piped_input_past_the_line_limit_is_refused_before_it_fills_a_disk(tmp_path: Path) -> None:
    judgments = write(tmp_path / "j.jsonl", JUDGMENTS)
    done = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", "score", "-j", str(judgments), "-r", "/dev/stdin"],
        input=b"x" * 5000,  # no line end: /dev/zero through a pipe, in small
        capture_output=True,
        timeout=120,
        env={**os.environ, "RETRIEVAL_EVAL_MAX_LINE_BYTES": "1000"},
    )
    assert done.returncode == 2 and b"a line longer than 1000 bytes" in done.stderr, done.stderr
    assert b"Traceback" not in done.stderr


def test_the_html_page_reads_piped_judgments_once_in_any_format(tmp_path: Path) -> None:
    """render --format html looks at the judgments' first lines to tell their format, then reads
    them: a pipe read twice lost its first lines ("judgments:1: not valid JSON", exit 2)."""
    judgments = write(tmp_path / "j.jsonl", JUDGMENTS)
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{line['query_id']} 0 {line['doc_uri']} 1\n" for line in JUDGMENTS))
    run = write(tmp_path / "run.jsonl", RUN)
    for labels in (judgments, qrels):
        report = tmp_path / f"{labels.stem}.report.json"
        cli("score", "-j", str(labels), "-r", str(run), "-k", "1", stdin=b"", report=report)
        pages = []
        for given, stdin in ((str(labels), b""), ("/dev/stdin", labels.read_bytes())):
            done = subprocess.run(
                [sys.executable, "-m", "retrieval_eval", "render", "--report", str(report), "--format", "html"]
                + ["-j", given],
                input=stdin,
                capture_output=True,
                timeout=120,
            )
            assert done.returncode == 0, done.stderr.decode()
            pages.append(done.stdout)
        assert pages[0] == pages[1]


def test_a_floor_run_records_the_sha256_of_piped_judgments_not_of_nothing(tmp_path: Path) -> None:
    """floor-run read the judgments, then hashed the path again for its sidecar: from a pipe,
    the sidecar named the empty file's SHA-256."""
    judgments = write(tmp_path / "j.jsonl", JUDGMENTS)
    corpus = tmp_path / "corpus.json"
    chunks = [{"chunk_id": f"d{i}", "doc_uri": f"d{i}", "text": "t"} for i in range(4)]
    corpus.write_text(json.dumps({"chunks": chunks}))
    sidecars = []
    for given, stdin in ((str(judgments), b""), ("/dev/stdin", judgments.read_bytes())):
        out = tmp_path / f"floor-{len(sidecars)}.jsonl"
        done = subprocess.run(
            [sys.executable, "-m", "retrieval_eval", "floor-run", "--method", "bm25", "--corpus", str(corpus)]
            + ["-j", given, "--out", str(out)],
            input=stdin,
            capture_output=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr.decode()
        sidecars.append(json.loads(Path(f"{out}.meta.json").read_text())["judgments"]["sha256"])
    assert sidecars[0] == sidecars[1]


def _refused(*args: str, stdin: bytes) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "retrieval_eval", *args], input=stdin, capture_output=True, timeout=120
    )
    assert done.returncode == 2, done.stderr.decode()
    return done.stderr.decode()


def test_a_refusal_of_piped_input_names_the_pipe_not_its_private_copy(tmp_path: Path) -> None:
    """The copy read_once makes is removed by the time anyone reads the message: naming it sends
    the user to a file that is not there."""
    judgments = write(tmp_path / "j.jsonl", JUDGMENTS)
    cases = [
        (("score", "-j", str(judgments), "-r", "/dev/stdin"), b'{"query_id":"q1","ranking":["d1",2]}\n', "run:1:"),
        (("score", "-j", "/dev/stdin", "-r", str(judgments)), json.dumps(RUN[0]).encode() + b"\n", "this is a run"),
        (("validate", "-j", "/dev/stdin"), b'{"query_id":"q1","doc_uri":"d1","relevance":"x"}\n', "judgments:1:"),
        (("render", "--report", "/dev/stdin"), b"{}", "report"),
        (("score", "-j", str(judgments), "-r", "/dev/stdin"), b"", "run: the file holds no ranking"),
    ]
    for args, stdin, says in cases:
        said = _refused(*args, stdin=stdin)
        assert says in said and "/dev/stdin" in said, said
        assert "retrieval-eval-" not in said, said  # the temporary folder's prefix
