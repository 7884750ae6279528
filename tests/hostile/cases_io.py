"""Writing and reading back whole documents: outputs that must not damage what the user owns,
documents (reports, comparisons, baselines, samples) that must be refused cleanly when damaged.

Items of the hardening list: 1 (special output paths), 3 (output = input), 5 (deep nesting,
long integers, size), 6 (numbers past a double), 7 (wrong types), 8 (a full device), 21 (messages).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from from_json import build_comparison
from hostile.case import HostileCase
from retrieval_eval.core.scoring import ScoreConfig
from retrieval_eval.pipeline.evaluate import run_pipeline
from retrieval_eval.pipeline.request import EvaluationRequest

ROOT = Path(__file__).resolve().parents[2]
STRATA = ROOT / "spec" / "fixtures" / "strata"
DRIFT = ROOT / "spec" / "fixtures" / "drift"
JUDGMENTS = (STRATA / "judgments.jsonl").read_bytes()
RUN = (STRATA / "run.jsonl").read_bytes()
DRIFT_JUDGMENTS = (DRIFT / "judgments.jsonl").read_bytes()
DRIFT_CORPUS = (DRIFT / "corpus.json").read_bytes()
NOW = "2026-01-01T00:00:00Z"


def _report() -> dict[str, Any]:
    request = EvaluationRequest(
        str(STRATA / "judgments.jsonl"), str(STRATA / "run.jsonl"), ScoreConfig(k=(3,)), generated_at=NOW
    )
    return run_pipeline(request).report


REPORT = _report()
COMPARISON = build_comparison(REPORT, REPORT, resamples=100)


def doc(value: Any) -> bytes:
    return json.dumps(value, indent=2).encode()


def damaged(document: dict[str, Any], path: str, value: Any) -> bytes:
    """``document`` with the value at a dotted ``path`` replaced by ``value`` (raw JSON text when bytes)."""
    copied = copy.deepcopy(document)
    *parents, last = path.split(".")
    node = copied
    for key in parents:
        node = node[key]
    marker = "@@RAW@@"
    node[last] = marker if isinstance(value, bytes) else value
    text = doc(copied)
    return text.replace(b'"' + marker.encode() + b'"', value) if isinstance(value, bytes) else text


def unchanged(name: str, original: bytes) -> Any:
    def check(tmp: Path) -> None:
        assert (tmp / name).read_bytes() == original, f"{name} was changed"

    return check


def absent(name: str) -> Any:
    def check(tmp: Path) -> None:
        assert not (tmp / name).exists(), f"{name} was written"

    return check


def no_leftovers(tmp: Path) -> None:
    assert not list(tmp.glob(".*.tmp")), list(tmp.glob(".*.tmp"))


SCORE = ("score", "-j", "j.jsonl", "-r", "run.jsonl", "-k", "3", "--now", NOW)
SCORE_FILES = {"j.jsonl": JUDGMENTS, "run.jsonl": RUN}
REPORT_BYTES = doc(REPORT)
CMP_BYTES = doc(COMPARISON)
DEEP = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECT = b'{"a":' * 50_000 + b"1" + b"}" * 50_000
LONG_INT = b"1" * 5000
DIGITS_400 = b"9" * 400

CASES: list[HostileCase] = []

# -- 1: where an output goes (devices, FIFOs and links are in test_output_paths.py: a table
# case cannot make them, and a case writing to /dev itself would damage the machine on a
# regression) -----------------------------------------------------
for command, argv, files in (
    ("score", SCORE, SCORE_FILES),
    ("render", ("render", "--report", "r.json"), {"r.json": REPORT_BYTES}),
    ("compare", ("compare", "--base", "r.json", "--head", "r.json"), {"r.json": REPORT_BYTES}),
    ("drift-fix", ("drift", "-j", "j.jsonl", "-c", "corpus.json", "--fix"), {"j.jsonl": DRIFT_JUDGMENTS}),
    ("convert", ("convert", "run.jsonl", "--to", "trec-run"), {"run.jsonl": RUN}),
):
    files = {**files, "corpus.json": DRIFT_CORPUS}
    CASES.append(
        HostileCase(
            "1",
            f"{command}-out-directory-is-refused",
            (*argv, "--out", "{tmp}"),
            files,
            stderr_has="is a directory",
            check=no_leftovers,
        )
    )
CASES.append(
    HostileCase(
        "1",
        "drift-queue-directory-is-refused",
        ("drift", "-j", "j.jsonl", "-c", "corpus.json", "--queue", "{tmp}"),
        {"j.jsonl": DRIFT_JUDGMENTS, "corpus.json": DRIFT_CORPUS},
        stderr_has="is a directory",
        check=no_leftovers,
    )
)
# -- 3: an output that is one of the inputs ----------------------------------------------
for name, argv, files, victim in (
    ("score-judgments", (*SCORE, "--out", "j.jsonl"), SCORE_FILES, "j.jsonl"),
    ("score-run-other-spelling", (*SCORE, "--out", "./run.jsonl"), SCORE_FILES, "run.jsonl"),
    ("score-run-absolute", (*SCORE, "--out", "{tmp}/run.jsonl"), SCORE_FILES, "run.jsonl"),
    (
        "score-baseline",
        (*SCORE, "--baseline", "b.json", "--out", "b.json"),
        {**SCORE_FILES, "b.json": REPORT_BYTES},
        "b.json",
    ),
    (
        "score-samples",
        (*SCORE, "--judged", "f=s.json", "--out", "s.json"),
        {**SCORE_FILES, "s.json": b"[0.5, 0.7]"},
        "s.json",
    ),
    (
        "score-corpus",
        (*SCORE, "--corpus", "c.json", "--out", "c.json"),
        {**SCORE_FILES, "c.json": DRIFT_CORPUS},
        "c.json",
    ),
    (
        "compare-base",
        ("compare", "--base", "a.json", "--head", "b.json", "--out", "a.json"),
        {"a.json": REPORT_BYTES, "b.json": REPORT_BYTES},
        "a.json",
    ),
    (
        "compare-judgments",
        ("compare", "--base", "a.json", "--head", "a.json", "-j", "j.jsonl", "--out", "j.jsonl"),
        {"a.json": REPORT_BYTES, "j.jsonl": JUDGMENTS},
        "j.jsonl",
    ),
    ("render-report", ("render", "--report", "r.json", "--out", "r.json"), {"r.json": REPORT_BYTES}, "r.json"),
    (
        "render-comparison",
        ("render", "--report", "r.json", "--compare", "c.json", "--out", "c.json"),
        {"r.json": REPORT_BYTES, "c.json": CMP_BYTES},
        "c.json",
    ),
    (
        "drift-fix-corpus",
        ("drift", "-j", "j.jsonl", "-c", "corpus.json", "--fix", "--out", "corpus.json"),
        {"j.jsonl": DRIFT_JUDGMENTS, "corpus.json": DRIFT_CORPUS},
        "corpus.json",
    ),
    (
        "drift-queue-judgments",
        ("drift", "-j", "j.jsonl", "-c", "corpus.json", "--queue", "j.jsonl"),
        {"j.jsonl": DRIFT_JUDGMENTS, "corpus.json": DRIFT_CORPUS},
        "j.jsonl",
    ),
    (
        "drift-queue-corpus",
        ("drift", "-j", "j.jsonl", "-c", "corpus.json", "--queue", "./corpus.json"),
        {"j.jsonl": DRIFT_JUDGMENTS, "corpus.json": DRIFT_CORPUS},
        "corpus.json",
    ),
    (
        "convert-input",
        ("convert", "run.jsonl", "--to", "trec-run", "--out", "run.jsonl"),
        {"run.jsonl": RUN},
        "run.jsonl",
    ),
    ("fuse-run", ("fuse", "a.jsonl", "b.jsonl", "--out", "b.jsonl"), {"a.jsonl": RUN, "b.jsonl": RUN}, "b.jsonl"),
    (
        "fuse-sidecar",  # --out f.jsonl also writes f.jsonl.meta.json
        ("fuse", "a.jsonl", "f.jsonl.meta.json", "--out", "f.jsonl"),
        {"a.jsonl": RUN, "f.jsonl.meta.json": RUN},
        "f.jsonl.meta.json",
    ),
    (
        "floor-run-judgments",
        ("floor-run", "--method", "bm25", "--corpus", "c.json", "-j", "j.jsonl", "--out", "j.jsonl"),
        {"c.json": DRIFT_CORPUS, "j.jsonl": DRIFT_JUDGMENTS},
        "j.jsonl",
    ),
    (
        "floor-run-by-its-old-name-baseline-judgments",
        ("baseline", "--method", "bm25", "--corpus", "c.json", "-j", "j.jsonl", "--out", "j.jsonl"),
        {"c.json": DRIFT_CORPUS, "j.jsonl": DRIFT_JUDGMENTS},
        "j.jsonl",
    ),
    (
        "floor-run-corpus-is-the-sidecar",
        ("floor-run", "--method", "tfidf", "--corpus", "c.meta.json", "-j", "j.jsonl", "--out", "c"),
        {"c.meta.json": DRIFT_CORPUS, "j.jsonl": DRIFT_JUDGMENTS},
        "c.meta.json",
    ),
):
    CASES.append(
        HostileCase(
            "3",
            f"{name}-output-is-an-input",
            argv,
            files,
            stderr_has="is also an input",
            check=unchanged(victim, files[victim]),
        )
    )

CASES.append(
    HostileCase(
        "3",
        "convert-two-outputs-one-file",
        ("convert", "--beir", "beir", "--to", "judgments", "--out", "x.jsonl", "--corpus-out", "./x.jsonl"),
        {
            "beir/corpus.jsonl": b'{"_id": "d1", "title": "t", "text": "hello"}\n',
            "beir/queries.jsonl": b'{"_id": "q1", "text": "hello"}\n',
            "beir/qrels/test.tsv": b"query-id\tcorpus-id\tscore\nq1\td1\t1\n",
        },
        stderr_has="--corpus-out ./x.jsonl is the same file as --out x.jsonl",
        check=absent("x.jsonl"),
    )
)

# -- 5: whole documents nested deeply, long integers, too large ----------------------------
READERS = (
    # A whole document's refusal names its role and its file (score resolves paths first).
    ("render-report", ("render", "--report", "x.json"), "report (x.json):"),
    ("render-comparison", ("render", "--report", "r.json", "--compare", "x.json"), "comparison (x.json):"),
    ("compare-base", ("compare", "--base", "x.json", "--head", "r.json"), "base (x.json):"),
    ("compare-head", ("compare", "--base", "r.json", "--head", "x.json"), "head (x.json):"),
    ("score-baseline", (*SCORE, "--baseline", "x.json"), "/x.json):"),
    ("score-judged", (*SCORE, "--judged", "f=x.json"), "judged f ("),
    ("summarize", ("summarize", "x.json"), "samples (x.json):"),
)
for reader, argv, prefix in READERS:
    files = {**SCORE_FILES, "r.json": REPORT_BYTES}
    for variant, data, says in (
        ("deep-array", DEEP, "nested more than"),
        ("deep-object", DEEP_OBJECT, "nested more than"),
        ("deep-inside-a-report", damaged(REPORT, "tool.extra", b"[" * 200 + b"]" * 200), "nested more than"),
        ("long-integer", b"[" + LONG_INT + b"]", "digits"),
        ("long-integer-in-a-report", damaged(REPORT, "judgments.queries", LONG_INT), "digits"),
        ("number-past-a-double", b'{"samples": [1e400]}', "too large for a double"),
        ("nan", b"[NaN]", "NaN is not valid JSON"),
    ):
        CASES.append(HostileCase("5", f"{reader}-{variant}", argv, {**files, "x.json": data}, stderr_has=says))
    CASES.append(HostileCase("5", f"{reader}-names-the-document", argv, {**files, "x.json": DEEP}, stderr_has=prefix))
    CASES.append(
        HostileCase(
            "5",
            f"{reader}-larger-than-the-limit",
            argv,
            {**files, "x.json": b"[" + b"0.5, " * 100 + b"0.5]"},
            env={"RETRIEVAL_EVAL_MAX_DOCUMENT_BYTES": "400"},
            stderr_has="larger than",
        )
    )

# -- 6: numbers a double cannot hold, or that overflow when used ---------------------------
NUMBERS = (
    ("metric-400-digits", "metrics.recall@3.value", DIGITS_400),
    ("metric-1e308", "metrics.recall@3.value", 1e308),
    ("stratum-1e308", "per_stratum.billing.metrics.recall@3.value", 1e308),
    ("stratum-minus-1e308", "per_stratum.legal.metrics.recall@3.value", -1e308),
    ("per-query-1.7e308", "per_query.b1.recall@3", 1.7e308),
    ("gate-observed-400-digits", "verdict.gates", [{"expression": "x", "status": "PASS", "observed": 10**400}]),
    ("ci-1e308", "metrics.recall@3.ci", [-1.7e308, 1.7e308]),
)
for name, path, value in NUMBERS:
    data = damaged(REPORT, path, value)
    for fmt in ("text", "summary", "comment"):
        CASES.append(
            HostileCase(
                "6",
                f"render-{fmt}-{name}",
                ("render", "--report", "x.json", "--format", fmt),
                {"x.json": data},
                stderr_has="report (x.json): ",
            )
        )
    CASES.append(
        HostileCase(
            "6",
            f"compare-{name}",
            ("compare", "--base", "r.json", "--head", "x.json"),
            {"r.json": REPORT_BYTES, "x.json": data},
            stderr_has="head (x.json): ",
        )
    )
CASES.append(
    HostileCase(
        "6",
        "compare-movers-1.7e308",
        ("render", "--report", "r.json", "--compare", "x.json"),
        {"r.json": REPORT_BYTES, "x.json": damaged(COMPARISON, "metrics.recall@3.delta", 1.7e308)},
        stderr_has="comparison (x.json): ",
    )
)
CASES.append(
    HostileCase(
        "6",
        "summarize-samples-past-the-bound",
        ("summarize", "s.json"),
        {"s.json": b"[1e200, -1e200]"},
        stderr_has="samples (s.json):",
    )
)

# -- 7: a document whose parts have the wrong type -------------------------------------------
SHAPES = (
    ("report-inputs-array", REPORT, "inputs", [], "inputs must be an object (at $.inputs)"),
    ("report-corpus-string", REPORT, "corpus", "x", "corpus must be an object (at $.corpus)"),
    ("report-corpus-list", REPORT, "corpus", [], "corpus must be an object (at $.corpus)"),
    ("report-corpus-number", REPORT, "corpus", 3, "corpus must be an object (at $.corpus)"),
    (
        "report-metric-string",
        REPORT,
        "metrics.recall@3",
        "0.5",
        '"recall@3" must be an object (at $.metrics["recall@3"])',
    ),
    (
        "report-value-bool",
        REPORT,
        "metrics.recall@3.value",
        True,
        'value must be a number (at $.metrics["recall@3"].value)',
    ),
    ("report-strata-list", REPORT, "per_stratum", [1], "per_stratum must be an object"),
    ("report-per-query-list", REPORT, "per_query.b1", [0.5], "b1 must be an object (at $.per_query.b1)"),
    ("report-verdict-status", REPORT, "verdict.status", "OK", "status must be one of"),
    ("report-k-strings", REPORT, "config.k", ["3"], 'k[0] must be an integer or "all" (at $.config.k[0])'),
    ("report-rankings-numbers", REPORT, "rankings.b1", [1, 2], "b1[0] must be a string (at $.rankings.b1[0])"),
)
for name, document, path, value, says in SHAPES:
    data = damaged(document, path, value)
    CASES.append(
        HostileCase(
            "7",
            f"render-{name}",
            ("render", "--report", "x.json"),
            {"x.json": data},
            stderr_has="report (x.json): " + says,
        )
    )
    CASES.append(
        HostileCase(
            "7",
            f"baseline-{name}",
            (*SCORE, "--baseline", "x.json"),
            {**SCORE_FILES, "x.json": data},
            stderr_has="/x.json): " + says,
        )
    )
CASES.append(
    HostileCase(
        "7",
        "report-missing-verdict",
        ("render", "--report", "x.json"),
        {"x.json": doc({k: v for k, v in REPORT.items() if k != "verdict"})},
        stderr_has="report (x.json): verdict is required (at $)",
    )
)
for name, path, value, says in (
    ("head-string", "head", "x", "head must be an object (at $.head)"),
    ("metrics-list", "metrics", [], "metrics must be an object (at $.metrics)"),
    ("row-ci-string", "metrics.recall@3.ci", "wide", 'ci must be null or an array (at $.metrics["recall@3"].ci)'),
    ("movers-drops-object", "movers.drops", {}, "drops must be an array (at $.movers.drops)"),
    ("comparability-strings", "comparability", ["x"], "comparability[0] must be an object (at $.comparability[0])"),
    ("stratum-row-string", "per_stratum.legal", "x", "legal must be an object (at $.per_stratum.legal)"),
):
    CASES.append(
        HostileCase(
            "7",
            f"comparison-{name}",
            ("render", "--report", "r.json", "--compare", "x.json"),
            {"r.json": REPORT_BYTES, "x.json": damaged(COMPARISON, path, value)},
            stderr_has="comparison (x.json): " + says,
        )
    )

# -- 21: messages ----------------------------------------------------------------------------
CASES.append(
    HostileCase(
        "21",
        "summarize-names-its-input-once",
        ("summarize", "s.json"),
        {"s.json": b'{"x": 1}'},
        stderr_has="error  samples (s.json): expected",
    )
)
CASES.append(
    HostileCase(
        "21",
        "drift-empty-snapshot-says-what-a-snapshot-holds",
        ("drift", "-j", "j.jsonl", "-c", "s.json"),
        {"j.jsonl": DRIFT_JUDGMENTS, "s.json": b"{}\n"},
        stderr_has='a JSON snapshot must hold a "chunks" array',
    )
)
CASES.append(
    HostileCase(
        "21",
        "drift-snapshot-without-chunks-says-what-a-snapshot-holds",
        ("drift", "-j", "j.jsonl", "-c", "s.json"),
        {"j.jsonl": DRIFT_JUDGMENTS, "s.json": b'{"id": 1, "body": "x"}\n'},
        stderr_has='a JSON snapshot must hold a "chunks" array',
    )
)
CASES.append(
    HostileCase(
        "21",
        "worst-stratum-gate-without-threshold",
        (*SCORE, "-g", "worst-stratum:recall@3"),
        SCORE_FILES,
        stderr_has="a worst-stratum gate needs a threshold",
    )
)
for name, gate in (
    ("space-after-colon", "recall@3: -0.1"),
    ("underscore", "recall@3:-0_1"),
    ("arabic-digits", "recall@3:\u0660.\u0665"),
):
    CASES.append(
        HostileCase(
            "6",
            f"gate-number-not-plain-decimal-{name}",  # " -0.1" read by float() made an always-passing absolute gate
            (*SCORE, "-g", gate),
            SCORE_FILES,
            stderr_has="is not a plain decimal number",
        )
    )
# A run or judgments given for a report: the message names the option it was given by (compare
# --head given judgments said "--baseline takes a report", an option compare does not have).
for name, argv, says in (
    ("compare-head", ("compare", "--base", "r.json", "--head", "j.jsonl"), "--head takes a report"),
    ("compare-base", ("compare", "--base", "run.jsonl", "--head", "r.json"), "--base takes a report"),
    ("render-report", ("render", "--report", "run.jsonl"), "--report takes a report"),
    ("plan-report", ("plan", "--report", "j.jsonl"), "--report takes a report"),
    # history takes its reports as arguments: "--report takes a report" named an option it lacks
    ("history-report", ("history", "r.json", "run.jsonl"), "a REPORT argument of history takes a report"),
):
    CASES.append(
        HostileCase(
            "8",
            f"{name}-given-other-input-names-its-option",
            argv,
            {**SCORE_FILES, "r.json": REPORT_BYTES},
            stderr_has=says,
            stdout_lacks=("--baseline",),
        )
    )
for name, given, kind in (
    ("run-jsonl", "run.jsonl", "this is a run, not a report"),
    ("judgments-jsonl", "j.jsonl", "this is judgments, not a report"),
    ("trec-run", "run.trec", "this is a run (TREC), not a report"),
):
    CASES.append(
        HostileCase(
            "8",
            f"baseline-given-a-{name}-is-named-as-such",
            (*SCORE, "--baseline", given),
            {**SCORE_FILES, "run.trec": b"q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 1.0 x\n"},
            stderr_has=kind,
        )
    )
