"""``retrieval-eval fuse``: reciprocal rank fusion of runs."""

from __future__ import annotations

import click

from ..core.errors import UsageError
from ..core.fusion import SCORE_DECIMALS, fuse_rrf, parse_weights
from ..formats.runout import refuse_run_over_input, write_meta, write_run
from ..formats.runs import parse_run
from ..pipeline.settings import check_number
from ._common import WHOLE, handles_errors, say


@click.command()
@click.argument("runs", nargs=-1, metavar="RUN RUN...")
@click.option("--method", type=click.Choice(["rrf"]), default="rrf", show_default=True, help="The fusion method.")
@click.option("--rrf-k", "k", type=WHOLE, default=60, show_default=True, help="RRF's k: score = w / (k + rank).")
@click.option(
    "--weights", metavar="W,W,...", help="One positive weight per run, in the order given.  [default: 1 each]"
)
@click.option("--depth", type=WHOLE, help="Keys kept per query.  [default: all]")
@click.option(
    "--run-format",
    type=click.Choice(["auto", "jsonl", "trec"]),
    default="auto",
    show_default=True,
    help="Input format.",
)
@click.option("--out", required=True, metavar="PATH", help="Write the fused run here (atomically), and PATH.meta.json.")
@handles_errors
def command(
    runs: tuple[str, ...], method: str, k: int, weights: str | None, depth: int | None, run_format: str, out: str
) -> None:
    """Fuse two or more runs (JSONL or TREC) into one JSONL run.

    score(d) = sum over runs i of w_i / (k + rank_i(d)), ranks from 1; a run
    that does not rank d adds nothing, so a query in only some runs is still
    fused. Equal scores are ordered by key; queries by query_id.
    """

    if len(runs) < 2:
        raise UsageError(
            f"fuse needs at least two runs, got {len(runs)}", hint="retrieval-eval fuse A.jsonl B.jsonl --out F.jsonl"
        )
    check_number("rrf-k", k, label="--rrf-k")
    if depth is not None:
        check_number("depth", depth, label="--depth")
    try:
        chosen = parse_weights(weights, len(runs)) if weights is not None else (1.0,) * len(runs)
    except ValueError as exc:
        raise UsageError(f"--weights {weights!r}: {exc}", hint="--weights " + ",".join("1" * len(runs))) from None
    refuse_run_over_input(out, [("run", path) for path in runs])
    read = [parse_run(path, run_format=run_format) for path in runs]
    for path, run in zip(runs, read):
        if run.with_duplicates:
            say(
                f"warning  {path}: {len(run.with_duplicates)} queries list a key twice; its first rank counts",
                err=True,
            )
    fused = fuse_rrf([run.rankings for run in read], k=k, weights=chosen, depth=depth)
    lines, sha = write_run(out, fused.items())
    meta = {
        "command": "fuse",
        "method": method,
        "parameters": {"k": k, "weights": list(chosen), "depth": depth, "score_decimals": SCORE_DECIMALS},
        "inputs": [{"path": path, "format": run.format, "sha256": run.sha256} for path, run in zip(runs, read)],
        "queries": {"fused": lines},
        "run": {"sha256": sha, "query_order": "query_id"},
    }
    meta_file = write_meta(out, meta)
    how = f", and how they were made to {meta_file}" if meta_file else " (no sidecar beside a stream)"
    say(f"wrote {lines} fused queries to {out}{how}", err=True)
