"""Fake judges answering from a hidden truth: an OpenAI-compatible server on 127.0.0.1, and a command.

Both read the passages they are shown (never an id), look each one's true grade up by its
text, and answer through a planted behaviour:

- ``noise``: with this chance a sample's grade is replaced by a draw from the truth's own
  grade distribution, so the judge's kappa with the truth is ``1 - noise`` (binary and
  weighted alike) by construction;
- ``leniency``: with this chance a grade 0 is answered 2;
- a passage whose text holds ``REFUSE`` makes the whole request a refusal; one holding
  ``GARBAGE`` is answered with text no reader can take for a grade.

Each answer is drawn from a generator seeded by (seed, text, sample): the same question
gets the same answer whatever the order or the threads.
"""

from __future__ import annotations

import json
import random
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PASSAGE = re.compile(r"^\[(\d+)\] (.*)$")


@dataclass(frozen=True)
class Behaviour:
    noise: float = 0.0
    leniency: float = 0.0
    seed: int = 0


def planted(truth: Mapping[str, int], text: str, sample: int, behaviour: Behaviour) -> int | str:
    """One sample's answer for a passage: a grade, "refused" or "garbage"."""
    if "REFUSE" in text:
        return "refused"
    if "GARBAGE" in text:
        return "garbage"
    rng = random.Random(f"{behaviour.seed}|{text}|{sample}")
    grade = truth[text]
    if rng.random() < behaviour.noise:
        grade = rng.choice(sorted(truth.values()))
    if grade == 0 and rng.random() < behaviour.leniency:
        grade = 2
    return grade


def passages_of(user: str) -> list[str]:
    return [m.group(2) for line in user.splitlines() if (m := PASSAGE.match(line))]


@dataclass
class FakeChat:
    truth: Mapping[str, int]
    behaviour: Behaviour = Behaviour()
    requests: list[dict[str, Any]] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)  # statuses to answer the next requests with
    lock: threading.Lock = field(default_factory=threading.Lock)
    in_flight: int = 0
    most_in_flight: int = 0

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.requests.append(body)
            if self.failures:
                status = self.failures.pop(0)
                code = "content_filter" if status == 400 else "planted"  # 400: a provider's content filter
                return status, {"error": {"message": "planted failure", "code": code}}
        passages = passages_of(body["messages"][1]["content"])
        answers = [planted(self.truth, text, body.get("seed", 0), self.behaviour) for text in passages]
        usage = {"total_tokens": 10 * len(passages) + 5}
        if "refused" in answers:
            message = {"role": "assistant", "content": None, "refusal": "I can't help with that."}
            return 200, {"choices": [{"message": message, "finish_reason": "stop"}], "usage": usage}
        lines = [f"{n}: {a}" if a != "garbage" else f"{n}: probably relevant-ish" for n, a in enumerate(answers, 1)]
        message = {"role": "assistant", "content": "\n".join(lines)}
        return 200, {"choices": [{"message": message, "finish_reason": "stop"}], "usage": usage}


@contextmanager
def serve(fake: FakeChat) -> Iterator[str]:
    """The fake behind a real socket on 127.0.0.1; yields the API root (``.../v1``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with fake.lock:
                fake.in_flight += 1
                fake.most_in_flight = max(fake.most_in_flight, fake.in_flight)
            try:
                status, answer = (
                    fake.answer(body) if self.path == "/v1/chat/completions" else (404, {"error": "no such path"})
                )
            finally:
                with fake.lock:
                    fake.in_flight -= 1
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


COMMAND = Path(__file__).with_name("fake_judge_command.py")


def command_line(truth_file: Path, behaviour: Behaviour, *, extra: str = "") -> str:
    return f"{sys.executable} {COMMAND} {truth_file} {behaviour.noise} {behaviour.leniency} {behaviour.seed} {extra}"
