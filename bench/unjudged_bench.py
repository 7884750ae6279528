"""What judged@k and the upper bounds cost `score`: the same workload, before and after, side by side.

    python bench/unjudged_bench.py --before /path/to/older/src [--size M] [--repeats 5]

``--before`` is the ``src`` directory of a checkout without them (e.g. a worktree of the
commit before); the after side is this checkout's ``src``. Each round runs
``retrieval-eval score -j J -r R -k 10 --out report.json`` once with each, in turn (so a
burst of load on a shared machine lands on both), one process (``RETRIEVAL_EVAL_WORKERS=0``,
so the cost is not hidden on a spare core), after one warm-up round of each. It prints the
medians, the min-max spread, the ratio and peak RSS (``/usr/bin/time``), and a Markdown row.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run_bench as rb  # noqa: E402  (bench/ is not a package)
import workload as wl  # noqa: E402


def command(work: wl.Workload, out: Path) -> list[str]:
    args = ["score", "-j", str(work.judgments), "-r", str(work.run), "-k", "10", "--out", str(out)]
    return [rb.PYTHON, "-c", rb.WITH_ENTRY, *args, "--now", rb.FIXED_NOW]


def timed(src: Path, cmd: list[str]) -> rb.Sample:
    previous = dict(os.environ)
    os.environ.update(PYTHONPATH=str(src), RETRIEVAL_EVAL_WORKERS="0")
    try:
        return rb.run_once(cmd)
    finally:
        os.environ.clear()
        os.environ.update(previous)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, type=Path, help="src directory without judged@k and bounds")
    parser.add_argument("--size", default="M", choices=sorted(wl.SIZES))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--work", type=Path, default=HERE / "generated")
    args = parser.parse_args()
    after_src = HERE.parent / "src"
    work = wl.generate(wl.SIZES[args.size], args.work / args.size)
    out = args.work / "unjudged-report.json"
    cmd = command(work, out)
    samples: dict[str, list[rb.Sample]] = {"before": [], "after": []}
    sides = {"before": args.before, "after": after_src}
    for src in sides.values():  # warm-up: the page cache, the bytecode caches
        timed(src, cmd)
    for _ in range(args.repeats):
        for side, src in sides.items():
            samples[side].append(timed(src, cmd))
    walls = {side: statistics.median(s.wall for s in runs) for side, runs in samples.items()}
    rss = {side: max(s.rss_mb for s in runs) for side, runs in samples.items()}
    for side, runs in samples.items():
        spread = f"{min(s.wall for s in runs):.2f}-{max(s.wall for s in runs):.2f}"
        print(f"{side:6} wall median {walls[side]:.2f} s ({spread}), peak RSS {rss[side]:.0f} MB")
    ratio = walls["after"] / walls["before"]
    print(
        f"| {args.size}: `score`, one process, before / after judged@k and bounds | "
        f"{walls['before']:.2f} s / {walls['after']:.2f} s | {ratio - 1:+.1%} | "
        f"{rss['before']:.0f} MB / {rss['after']:.0f} MB |"
    )


if __name__ == "__main__":
    main()
