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
only ever adds time), the CPU time (user + system) of that run, the peak memory
when /usr/bin/time is there, and the ratio between consecutive sizes.

``--peer REV`` times the tree of another git revision (its ``src``, taken with
``git archive``) on the same files in the same rounds, the two runs of a round
one after the other, in turn first: the peer's time says how loaded the machine
was, and the ratio of the two is what the code changed. ``--write-docs FILE``
puts the table in FILE between the ``drift-bench`` markers. Run from the
repository root:

    python bench/drift_bench.py                      # 1,000,000 and 2,000,000 chunks
    python bench/drift_bench.py --sizes 100000,200000
    python bench/drift_bench.py --sizes 500000,1000000 --peer e32e3d1 --write-docs docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
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


@dataclass
class Timing:
    wall: float
    cpu: float
    peak: float | None
    summary: dict[str, object]


def run_drift(corpus: Path, judgments: Path, source: Path | None = None) -> Timing:
    """One run in a child process: wall and CPU seconds, peak resident MB (when /usr/bin/time
    is available) and the summary. ``source``: the ``src`` folder of another tree to run."""
    command = [sys.executable, "-m", "retrieval_eval", "drift", "-j", str(judgments), "-c", str(corpus), "--json"]
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source)  # ahead of the installed package
    timer = shutil.which("time", path="/usr/bin")
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        if timer:
            command = [timer, "-f", "%M", "-o", rss.name, *command]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, text=True, env=env)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak = int(rss.read().strip().splitlines()[-1]) / 1024 if timer else None
    if completed.returncode not in (0, 1):
        raise SystemExit(f"drift failed ({completed.returncode}): {completed.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(elapsed, cpu, peak, json.loads(completed.stdout)["summary"])


def peer_source(revision: str, workdir: Path) -> Path:
    """The ``src`` folder of ``revision`` of this repository, unpacked once under ``workdir``."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", revision], capture_output=True, text=True, check=True
    ).stdout.strip()
    folder = workdir / f"peer-{commit}"
    if not (folder / "complete").exists():
        folder.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", commit, "src"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
        # Its bytecode too, as for our own tree: neither side times compiling its sources.
        compileall.compile_dir(str(folder / "src"), quiet=1)
        (folder / "complete").write_text("ok\n")
    return folder / "src"


def best(runs: list[Timing]) -> Timing:
    return min(runs, key=lambda run: run.wall)


def table(rows: list[tuple[int, list[Timing], list[Timing]]], labels: int, peer: str | None) -> str:
    head = f"| Chunks | Labels | Time (best of {len(rows[0][1])}) | CPU | Runs | Peak memory |"
    rule = "|---:|---:|---:|---:|---|---:|"
    if peer:
        head += f" `{peer}` (best) | its CPU | time / `{peer}` | CPU / `{peer}` |"
        rule += "---:|---:|---:|---:|"
    lines = [head, rule]
    for size, ours, theirs in rows:
        mine = best(ours)
        peak = f"{mine.peak:,.0f} MB" if mine.peak is not None else "-"
        runs = ", ".join(f"{run.wall:.1f}" for run in ours)
        line = f"| {size:,} | {labels:,} | {mine.wall:.1f} s | {mine.cpu:.1f} s | {runs} | {peak} |"
        if peer:
            other = best(theirs)
            line += f" {other.wall:.1f} s | {other.cpu:.1f} s"
            line += f" | {mine.wall / other.wall:.2f}x | {mine.cpu / other.cpu:.2f}x |"
        lines.append(line)
    return "\n".join(lines) + "\n"


START, END = "<!-- drift-bench:start -->", "<!-- drift-bench:end -->"


def write_docs(path: Path, text: str) -> None:
    document = path.read_text(encoding="utf-8")
    if START not in document or END not in document:
        raise SystemExit(f"{path} has no {START} ... {END} markers to write between")
    before, rest = document.split(START, 1)
    _, after = rest.split(END, 1)
    path.write_text(f"{before}{START}\n{text}{END}{after}", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,2000000", help="corpus sizes in chunks, comma-separated")
    parser.add_argument("--labels", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="runs per size; the best is reported")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "retrieval-eval-bench"))
    parser.add_argument("--peer", metavar="REV", help="also time this git revision's tree, in the same rounds")
    parser.add_argument("--write-docs", metavar="FILE", help="write the table between FILE's drift-bench markers")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    compile_package()  # as pip install does: no run times compiling the sources
    workdir = Path(args.workdir)
    source = peer_source(args.peer, workdir) if args.peer else None
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"drift benchmark: {args.labels:,} labels, all through the substring stages; {os.cpu_count()} cores")
    print(f"load average at the start: {load}")
    rows: list[tuple[int, list[Timing], list[Timing]]] = []
    for size in sizes:
        corpus, judgments = ensure_workload(workdir, size, args.labels)
        ours: list[Timing] = []
        theirs: list[Timing] = []
        for round_ in range(args.repeat):
            # In turn first: whichever runs second may find the file in the page cache, or more load.
            order = [None, source] if round_ % 2 == 0 else [source, None]
            for tree in order:
                if tree is None:
                    ours.append(run_drift(corpus, judgments))
                elif source is not None:
                    theirs.append(run_drift(corpus, judgments, source))
        rows.append((size, ours, theirs))
        mine = best(ours)
        memory = f"  peak {mine.peak:,.0f} MB" if mine.peak is not None else ""
        spread = f"  (runs: {', '.join(f'{run.wall:.1f}' for run in ours)})" if len(ours) > 1 else ""
        counts = ", ".join(
            f"{key} {mine.summary[key]}" for key in ("valid", "re_anchorable", "merged", "split", "orphaned")
        )
        print(f"{size:>10,} chunks  {mine.wall:7.1f} s  cpu {mine.cpu:.1f} s{memory}   ({counts}){spread}")
        if theirs:
            other = best(theirs)
            print(
                f"{'':>10} peer {args.peer}: {other.wall:.1f} s  cpu {other.cpu:.1f} s"
                f"  (runs: {', '.join(f'{run.wall:.1f}' for run in theirs)})"
                f"  -> time {mine.wall / other.wall:.2f}x, cpu {mine.cpu / other.cpu:.2f}x of the peer's"
            )
    for (small, ours_small, _), (large, ours_large, _) in zip(rows, rows[1:]):
        print(f"ratio {large / small:g}x corpus -> {best(ours_large).wall / best(ours_small).wall:.2f}x time")
    if args.write_docs:
        stamp = time.strftime("%Y-%m-%d", time.gmtime())
        command = f"python bench/drift_bench.py --sizes {args.sizes} --repeat {args.repeat}"
        if args.peer:
            command += f" --peer {args.peer}"
        intro = f"Measured {stamp} with `{command}`; load average at the start {load}, on {os.cpu_count()} cores.\n\n"
        write_docs(Path(args.write_docs), intro + table(rows, args.labels, args.peer))
        print(f"wrote the table into {args.write_docs}")


if __name__ == "__main__":
    main()
