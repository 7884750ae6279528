"""``retrieval-eval judge``: machine labels for the label queue, kept apart from the judgments.

Reads the queue ``retrieval-eval holes`` wrote, asks a judge (an OpenAI-compatible chat
endpoint, or a command speaking the JSONL protocol of docs/judge.md), and writes one
machine label per pair to ``--out``, which is also the cache of the next run. With
``--judgments`` it first re-labels a stratified sample of human-labeled pairs and reports
the agreement (kappa, confusion, leniency). It never writes to the judgments.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

import click

from ..core.errors import InputError, UsageError
from ..core.judge import DEFAULT_PROMPT, Provenance, prompt_sha256
from ..core.judge_calibration import DEFAULT_FLOOR
from ..formats.fileio import cannot_read, open_binary, refuse_output_over_input
from ..formats.judge import judge_account_json
from ..formats.machine_labels import read_queue
from ..formats.queue import write_queue
from ..pipeline.endpoints import endpoint_problem, shown_url
from ..pipeline.judge import DEFAULT_CALIBRATION, Budget, JudgeFiles, JudgeSetup, human_queue, judge_queue
from ..pipeline.judge_clients import CommandJudge, HttpJudge, JudgeUnavailable
from ..render.judge import outcome_account, outcome_text
from ._common import PlainNumber, handles_errors, json_option, print_json, say
from ._progress import ProgressBar

DEFAULT_KEY_ENV = "OPENAI_API_KEY"


MAX_PROMPT = 1024 * 1024  # a system prompt is a page or two; /dev/zero would fill memory


def _prompt(path: str | None) -> str:
    if not path:
        return DEFAULT_PROMPT
    with open_binary(path) as handle:
        try:
            data = handle.read(MAX_PROMPT + 1)
        except OSError as exc:
            raise cannot_read(path, exc) from None
    if len(data) > MAX_PROMPT:
        raise InputError("prompt", None, f"longer than {MAX_PROMPT // 1024} KB", path=path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("prompt", None, "not valid UTF-8", path=path) from None


@dataclass(frozen=True)
class JudgeChoice:
    """The judge options as given: an endpoint and a model, or a command."""

    endpoint: str | None
    model: str | None
    api_key_env: str | None
    command: str | None
    temperature: float
    retries: int


def _judge(choice: JudgeChoice, prompt: str) -> tuple[HttpJudge | CommandJudge, Provenance]:
    if bool(choice.endpoint) == bool(choice.command):
        raise UsageError("give one judge: --endpoint URL --model NAME, or --command CMD", hint="see docs/judge.md")
    digest = prompt_sha256(prompt)
    if choice.command:
        try:
            if not shlex.split(choice.command):
                raise ValueError("it is empty")
        except ValueError as exc:
            raise UsageError(f"--command {choice.command!r} is not a command line: {exc}") from None
        return CommandJudge(choice.command, prompt), Provenance("command", choice.model or choice.command, digest, None)
    endpoint = str(choice.endpoint)
    if not choice.model:
        raise UsageError("--endpoint needs --model (the model name the endpoint serves)")
    _check_endpoint(endpoint)
    key = os.environ.get(choice.api_key_env or DEFAULT_KEY_ENV, "")
    if choice.api_key_env and not key:
        raise UsageError(f"the environment variable {choice.api_key_env} (--api-key-env) is empty or unset")
    judge = HttpJudge(endpoint, choice.model, prompt, choice.temperature, key, retries=choice.retries)
    return judge, Provenance("http", choice.model, digest, choice.temperature)


def _check_endpoint(endpoint: str) -> None:
    """A well-formed http(s) URL with no credentials in it: a key in the URL would be shown in
    messages and sent where a key does not go; the key belongs in an environment variable."""
    problem = endpoint_problem(endpoint)
    if problem is not None:
        raise UsageError(
            f"--endpoint {shown_url(endpoint)!r} {problem}",
            hint="give the API root, e.g. http://127.0.0.1:8000/v1, and the key's variable with --api-key-env",
        )


def _writable(option: str, path: str | None) -> None:
    """Refuse an output that cannot be written before the judge is paid for anything."""
    if not path:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) or not os.path.isdir(folder):
        what = "is a directory" if os.path.isdir(path) else f"its folder {folder} does not exist"
        raise UsageError(
            f"{option} {path} cannot be written: {what}", hint=f"give {option} a file in a folder that exists"
        )


@click.command()
@click.option("--queue", "queue", required=True, metavar="PATH", help="The label queue (retrieval-eval holes --out).")
@click.option("--out", "out", required=True, metavar="PATH", help="Machine labels (JSONL); read first as the cache.")
@click.option("-j", "--judgments", "judgments", metavar="PATH", help="Human labels to calibrate the judge against.")
@click.option("--corpus", "corpus", metavar="PATH", help="Chunk texts for the calibration pairs.")
@click.option("--human-queue", "human_queue_out", metavar="PATH", help="Write the holes the judge did not settle.")
@click.option("--endpoint", metavar="URL", help="An OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1.")
@click.option("--model", metavar="NAME", help="The model the endpoint serves (pin a snapshot).")
@click.option(
    "--api-key-env", metavar="NAME", help=f"Environment variable holding the key (default {DEFAULT_KEY_ENV})."
)
@click.option("--command", "command", metavar="CMD", help="A judge command speaking the JSONL protocol.")
@click.option("--prompt-file", metavar="PATH", help="A system prompt of your own (its hash is recorded).")
@click.option(
    "--samples",
    type=PlainNumber(whole=True, minimum=1, maximum=15),
    default=3,
    show_default=True,
    help="Samples per pair.",
)
@click.option("--temperature", type=PlainNumber(whole=False, minimum=0, maximum=2), default=0.7, show_default=True)
@click.option(
    "--threshold",
    type=PlainNumber(whole=True, minimum=1, maximum=3),
    default=1,
    show_default=True,
    help="Lowest relevant grade.",
)
@click.option(
    "--batch",
    type=PlainNumber(whole=True, minimum=1, maximum=50),
    default=5,
    show_default=True,
    help="Passages of one query a call.",
)
@click.option(
    "--concurrency",
    type=PlainNumber(whole=True, minimum=1, maximum=64),
    default=4,
    show_default=True,
    help="Calls in flight.",
)
@click.option("--retries", type=PlainNumber(whole=True, minimum=0, maximum=10), default=3, show_default=True)
@click.option("--max-calls", type=PlainNumber(whole=True, minimum=0), default=None, help="Budget: calls at most.")
@click.option("--max-tokens", type=PlainNumber(whole=True, minimum=0), default=None, help="Budget: tokens at most.")
@click.option(
    "--calibration",
    "calibration",
    type=PlainNumber(whole=True, minimum=0),
    default=DEFAULT_CALIBRATION,
    show_default=True,
)
@click.option(
    "--kappa-floor", type=PlainNumber(whole=False, minimum=-1, maximum=1), default=DEFAULT_FLOOR, show_default=True
)
@json_option
@handles_errors
def command(
    queue: str,
    out: str,
    judgments: str | None,
    corpus: str | None,
    human_queue_out: str | None,
    prompt_file: str | None,
    samples: int,
    threshold: int,
    batch: int,
    concurrency: int,
    max_calls: int | None,
    max_tokens: int | None,
    calibration: int,
    kappa_floor: float,
    as_json: bool,
    **judge_options: Any,
) -> None:
    """Label the queue's holes with a judge; machine labels stay apart from the judgments."""
    inputs = [("queue", queue), ("judgments", judgments), ("corpus", corpus), ("prompt", prompt_file)]
    refuse_output_over_input([("--out", out), ("--human-queue", human_queue_out)], inputs)
    _writable("--out", out)
    _writable("--human-queue", human_queue_out)
    judge, provenance = _judge(JudgeChoice(**judge_options), _prompt(prompt_file))
    budget = Budget(max_calls, max_tokens)
    setup = JudgeSetup(provenance, samples, threshold, batch, concurrency, budget, kappa_floor)
    files = JudgeFiles(out, judgments, corpus, calibration)
    with ProgressBar("judging") as bar:
        done = judge_queue(read_queue(queue), files, judge, setup, progress=bar)
    outcome, pairs, without_text = done.outcome, done.pairs, done.without_text
    if human_queue_out:
        write_queue(human_queue_out, human_queue(pairs, outcome.labels))
    if as_json:
        print_json(judge_account_json(outcome_account(outcome, without_text=without_text)))
    else:
        # Through the cleaner: the path is the user's, a judge's error text is the endpoint's.
        say(outcome_text(outcome, without_text=without_text), nl=False)
    say(f"{len(outcome.labels)} machine label(s) written to {out}", err=True)
    if outcome.calls and outcome.failed >= outcome.calls:
        # A judge that answered nothing is no judge: a green step would hide it. The labels file
        # still holds what earlier runs answered, and the next run asks again.
        raise JudgeUnavailable(
            f"the judge answered none of the {outcome.calls} request(s) it was asked ({'; '.join(outcome.errors)})",
            hint=_silent_judge_hint(judge_options.get("command")),
        )


def _silent_judge_hint(command: str | None) -> str:
    if command:
        return (
            "the command's standard error is not shown (it may print secrets): run it by hand with one "
            "request line on its standard input (docs/judge.md) to see why it fails"
        )
    return "check the endpoint, the model and the key (--endpoint, --model, --api-key-env)"
