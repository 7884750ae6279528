"""Start-up cost of the package: ``import retrieval_eval`` and ``--version``, before and after a change.

Run from the repository root:

    python bench/import_bench.py                  # this tree against main
    python bench/import_bench.py --before v1.0.0 --runs 60

The tree as it is and the package at ``--before`` (a git ref, exported with ``git archive``
into a temporary folder) are timed side by side: each round runs every program once, in
turn, as a fresh process (``python -c ...``), so a burst of load on a shared machine hits
every row alike. The table gives the median and the spread (min-max) of the rounds, and the
ratio of each median to the same program's before. ``python -c pass`` is the floor no import
can go under; the last row is the package's own import time (``-X importtime``), without the
interpreter's start-up. The issue's bound: ``import retrieval_eval`` within 2x of before.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = {
    "python -c pass": "pass",
    "import retrieval_eval": "import retrieval_eval",
    "retrieval-eval --version": "from retrieval_eval.entry import main; main(['--version'])",
    "import retrieval_eval; first evaluate()": (
        "import retrieval_eval; retrieval_eval.evaluate({'q1': {'d1': 1}}, {'q1': ['d1']})"
    ),
}


def export(ref: str, into: Path) -> Path:
    """The package's sources at ``ref``, written under ``into``; the folder to put on PYTHONPATH."""
    archive = into / "src.tar"
    with archive.open("wb") as handle:
        subprocess.run(["git", "archive", ref, "src/retrieval_eval"], cwd=ROOT, stdout=handle, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def time_once(code: str, src: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=_env(src), check=True, capture_output=True)
    return time.perf_counter() - start


def import_time_once(src: Path) -> float:
    """The package's own import time, as ``-X importtime`` counts it (cumulative, microseconds):
    the interpreter's start-up is left out, and with it most of the noise of a busy machine."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import retrieval_eval"],
        env=_env(src),
        check=True,
        capture_output=True,
        text=True,
    )
    line = next(line for line in done.stderr.splitlines() if line.rstrip().endswith("| retrieval_eval"))
    return int(line.split("|")[1]) / 1e6


def _env(src: Path) -> dict[str, str]:
    """Bytecode is written and read, as after ``pip install`` (which compiles it): without it
    each run would time compiling the sources too."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(src)}


IMPORT_ONLY = "import retrieval_eval (-X importtime, the package alone)"


def measure(sides: dict[str, Path], runs: int) -> dict[tuple[str, str], list[float]]:
    cases = []
    for label in PROGRAMS:
        for side in sides:
            try:  # warm-up: bytecode caches and the page cache; a program the side lacks is left out
                time_once(PROGRAMS[label], sides[side])
                cases.append((label, side))
            except subprocess.CalledProcessError:
                pass
    times: dict[tuple[str, str], list[float]] = {case: [] for case in cases}
    for _ in range(runs):
        for label, side in cases:
            times[(label, side)].append(time_once(PROGRAMS[label], sides[side]))
        for side in sides:
            times.setdefault((IMPORT_ONLY, side), []).append(import_time_once(sides[side]))
    return times


def table(times: dict[tuple[str, str], list[float]], before: str) -> str:
    rows = [
        f"| program | before ({before}) | now | now / before |",
        "|---|---|---|---|",
    ]
    for label in [*PROGRAMS, IMPORT_ONLY]:
        cells = []
        medians = {}
        for side in ("before", "now"):
            values = times.get((label, side)) or []
            if not values:
                cells.append("n/a")
                continue
            medians[side] = statistics.median(values) * 1000
            cells.append(f"{medians[side]:.1f} ms ({min(values) * 1000:.1f}-{max(values) * 1000:.1f})")
        ratio = f"{medians['now'] / medians['before']:.2f}x" if len(medians) == 2 else "—"
        rows.append(f"| `{label}` | {cells[0]} | {cells[1]} | {ratio} |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="main", help="git ref to compare with (default: main)")
    parser.add_argument("--runs", type=int, default=30, help="rounds (default: 30)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sides = {"before": export(args.before, Path(tmp)), "now": ROOT / "src"}
        times = measure(sides, args.runs)
    print(f"{args.runs} rounds, median (min-max), Python {sys.version.split()[0]}")
    print(table(times, args.before))


if __name__ == "__main__":
    main()
