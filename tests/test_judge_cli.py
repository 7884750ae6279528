"""``retrieval-eval judge`` against fake judges that answer from a hidden truth (tests/fake_judge.py).

The server listens on 127.0.0.1 only; the command is a local script. Every number checked
here is planted: the kappa by the noise, the refusals and the garbage by the passages'
texts, the calls by counting the requests the fake received.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from fake_judge import Behaviour, FakeChat, command_line, passages_of, serve
from helpers import run_cli

GRADES = [0] * 45 + [1] * 20 + [2] * 20 + [3] * 15  # the truth's grade distribution, in percent


def chunk_id(text: str) -> str:
    return "c1:" + hashlib.md5(text.encode()).hexdigest()  # noqa: S324 (an id, not a secret)


def calibration_world(queries: int, per_query: int, seed: int = 1) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Human labels with query and chunk texts, and the truth the fake judge reads (the same grades)."""
    rng = random.Random(seed)
    labels, truth = [], {}
    for q in range(queries):
        for n in range(per_query):
            text = f"passage {n} of query {q}, variant {rng.random():.6f}"
            grade = rng.choice(GRADES)
            truth[text] = grade
            labels.append(
                {
                    "query_id": f"q{q}",
                    "query": f"question number {q}",
                    "doc_uri": f"doc{q}-{n}",
                    "chunk_id": chunk_id(text),
                    "chunk_text": text,
                    "relevance": grade,
                }
            )
    return labels, truth


def queue_lines(texts: list[str], query: str = "what is a hole") -> list[dict[str, Any]]:
    return [
        {
            "query_id": "h1",
            "query": query,
            "doc_uri": f"hole{n}",
            "chunk_id": chunk_id(text),
            "rank": n + 1,
            "surfaced_by": "head",
            "move": 0.1,
            "chunk_text": text,
            "labeled_by": "todo:human:<your name>",
        }
        for n, text in enumerate(texts)
    ]


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def judge(tmp: Path, *args: str) -> Any:
    result = run_cli("judge", "--out", str(tmp / "machine.jsonl"), "--json", *args)
    return result


HOLE_TEXTS = [f"hole passage {n}" for n in range(6)]


def hole_truth() -> dict[str, int]:
    return {text: n % 4 for n, text in enumerate(HOLE_TEXTS)}


# -- calibration ---------------------------------------------------------------------------


def test_calibration_recovers_the_planted_kappa_within_five_hundredths(tmp_path: Path) -> None:
    labels, truth = calibration_world(100, 10)
    fake = FakeChat({**truth, **hole_truth()}, Behaviour(noise=0.3, seed=3))
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(HOLE_TEXTS))
    judgments = write_jsonl(tmp_path / "judgments.jsonl", labels)
    with serve(fake) as url:
        result = judge(
            tmp_path, "--queue", queue, "-j", judgments, "--endpoint", url, "--model", "m1",
            "--samples", "1", "--batch", "10", "--calibration", "1000",
        )  # fmt: skip
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)["calibration"]
    assert report["status"] == "calibrated" and report["labeled"] == 1000
    # Planted: a replaced grade is a draw from the truth's own distribution, so kappa = 1 - noise.
    assert report["kappa_binary"] == pytest.approx(0.7, abs=0.05)
    assert report["kappa_graded"] == pytest.approx(0.7, abs=0.05)
    assert sum(map(sum, report["confusion"])) == 1000
    # The judge never saw an id: every request carried only texts.
    sent = json.dumps(fake.requests)
    assert "doc0-1" not in sent and chunk_id(labels[0]["chunk_text"]) not in sent and '"q0"' not in sent


def test_a_lenient_judge_shows_in_the_leniency_and_fewer_than_fifty_pairs_is_not_calibrated(tmp_path: Path) -> None:
    labels, truth = calibration_world(12, 10, seed=2)
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(HOLE_TEXTS))
    judgments = write_jsonl(tmp_path / "judgments.jsonl", labels)
    truth_file = tmp_path / "truth.json"
    truth_file.write_text(json.dumps({**truth, **hole_truth()}))
    cmd = command_line(truth_file, Behaviour(leniency=0.8, seed=5))
    result = judge(tmp_path, "--queue", queue, "-j", judgments, "--command", cmd, "--calibration", "100")
    assert result.code == 0, result.stderr
    report = json.loads(result.stdout)["calibration"]
    humans_zero = sum(line["relevance"] == 0 for line in labels) / len(labels)
    assert report["zero_rate_human"] == pytest.approx(humans_zero, abs=0.01)  # proportional: 100 of 120, by grade
    assert report["zero_rate_judge"] < report["zero_rate_human"] / 2
    assert report["status"] == "below the kappa floor"
    small = judge(tmp_path, "--queue", queue, "-j", judgments, "--command", cmd, "--calibration", "40")
    assert json.loads(small.stdout)["calibration"]["status"] == "not calibrated"
    text = run_cli("judge", "--out", str(tmp_path / "m2.jsonl"), "--queue", queue, "-j", judgments, "--command", cmd)
    assert "these machine labels are reported only: no gate reads them" in text.stdout


# -- refusals and garbage -------------------------------------------------------------------


REFUSE_TEXTS = ["hole passage 0", "a REFUSE passage", "a GARBAGE passage", "hole passage 3"]


@pytest.mark.parametrize("judge_kind", ["http", "command", "command-text", "command-junk"])
def test_refusals_and_garbage_never_become_grades(tmp_path: Path, judge_kind: str) -> None:
    truth = {"hole passage 0": 0, "hole passage 3": 3, "a REFUSE passage": 0, "a GARBAGE passage": 0}
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(REFUSE_TEXTS))
    args = ["--queue", queue, "--batch", "1", "--human-queue", str(tmp_path / "humans.jsonl")]
    if judge_kind == "http":
        with serve(FakeChat(truth)) as url:
            result = judge(tmp_path, *args, "--endpoint", url, "--model", "m1")
    else:
        truth_file = tmp_path / "truth.json"
        truth_file.write_text(json.dumps(truth))
        mode = judge_kind.partition("-")[2]
        result = judge(tmp_path, *args, "--command", command_line(truth_file, Behaviour(), extra=mode))
    assert result.code == 0, result.stderr
    labels = {line["doc_uri"]: line for line in read_jsonl(tmp_path / "machine.jsonl")}
    assert (labels["hole0"]["status"], labels["hole0"]["grade"], labels["hole0"]["samples"]) == ("labeled", 0, [0] * 3)
    assert labels["hole3"]["grade"] == 3
    assert (labels["hole1"]["status"], labels["hole1"]["grade"]) == ("refused", None)
    assert labels["hole1"]["samples"] == ["refused"] * 3
    assert (labels["hole2"]["status"], labels["hole2"]["grade"]) == ("unparseable", None)
    assert labels["hole2"]["samples"] == ["unparseable"] * 3
    humans = read_jsonl(tmp_path / "humans.jsonl")
    assert [(h["doc_uri"], h["judge_status"]) for h in humans] == [("hole1", "refused"), ("hole2", "unparseable")]
    assert json.loads(result.stdout)["holes"] == {"labeled": 2, "refused": 1, "unparseable": 1}


def test_a_content_filter_is_a_refusal_whether_it_answers_400_or_finishes_early() -> None:
    from retrieval_eval.formats.judge import read_completion

    filtered = {"choices": [{"message": {"content": "1: 0"}, "finish_reason": "content_filter"}]}
    assert read_completion(filtered, 2) == (("refused", "refused"), 0)
    refusal = {"choices": [{"message": {"content": None, "refusal": "no"}}], "usage": {"total_tokens": 9}}
    assert read_completion(refusal, 1) == (("refused",), 9)
    for odd in ({}, {"choices": []}, {"choices": [{"message": {"content": 3}}]}, [], "x"):
        assert read_completion(odd, 1) == (("unparseable",), 0)
    assert read_completion({"choices": [{"message": {"content": "1: 2"}}], "usage": {"total_tokens": True}}, 1) == (
        (2,),
        0,
    )


def test_an_http_400_content_filter_is_refused_not_graded(tmp_path: Path) -> None:
    texts = ["hole passage 0", "hole passage 1"]
    fake = FakeChat({text: 0 for text in texts}, failures=[400])
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(texts))
    with serve(fake) as url:
        result = judge(tmp_path, "--queue", queue, "--endpoint", url, "--model", "m", "--samples", "1")
    assert result.code == 0, result.stderr
    assert len(fake.requests) == 1  # a refusal is an answer: not retried
    labels = read_jsonl(tmp_path / "machine.jsonl")
    assert [(line["status"], line["grade"], line["samples"]) for line in labels] == [("refused", None, ["refused"])] * 2


def test_split_samples_go_to_the_human_queue_with_their_majority_recorded(tmp_path: Path) -> None:
    texts = [f"hole passage {n}" for n in range(40)]
    truth = {text: 2 for text in texts}
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(texts))
    with serve(FakeChat(truth, Behaviour(noise=0.0, leniency=0.0, seed=1))) as url:
        assert judge(tmp_path, "--queue", queue, "--endpoint", url, "--model", "m").code == 0
    assert {line["status"] for line in read_jsonl(tmp_path / "machine.jsonl")} == {"labeled"}
    truth = {text: (0 if n % 2 else 3) for n, text in enumerate(texts)}
    with serve(FakeChat(truth, Behaviour(noise=0.6, seed=9))) as url:
        result = judge(tmp_path, "--queue", queue, "--endpoint", url, "--model", "other", "--human-queue",
                       str(tmp_path / "h.jsonl"))  # fmt: skip
    assert result.code == 0, result.stderr
    lines = read_jsonl(tmp_path / "machine.jsonl")
    split = [line for line in lines if line["status"] == "split"]
    assert split and all(line["grade"] is None and line["majority"] in (0, 1, 2, 3) for line in split)
    for line in split:
        assert len({grade >= 1 for grade in line["samples"]}) == 2
    assert sorted(h["doc_uri"] for h in read_jsonl(tmp_path / "h.jsonl")) == sorted(line["doc_uri"] for line in split)


# -- the cache, the budget, retries ------------------------------------------------------


def test_the_cache_asks_only_what_is_missing_and_a_changed_chunk_text_is_asked_again(tmp_path: Path) -> None:
    texts = [f"hole passage {n}" for n in range(6)]
    truth = {**{text: n % 4 for n, text in enumerate(texts)}, "hole passage 2, edited": 1}
    fake = FakeChat(truth)
    queue = tmp_path / "queue.jsonl"
    with serve(fake) as url:
        write_jsonl(queue, queue_lines(texts))
        base = ["--queue", str(queue), "--endpoint", url, "--batch", "2", "--samples", "2"]
        first = judge(tmp_path, *base, "--model", "m1")
        assert first.code == 0 and len(fake.requests) == 6  # 3 batches x 2 samples
        again = judge(tmp_path, *base, "--model", "m1")
        assert len(fake.requests) == 6 and json.loads(again.stdout)["answers_reused"] == 12
        # The same pair with a new text: only its samples are asked (one passage, two samples).
        edited_lines = queue_lines([*texts[:2], "hole passage 2, edited", *texts[3:]])
        edited_lines[2]["chunk_id"] = chunk_id(texts[2])  # a key whose text changed under it
        write_jsonl(queue, edited_lines)
        edited = json.loads(judge(tmp_path, *base, "--model", "m1").stdout)
        assert len(fake.requests) == 8 and edited["labels_invalidated"] == 1 and edited["answers_reused"] == 10
        assert [passages_of(fake.requests[i]["messages"][1]["content"]) for i in (6, 7)] == [
            ["hole passage 2, edited"]
        ] * 2
        # Another model is another judge: nothing is reused.
        judge(tmp_path, *base, "--model", "m2")
        assert len(fake.requests) == 14
    labels = read_jsonl(tmp_path / "machine.jsonl")
    assert {line["model"] for line in labels} == {"m2"} and len(labels) == 6


def test_a_budget_stops_cleanly_and_the_next_run_goes_on(tmp_path: Path) -> None:
    texts = [f"hole passage {n}" for n in range(6)]
    fake = FakeChat({text: 3 for text in texts})
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(texts))
    with serve(fake) as url:
        base = ["--queue", queue, "--endpoint", url, "--model", "m", "--batch", "2", "--samples", "1"]
        stopped = judge(tmp_path, *base, "--max-calls", "2", "--concurrency", "1")
        assert stopped.code == 0, stopped.stderr
        assert len(fake.requests) == 2
        summary = json.loads(stopped.stdout)
        assert summary["stopped_by_budget"] and summary["answers_unasked"] == 2
        assert summary["holes"] == {"incomplete": 2, "labeled": 4}
        labels = read_jsonl(tmp_path / "machine.jsonl")
        assert [line["samples"] for line in labels] == [[3], [3], [3], [3], [None], [None]]
        # Tokens: 25 a call (two passages); a budget of 30 allows a second call, not a third.
        (tmp_path / "machine.jsonl").unlink()
        by_tokens = json.loads(judge(tmp_path, *base, "--max-tokens", "30", "--concurrency", "1").stdout)
        assert by_tokens["calls"] == 2 and by_tokens["tokens"] == 50 and by_tokens["stopped_by_budget"]
        rest = json.loads(judge(tmp_path, *base).stdout)
        assert rest["calls"] == 1 and rest["answers_reused"] == 4 and rest["holes"] == {"labeled": 6}


def test_failures_are_retried_and_a_wrong_key_stops_with_a_message(tmp_path: Path) -> None:
    texts = [f"hole passage {n}" for n in range(2)]
    fake = FakeChat({text: 1 for text in texts}, failures=[503, 429])
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(texts))
    with serve(fake) as url:
        args = ["--queue", queue, "--endpoint", url, "--model", "m", "--samples", "1", "--concurrency", "1"]
        done = judge(tmp_path, *args)
        assert done.code == 0 and len(fake.requests) == 3
        assert json.loads(done.stdout)["holes"] == {"labeled": 2}
        (tmp_path / "machine.jsonl").unlink()
        fake.failures.extend([401])
        refused = judge(tmp_path, *args)
    assert refused.code == 2 and "Traceback" not in refused.stderr
    assert "answered HTTP 401" in refused.stderr and "--api-key-env" in refused.stderr
    assert not (tmp_path / "machine.jsonl").exists()


def test_concurrency_is_bounded_and_the_key_travels_only_in_the_header(tmp_path: Path) -> None:
    texts = [f"hole passage {n}" for n in range(30)]
    fake = FakeChat({text: 1 for text in texts})
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(texts))
    with serve(fake) as url:
        result = run_cli(
            "judge", "--out", str(tmp_path / "m.jsonl"), "--queue", queue, "--endpoint", url, "--model", "m",
            "--batch", "1", "--samples", "1", "--concurrency", "3", "--api-key-env", "MY_JUDGE_KEY",
            env={**__import__("os").environ, "MY_JUDGE_KEY": "sk-secret"},
        )  # fmt: skip
    assert result.code == 0, result.stderr
    assert 1 <= fake.most_in_flight <= 3 and len(fake.requests) == 30
    assert "sk-secret" not in (tmp_path / "m.jsonl").read_text() and "sk-secret" not in result.stdout


# -- symmetric holes ----------------------------------------------------------------------------


def test_the_judge_labels_the_union_of_base_and_head_holes(tmp_path: Path) -> None:
    texts = {f"q1-{n}": f"chunk text number {n}" for n in range(8)}
    ids = {key: chunk_id(text) for key, text in texts.items()}
    corpus = {
        "corpus_fingerprint": "f",
        "chunker_fingerprint": "f",
        "chunks": [{"chunk_id": ids[k], "doc_uri": f"doc-{k}", "text": t} for k, t in texts.items()],
    }
    (tmp_path / "corpus.json").write_text(json.dumps(corpus))
    judged = [
        {"query_id": "q1", "query": "the question", "doc_uri": f"doc-{k}", "chunk_id": ids[k], "relevance": 1}
        for k in ("q1-0", "q1-1")
    ]
    labels = write_jsonl(tmp_path / "j.jsonl", judged)
    base_run = write_jsonl(
        tmp_path / "base.jsonl", [{"query_id": "q1", "ranking": [ids[f"q1-{n}"] for n in (0, 2, 3, 4)]}]
    )
    head_run = write_jsonl(
        tmp_path / "head.jsonl", [{"query_id": "q1", "ranking": [ids[f"q1-{n}"] for n in (1, 2, 5, 6)]}]
    )
    assert run_cli("score", "-j", labels, "-r", base_run, "-k", "4", "--out", str(tmp_path / "base.json")).code == 0
    holes = run_cli(
        "holes", "-j", labels, "-r", head_run, "-k", "4", "--baseline", str(tmp_path / "base.json"),
        "--corpus", str(tmp_path / "corpus.json"), "--out", str(tmp_path / "queue.jsonl"),
    )  # fmt: skip
    assert holes.code == 0, holes.stderr
    queue = read_jsonl(tmp_path / "queue.jsonl")
    sides = {line["chunk_id"]: line["surfaced_by"] for line in queue}
    assert sides == {
        ids["q1-2"]: "both",
        ids["q1-3"]: "base",
        ids["q1-4"]: "base",
        ids["q1-5"]: "head",
        ids["q1-6"]: "head",
    }
    fake = FakeChat({text: 1 for text in texts.values()})
    with serve(fake) as url:
        result = judge(tmp_path, "--queue", str(tmp_path / "queue.jsonl"), "--endpoint", url, "--model", "m")
    assert result.code == 0, result.stderr
    machine = read_jsonl(tmp_path / "machine.jsonl")
    assert {line["chunk_id"] for line in machine} == set(sides)
    assert all(line["status"] == "labeled" and line["grade"] == 1 for line in machine)


def test_a_pair_queued_twice_is_asked_once_and_the_labels_file_reads_back(tmp_path: Path) -> None:
    texts = [f"hole passage {n}" for n in range(3)]
    fake = FakeChat({text: 2 for text in texts})
    queue = tmp_path / "queue.jsonl"
    lines = queue_lines(texts)
    write_jsonl(queue, [*lines, lines[1]])  # two queues concatenated: the second pair again
    with serve(fake) as url:
        base = ["--queue", str(queue), "--endpoint", url, "--batch", "10", "--samples", "1"]
        first = judge(tmp_path, *base, "--model", "m1")
        assert first.code == 0
        assert passages_of(fake.requests[0]["messages"][1]["content"]) == texts  # each pair once
        labels = read_jsonl(tmp_path / "machine.jsonl")
        assert sorted(line["doc_uri"] for line in labels) == ["hole0", "hole1", "hole2"]
        again = judge(tmp_path, *base, "--model", "m1")  # reads its own file back: one label per pair
        assert again.code == 0 and json.loads(again.stdout)["answers_reused"] == 3


def test_the_judge_json_writes_every_count_under_its_name_in_order() -> None:
    """``judge --json``'s object, written from a hand-made account: each field under its own name,
    in the order the command has always printed them, the status counts as objects, errors a list."""
    from retrieval_eval.formats.judge import JudgeAccount, judge_account_json

    account = JudgeAccount(
        holes={"labeled": 2, "refused": 1},
        holes_without_text=3,
        calibration_pairs={"labeled": 5},
        calibration=None,
        calls=7,
        tokens=11,
        answers_reused=13,
        answers_unasked=17,
        requests_failed=19,
        labels_invalidated=23,
        stopped_by_budget=True,
        errors=("timeout",),
    )
    written = judge_account_json(account)
    assert json.dumps(written) == (
        '{"holes": {"labeled": 2, "refused": 1}, "holes_without_text": 3, "calibration_pairs": {"labeled": 5}, '
        '"calibration": null, "calls": 7, "tokens": 11, "answers_reused": 13, "answers_unasked": 17, '
        '"requests_failed": 19, "labels_invalidated": 23, "stopped_by_budget": true, "errors": ["timeout"]}'
    )


def test_qrels_judgments_are_read_and_give_no_calibration_pair(tmp_path: Path) -> None:
    """``-j`` takes TREC qrels as every command that reads judgments does (they were refused
    line 1 as "not valid JSON"); qrels hold no query and no text, so no pair can be shown to the
    judge, and no calibration is reported rather than the run failing."""
    labels, truth = calibration_world(20, 5)
    queue = write_jsonl(tmp_path / "queue.jsonl", queue_lines(HOLE_TEXTS))
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{row['query_id']} 0 {row['doc_uri']} {row['relevance']}\n" for row in labels))
    with serve(FakeChat({**truth, **hole_truth()})) as url:
        result = judge(tmp_path, "--queue", queue, "-j", str(qrels), "--endpoint", url, "--model", "m1")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["calibration"] is None
