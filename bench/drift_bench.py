"""Drift benchmark: a re-chunked synthetic corpus, labels that all need the substring stages.

For each corpus size it writes (once, then reuses) a JSONL corpus of
documents of 20 chunks and a judgments file of ``--labels`` labels whose
chunk ids are stale and whose text_sha matches no chunk, so every label goes
through the substring stages:

- 40% split: the labeled text is two neighbouring chunks (SPLIT);
- 25% merged: the labeled text is a middle part of a chunk (MERGED);
- 15% split with a quote inside one piece (MERGED by the quote);
- 10% split with a quote across the boundary (SPLIT, quote_straddles);
- 10% edited text with a quote found nowhere (ORPHANED).

It then runs ``retrieval-eval drift --json`` on each size in a child process,
``--repeat`` times, and prints the best wall time (other work on the machine
only ever adds time), the peak memory when /usr/bin/time is there, and the
ratio between consecutive sizes. Run from the repository root:

    python bench/drift_bench.py                      # 1,000,000 and 2,000,000 chunks
    python bench/drift_bench.py --sizes 100000,200000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from retrieval_eval.core.identity import chunk_id, text_sha

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import compile_package  # noqa: E402  (bench/ is not a package)

SEED = 20260101
CHUNKS_PER_DOC = 20
WORDS_PER_CHUNK = 40
CHUNKER = "bench/words-40"
MIX = (("split", 0.40), ("merged", 0.25), ("quote_inside", 0.15), ("quote_straddles", 0.10), ("orphaned", 0.10))


def vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(5000)]


def chunk_text(rng: random.Random, words: list[str]) -> str:
    return " ".join(rng.choices(words, k=WORDS_PER_CHUNK)) + "."


def write_corpus(path: Path, chunks: int, rng: random.Random, words: list[str]) -> list[list[str]]:
    """Write the corpus; return each document's chunk texts (the labels are cut from them)."""
    docs: list[list[str]] = []
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"corpus_fingerprint": f"bench/{chunks}", "chunker_fingerprint": CHUNKER}) + "\n")
        for d in range(chunks // CHUNKS_PER_DOC):
            uri = f"bench://doc/{d}"
            texts = [chunk_text(rng, words) for _ in range(CHUNKS_PER_DOC)]
            docs.append(texts)
            for ordinal, text in enumerate(texts):
                record = {
                    "chunk_id": chunk_id(uri, "r2", ordinal, text, CHUNKER),
                    "doc_uri": uri,
                    "doc_revision": "r2",
                    "ordinal": ordinal,
                    "text": text,
                    "text_sha": text_sha(text),
                }
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
    return docs


def middle(text: str, rng: random.Random) -> str:
    words = text.split()
    start = rng.randint(1, 10)
    return " ".join(words[start : start + 20])


def label_for(kind: str, texts: list[str], k: int, rng: random.Random, words: list[str]) -> dict[str, str]:
    left, right = texts[k], texts[k + 1]
    if kind == "split":
        return {"chunk_text": f"{left}\n\n{right}"}
    if kind == "merged":
        return {"chunk_text": middle(left, rng)}
    if kind == "quote_inside":
        return {"chunk_text": f"{left}\n\n{right}", "quote": middle(right, rng)}
    if kind == "quote_straddles":
        tail = " ".join(left.split()[-5:])
        head = " ".join(right.split()[:5])
        return {"chunk_text": f"{left}\n\n{right}", "quote": f"{tail} {head}"}
    edited = chunk_text(rng, words)
    return {"chunk_text": edited, "quote": middle(edited, rng)}


def write_labels(path: Path, docs: list[list[str]], labels: int, rng: random.Random, words: list[str]) -> None:
    kinds = [kind for kind, share in MIX for _ in range(round(share * 100))]
    with path.open("w", encoding="utf-8") as out:
        for n in range(labels):
            d = rng.randrange(len(docs))
            k = rng.randrange(CHUNKS_PER_DOC - 1)
            record: dict[str, object] = {
                "query_id": f"q{n}",
                "query": f"query {n}",
                "doc_uri": f"bench://doc/{d}",
                # Ids from the old chunking: none of them is live any more.
                "chunk_id": chunk_id(f"bench://doc/{d}", "r1", k, str(n), "bench/old"),
            }
            extra = label_for(kinds[n % len(kinds)], docs[d], k, rng, words)
            record["text_sha"] = text_sha(extra["chunk_text"])
            record.update(extra)
            record.update({"relevance": 1 + n % 3, "labeled_by": "synthetic:bench"})
            out.write(json.dumps(record, separators=(",", ":")) + "\n")


def ensure_workload(workdir: Path, chunks: int, labels: int) -> tuple[Path, Path]:
    folder = workdir / f"drift-{chunks}-{labels}"
    corpus, judgments, done = folder / "corpus.jsonl", folder / "judgments.jsonl", folder / "complete"
    if done.exists():
        return corpus, judgments
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED + chunks)
    words = vocabulary(rng)
    started = time.perf_counter()
    docs = write_corpus(corpus, chunks, rng, words)
    write_labels(judgments, docs, labels, rng, words)
    done.write_text("ok\n")
    print(
        f"  generated {chunks:,} chunks and {labels:,} labels in {time.perf_counter() - started:.1f} s", file=sys.stderr
    )
    return corpus, judgments


def run_drift(corpus: Path, judgments: Path) -> tuple[float, float | None, dict[str, object]]:
    """Wall seconds, peak resident MB (when /usr/bin/time is available) and the summary."""
    command = [sys.executable, "-m", "retrieval_eval", "drift", "-j", str(judgments), "-c", str(corpus), "--json"]
    timer = shutil.which("time", path="/usr/bin")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        if timer:
            command = [timer, "-f", "%M", "-o", rss.name, *command]
        started = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, text=True)
        elapsed = time.perf_counter() - started
        peak = int(rss.read().strip().splitlines()[-1]) / 1024 if timer else None
    if completed.returncode not in (0, 1):
        raise SystemExit(f"drift failed ({completed.returncode}): {completed.stderr}")
    return elapsed, peak, json.loads(completed.stdout)["summary"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,2000000", help="corpus sizes in chunks, comma-separated")
    parser.add_argument("--labels", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the best is reported")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "retrieval-eval-bench"))
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    compile_package()  # as pip install does: no run times compiling the sources
    print(f"drift benchmark: {args.labels:,} labels, all through the substring stages; {os.cpu_count()} cores")
    times: list[float] = []
    for size in sizes:
        corpus, judgments = ensure_workload(Path(args.workdir), size, args.labels)
        runs = [run_drift(corpus, judgments) for _ in range(args.repeat)]
        elapsed, peak, summary = min(runs, key=lambda r: r[0])
        times.append(elapsed)
        memory = f"  peak {peak:,.0f} MB" if peak is not None else ""
        spread = f"  (runs: {', '.join(f'{r[0]:.1f}' for r in runs)})" if len(runs) > 1 else ""
        counts = ", ".join(f"{key} {summary[key]}" for key in ("valid", "re_anchorable", "merged", "split", "orphaned"))
        print(f"{size:>10,} chunks  {elapsed:7.1f} s{memory}   ({counts}){spread}")
    for (small, t_small), (large, t_large) in zip(zip(sizes, times), zip(sizes[1:], times[1:])):
        print(f"ratio {large / small:g}x corpus -> {t_large / t_small:.2f}x time")


if __name__ == "__main__":
    main()
