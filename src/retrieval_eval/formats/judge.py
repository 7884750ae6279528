"""The judge's JSON: a chat-completions answer read (:func:`read_completion`), a judge command's
answer line read (:func:`read_command_line`, the protocol of pipeline/judge_clients.py), and
``judge --json`` written: what a judge run did, and its calibration (how far the machine judge
agrees with the human labels)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.judge import MAX_TOKENS, REFUSED, UNPARSEABLE, Answer, grade_of, parse_reply
from ..core.judge_calibration import Calibration


@dataclass(frozen=True, slots=True)
class JudgeAccount:
    """A judge run's accounting, as ``judge --json`` writes it (``render.judge`` builds it from
    the run's outcome, a pipeline record this module may not import)."""

    holes: Mapping[str, int]  # machine labels of the unjudged keys, by status
    holes_without_text: int  # queue lines with no query or chunk text: not asked
    calibration_pairs: Mapping[str, int]  # machine labels of the human-labeled pairs, by status
    calibration: Calibration | None
    calls: int
    tokens: int
    answers_reused: int
    answers_unasked: int
    requests_failed: int
    labels_invalidated: int
    stopped_by_budget: bool
    errors: tuple[str, ...]


def judge_account_json(account: JudgeAccount) -> dict[str, Any]:
    return {
        "holes": dict(account.holes),
        "holes_without_text": account.holes_without_text,
        "calibration_pairs": dict(account.calibration_pairs),
        "calibration": calibration_json(account.calibration),
        "calls": account.calls,
        "tokens": account.tokens,
        "answers_reused": account.answers_reused,
        "answers_unasked": account.answers_unasked,
        "requests_failed": account.requests_failed,
        "labels_invalidated": account.labels_invalidated,
        "stopped_by_budget": account.stopped_by_budget,
        "errors": list(account.errors),
    }


def calibration_json(calibration: Calibration | None) -> dict[str, Any] | None:
    if calibration is None:
        return None
    return {
        "status": calibration.status,
        "asked": calibration.asked,
        "labeled": calibration.labeled,
        "kappa_binary": calibration.kappa_binary,
        "kappa_graded": calibration.kappa_graded,
        "confusion": [list(row) for row in calibration.confusion],
        "zero_rate_human": calibration.zero_rate_human,
        "zero_rate_judge": calibration.zero_rate_judge,
        "floor": calibration.floor,
        "usable_by_gates": calibration.usable,
    }


def _refusal(choice: dict[str, Any]) -> bool:
    """A content filter's stop, or a model's refusal: what the answer says in place of grades."""
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    return choice.get("finish_reason") == "content_filter" or bool((message or {}).get("refusal"))


def token_count(value: Any) -> int:
    """A reported token count, or 0 when it is none: not a whole number, negative or absurd."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        return 0
    return value


def read_completion_bytes(raw: bytes, count: int) -> tuple[tuple[Answer, ...], int]:
    """:func:`read_completion` of a response body as it came; a body that is not JSON is unparseable."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: JSON nested past the stack
        return (UNPARSEABLE,) * count, 0
    return read_completion(body, count)


def read_completion(body: Any, count: int) -> tuple[tuple[Answer, ...], int]:
    """Answers and tokens from a chat-completions response body; a shape we do not know is unparseable."""
    usage = body.get("usage") if isinstance(body, dict) else None
    tokens = usage.get("total_tokens") if isinstance(usage, dict) else None
    spent = token_count(tokens)
    choices = body.get("choices") if isinstance(body, dict) else None
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    if choice is None:
        return (UNPARSEABLE,) * count, spent
    if _refusal(choice):
        return (REFUSED,) * count, spent
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        return (UNPARSEABLE,) * count, spent
    return tuple(parse_reply(content, count)), spent


@dataclass(frozen=True)
class CommandLine:
    """One answer line of a judge command: the request it answers, its answers (None when
    ``answers`` is not a list: every passage unparseable) and the tokens it reports."""

    id: str
    answers: tuple[Answer, ...] | None
    tokens: int


def read_command_line(line: str, most: int) -> CommandLine | None:
    """A judge command's answer line, its first ``most`` answers read; None for a line that
    names no request (not JSON, not an object, no text id): garbage on stdout answers nothing."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("id"), str):
        return None
    answers = record.get("answers")
    if not isinstance(answers, list):
        return CommandLine(record["id"], None, 0)
    read = tuple(command_answer(value) for value in answers[:most])
    return CommandLine(record["id"], read, token_count(record.get("tokens")))


def command_answer(value: object) -> Answer:
    """One answer of the command protocol: a grade 0-3, ``"refused"``, or ``{"text": ...}`` read
    as the chat judge reads a reply; anything else is unparseable."""
    if value == REFUSED:
        return REFUSED
    if isinstance(value, dict) and set(value) == {"text"} and isinstance(value["text"], str):
        return parse_reply(value["text"], 1)[0]
    return grade_of(value)
