"""Bytes of the judge's files: the label queue it reads, the machine labels it writes (and
reads back as its cache).

A machine-labels line (JSONL, one per pair)::

    {"query_id": "q1", "doc_uri": "d1", "chunk_id": "d1#0", "role": "hole",
     "status": "labeled", "grade": 2, "majority": 2, "samples": [2, 2, 3],
     "judge": "http", "model": "m", "prompt_sha256": "...", "temperature": 0.7,
     "query_sha256": "...", "text_sha256": "...", "tokens": 41}

It has no ``relevance`` field on purpose: a judgments reader refuses it, so it cannot be
appended to the human labels by mistake.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core.errors import InputError
from ..core.identity import CHUNK_ID_RULE, is_chunk_key
from ..core.judge import (
    CALIBRATION,
    HOLE,
    INCOMPLETE,
    LABELED,
    MAX_TOKENS,
    REFUSED,
    SPLIT,
    UNPARSEABLE,
    Answer,
    MachineLabel,
    Provenance,
    Vote,
    grade_of,
    majority,
)
from .fileio import open_binary, write_atomic
from .jsonl import iter_objects

STATUSES = (LABELED, SPLIT, REFUSED, UNPARSEABLE, INCOMPLETE)


@dataclass(frozen=True)
class QueueItem:
    """One label-queue line, as the judge needs it."""

    query_id: str
    doc_uri: str
    chunk_id: str | None
    query: str | None
    chunk_text: str | None
    line: int
    record: dict[str, Any]

    @property
    def key(self) -> str:
        return self.chunk_id or self.doc_uri


def _text(record: dict[str, Any], name: str, where: tuple[str, int, str], required: bool) -> str | None:
    value = record.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        what = "missing" if value is None else "not a non-empty string"
        raise InputError(where[0], where[1], f"{name} is {what}", path=where[2] or None)
    return value


def _chunk_id(record: dict[str, Any], where: tuple[str, int, str]) -> str | None:
    """The judgments' rule for a chunk id: an id they would refuse (white space, a control or
    bidi character, 10 KB, a c1: that is not one) names no chunk a label could be matched to."""
    chunk = _text(record, "chunk_id", where, False)
    if chunk is not None and not is_chunk_key(chunk):
        raise InputError(where[0], where[1], CHUNK_ID_RULE, path=where[2] or None)
    return chunk


def queue_item(record: dict[str, Any], line: int, *, source: str = "queue", path: str = "") -> QueueItem:
    """One label-queue line (a dict) as the judge reads it, checked."""
    where = (source, line, path)
    if "relevance" in record:
        raise InputError(
            source,
            line,
            "this line is already labeled (it has relevance): the judge reads the label queue",
            path=path or None,
            hint="give the file 'retrieval-eval holes' wrote",
        )
    return QueueItem(
        query_id=str(_text(record, "query_id", where, True)),
        doc_uri=str(_text(record, "doc_uri", where, True)),
        chunk_id=_chunk_id(record, where),
        query=_text(record, "query", where, False),
        chunk_text=_text(record, "chunk_text", where, False),
        line=line,
        record=record,
    )


def read_queue(path: str, *, source: str = "queue") -> list[QueueItem]:
    """The label queue (``retrieval-eval holes``), line by line, each line checked."""
    items = []
    with open_binary(path) as handle:
        for line, record in iter_objects(handle, source, path=path):
            if isinstance(record, dict):  # comments are refused by iter_objects: always a dict
                items.append(queue_item(record, line, source=source, path=path))
    return items


def label_record(label: MachineLabel) -> dict[str, Any]:
    record: dict[str, Any] = {"query_id": label.query_id, "doc_uri": label.doc_uri}
    if label.chunk_id is not None:
        record["chunk_id"] = label.chunk_id
    record |= {
        "role": label.role,
        "status": label.vote.status,
        "grade": label.vote.grade,
        "majority": label.vote.majority,
        "samples": list(label.samples),
        "judge": label.provenance.judge,
        "model": label.provenance.model,
        "prompt_sha256": label.provenance.prompt_sha256,
        "temperature": label.provenance.temperature,
        "query_sha256": label.query_sha256,
        "text_sha256": label.text_sha256,
        "tokens": label.tokens,
    }
    return record


def machine_labels_text(labels: Iterable[MachineLabel]) -> str:
    return "".join(json.dumps(label_record(label), ensure_ascii=False) + "\n" for label in labels)


def write_machine_labels(path: str | os.PathLike[str], labels: Iterable[MachineLabel]) -> None:
    write_atomic(path, machine_labels_text(labels))


def _sample(value: Any, where: tuple[str, int, str]) -> Answer | None:
    if value is None:
        return None  # not asked yet (a budget stopped the run)
    if value in (REFUSED, UNPARSEABLE):
        return str(value)
    answer = grade_of(value)
    if answer == UNPARSEABLE:
        raise InputError(
            where[0], where[1], f"samples: {value!r} is not a grade 0-3, refused, unparseable or null", path=where[2]
        )
    return answer


def _optional_grade(record: dict[str, Any], name: str, where: tuple[str, int, str]) -> int | None:
    value = record.get(name)
    if value is None:
        return None
    answer = grade_of(value)
    if not isinstance(answer, int):
        raise InputError(where[0], where[1], f"{name}: {value!r} is not a grade 0-3 or null", path=where[2] or None)
    return answer


MAX_TEMPERATURE = 2.0  # the chat API's range; 1e999 reads as infinity, which no judge ran at


def _check_vote(vote: Vote, answers: tuple[Answer | None, ...], where: tuple[str, int, str]) -> None:
    """The grade a gate reads must be the one its samples give: a hand-edited grade of 3 over
    samples of 0, or a grade beside a split or refused status, would score a label nobody gave."""
    grades = [answer for answer in answers if isinstance(answer, int)]
    if vote.status == LABELED:
        expected = majority(grades) if grades and len(grades) == len(answers) else None
        if vote.grade is None or vote.grade != expected or vote.majority != expected:
            raise InputError(
                where[0],
                where[1],
                f"status labeled with grade {vote.grade!r} and majority {vote.majority!r}, "
                f"but its {len(answers)} sample(s) give {expected!r}",
                path=where[2] or None,
            )
    elif vote.grade is not None:
        raise InputError(
            where[0],
            where[1],
            f"grade {vote.grade!r} with status {vote.status!r}: only a labeled pair has a grade",
            path=where[2] or None,
        )


def _label_from(record: dict[str, Any], where: tuple[str, int, str]) -> MachineLabel:
    samples = record.get("samples")
    if not isinstance(samples, list):
        raise InputError(where[0], where[1], "samples must be a list of answers", path=where[2] or None)
    status, role = record.get("status"), record.get("role")
    if status not in STATUSES:
        raise InputError(
            where[0], where[1], f"status {status!r} is not one of {', '.join(STATUSES)}", path=where[2] or None
        )
    if role not in (HOLE, CALIBRATION):
        raise InputError(where[0], where[1], f"role {role!r} is not {HOLE} or {CALIBRATION}", path=where[2] or None)
    temperature, tokens = record.get("temperature"), record.get("tokens", 0)
    if temperature is not None and (isinstance(temperature, bool) or not isinstance(temperature, int | float)):
        raise InputError(where[0], where[1], "temperature must be a number or null", path=where[2] or None)
    if temperature is not None and not 0 <= temperature <= MAX_TEMPERATURE:
        message = f"temperature must be 0-{MAX_TEMPERATURE:g} or null"
        raise InputError(where[0], where[1], message, path=where[2] or None)
    if isinstance(tokens, bool) or not isinstance(tokens, int) or not 0 <= tokens <= MAX_TOKENS:
        raise InputError(where[0], where[1], f"tokens must be a whole number 0-{MAX_TOKENS}", path=where[2] or None)
    provenance = Provenance(
        judge=str(_text(record, "judge", where, True)),
        model=str(_text(record, "model", where, True)),
        prompt_sha256=str(_text(record, "prompt_sha256", where, True)),
        temperature=None if temperature is None else float(temperature),
    )
    answers = tuple(_sample(value, where) for value in samples)
    vote = Vote(str(status), _optional_grade(record, "grade", where), _optional_grade(record, "majority", where))
    _check_vote(vote, answers, where)
    return MachineLabel(
        query_id=str(_text(record, "query_id", where, True)),
        doc_uri=str(_text(record, "doc_uri", where, True)),
        chunk_id=_chunk_id(record, where),
        role=str(role),
        vote=vote,
        samples=answers,
        provenance=provenance,
        query_sha256=str(_text(record, "query_sha256", where, True)),
        text_sha256=str(_text(record, "text_sha256", where, True)),
        tokens=tokens,
    )


def read_machine_labels(path: str, *, source: str = "machine labels") -> list[MachineLabel]:
    """A machine-labels file, every line checked (a hand-edited line is named, not trusted)."""
    labels = []
    first_line: dict[tuple[str, str, str], int] = {}  # (query, key, role) -> the line labeling it
    with open_binary(path) as handle:
        for line, record in iter_objects(handle, source, path=path):
            if not isinstance(record, dict):
                continue
            label = _label_from(record, (source, line, path))
            _refuse_second_label(label, line, first_line, (source, path))
            labels.append(label)
    return labels


def _refuse_second_label(
    label: MachineLabel, line: int, first_line: dict[tuple[str, str, str], int], where: tuple[str, str]
) -> None:
    """The judge writes one label per pair and role; a second one (two files concatenated, a hand
    edit) would be read as whichever came last, so it is refused, naming both lines."""
    pair = (label.query_id, label.key, label.role)
    if pair in first_line:
        raise InputError(
            where[0],
            line,
            f"query {label.query_id!r}, key {label.key!r} ({label.role}) is labeled again (first on line "
            f"{first_line[pair]}); a machine-labels file holds one label per pair: keep one of the two lines",
            path=where[1] or None,
        )
    first_line[pair] = line
