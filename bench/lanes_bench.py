"""The lanes' benchmark: `retrieval-eval floor-run` timed as a whole process, beside rank_bm25.

Workload (seeded, written once under ``bench/generated/lanes/``): 200k chunks
of 40-159 words (20 chunks a document) drawn from a Zipfian vocabulary of
50k synthetic words (exponent 1.07), 10k judged queries of 3-9 words, most of
them taken from one target chunk among the first 50k and the rest drawn from
the same Zipf law; a 50k-chunk corpus is the first 50k chunks.

Rows, each a whole process (parse, tokenize, index, rank, write), wall time
and peak RSS from /usr/bin/time:

- ``floor-run --method bm25`` and ``--method tfidf`` on 200k chunks x 10k queries, top 100;
- ``floor-run --method bm25`` on 50k chunks x 10k queries, top 100;
- rank_bm25 (``BM25Okapi``, pure Python) on the 50k corpus with the same tokens,
  over the first ``--peer-queries`` queries only, scaled to 10k queries per query.

``--stages`` adds an in-process split (index, per query) of bm25s and rank_bm25
on the 50k corpus. Requires ``pip install -e '.[lanes]' rank-bm25``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run_bench as rb  # noqa: E402  (bench/ is not a package)

SEED = 20261201
GENERATOR = 1  # bumped whenever the same seed would write other bytes
VOCABULARY = 50_000
ZIPF = 1.07
CHUNKS = 200_000
SMALL = 50_000
QUERIES = 10_000
DEPTH = 100
CHUNKS_PER_DOC = 20
WORKDIR = HERE / "generated" / "lanes"
BEGIN, END = "<!-- lanes-bench:begin -->", "<!-- lanes-bench:end -->"
TARGET_WALL = 60.0
TARGET_MB = 2048.0
TARGET_RATIO = 20.0


# -- workload ---------------------------------------------------------------------------


def synthetic_words(rng, count: int) -> list[str]:
    """``count`` distinct pronounceable words of 1-4 syllables."""
    onsets = [*"bcdfghjklmnprstvwz", "br", "ch", "st", "tr", "pl", "gr", "sh"]
    vowels = [*"aeiou", "ai", "ou", "ea"]
    seen: dict[str, None] = {}
    while len(seen) < count:
        syllables = rng.integers(1, 5)
        word = "".join(onsets[rng.integers(len(onsets))] + vowels[rng.integers(len(vowels))] for _ in range(syllables))
        seen.setdefault(word, None)
    return list(seen)


def chunk_id(number: int) -> str:
    return "c1:" + hashlib.sha256(f"lanes-chunk-{number}".encode()).hexdigest()[:32]


def write_workload() -> None:
    import numpy as np

    manifest = WORKDIR / "manifest.json"
    want = {"seed": SEED, "generator": GENERATOR, "chunks": CHUNKS, "queries": QUERIES}
    if manifest.exists() and json.loads(manifest.read_text()) == want:
        return
    WORKDIR.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(SEED)
    vocab = synthetic_words(rng, VOCABULARY)
    weights = 1.0 / np.arange(1, VOCABULARY + 1) ** ZIPF
    weights /= weights.sum()
    lengths = rng.integers(40, 160, CHUNKS)
    flat = rng.choice(VOCABULARY, size=int(lengths.sum()), p=weights)
    texts: list[list[int]] = []
    with open(WORKDIR / "corpus-200k.jsonl", "w") as big, open(WORKDIR / "corpus-50k.jsonl", "w") as small:
        start = 0
        for number, length in enumerate(lengths.tolist()):
            ids = flat[start : start + length].tolist()
            start += length
            if number < SMALL:
                texts.append(ids)
            record = {
                "chunk_id": chunk_id(number),
                "doc_uri": f"bench://doc/{number // CHUNKS_PER_DOC:06d}",
                "ordinal": number % CHUNKS_PER_DOC,
                "text": " ".join(vocab[i] for i in ids) + ".",
            }
            line = json.dumps(record) + "\n"
            big.write(line)
            if number < SMALL:
                small.write(line)
    with open(WORKDIR / "judgments.jsonl", "w") as judgments:
        for number in range(QUERIES):
            target = int(rng.integers(SMALL))
            size = int(rng.integers(3, 10))
            if rng.random() < 0.8:  # words of the target chunk, in its order
                picks = np.sort(rng.choice(len(texts[target]), size=min(size, len(texts[target])), replace=False))
                words = [vocab[texts[target][i]] for i in picks.tolist()]
            else:
                words = [vocab[i] for i in rng.choice(VOCABULARY, size=size, p=weights).tolist()]
            label = {
                "query_id": f"q{number:05d}",
                "query": " ".join(words),
                "doc_uri": f"bench://doc/{target // CHUNKS_PER_DOC:06d}",
                "chunk_id": chunk_id(target),
                "relevance": 1,
            }
            judgments.write(json.dumps(label) + "\n")
    manifest.write_text(json.dumps(want))


# -- the peer and the in-process split ---------------------------------------------------


def tokenized_corpus(path: str):
    """The corpus keys and token lists, and the queries, as the floor-run command tokenizes them."""
    from retrieval_eval.core.tokenize import Tokenizer, TokenizerSpec
    from retrieval_eval.formats.corpus import read_corpus
    from retrieval_eval.formats.judgments import parse_judgments
    from retrieval_eval.pipeline.floor_run import collection_of, query_texts

    collection = collection_of(read_corpus(path), "chunk")
    tokenizer = Tokenizer(TokenizerSpec())
    documents = [tokenizer.tokens(text) for text in collection.texts]
    queries = query_texts(parse_judgments(str(WORKDIR / "judgments.jsonl")))
    return collection.keys, documents, [tokenizer.tokens(text) for text in queries.texts.values()]


def peer_rank_bm25(corpus: str, queries: int) -> dict[str, float]:
    """rank_bm25 end to end on ``queries`` queries; times of each stage (printed as JSON)."""
    import numpy as np
    from rank_bm25 import BM25Okapi

    started = time.perf_counter()
    keys, documents, query_tokens = tokenized_corpus(corpus)
    read = time.perf_counter()
    model = BM25Okapi(documents, k1=1.5, b=0.75)
    indexed = time.perf_counter()
    for tokens in query_tokens[:queries]:
        scores = model.get_scores(tokens)
        best = np.argpartition(-scores, DEPTH)[:DEPTH]
        _ = [keys[i] for i in best[np.argsort(-scores[best], kind="stable")]]
    done = time.perf_counter()
    return {"read": read - started, "index": indexed - read, "per_query": (done - indexed) / queries}


def stages_bm25s(corpus: str) -> dict[str, float]:
    """bm25s through our lane, in process, every query; times of each stage."""
    from retrieval_eval.core.tokenize import TermIds, Tokenizer, TokenizerSpec
    from retrieval_eval.lanes.bm25 import BM25Lane, BM25Params
    from retrieval_eval.lanes.topk import top_indices

    keys, documents, query_tokens = tokenized_corpus(corpus)
    term_ids = TermIds(Tokenizer(TokenizerSpec()))
    ids = [term_ids.document(" ".join(tokens)) for tokens in documents]
    queries = [term_ids.query(" ".join(tokens)) for tokens in query_tokens]
    started = time.perf_counter()
    lane = BM25Lane(ids, term_ids.vocabulary, BM25Params())
    indexed = time.perf_counter()
    for query in queries:
        if query:
            _ = [keys[i] for i in top_indices(lane.scores(query), DEPTH, lane.decimals)]
    done = time.perf_counter()
    return {"index": indexed - started, "per_query": (done - indexed) / len(queries)}


# -- rows ----------------------------------------------------------------------------------


def baseline_command(method: str, corpus: Path, out: Path) -> list[str]:
    return [
        rb.PYTHON,
        "-m",
        "retrieval_eval",
        "floor-run",
        "--method",
        method,
        "--corpus",
        str(corpus),
        "-j",
        str(WORKDIR / "judgments.jsonl"),
        "--depth",
        str(DEPTH),
        "--out",
        str(out),
    ]


def measure(command: list[str], repeats: int) -> tuple[float, float, str]:
    samples = [rb.run_once(command) for _ in range(repeats)]
    walls = [s.wall for s in samples]
    return statistics.median(walls), statistics.median(s.rss_mb for s in samples), f"{min(walls):.1f}-{max(walls):.1f}"


def run_peer(queries: int, repeats: int) -> tuple[float, float, dict[str, float]]:
    """rank_bm25 as a whole process; (wall scaled to every query, peak MB, stage times)."""
    command = [rb.PYTHON, __file__, "--peer", str(WORKDIR / "corpus-50k.jsonl"), "--peer-queries", str(queries)]
    walls, rss, stages = [], [], {}
    for _ in range(repeats):
        sample = rb.run_once(command, ok=lambda code: code == 0)
        stages = json.loads((WORKDIR / "peer.json").read_text())
        measured_queries = stages["per_query"] * queries
        walls.append(sample.wall - measured_queries + stages["per_query"] * QUERIES)
        rss.append(sample.rss_mb)
    return statistics.median(walls), statistics.median(rss), stages


def markdown(rows: list[tuple[str, float, float, str]], peer: tuple[float, float, dict], split: dict | None) -> str:
    info = rb.machine()
    versions = subprocess.run(
        [
            rb.PYTHON,
            "-c",
            "import importlib.metadata as m\nprint(', '.join(p + ' ' + m.version(p) for p in "
            "('bm25s', 'numpy', 'scipy', 'PyStemmer', 'rank-bm25')))",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    by_name = {name: (wall, mb) for name, wall, mb, _ in rows}
    big_wall, big_mb = by_name["bm25, 200k x 10k"]
    small_wall = by_name["bm25, 50k x 10k"][0]
    peer_wall, peer_mb, peer_stages = peer
    ratio = peer_wall / small_wall
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} with `python bench/lanes_bench.py --write-docs docs/benchmarks.md`.",
        "",
        f"Machine: {info['cpus']} CPUs ({info['cpu']}), {info['os']}, Python {info['python']}; {versions}. "
        f"Load average at the start: {info['load']}.",
        "",
        "| target | measured | limit | |",
        "|---|---:|---:|---|",
        f"| 200k x 10k, bm25: wall | {big_wall:.1f} s | {TARGET_WALL:.0f} s | "
        f"{'met' if big_wall < TARGET_WALL else '**not met**'} |",
        f"| 200k x 10k, bm25: peak memory | {big_mb:.0f} MB | {TARGET_MB:.0f} MB | "
        f"{'met' if big_mb < TARGET_MB else '**not met**'} |",
        f"| 50k x 10k: rank_bm25 (scaled) / floor-run bm25 | {ratio:.0f}x | at least {TARGET_RATIO:.0f}x | "
        f"{'met' if ratio >= TARGET_RATIO else '**not met**'} |",
        "",
        "| program | median wall (s) | min-max (s) | peak RSS (MB) |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| `floor-run` {name} | {wall:.1f} | {spread} | {mb:.0f} |" for name, wall, mb, spread in rows]
    lines.append(
        f"| rank_bm25, 50k x 10k (scaled from {peer_stages['queries']} queries) | {peer_wall:.1f} | | {peer_mb:.0f} |"
    )
    lines += [
        "",
        f"rank_bm25's process: reading and tokenizing {peer_stages['read']:.1f} s, `BM25Okapi` index "
        f"{peer_stages['index']:.1f} s, {peer_stages['per_query'] * 1000:.1f} ms per query.",
    ]
    if split is not None:
        lines.append(
            f"In process on the same tokens (`--stages`): bm25s index {split['index']:.1f} s and "
            f"{split['per_query'] * 1000:.2f} ms per query (top 100, our tie order) against rank_bm25's "
            f"{peer_stages['index']:.1f} s and {peer_stages['per_query'] * 1000:.1f} ms: "
            f"{peer_stages['per_query'] / split['per_query']:.0f}x per query."
        )
    return "\n".join(lines) + "\n"


def write_block(path: Path, block: str) -> None:
    """Replace this benchmark's block of ``path`` (appended when absent), leaving the rest as it is."""
    text = path.read_text(encoding="utf-8")
    generated = f"{BEGIN}\n{block}{END}"
    if BEGIN in text and END in text:
        before, _, rest = text.partition(BEGIN)
        text = before + generated + rest.partition(END)[2]
    else:
        text = text.rstrip() + "\n\n" + generated + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1, help="rounds per row (median reported)")
    parser.add_argument("--peer-queries", type=int, default=200, help="queries rank_bm25 answers before scaling")
    parser.add_argument("--stages", action="store_true", help="also split index and query time in process")
    parser.add_argument("--write-docs", metavar="PATH", help="replace the lanes block of this Markdown file")
    parser.add_argument("--peer", metavar="CORPUS", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.peer:
        stages = peer_rank_bm25(args.peer, args.peer_queries)
        (WORKDIR / "peer.json").write_text(json.dumps({**stages, "queries": args.peer_queries}))
        return
    write_workload()
    out = WORKDIR / "out"
    out.mkdir(exist_ok=True)
    big, small = WORKDIR / "corpus-200k.jsonl", WORKDIR / "corpus-50k.jsonl"
    rows = []
    for name, method, corpus in (
        ("bm25, 200k x 10k", "bm25", big),
        ("tfidf, 200k x 10k", "tfidf", big),
        ("bm25, 50k x 10k", "bm25", small),
    ):
        print(f"  floor-run {name}", flush=True)
        rows.append((name, *measure(baseline_command(method, corpus, out / f"{method}.jsonl"), args.repeats)))
    print("  rank_bm25, 50k", flush=True)
    peer = run_peer(args.peer_queries, args.repeats)
    split = stages_bm25s(str(small)) if args.stages else None
    block = markdown(rows, peer, split)
    print(block)
    if args.write_docs:
        write_block(Path(args.write_docs), block)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
