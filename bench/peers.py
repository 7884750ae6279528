"""The programs retrieval-eval is measured against, each run as its own process.

    python bench/peers.py floor RUN
    python bench/peers.py pytrec-topk-loaded JUDGMENTS RUN K
    python bench/peers.py pytrec-topk JUDGMENTS RUN K
    python bench/peers.py pytrec-full JUDGMENTS RUN K

``floor`` is the cost of reading the run at all: every line parsed with the
standard json module and dropped. The pytrec_eval pipelines are what a team
writes today around trec_eval's Python binding: parse the judgments into
qrels, parse the run into {query: {doc: score}}, evaluate the same measures
retrieval-eval reports, and average them over queries. The run is built
three ways: ``pytrec-topk-loaded`` reads every line into a list first and
then keeps each query's top k (the common pattern); ``pytrec-topk`` keeps
only the top k of each line as it is read (the leanest); ``pytrec-full``
keeps whole rankings. Files are read as text, json's fastest input. Each
mode prints one JSON line, so a run can be checked for having done the work.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

# trec_eval's names for what retrieval-eval reports at one cutoff.
MEASURES = ("P.{k}", "recall.{k}", "ndcg_cut.{k}", "recip_rank", "map_cut.{k}", "success.{k}", "Rprec")


def floor(run_path: str) -> dict[str, int]:
    lines = 0
    with open(run_path, encoding="utf-8") as handle:
        for line in handle:
            json.loads(line)
            lines += 1
    return {"lines": lines}


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            qrels.setdefault(record["query_id"], {})[record["doc_uri"]] = record["relevance"]
    return qrels


def ranked_scores(ranking: list[str]) -> dict[str, float]:
    """Rank r of n becomes score n - r, so trec_eval's sort gives back the file's order."""
    size = len(ranking)
    scores: dict[str, float] = {}
    for rank, doc in enumerate(ranking):
        scores.setdefault(doc, float(size - rank))
    return scores


def read_run(path: str, cut: int | None) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            run[record["query_id"]] = ranked_scores(record["ranking"][:cut])
    return run


def read_run_loaded(path: str, cut: int) -> dict[str, dict[str, float]]:
    with open(path, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle]
    return {record["query_id"]: ranked_scores(record["ranking"][:cut]) for record in records}


def pytrec(judgments: str, run_path: str, k: int, *, run_reader: Callable[..., Any]) -> dict[str, Any]:
    import pytrec_eval

    qrels = read_qrels(judgments)
    run = run_reader(run_path)
    measures = {m.format(k=k) for m in MEASURES}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    names = sorted({name for values in per_query.values() for name in values})
    count = len(per_query)
    return {name: sum(v[name] for v in per_query.values()) / count for name in names}


MODES: dict[str, Callable[..., Any]] = {
    "floor": lambda run: floor(run),
    "pytrec-topk-loaded": lambda j, run, k: pytrec(j, run, int(k), run_reader=lambda p: read_run_loaded(p, int(k))),
    "pytrec-topk": lambda j, run, k: pytrec(j, run, int(k), run_reader=lambda p: read_run(p, int(k))),
    "pytrec-full": lambda j, run, k: pytrec(j, run, int(k), run_reader=lambda p: read_run(p, None)),
}


def main(argv: list[str]) -> None:
    if not argv or argv[0] not in MODES:
        raise SystemExit(__doc__)
    print(json.dumps(MODES[argv[0]](*argv[1:])))


if __name__ == "__main__":
    main(sys.argv[1:])
