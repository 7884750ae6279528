"""A hostile judge endpoint (a real server on 127.0.0.1, in the run's own process) and hostile replies.

The key never shows: not in a message, not on either stream. A body that never ends or a
10 MB reply is cut off, not read into memory; a reply's "grade" that is not an ASCII digit
0-3 is unparseable, never an exception.
"""

from __future__ import annotations

import dataclasses
import json

from hostile.case import HostileCase
from hostile.cases_judge import QUEUE, _absent

KEY = "sk-hostile-SECRET-4242"

# The server answers every POST as MODE says; the run then calls the CLI in the same
# process, with ``{url}`` in its argv replaced by the server's address. The address space
# is capped so a run that reads an endless body whole dies at once instead of swapping.
SERVER = r"""
import http.server, json, resource, sys, threading, time
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
MODE = sys.argv[1]

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, code, body):
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        echoed = json.dumps({"error": "bad key " + self.headers.get("Authorization", "")}).encode()
        try:
            if MODE == "echo-401":
                self._send(401, echoed)
            elif MODE == "echo-400":
                self._send(400, echoed)
            elif MODE == "endless":
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                while True:
                    self.wfile.write(b"100000\r\n" + b"x" * 0x100000 + b"\r\n")
            elif MODE == "content-10mb":
                reply = {"choices": [{"message": {"content": "1: 2\n" + "z" * 10_000_000}}]}
                self._send(200, json.dumps(reply).encode())
            elif MODE == "tokens-4300-digits":
                usage = '"usage": {"total_tokens": ' + "9" * 4300 + "}"
                self._send(200, ('{"choices": [{"message": {"content": "2"}}], ' + usage + "}").encode())
            elif MODE.startswith("retry-after:"):
                self.send_response(429)
                self.send_header("Retry-After", MODE[12:])
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif MODE == "deep":
                self._send(200, b"[" * 200_000 + b"]" * 200_000)
            elif MODE.startswith("say:"):
                self._send(200, json.dumps({"choices": [{"message": {"content": MODE[4:]}}]}).encode())
        except (BrokenPipeError, ConnectionResetError):
            pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = "http://127.0.0.1:%d/v1" % server.server_address[1]
from retrieval_eval.entry import main
main([a.replace("{url}", url) for a in sys.argv[2:]])
"""


def _endpoint_case(
    name: str, mode: str, *extra: str, exit_code: int = 0, timeout: float = 60, **kwargs: object
) -> HostileCase:
    argv = (mode, "judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--endpoint", "{url}", "--model", "m",
            "--api-key-env", "HOSTILE_JUDGE_KEY", "--samples", "1", "--retries", "0", *extra)  # fmt: skip
    return HostileCase(
        "judge-endpoint",
        name,
        argv,
        files={"q.jsonl": QUEUE},
        code=SERVER,
        env={"HOSTILE_JUDGE_KEY": KEY},
        exit_code=exit_code,
        stdout_lacks=(KEY,),
        timeout=timeout,
        **kwargs,  # type: ignore[arg-type]
    )


def _no_key_in(name: str):  # type: ignore[no-untyped-def]
    def check(folder):  # type: ignore[no-untyped-def]
        target = folder / name
        assert not target.exists() or KEY.encode() not in target.read_bytes(), f"the key is in {name}"

    return check


def _echo_command(answer: object) -> str:
    """A judge command answering every request with ``answer`` for its one passage."""
    body = f'{{"id": json.loads(l)["id"], "answers": [{json.dumps(answer)}]}}'
    return "python3 -c 'import json,sys\nfor l in sys.stdin: print(json.dumps(" + body + "))'"


def _reply_case(name: str, answer: object) -> HostileCase:
    argv = ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", _echo_command(answer), "--samples", "1")
    return HostileCase("judge-endpoint", name, argv, files={"q.jsonl": QUEUE}, exit_code=0, stdout_has="unparseable")


CASES: list[HostileCase] = [
    # the key: echoed back in an error body, or given inside the URL
    _endpoint_case("key-echoed-in-401", "echo-401", exit_code=2, stderr_has="answered HTTP 401"),
    _endpoint_case("key-echoed-in-400", "echo-400", stdout_has="HTTP 400", check=_no_key_in("m.jsonl"), exit_code=2),
    HostileCase(
        "judge-endpoint",
        "key-in-url-query",
        (
            "judge",
            "--queue",
            "q.jsonl",
            "--out",
            "m.jsonl",
            "--endpoint",
            f"http://127.0.0.1:9/v1?key={KEY}",
            "--model",
            "m",
        ),
        files={"q.jsonl": QUEUE},
        stderr_has="carries a user, a password or a query",
        stdout_lacks=(KEY,),
    ),  # fmt: skip
    HostileCase(
        "judge-endpoint",
        "key-in-url-userinfo",
        (
            "judge",
            "--queue",
            "q.jsonl",
            "--out",
            "m.jsonl",
            "--endpoint",
            f"http://user:{KEY}@127.0.0.1:9/v1",
            "--model",
            "m",
        ),
        files={"q.jsonl": QUEUE},
        stderr_has="carries a user, a password or a query",
        stdout_lacks=(KEY,),
    ),  # fmt: skip
    HostileCase(
        "judge-endpoint",
        "key-in-url-not-http",
        (
            "judge",
            "--queue",
            "q.jsonl",
            "--out",
            "m.jsonl",
            "--endpoint",
            f"ftp://user:{KEY}@127.0.0.1:9/v1",
            "--model",
            "m",
        ),
        files={"q.jsonl": QUEUE},
        stderr_has="must be an http(s) URL",
        stdout_lacks=(KEY,),
    ),  # fmt: skip
    # bodies: endless, huge, deeply nested; each a request left unanswered, memory kept (a run whose
    # judge answered no request fails: exit 2)
    _endpoint_case("endless-chunked-body", "endless", stdout_has="larger than 4 MB", exit_code=2),
    _endpoint_case("content-of-10-mb", "content-10mb", stdout_has="larger than 4 MB", exit_code=2),
    _endpoint_case("json-nested-200000-deep", "deep", stdout_has="unparseable"),
    # a Retry-After that str.isdigit() calls digits ("³" is one in the header's Latin-1)
    _endpoint_case("retry-after-superscript", "retry-after:\u00b3", stdout_has="HTTP 429", exit_code=2),
    _endpoint_case("retry-after-huge", "retry-after:" + "9" * 400, stdout_has="HTTP 429", exit_code=2),
    # the last attempt's Retry-After is not waited out: nothing follows it (the run's 20 s
    # limit is below the 30 s the wait would take)
    _endpoint_case("retry-after-last-attempt", "retry-after:30", stdout_has="HTTP 429", timeout=20, exit_code=2),
    # replies whose "grade" is no grade 0-3
    _endpoint_case("reply-3-but-actually-0", "say:3 but actually 0", stdout_has="unparseable"),
    _endpoint_case("reply-superscript-digit", "say:\u00b3", stdout_has="unparseable"),
    _endpoint_case("reply-arabic-indic-digit", "say:\u0663", stdout_has="unparseable"),
    _endpoint_case("reply-5000-digits", "say:" + "9" * 5000, stdout_has="unparseable"),
    _endpoint_case("reply-numbered-5000-digits", "say:1: " + "2" * 5000, stdout_has="unparseable"),
    _reply_case("command-text-superscript-digit", {"text": "\u00b3"}),
    _reply_case("command-text-5000-digits", {"text": "3" * 5000}),
    _reply_case("command-grade-negative", -1),
    _reply_case("command-grade-float", 2.0),
    _reply_case("command-grade-huge", 10**30),
]

# what the judge prints is shown, never obeyed: a bidi override in the --out path
_ANSWER_2 = _echo_command(2)
CASES += [
    HostileCase(
        "judge-endpoint",
        "out-path-with-bidi-override",
        ("judge", "--queue", "q.jsonl", "--out", "m\u202e.jsonl", "--command", _ANSWER_2, "--samples", "1"),
        files={"q.jsonl": QUEUE},
        exit_code=0,
        stderr_has="1 machine label(s) written to m\\u202e.jsonl",
        stdout_lacks=("\u202e",),
    ),
]


def _url_case(name: str, url: str, says: str) -> HostileCase:
    return HostileCase(
        "judge-endpoint",
        name,
        ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--endpoint", url, "--model", "m"),
        files={"q.jsonl": QUEUE},
        stderr_has=says,
        check=_absent("m.jsonl"),
    )


# an endpoint urllib would raise on at the first call: refused before any, with no traceback
CASES += [
    _url_case("url-port-not-a-number", "http://127.0.0.1:abc/v1", "is not a URL"),
    _url_case("url-port-out-of-range", "http://127.0.0.1:99999/v1", "is not a URL"),
    _url_case("url-unclosed-ipv6-bracket", "http://[::1/v1", "is not a URL"),
    _url_case("url-with-a-space", "http://a b/v1", "holds white space or control characters"),
    _url_case("url-with-crlf", "http://127.0.0.1:9/v1\r\nX-Injected: 1", "holds white space or control characters"),
    _url_case("url-without-host", "http:///v1", "names no host"),
]

# a judge command that writes without end: cut off at the cap, not read into memory (the
# address space is capped so a run that reads it whole fails at once)
CAPPED_MAIN = (
    "import resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))\n"
    "from retrieval_eval.entry import main\n"
    "main(sys.argv[1:])\n"
)
ENDLESS_WRITER = "python3 -c 'import sys\nsys.stdin.read()\nwhile True: sys.stdout.buffer.write(b\"x\" * 1000000)'"
ENV_PRINTER = (
    "python3 -c 'import os, sys\nsys.stdin.read()\nprint(dict(os.environ))\nprint(dict(os.environ), file=sys.stderr)'"
)
CASES += [
    HostileCase(
        "judge-endpoint",
        "command-writing-without-end",
        ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", ENDLESS_WRITER, "--samples", "1"),
        files={"q.jsonl": QUEUE},
        code=CAPPED_MAIN,
        exit_code=2,  # the judge answered nothing: said on stderr, the run fails
        stdout_has="the judge command wrote more than 64 MB",
        timeout=60,
    ),
    HostileCase(
        "judge-endpoint",
        "command-printing-the-environment",
        ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", ENV_PRINTER, "--samples", "1"),
        files={"q.jsonl": QUEUE},
        env={"OPENAI_API_KEY": KEY},
        exit_code=2,
        stdout_has="no answer for this request",
        stderr_has="the command's standard error is not shown (it may print secrets)",
        stdout_lacks=(KEY,),
        check=_no_key_in("m.jsonl"),
    ),
]

# token counts no endpoint spends: read as no count, never summed into a number str() refuses
TWO_QUERIES = QUEUE + QUEUE.replace(b'"q1"', b'"q2"')
CASES += [
    dataclasses.replace(
        _endpoint_case("tokens-4300-digits", "tokens-4300-digits", "--batch", "1", stdout_has="calls 2, tokens 0"),
        files={"q.jsonl": TWO_QUERIES},
    ),
    HostileCase(
        "judge-endpoint",
        "command-tokens-4300-digits",
        (
            "judge",
            "--queue",
            "q.jsonl",
            "--out",
            "m.jsonl",
            "--samples",
            "1",
            "--command",
            'python3 -c \'import json,sys\nfor l in sys.stdin: print(json.dumps({"id": json.loads(l)["id"], '
            '"answers": [2]})[:-1] + ", \\"tokens\\": " + "9" * 4300 + "}")\'',
        ),
        files={"q.jsonl": TWO_QUERIES},
        exit_code=0,
        stdout_has="tokens 0",
    ),  # fmt: skip
]

# a slow drip (a byte every 0.2 s) resets the socket's timeout on every byte: only the one
# deadline over the whole answer ends it. The library's judge, with a 2 s timeout, must give
# up within a few seconds and say so (the CLI's timeout is a minute).
DRIP = r"""
import http.server, sys, threading, time

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for _ in range(100000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.2)
        except (BrokenPipeError, ConnectionResetError):
            pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
from retrieval_eval.pipeline.judge_clients import HttpJudge, Request
judge = HttpJudge("http://127.0.0.1:%d/v1" % server.server_address[1], "m", "p", 0.0, timeout=2, retries=0)
started = time.monotonic()
reply = judge.ask(Request("r1", "q", ("a passage",), 0))
took = time.monotonic() - started
assert reply.error and "did not finish in time" in reply.error, reply
assert took < 8, took
print("gave up after the deadline")
"""
CASES.append(
    HostileCase(
        "judge-endpoint",
        "slow-drip-body",
        (),
        code=DRIP,
        exit_code=0,
        stdout_has="gave up after the deadline",
        timeout=30,
    )
)

# a prompt file that never ends (/dev/zero) is refused at a size cap, not read into memory
CASES.append(
    HostileCase(
        "judge-endpoint",
        "prompt-file-without-end",
        ("judge", "--queue", "q.jsonl", "--out", "m.jsonl", "--command", "python3 -c 1", "--prompt-file", "/dev/zero"),
        files={"q.jsonl": QUEUE},
        code=CAPPED_MAIN,
        stderr_has="prompt: longer than 1024 KB",
        check=_absent("m.jsonl"),
        timeout=30,
    )
)
