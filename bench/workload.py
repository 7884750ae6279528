"""Reproducible synthetic workloads for the benchmark: judgments, runs, reports.

A workload is a judgments file and a run file shaped like a RAG team's
golden set, scaled up:

- ``queries`` judged queries, ``depth`` ranked documents per run line;
- 12.5 labels per query on average, graded 0-3, most of them drawn from
  the top of the query's ranking so that every metric moves;
- eight strata, one per query; about 1 % of queries without a positive label;
- about 1 % of judged queries absent from the run, 1 % of run queries with no
  judgment, and 3 % of rankings repeating a key near the top (the cases the
  scoring policy reports rather than drops);
- on request, a second run (``run-head``) with every query's top 20 shuffled,
  for compare + render (the worst case for a paired bootstrap: every query moved).

Everything is drawn from one seeded generator, so a size always produces the
same bytes. Files are written once and reused while their manifest matches.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
from dataclasses import asdict, dataclass
from pathlib import Path

SEED = 20240601
GENERATOR = 2  # bumped whenever the same seed would write other bytes
STRATA = ("billing", "account", "install", "api", "security", "errors", "pricing", "misc")
DOC_SPACE = 2_000_000  # distinct document ids the generator draws from


@dataclass(frozen=True)
class Size:
    name: str
    queries: int
    depth: int


SIZES = {
    "S": Size("S", 1_000, 1_000),
    "M": Size("M", 10_000, 1_000),
    "L": Size("L", 100_000, 1_000),
}


@dataclass(frozen=True)
class Workload:
    """Paths of one generated workload."""

    size: Size
    directory: Path

    @property
    def judgments(self) -> Path:
        return self.directory / "judgments.jsonl"

    @property
    def run(self) -> Path:
        return self.directory / "run.jsonl"

    @property
    def run_head(self) -> Path:
        return self.directory / "run-head.jsonl"

    @property
    def manifest(self) -> Path:
        return self.directory / "manifest.json"


def doc_id(number: int) -> str:
    return f"doc{number:08d}"


def query_id(number: int) -> str:
    return f"q{number:07d}"


def _ranking(rng: random.Random, depth: int) -> list[str]:
    ranking = [doc_id(n) for n in rng.sample(range(DOC_SPACE), depth)]
    if rng.random() < 0.03:
        # A retriever that returns one chunk twice: the report must say so.
        ranking[rng.randrange(1, 10)] = ranking[0]
    return ranking


def _labels(rng: random.Random, ranking: list[str]) -> list[tuple[str, int]]:
    """12.5 labels on average: most near the top of the ranking, a few never retrieved."""
    count = rng.randint(5, 20)
    pool = dict.fromkeys(ranking[:60])
    picked: dict[str, int] = {}
    no_positive = rng.random() < 0.01
    while len(picked) < count:
        if rng.random() < 0.7:
            key = rng.choice(list(pool))
        else:
            key = doc_id(rng.randrange(DOC_SPACE))
        grade = 0 if no_positive else rng.choice((0, 0, 1, 1, 1, 2, 2, 3))
        picked.setdefault(key, grade)
    return list(picked.items())


def _judgment_line(qid: str, number: int, key: str, grade: int) -> str:
    record = {
        "query_id": qid,
        "query": f"synthetic question {number}",
        "doc_uri": key,
        "relevance": grade,
        "labeled_by": "human:bench",
        "stratum": STRATA[number % len(STRATA)],
    }
    return json.dumps(record) + "\n"


def _run_line(qid: str, ranking: list[str]) -> str:
    # The spacing json.dumps uses, written without building the object twice.
    return '{"query_id": "' + qid + '", "ranking": ["' + '", "'.join(ranking) + '"]}\n'


def _perturbed(rng: random.Random, ranking: list[str]) -> list[str]:
    """The head run: the same ranking with its top 20 shuffled, so metrics move a little."""
    top = ranking[:20]
    rng.shuffle(top)
    return top + ranking[20:]


def generate(size: Size, directory: Path, *, head: bool = False) -> Workload:
    """Write (or reuse) the workload of this size under ``directory``; ``head`` adds ``run-head``."""
    workload = Workload(size, directory)
    expected = {"generator": GENERATOR, "seed": SEED, **asdict(size), "head": head}
    if workload.manifest.exists():
        found = json.loads(workload.manifest.read_text())
        if found == expected or found == {**expected, "head": True}:
            return workload
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(f"{SEED}-{size.name}")
    head_rng = random.Random(f"{SEED}-{size.name}-head")  # its own stream: the head never moves the rest
    unjudged = max(1, size.queries // 100)  # in the run, never judged
    with contextlib.ExitStack() as files:
        judgments = files.enter_context(open(workload.judgments, "w"))
        run = files.enter_context(open(workload.run, "w"))
        heads = files.enter_context(open(workload.run_head, "w")) if head else None
        for number in range(size.queries + unjudged):
            qid = query_id(number)
            ranking = _ranking(rng, size.depth)
            if number < size.queries:
                judgments.writelines(_judgment_line(qid, number, k, g) for k, g in _labels(rng, ranking))
            if number < size.queries and number % 100 == 7:
                continue  # about 1 % of judged queries the retriever never answered
            run.write(_run_line(qid, ranking))
            if heads is not None:
                heads.write(_run_line(qid, _perturbed(head_rng, ranking)))
    workload.manifest.write_text(json.dumps(expected) + "\n")
    return workload


def file_mb(path: Path) -> float:
    return os.path.getsize(path) / 1e6


def compile_package() -> None:
    """Write the package's bytecode before timing anything, as ``pip install`` does at install
    time. An editable install run with PYTHONDONTWRITEBYTECODE set (as on the machine these
    figures come from) otherwise compiles every module it imports on every run: about 0.25 s
    of each `score`, and most of `--version`'s margin over `python -c pass`."""
    import compileall

    import retrieval_eval

    compileall.compile_dir(str(Path(retrieval_eval.__file__).parent), quiet=1)
