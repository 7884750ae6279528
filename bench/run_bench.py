"""Side-by-side benchmark: retrieval-eval against trec_eval's Python binding and the cost of reading.

Run from the repository root, with the test extra installed (it brings
pytrec-eval-terrier):

    python bench/run_bench.py                         # S, M and L workloads, 5 runs each
    python bench/run_bench.py --sizes M --repeats 3   # quicker
    python bench/run_bench.py --write-docs docs/benchmarks.md

Every program is timed as a whole process, parse included, the way CI runs
it: wall time from spawn to exit, and peak resident memory as the kernel
counts it (``/usr/bin/time -f %M``; without it, ``getrusage`` in a small
intermediate process). Each round runs every program once, in turn, after
one warm-up round that fills the page cache, so a burst of load on a shared
machine hits every row alike; the table shows the median of the rounds and
the spread (min-max) so the noise can be judged.

Workloads (``bench/workload.py``, seeded, written once under ``--work``):
S = 1k queries x 1k ranked ids, M = 10k x 1k (150 MB run), L = 100k x 1k
(1.5 GB run), 12.5 graded labels a query, strata, repeated keys, judged
queries missing from the run and run queries never judged.

Programs on each workload (``bench/peers.py`` holds the peers):

- ``score``: ``retrieval-eval score -j J -r R --out report.json``, with the
  standard library's json (what ``pip install retrieval-eval`` gives);
- ``score [fast]``: the same with orjson and pysimdjson installed (the ``fast`` extra);
- ``pytrec_eval top-k``: parse the run with json, load it whole, build each
  query's top k into pytrec_eval's dict, evaluate the same seven measures;
- ``pytrec_eval top-k, streamed``: the same, keeping only the top k of each
  line as it is read (the leanest pytrec_eval pipeline);
- ``pytrec_eval full``: the whole rankings handed to pytrec_eval;
- ``floor``: every run line parsed by json and dropped, nothing kept.

Also: start-up (``retrieval-eval --version`` against ``python -c pass``),
``compare`` + ``render`` on two M reports, and the drift benchmark when
``bench/drift_bench.py`` is there (``--drift-sizes``; it prints its own table).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workload as wl  # noqa: E402  (bench/ is not a package)

PYTHON = sys.executable
PEERS = str(HERE / "peers.py")
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
FIXED_NOW = "2026-01-01T00:00:00Z"
K = 10
# Forces the standard library's json: the fast path imports orjson only if it can.
NO_ORJSON = (
    "import sys; sys.modules['orjson'] = sys.modules['simdjson'] = None; from retrieval_eval.entry import main; main()"
)
# The fast extra without its run-head reader: what simdjson buys, beside the same install.
NO_SIMDJSON = "import sys; sys.modules['simdjson'] = None; from retrieval_eval.entry import main; main()"
WITH_ENTRY = "from retrieval_eval.entry import main; main()"
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


@dataclass
class Sample:
    wall: float
    rss_mb: float
    cpu: float = 0.0  # user + system seconds of the process and every child it waited for


@dataclass
class Row:
    """One program on one workload, and what its rounds measured."""

    name: str
    command: list[str] | None
    samples: list[Sample] = field(default_factory=list)
    note: str = ""
    tree_mb: float | None = None  # sampled peak of every process it started, summed

    @property
    def memory(self) -> float:
        """The larger of the peak RSS of its biggest process and the sampled sum over all of them."""
        return max(self.rss, self.tree_mb or 0.0)

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def rss(self) -> float:
        return statistics.median(s.rss_mb for s in self.samples)

    @property
    def spread(self) -> str:
        walls = [s.wall for s in self.samples]
        digits = 3 if max(walls) < 1 else 2
        return f"{min(walls):.{digits}f}-{max(walls):.{digits}f}"


# -- running one process ---------------------------------------------------------------

_RUSAGE_CHILD = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(usage.ru_maxrss, usage.ru_utime, usage.ru_stime)\n"
    "sys.exit(code)\n"
)


def run_once(command: Sequence[str], ok: Callable[[int], bool] = lambda code: code == 0) -> Sample:
    """Spawn ``command`` once; its wall time, peak RSS and CPU time (its workers' included)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        if TIME:
            full = [TIME, "-f", "%M %U %S", "-o", rss_file.name, *command]
        else:
            full = [PYTHON, "-c", _RUSAGE_CHILD, *command]
        started = time.perf_counter()
        done = subprocess.run(
            full, stdout=subprocess.DEVNULL if TIME else subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        wall = time.perf_counter() - started
        if not ok(done.returncode):
            raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
        text = rss_file.read() if TIME else done.stdout
    # /usr/bin/time puts a status line first when the exit code is not 0.
    rss_kb, user, system = text.strip().splitlines()[-1].split()
    return Sample(wall, int(rss_kb) / 1024, float(user) + float(system))


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    # The parent pid is the 2nd field after the parenthesised command name.
                    ppid = int(stat.read().rpartition(")")[2].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            tree.setdefault(ppid, []).append(int(entry))
    return tree


def _pss_kb(pid: int) -> int:
    """Proportional set size: pages shared by forked processes are split between them, not counted twice."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            for line in rollup:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def tree_peak_mb(command: Sequence[str]) -> float | None:
    """Run ``command`` once, sampling every 5 ms the summed PSS of it and all its descendants."""
    if not os.path.exists("/proc/self/smaps_rollup"):
        return None
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while process.poll() is None:
        tree, pids, total = _children(), [process.pid], 0
        while pids:
            pid = pids.pop()
            total += _pss_kb(pid)
            pids.extend(tree.get(pid, ()))
        peak = max(peak, total)
        time.sleep(0.005)
    return peak / 1024


def measure_trees(rows: list[Row]) -> None:
    """One more, untimed run of each row, for the memory of all its processes together."""
    for row in rows:
        if row.command and row.samples:
            row.tree_mb = tree_peak_mb(row.command)


def run_rounds(rows: list[Row], repeats: int, *, warmup: bool = True) -> None:
    """Each round runs every row once, in turn, so load bursts spread over all rows."""
    runnable = [row for row in rows if row.command]
    if warmup:
        for row in runnable:
            run_once(row.command)  # type: ignore[arg-type]
    for round_number in range(repeats):
        for row in runnable:
            row.samples.append(run_once(row.command))  # type: ignore[arg-type]
        print(
            f"    round {round_number + 1}/{repeats}: "
            + ", ".join(f"{row.name} {row.samples[-1].wall:.2f}s" for row in runnable),
            flush=True,
        )


# -- the programs ----------------------------------------------------------------------


def console_script() -> str:
    """The retrieval-eval script next to this interpreter (a version manager's shim costs more)."""
    candidate = Path(sysconfig.get_path("scripts")) / "retrieval-eval"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("retrieval-eval")
    if not found:
        raise SystemExit("retrieval-eval is not installed: pip install -e '.[test]'")
    return found


def ensure_bytecode() -> str:
    """Compile the package's bytecode, as ``pip install`` does, so no row pays for compiling it.

    An editable install (``pip install -e``) writes no bytecode, and where
    ``PYTHONDONTWRITEBYTECODE`` is set nothing ever caches it: every ``score`` then compiles
    its 200-odd modules again, about 0.1 s of CPU on M that no installed copy pays. Returns
    what was done, for the notes under the table."""
    import importlib.util

    spec = importlib.util.find_spec("retrieval_eval")
    if spec is None or not spec.submodule_search_locations:
        return "retrieval_eval not importable: bytecode not compiled"
    package = list(spec.submodule_search_locations)[0]
    subprocess.run([PYTHON, "-m", "compileall", "-q", package], check=False, stdout=subprocess.DEVNULL)
    return f"bytecode compiled before timing (`python -m compileall {Path(package).name}`, as `pip install` does)"


def profile_commands(work: wl.Workload) -> list[str]:
    """The command lines that profile ``score`` on this workload: one process, then with its worker."""
    out = str(work.directory / "report.json")
    args = f"score -j {work.judgments} -r {work.run} -k {K} --out {out} --now {FIXED_NOW}"
    return [
        f"RETRIEVAL_EVAL_WORKERS=0 {PYTHON} -m cProfile -o /tmp/score.prof -m retrieval_eval {args}",
        f"{PYTHON} -m cProfile -o /tmp/score-workers.prof -m retrieval_eval {args}  # main process only",
    ]


def has_orjson() -> bool:
    return subprocess.run([PYTHON, "-c", "import orjson"], capture_output=True).returncode == 0


def has_pytrec() -> bool:
    return subprocess.run([PYTHON, "-c", "import pytrec_eval"], capture_output=True).returncode == 0


def score_rows(work: wl.Workload, *, peers: bool) -> list[Row]:
    j, r = str(work.judgments), str(work.run)
    out = str(work.directory / "report.json")
    args = ["score", "-j", j, "-r", r, "-k", str(K), "--out", out, "--now", FIXED_NOW]
    rows = [Row("score", [PYTHON, "-c", NO_ORJSON, *args])]
    if has_orjson():
        rows.append(Row("score [fast]", [console_script(), *args]))
        # What the workers that read the run on the other cores buy.
        rows.append(Row("score [fast], one process", ["env", "RETRIEVAL_EVAL_WORKERS=0", console_script(), *args]))
        rows.append(Row("score [fast] without simdjson", [PYTHON, "-c", NO_SIMDJSON, *args]))
        rows.append(
            Row(
                "score [fast] without simdjson, one process",
                ["env", "RETRIEVAL_EVAL_WORKERS=0", PYTHON, "-c", NO_SIMDJSON, *args],
            )
        )
    else:
        rows.append(Row("score [fast]", None, note="orjson is not installed"))
    if peers and has_pytrec():
        rows += [
            Row("pytrec_eval top-k", [PYTHON, PEERS, "pytrec-topk-loaded", j, r, str(K)]),
            Row("pytrec_eval top-k, streamed", [PYTHON, PEERS, "pytrec-topk", j, r, str(K)]),
            Row("pytrec_eval full", [PYTHON, PEERS, "pytrec-full", j, r, str(K)]),
        ]
    elif peers:
        rows.append(Row("pytrec_eval top-k", None, note="pytrec_eval is not installed"))
    rows.append(Row("floor", [PYTHON, PEERS, "floor", r]))
    return rows


def startup_rows() -> list[Row]:
    return [
        Row("retrieval-eval --version", [console_script(), "--version"]),
        Row("python -c pass", [PYTHON, "-c", "pass"]),
    ]


def compare_render_rows(work: wl.Workload) -> list[Row]:
    """compare + render on two reports of the workload (base run against a perturbed head)."""
    script = console_script()
    base, head = work.directory / "base.json", work.directory / "head.json"
    for report, run in ((base, work.run), (head, work.run_head)):
        run_once([script, "score", "-j", str(work.judgments), "-r", str(run), "--out", str(report), "--now", FIXED_NOW])
    comparison = work.directory / "comparison.json"
    compare = [
        script,
        "compare",
        "--base",
        str(base),
        "--head",
        str(head),
        "-j",
        str(work.judgments),
        "--out",
        str(comparison),
    ]
    render = [script, "render", "--report", str(head), "--compare", str(comparison), "--format", "comment"]
    return [Row("compare", compare), Row("render --format comment", render)]


def command_exists(name: str) -> bool:
    done = subprocess.run([console_script(), name, "--help"], capture_output=True)
    return done.returncode == 0


# -- the report ------------------------------------------------------------------------


def machine() -> dict[str, str]:
    model = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions = subprocess.run(
        [
            PYTHON,
            "-c",
            "import importlib.metadata as m\n"
            "for p in ('retrieval-eval', 'orjson', 'pysimdjson', 'pytrec-eval-terrier'):\n"
            "    try: print(p, m.version(p))\n"
            "    except m.PackageNotFoundError: print(p, 'absent')",
        ],
        capture_output=True,
        text=True,
    ).stdout.split()
    return {
        "cpus": str(os.cpu_count()),
        "cpu": model,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "load": " ".join(f"{v:.2f}" for v in os.getloadavg()),
        "packages": ", ".join(f"{versions[i]} {versions[i + 1]}" for i in range(0, len(versions), 2)),
    }


def ratio(a: Row | None, b: Row | None, attr: str) -> float | None:
    if a is None or b is None or not a.samples or not b.samples:
        return None
    return float(getattr(a, attr)) / float(getattr(b, attr))


def fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def size_table(title: str, rows: list[Row]) -> list[str]:
    by_name = {row.name: row for row in rows}
    reference, floor = by_name.get("pytrec_eval top-k"), by_name.get("floor")
    lines = [
        f"**{title}**",
        "",
        "| program | median wall (s) | min-max (s) | peak RSS (MB) | all processes (MB) "
        "| wall / pytrec_eval top-k | memory / pytrec_eval top-k | wall / floor |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        if not row.samples:
            lines.append(f"| {row.name} | - | - | - | - | {row.note} | | |")
            continue
        tree = "n/a" if row.tree_mb is None else f"{row.tree_mb:.0f}"
        lines.append(
            f"| {row.name} | {row.wall:.2f} | {row.spread} | {row.rss:.0f} | {tree} "
            f"| {fmt_ratio(ratio(row, reference, 'wall'))} | {fmt_ratio(ratio(row, reference, 'memory'))} "
            f"| {fmt_ratio(ratio(row, floor, 'wall'))} |"
        )
    return lines + [""]


def simple_table(title: str, rows: list[Row]) -> list[str]:
    lines = [
        f"**{title}**",
        "",
        "| program | median wall (s) | min-max (s) | peak RSS (MB) | all processes (MB) |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        if row.samples:
            tree = "n/a" if row.tree_mb is None else f"{row.tree_mb:.0f}"
            lines.append(f"| {row.name} | {row.wall:.3f} | {row.spread} | {row.rss:.0f} | {tree} |")
        else:
            lines.append(f"| {row.name} | - | - | - ({row.note}) | |")
    return lines + [""]


@dataclass
class Target:
    what: str
    measured: float | None
    limit: float
    unit: str = "x"

    def line(self) -> str:
        if self.measured is None:
            limit = f"{self.limit:g}x" if self.unit == "x" else f"{self.limit:g} {self.unit}"
            return f"| {self.what} | not measured | {limit} | - |"
        met = "met" if self.measured <= self.limit else "**not met**"
        value = f"{self.measured:.2f}{self.unit}" if self.unit == "x" else f"{self.measured:.0f} {self.unit}"
        limit = f"{self.limit:g}x" if self.unit == "x" else f"{self.limit:g} {self.unit}"
        return f"| {self.what} | {value} | {limit} | {met} |"


def targets(results: dict[str, list[Row]]) -> list[Target]:
    def find(group: str, name: str) -> Row | None:
        row = next((r for r in results.get(group, []) if r.name == name), None)
        return row if row is not None and row.samples else None

    found: list[Target] = []
    for variant in ("score", "score [fast]"):
        score = find("M", variant)
        found += [
            Target(
                f"M: `{variant}` wall / pytrec_eval top-k", ratio(score, find("M", "pytrec_eval top-k"), "wall"), 0.5
            ),
            Target(f"M: `{variant}` wall / floor", ratio(score, find("M", "floor"), "wall"), 2.0),
            Target(
                f"M: `{variant}` peak memory / pytrec_eval top-k",
                ratio(score, find("M", "pytrec_eval top-k"), "memory"),
                0.25,
            ),
        ]
        large = find("L", variant)
        found.append(Target(f"L: `{variant}` peak memory", large.memory if large else None, 400, "MB"))
    found.append(
        Target(
            "`--version` / `python -c pass`",
            ratio(find("startup", "retrieval-eval --version"), find("startup", "python -c pass"), "wall"),
            1.5,
        )
    )
    compare, render = find("compare", "compare"), find("compare", "render --format comment")
    score = find("M", "score [fast]") or find("M", "score")
    together = (compare.wall + render.wall) / score.wall if compare and render and score else None
    found.append(Target("M: (`compare` + `render`) / `score`", together, 1.0))
    return found


def leanest_peer(results: dict[str, list[Row]]) -> list[str]:
    """score against the leanest pytrec_eval pipeline: not a target, shown so it is not hidden."""
    rows = {row.name: row for row in results.get("M", []) if row.samples}
    peer = rows.get("pytrec_eval top-k, streamed")
    if peer is None:
        return []
    lines = [
        "Against the leanest pytrec_eval pipeline (M; top k kept as each line is read; not a target):",
        "",
        "| program | wall / streamed pipeline | memory / streamed pipeline |",
        "|---|---:|---:|",
    ]
    for name in ("score", "score [fast]"):
        if name in rows:
            lines.append(
                f"| {name} | {fmt_ratio(ratio(rows[name], peer, 'wall'))} "
                f"| {fmt_ratio(ratio(rows[name], peer, 'memory'))} |"
            )
    return lines + [""]


def cpu_table(results: dict[str, list[Row]]) -> list[str]:
    """The same rounds in CPU seconds, which a loaded machine inflates far less than wall time."""
    rows = {row.name: row for row in results.get("M", []) if row.samples}
    reference, floor = rows.get("pytrec_eval top-k"), rows.get("floor")
    if reference is None:
        return []
    lines = [
        "In CPU seconds (M; user + system of every process a program ran, median of the same rounds; "
        "`score` is charged for its worker, the peers run in one process; not a target):",
        "",
        "| program | CPU (s) | CPU / pytrec_eval top-k | CPU / floor |",
        "|---|---:|---:|---:|",
    ]
    for row in rows.values():
        lines.append(
            f"| {row.name} | {row.cpu:.2f} | {fmt_ratio(ratio(row, reference, 'cpu'))} "
            f"| {fmt_ratio(ratio(row, floor, 'cpu'))} |"
        )
    return lines + [""]


def markdown(results: dict[str, list[Row]], info: dict[str, str], command: str, extra: list[str]) -> str:
    lines = [
        f"Measured {time.strftime('%Y-%m-%d')} with `{command}`.",
        "",
        f"Machine: {info['cpus']} CPUs ({info['cpu']}), {info['os']}, Python {info['python']}; "
        f"{info['packages']}. Load average at the start: {info['load']} (a shared machine: "
        "the min-max column shows the noise)" + (f"; {info['bytecode']}." if info.get("bytecode") else "."),
        "",
        "**Targets** (ratios of medians from this one run)",
        "",
        "| target | measured | limit | |",
        "|---|---:|---:|---|",
        *(target.line() for target in targets(results)),
        "",
        *leanest_peer(results),
        *cpu_table(results),
    ]
    titles = {
        "S": "S: 1k queries x 1k ids",
        "M": "M: 10k queries x 1k ids (150 MB run, 125k labels)",
        "L": "L: 100k queries x 1k ids (1.5 GB run, 1.25M labels)",
    }
    for name in ("S", "M", "L"):
        if name in results:
            lines += size_table(titles[name], results[name])
    if "startup" in results:
        lines += simple_table("Start-up", results["startup"])
    if "compare" in results:
        lines += simple_table(
            "compare + render, two reports of 10k queries (M; every head ranking reshuffled in its top 20)",
            results["compare"],
        )
    return "\n".join(lines + extra).rstrip() + "\n"


def write_docs(path: Path, block: str) -> None:
    """Replace the generated block of ``path``, leaving every other section as it is."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    generated = f"{BEGIN}\n{block}{END}"
    if BEGIN in text and END in text:
        before, _, rest = text.partition(BEGIN)
        _, _, after = rest.partition(END)
        text = before + generated + after
    else:
        text = text.rstrip() + ("\n\n" if text else "") + generated + "\n"
    path.write_text(text, encoding="utf-8")


# -- main ------------------------------------------------------------------------------


def drift(sizes: str | None) -> list[str]:
    script = HERE / "drift_bench.py"
    if not script.exists() or sizes == "none":
        return []
    command = [PYTHON, str(script)] + (["--sizes", sizes] if sizes else [])
    print("  drift: " + " ".join(command), flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    output = done.stdout.strip() if done.returncode == 0 else f"exited {done.returncode}: {done.stderr[-500:]}"
    return ["**drift** (`bench/drift_bench.py`, its own output; see the Drift section)", "", "```", output, "```", ""]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="S,M,L", help="workloads to run, from S, M, L (default: all)")
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds per workload (default: 5)")
    parser.add_argument("--large-repeats", type=int, default=3, help="timed rounds on L (default: 3)")
    parser.add_argument(
        "--work", default=str(HERE / "generated"), help="where workloads are written (default: bench/generated)"
    )
    parser.add_argument(
        "--parts", default="score,startup,compare,drift", help="what to run (default: score,startup,compare,drift)"
    )
    parser.add_argument(
        "--drift-sizes", default=None, help="corpus sizes passed to bench/drift_bench.py, or 'none' to skip it"
    )
    parser.add_argument("--write-docs", metavar="PATH", help="update the generated block of this Markdown file")
    args = parser.parse_args(argv)
    command = "python bench/run_bench.py" + (f" {' '.join(argv if argv is not None else sys.argv[1:])}".rstrip())
    wl.compile_package()
    info = machine()
    print(f"{info['cpus']} CPUs ({info['cpu']}), Python {info['python']}, load {info['load']}", flush=True)
    info["bytecode"] = ensure_bytecode()
    print(f"  {info['bytecode']}", flush=True)
    parts = {p.strip() for p in args.parts.split(",")}
    results: dict[str, list[Row]] = {}
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()] if "score" in parts else []
    for name in sizes:
        started = time.perf_counter()
        work = wl.generate(wl.SIZES[name], Path(args.work) / name)
        print(
            f"  {name}: workload ready in {time.perf_counter() - started:.0f} s "
            f"(run {wl.file_mb(work.run):.0f} MB, judgments {wl.file_mb(work.judgments):.0f} MB)",
            flush=True,
        )
        # pytrec_eval on L needs many gigabytes (the full rankings alone are 100M dict entries).
        for line in profile_commands(work):
            print(f"    profile: {line}", flush=True)
        rows = score_rows(work, peers=name != "L")
        run_rounds(rows, args.large_repeats if name == "L" else args.repeats)
        measure_trees(rows)
        results[name] = rows
    if "startup" in parts:
        print("  start-up", flush=True)
        results["startup"] = startup_rows()
        run_rounds(results["startup"], max(args.repeats, 11))
        measure_trees(results["startup"])
    if "compare" not in parts:
        pass
    elif command_exists("compare") and command_exists("render"):
        print("  compare + render", flush=True)
        work = wl.generate(wl.SIZES["M"], Path(args.work) / "M", head=True)
        results["compare"] = compare_render_rows(work)
        run_rounds(results["compare"], args.repeats)
        measure_trees(results["compare"])
    else:
        results["compare"] = [Row("compare + render", None, note="commands not available in this build")]
    block = markdown(results, info, command, drift(args.drift_sizes) if "drift" in parts else [])
    print()
    print(block)
    raw = {
        group: [{"name": r.name, "samples": [vars(s) for s in r.samples], "note": r.note} for r in rows]
        for group, rows in results.items()
    }
    Path(args.work).mkdir(parents=True, exist_ok=True)
    (Path(args.work) / "results.json").write_text(json.dumps({"machine": info, "results": raw}, indent=2) + "\n")
    if args.write_docs:
        write_docs(Path(args.write_docs), block)


if __name__ == "__main__":
    main()
