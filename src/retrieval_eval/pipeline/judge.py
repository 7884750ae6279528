"""Machine labels for the label queue: ask a judge, reuse what it already answered, calibrate.

``judge_pairs`` takes the pairs to label (the queue's holes, and a calibration sample of
human-labeled pairs), asks the judge for what the cache does not hold, and returns every
pair's :class:`MachineLabel` with the run's accounting. The rules (what an answer means,
the vote, kappa) are in :mod:`retrieval_eval.core.judge` and its neighbours.

- Cache: an answer is reused under (query text hash, chunk text hash, judge, model, prompt
  hash, temperature, sample index). A chunk whose text changed is asked again; the run
  counts such labels as invalidated.
- Order: calibration first (holes are of no use to a gate without it), then the holes in
  queue order (most useful first), so a budget is spent where it matters.
- Batching: up to ``batch`` passages of one query per request (never two queries in one).
- Budget: no request is started past the calls or tokens allowed; the ones in flight finish.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from ..core.corpus import Corpus
from ..core.judge import (
    CALIBRATION,
    DEFAULT_PROMPT,
    HOLE,
    Answer,
    MachineLabel,
    Provenance,
    prompt_sha256,
    text_sha256,
    vote,
)
from ..core.judge_calibration import DEFAULT_FLOOR, Calibration, calibrate, stratified_sample
from ..core.judgments import JudgmentSet
from ..core.report_model import Json
from ..formats.corpus import read_corpus
from ..formats.machine_labels import QueueItem, queue_item, read_machine_labels, write_machine_labels
from ..formats.objects import read_judgment_set
from ..formats.queue import QueueLine, UnsettledLine, queue_line_to_json
from .judge_clients import CommandJudge, HttpJudge, Reply, Request
from .settings import Settings

Progress = Callable[[int, int], None]
CacheKey = tuple[str, str, Provenance, int]
DEFAULT_CALIBRATION = 100


@dataclass(frozen=True)
class Pair:
    query_id: str
    doc_uri: str
    chunk_id: str | None
    role: str
    query: str
    text: str
    human: int | None = None  # the human grade of a calibration pair; never sent to the judge
    record: Mapping[str, Json] = field(default_factory=dict)  # the queue line as read, for the human queue

    @property
    def key(self) -> str:
        return self.chunk_id or self.doc_uri

    def cache_key(self, provenance: Provenance, sample: int) -> CacheKey:
        return (text_sha256(self.query), text_sha256(self.text), provenance, sample)


@dataclass(frozen=True)
class Budget:
    calls: int | None = None
    tokens: int | None = None


@dataclass(frozen=True)
class JudgeSetup:
    provenance: Provenance
    samples: int = 3
    threshold: int = 1
    batch: int = 5
    concurrency: int = 4
    budget: Budget = Budget()
    floor: float = DEFAULT_FLOOR


@dataclass(frozen=True)
class Outcome:
    labels: tuple[MachineLabel, ...]
    calibration: Calibration | None
    calls: int
    tokens: int
    reused: int  # answers taken from the cache
    unasked: int  # (pair, sample) answers the budget left unasked
    failed: int  # requests that got no answer (errors); asked again next run
    invalidated: int  # earlier labels whose chunk text changed
    stopped_by_budget: bool
    errors: tuple[str, ...] = ()


# -- the pairs ---------------------------------------------------------------------------


def hole_pairs(items: Sequence[QueueItem]) -> tuple[list[Pair], list[QueueItem]]:
    """Queue lines as pairs; lines without a query text or a chunk text cannot be judged.
    A pair on several lines (two queues concatenated) is asked once, as its first line says:
    the labels file holds one label per pair."""
    pairs, without = [], []
    seen: set[tuple[str, str]] = set()
    for item in items:
        if item.query is None or item.chunk_text is None:
            without.append(item)
            continue
        if (item.query_id, item.key) in seen:
            continue
        seen.add((item.query_id, item.key))
        pairs.append(
            Pair(item.query_id, item.doc_uri, item.chunk_id, HOLE, item.query, item.chunk_text, None, item.record)
        )
    return pairs, without


def _label_text(record: Mapping[str, Json], chunk_id: str | None, corpus: Corpus | None) -> str | None:
    text = record.get("chunk_text")
    if isinstance(text, str) and text:
        return text
    if corpus is None or chunk_id is None or chunk_id not in corpus.position:
        return None
    return corpus.texts[corpus.position[chunk_id]]


def calibration_pairs(judgments: JudgmentSet, corpus: Corpus | None, size: int) -> list[Pair]:
    """A sample of human-labeled pairs the judge can read (a query text and a chunk text),
    stratified by grade (:func:`stratified_sample`)."""
    candidates = []
    for label in judgments.labels:
        query, text = label.record.get("query"), _label_text(label.record, label.chunk_id, corpus)
        if isinstance(query, str) and query and text:
            candidates.append(
                Pair(label.query_id, label.doc_uri, label.chunk_id, CALIBRATION, query, text, label.relevance)
            )
    chosen = stratified_sample([(f"{p.query_id}\0{p.key}", p.human or 0) for p in candidates], size)
    return [candidates[i] for i in chosen]


# -- the requests ------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    requests: tuple[Request, ...]
    members: Mapping[str, tuple[int, ...]]  # request id -> pair indices, in passage order


def _by_query(indices: Iterable[int], pairs: Sequence[Pair]) -> list[list[int]]:
    groups: dict[tuple[str, str], list[int]] = {}
    for index in indices:
        groups.setdefault((pairs[index].role, pairs[index].query), []).append(index)
    return list(groups.values())


def plan(pairs: Sequence[Pair], answered: Mapping[tuple[int, int], Answer], setup: JudgeSetup) -> Plan:
    """The requests still needed, calibration first, then the holes in queue order."""
    requests: list[Request] = []
    members: dict[str, tuple[int, ...]] = {}
    order = [i for i, p in enumerate(pairs) if p.role == CALIBRATION] + [
        i for i, p in enumerate(pairs) if p.role == HOLE
    ]
    for group in _by_query(order, pairs):
        for start in range(0, len(group), setup.batch):
            batch = group[start : start + setup.batch]
            for sample in range(setup.samples):
                missing = tuple(i for i in batch if (i, sample) not in answered)
                if missing:
                    request_id = f"r{len(requests) + 1}"
                    passages = tuple(pairs[i].text for i in missing)
                    requests.append(Request(request_id, pairs[missing[0]].query, passages, sample))
                    members[request_id] = missing
    return Plan(tuple(requests), members)


# -- asking ------------------------------------------------------------------------------


@dataclass
class Spent:
    calls: int = 0
    tokens: int = 0
    stopped: bool = False

    def allows(self, budget: Budget) -> bool:
        over = (budget.calls is not None and self.calls >= budget.calls) or (
            budget.tokens is not None and self.tokens >= budget.tokens
        )
        self.stopped = self.stopped or over
        return not over


def ask_http(
    judge: HttpJudge,
    requests: Sequence[Request],
    setup: JudgeSetup,
    progress: Progress | None,
    replies: dict[str, Reply] | None = None,
) -> tuple[dict[str, Reply], Spent]:
    """At most ``concurrency`` requests in flight; none started past the budget. ``replies`` is
    filled as the answers come (a caller stopped midway keeps what came)."""
    replies = {} if replies is None else replies
    spent = Spent()
    queue = list(reversed(requests))
    with ThreadPoolExecutor(max_workers=setup.concurrency) as pool:
        pending: dict[Future[Reply], str] = {}
        while queue or pending:
            while queue and len(pending) < setup.concurrency and spent.allows(setup.budget):
                request = queue.pop()
                pending[pool.submit(judge.ask, request)] = request.id
                spent.calls += 1
            if not pending:
                break
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                reply = future.result()
                replies[pending.pop(future)] = reply
                spent.tokens += reply.tokens
            if progress is not None:
                progress(len(replies), len(requests))
    return replies, spent


def ask_command(
    judge: CommandJudge,
    requests: Sequence[Request],
    setup: JudgeSetup,
    progress: Progress | None,
    replies: dict[str, Reply] | None = None,
) -> tuple[dict[str, Reply], Spent]:
    """Rounds of ``concurrency * batch`` requests, the budget checked between rounds; ``replies``
    is filled round by round (a caller stopped midway keeps the rounds that ended)."""
    replies = {} if replies is None else replies
    spent = Spent()
    size = max(setup.concurrency * setup.batch, 1)
    position = 0
    while position < len(requests) and spent.allows(setup.budget):
        room = len(requests) - position
        if setup.budget.calls is not None:
            room = min(room, setup.budget.calls - spent.calls)
        chunk = requests[position : position + min(size, room)]
        answered = judge.ask_all(chunk)
        replies.update(answered)
        spent.calls += len(chunk)
        spent.tokens += sum(reply.tokens for reply in answered.values())
        position += len(chunk)
        if progress is not None:
            progress(position, len(requests))
    spent.stopped = spent.stopped or position < len(requests)
    return replies, spent


# -- putting it together ---------------------------------------------------------------------


def cached_answers(
    pairs: Sequence[Pair], earlier: Sequence[MachineLabel], setup: JudgeSetup
) -> tuple[dict[tuple[int, int], Answer], int]:
    """Answers the earlier labels already hold for these pairs, and how many earlier labels
    of the same (query, key) had another chunk text (invalidated)."""
    store: dict[CacheKey, Answer] = {}
    texts: dict[tuple[str, str], set[str]] = {}
    for label in earlier:
        texts.setdefault((label.query_id, label.key), set()).add(label.text_sha256)
        for sample, answer in enumerate(label.samples):
            if answer is not None:
                store[(label.query_sha256, label.text_sha256, label.provenance, sample)] = answer
    answered = {}
    invalidated = 0
    for index, pair in enumerate(pairs):
        seen = texts.get((pair.query_id, pair.key), set())
        invalidated += bool(seen) and text_sha256(pair.text) not in seen
        for sample in range(setup.samples):
            found = store.get(pair.cache_key(setup.provenance, sample))
            if found is not None:
                answered[(index, sample)] = found
    return answered, invalidated


def _labels(
    pairs: Sequence[Pair],
    wanted: Plan,
    replies: Mapping[str, Reply],
    answered: dict[tuple[int, int], Answer],
    setup: JudgeSetup,
) -> tuple[tuple[MachineLabel, ...], int, dict[int, int]]:
    """Every pair's label from the cached answers and the replies (``answered`` is filled in);
    how many requests failed; the tokens spent per pair."""
    tokens: dict[int, int] = {}
    failed = _record_replies(wanted, replies, answered, tokens)
    labels = tuple(
        _label(pair, [answered.get((i, s)) for s in range(setup.samples)], tokens.get(i, 0), setup)
        for i, pair in enumerate(pairs)
    )
    return labels, failed, tokens


def _record_replies(
    plan_: Plan, replies: Mapping[str, Reply], answered: dict[tuple[int, int], Answer], tokens: dict[int, int]
) -> int:
    failed = 0
    for request in plan_.requests:
        reply = replies.get(request.id)
        if reply is None:
            continue
        if reply.error is not None:
            failed += 1
            continue
        indices = plan_.members[request.id]
        share, extra = divmod(reply.tokens, len(indices))
        for position, index in enumerate(indices):
            answered[(index, request.sample)] = reply.answers[position]
            tokens[index] = tokens.get(index, 0) + share + (extra if position == 0 else 0)
    return failed


def _label(pair: Pair, samples: list[Answer | None], tokens: int, setup: JudgeSetup) -> MachineLabel:
    given = [answer for answer in samples if answer is not None]
    return MachineLabel(
        query_id=pair.query_id,
        doc_uri=pair.doc_uri,
        chunk_id=pair.chunk_id,
        role=pair.role,
        vote=vote(given, samples=setup.samples, threshold=setup.threshold),
        samples=tuple(samples),
        provenance=setup.provenance,
        query_sha256=text_sha256(pair.query),
        text_sha256=text_sha256(pair.text),
        tokens=tokens,
    )


def judge_pairs(
    pairs: Sequence[Pair],
    judge: HttpJudge | CommandJudge,
    setup: JudgeSetup,
    *,
    earlier: Sequence[MachineLabel] = (),
    progress: Progress | None = None,
    on_stop: Callable[[Sequence[MachineLabel]], None] | None = None,
) -> Outcome:
    """Label every pair, asking only for what the earlier labels do not hold (module docstring).
    ``on_stop`` is given the labels so far when the run is stopped midway, before it ends."""
    answered, invalidated = cached_answers(pairs, earlier, setup)
    reused = len(answered)
    wanted = plan(pairs, answered, setup)
    replies: dict[str, Reply] = {}
    try:
        if isinstance(judge, HttpJudge):
            _, spent = ask_http(judge, wanted.requests, setup, progress, replies)
        else:
            _, spent = ask_command(judge, wanted.requests, setup, progress, replies)
    except (KeyboardInterrupt, SystemExit):
        # Stopped (Ctrl-C, a cancelled job): the answers that came are paid for; keep them.
        if on_stop is not None:
            on_stop(_labels(pairs, wanted, replies, dict(answered), setup)[0])
        raise
    labels, failed, _tokens = _labels(pairs, wanted, replies, answered, setup)
    unasked = sum(len(wanted.members[r.id]) for r in wanted.requests if r.id not in replies)
    errors = tuple(sorted({reply.error for reply in replies.values() if reply.error}))
    return Outcome(
        labels=labels,
        calibration=_calibration(pairs, labels, setup),
        calls=spent.calls,
        tokens=spent.tokens,
        reused=reused,
        unasked=unasked,
        failed=failed,
        invalidated=invalidated,
        stopped_by_budget=spent.stopped,
        errors=errors,
    )


def _calibration(pairs: Sequence[Pair], labels: Sequence[MachineLabel], setup: JudgeSetup) -> Calibration | None:
    asked = [(pair, label) for pair, label in zip(pairs, labels) if pair.role == CALIBRATION]
    if not asked:
        return None
    graded = [(pair.human or 0, label.vote.grade) for pair, label in asked if label.vote.grade is not None]
    return calibrate(
        [(human, int(grade)) for human, grade in graded],
        humans=[pair.human or 0 for pair, _ in asked],
        answered=[answer for _, label in asked for answer in label.samples if isinstance(answer, int)],
        threshold=setup.threshold,
        floor=setup.floor,
    )


def human_queue(pairs: Sequence[Pair], labels: Sequence[MachineLabel]) -> list[UnsettledLine]:
    """The holes the judge did not settle, as queue lines for a person, with why."""
    return [
        UnsettledLine(pair.record, label.vote.status)
        for pair, label in zip(pairs, labels)
        if pair.role == HOLE and not label.vote.usable
    ]


# -- from files to files: what the command and the action share --------------------------------


@dataclass(frozen=True)
class JudgeFiles:
    out: str  # the machine labels; read first as the cache
    judgments: str | None = None  # human labels for the calibration sample
    corpus: str | None = None  # chunk texts for calibration pairs whose line has none
    calibration: int = DEFAULT_CALIBRATION


@dataclass(frozen=True)
class JudgeRun:
    outcome: Outcome
    pairs: tuple[Pair, ...]
    without_text: int  # queue lines without a query or chunk text: not judged


def judge_queue(
    items: Sequence[QueueItem],
    files: JudgeFiles,
    judge: HttpJudge | CommandJudge,
    setup: JudgeSetup,
    progress: Progress | None = None,
) -> JudgeRun:
    """Calibrate and label the queue's holes, writing the machine labels (atomically) to ``files.out``."""
    holes, without = hole_pairs(items)
    pairs = list(holes)
    if files.judgments:
        corpus = read_corpus(files.corpus) if files.corpus else None
        pairs = calibration_pairs(read_judgment_set(files.judgments), corpus, files.calibration) + pairs
    earlier = read_machine_labels(files.out) if os.path.exists(files.out) else []
    outcome = judge_pairs(
        pairs,
        judge,
        setup,
        earlier=earlier,
        progress=progress,
        on_stop=lambda so_far: write_machine_labels(files.out, so_far),
    )
    write_machine_labels(files.out, outcome.labels)
    return JudgeRun(outcome, tuple(pairs), len(without))


DEFAULT_TEMPERATURE = 0.7


def judge_for_settings(settings: Settings, queue: Sequence[QueueLine]) -> JudgeRun:
    """A workflow's judge run: the settings' endpoint and budget, the default prompt and
    samples, calibration on the judgments, labels written beside the report (or to
    ``machine-labels``, which is then also the cache)."""
    prompt = DEFAULT_PROMPT
    provenance = Provenance("http", settings.judge_model, prompt_sha256(prompt), DEFAULT_TEMPERATURE)
    judge = HttpJudge(settings.judge_endpoint, settings.judge_model, prompt, DEFAULT_TEMPERATURE, settings.judge_key)
    budget = Budget(settings.judge_max_calls, settings.judge_max_tokens)
    setup = JudgeSetup(provenance, threshold=settings.threshold, budget=budget)
    items = [queue_item(queue_line_to_json(line), number) for number, line in enumerate(queue, 1)]
    files = JudgeFiles(
        out=str(settings.resolve(settings.machine_labels_out)),
        judgments=str(settings.resolve(settings.judgments)),
        corpus=str(settings.resolve(settings.corpus)) if settings.corpus else None,
    )
    return judge_queue(items, files, judge, setup)
