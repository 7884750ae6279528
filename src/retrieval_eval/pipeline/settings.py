"""The settings of one evaluation: one table, one parser, for the CLI, the action and the config file.

Every setting has one name (kebab-case), which is the action input and the config-file key,
and (where it makes sense outside a workflow) a CLI flag. Values arrive as text from three
places, in order of precedence: what was given (a CLI flag, or an action input), the config
file (``.retrieval-eval.yml`` when present), and the default in :data:`SETTINGS`. That is the
only place defaults live; action.yml leaves its inputs empty so the config file can act.

Parsing collects every problem at once, each naming its setting, so one failed run tells the
user everything to fix. An adapter names the setting as its user knows it (``-k`` in the
CLI, ``k`` in the action) through the ``label`` it passes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..core.comment_id import check_comment_id
from ..core.errors import InputError, UsageError
from ..core.gates import check_judged_name, gate_metric, parse_gate, split_gate_list
from ..core.judgments import MAX_RELEVANCE
from ..core.metrics import DEFAULT_CUTOFFS, GAINS, is_positive_decimal
from ..core.numbers import parse_decimal, parse_whole
from ..core.scoring import UNJUDGED_POLICIES, parse_cutoff_list
from ..core.unjudged import MACHINE
from ..formats.fileio import refuse_output_over_input
from ..formats.runs import RUN_FORMATS
from .endpoints import endpoint_problem, shown_url

DEFAULT_CONFIG = ".retrieval-eval.yml"
MODES = ("evaluate", "post-comment")
COMMENT_CHOICES = ("auto", "always", "off")
QUEUE_CHOICES = ("auto", "write", "off")
# label-queue: auto writes a queue up to this many lines, about what one labeler does in a day;
# a longer one costs a second of CPU on 10k queries for a file nobody labels from a pull request.
QUEUE_AUTO_LIMIT = 1_000
DEFAULT_API_URL = "https://api.github.com"
CLI, ACTION, CONFIG = "cli", "action", "config"
_EVERYWHERE = frozenset({CLI, ACTION, CONFIG})
_WORKFLOW = frozenset({ACTION, CONFIG})


@dataclass(frozen=True)
class Bounds:
    """The range a number may take (both ends included), checked once its text is read.

    Every numeric setting and option has one (docs/limits.md lists them): a number past
    what the rules can mean (a grade above every grade, 2**threshold past a float) is refused
    with the range, never left to overflow or to run for hours.
    """

    low: float
    high: float
    whole: bool = True  # an integer; else any real number (never NaN)

    def problem(self, value: object) -> str | None:
        """Why ``value`` is out of range, or None; a tuple (the cutoffs) is checked item by item."""
        if isinstance(value, tuple):
            return next((p for p in map(self.problem, value) if p is not None), None)
        kinds = (int,) if self.whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds):
            return f"{_shown(value)} is not {'a whole number' if self.whole else 'a number'}"
        if not self.low <= value <= self.high:  # NaN compares false both ways: refused here too
            return f"{_number(value)} is out of range: give {self.describe()}"
        return None

    def describe(self) -> str:
        return f"{_number(self.low)} to {_number(self.high)}"


def _number(value: float) -> str:
    if isinstance(value, int):
        # str() of a number past 4,300 digits raises: its length is told from its bits instead.
        return (
            f"{value:,}" if abs(value) < 10**20 else f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
        )
    return f"{value:g}"


def _shown(value: object) -> str:
    return _number(value) if isinstance(value, int) and not isinstance(value, bool) else repr(value)[:40]


MAX_CUTOFF = 1_000_000  # a run ranks fewer keys per query; trec_eval's deepest is 1,000
MAX_WORDS = 1_000  # answer-in-query: a span longer than any query


@dataclass(frozen=True)
class Setting:
    """One row of the settings table (README "Settings" is generated from these rows)."""

    name: str
    default: str
    help: str
    flag: str = ""  # the CLI spelling; empty where the setting only makes sense in a workflow
    where: frozenset[str] = _EVERYWHERE
    shown_default: str = ""  # how the README states a default that is not a plain value
    bounds: Bounds | None = None  # a number's range (docs/limits.md), checked after parsing

    @property
    def key(self) -> str:
        return self.name


SETTINGS: tuple[Setting, ...] = (
    Setting("judgments", "", "Judgments: JSONL, TREC or BEIR qrels (required)", "-j, --judgments"),
    Setting("run", "", "The run: JSONL or a TREC run file (required)", "-r, --run"),
    Setting(
        "k",
        ",".join(map(str, DEFAULT_CUTOFFS)),
        "Cutoffs, e.g. `5,10,20`; the first names the primary metric; `all` adds full-depth metrics",
        "-k",
        bounds=Bounds(1, MAX_CUTOFF),
    ),
    Setting("threshold", "1", "Lowest grade that counts as relevant", "--threshold", bounds=Bounds(1, MAX_RELEVANCE)),
    Setting("gain", "exponential", "nDCG gain: `exponential` (2^g-1) or `linear` (trec_eval's)", "--gain"),
    Setting("run-format", "auto", "`auto` (detected), `jsonl` or `trec`", "--run-format"),
    Setting(
        "unjudged",
        "assume-irrelevant",
        "Unjudged keys: `assume-irrelevant`, `bounded` (gates read both bounds), `condensed` (removed) "
        "or `machine` (bounds, then a calibrated judge's labels: docs/judge.md)",
        "--unjudged",
    ),
    Setting(
        "machine-labels",
        "",
        "Machine labels (`retrieval-eval judge --out`), read by `unjudged: machine`",
        "--machine-labels",
        shown_default="none",
    ),
    Setting(
        "judge-endpoint",
        "",
        "An OpenAI-compatible API root: a judge labels the label queue for `unjudged: machine`",
        where=_WORKFLOW,
        shown_default="none (no judge)",
    ),
    Setting("judge-model", "", "The judge's model name (pin a snapshot)", where=_WORKFLOW, shown_default="none"),
    Setting(
        "judge-key-env",
        "",
        "The environment variable holding the judge's key (pass the secret with `env:`)",
        where=_WORKFLOW,
        shown_default="none (no key sent)",
    ),
    Setting(
        "judge-max-calls", "200", "The judge's budget: calls per run", where=_WORKFLOW, bounds=Bounds(0, 1_000_000)
    ),
    Setting(
        "judge-max-tokens",
        "",
        "The judge's budget: tokens per run",
        where=_WORKFLOW,
        shown_default="none",
        bounds=Bounds(0, 10**12),
    ),
    Setting("gates", "", "Gate expressions, separated by new lines or commas", "-g, --gate", shown_default="none"),
    Setting("judged", "", "Samples of judged metrics, `NAME=PATH` each", "--judged", shown_default="none"),
    Setting(
        "baseline",
        "auto",
        "Where the base report comes from: `auto`, `none`, a path, `git:<ref>:<path>`, `artifact:<name>`",
        "--baseline",
    ),
    Setting(
        "baseline-path",
        ".retrieval-eval/report.json",
        "Where reports are committed on the base branch",
        where=_WORKFLOW,
    ),
    Setting(
        "history",
        "20",
        "Base-branch reports charted in the summary, from `baseline-path`'s git history; `0`: none",
        where=_WORKFLOW,
        bounds=Bounds(0, 200),
    ),
    Setting(
        "corpus", "", "Corpus snapshot: adds label drift (and the fingerprint check)", "--corpus", shown_default="none"
    ),
    Setting(
        "floor",
        "",
        "A floor run to report the margin over (and gate with `floor:` gates), or `bm25` (computed over the corpus)",
        "--floor",
        shown_default="none",
    ),
    Setting(
        "easy-set",
        "0.95",
        "With a corpus: warn when the BM25 floor reaches this hit rate at the first cutoff (`off`: no check)",
        "--easy-set",
        bounds=Bounds(0, 1, whole=False),
    ),
    Setting(
        "answer-in-query",
        "8",
        "With a corpus: warn when a query repeats this many consecutive words of a relevant text (`off`: no check)",
        "--answer-in-query",
        bounds=Bounds(1, MAX_WORDS),
    ),
    Setting("collapse-to-documents", "false", "Score a chunk run against document labels", "--collapse-to-documents"),
    Setting(
        "max-drift",
        "",
        "Share of stale labels (0-1) beyond which the verdict is FAIL",
        "--max-drift",
        shown_default="none (warn only)",
        bounds=Bounds(0, 1, whole=False),
    ),
    Setting(
        "power",
        "0.8",
        "The power (0-1) at which each delta's minimum detectable effect is stated",
        "--power",
    ),
    Setting(
        "require-detectable",
        "false",
        "A delta gate whose tolerance is below the minimum detectable effect is INDETERMINATE instead of PASS",
        "--require-detectable/--no-require-detectable",
    ),
    Setting(
        "bounds",
        "false",
        "Also compute each metric's lower and upper bound over labelings of the unjudged keys when "
        "nothing reads them (`unjudged: bounded`, a base report and the action compute them anyway)",
        "--bounds/--no-bounds",
        where=frozenset({CLI, CONFIG}),
    ),
    Setting(
        "report",
        "",
        "Where the JSON report is written",
        "--report, --out",
        shown_default="CLI: not written; action: `retrieval-eval-report.json`",
    ),
    Setting(
        "fail-on-indeterminate", "true", "Exit 1 on INDETERMINATE", "--fail-on-indeterminate/--no-fail-on-indeterminate"
    ),
    Setting(
        "template-dir",
        "",
        "Templates that override named blocks of the built-in ones",
        where=_WORKFLOW,
        shown_default="built-in",
    ),
    Setting(
        "label-queue",
        "auto",
        "The label queue beside the report: `auto` (written when it holds at most "
        f"{QUEUE_AUTO_LIMIT:,} lines or a judge reads it), `write` (always) or `off`; "
        "`label-queue-count` is counted either way",
        where=_WORKFLOW,
    ),
    Setting("comment", "auto", "`auto`, `always` or `off`: the sticky PR comment", where=_WORKFLOW),
    Setting("comment-id", "default", "Tells two instances apart in one pull request", where=_WORKFLOW),
    Setting("config", "", "The config file", "--config", frozenset({CLI, ACTION}), f"`{DEFAULT_CONFIG}` when present"),
    Setting("mode", "evaluate", "`evaluate`, or `post-comment` (the fork recipe)", where=frozenset({ACTION})),
    Setting(
        "github-token",
        "",
        "Token for comments, contents and artifacts",
        where=frozenset({ACTION}),
        shown_default="the job's token",
    ),
    Setting("api-url", "", "The GitHub REST API root", where=frozenset({ACTION}), shown_default="the runner's"),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}

# The numbers of the commands that are not settings of an evaluation, with their ranges: the
# same rule, so docs/limits.md lists every number in one place.
OPTION_BOUNDS: dict[str, Bounds] = {
    "rrf-k": Bounds(0, 1_000_000),  # RRF's k (60 by custom): past this every score rounds alike
    "resamples": Bounds(100, 1_000_000),  # bootstrap resamples: 10,000 by default
    "seed": Bounds(-(2**63), 2**63 - 1),
    "depth": Bounds(1, MAX_CUTOFF),  # keys kept or ranked per query (fuse, baseline)
    "k1": Bounds(0, 100, whole=False),  # BM25's saturation (1.2 to 2 in practice)
    "b": Bounds(0, 1, whole=False),  # BM25's length normalisation
    "queries": Bounds(2, 1_000_000_000),  # plan: a set size, past any judged set (a float's sqrt stays exact)
    "correlation": Bounds(-1, 1, whole=False),  # plan: the assumed correlation of two runs
}


def check_number(name: str, value: object, *, label: str | None = None) -> None:
    """Refuse ``value`` (UsageError, naming ``label`` or ``name``) when outside the range of the
    setting or option ``name``: the one check the CLI, the action and the Python API share."""
    bounds = BY_NAME[name].bounds if name in BY_NAME else OPTION_BOUNDS[name]
    problem = None if bounds is None else bounds.problem(value)
    if problem is not None:
        raise UsageError(f"{label or name}: {problem}")


CONFIG_KEYS = tuple(s.name for s in SETTINGS if CONFIG in s.where)
ACTION_REPORT_DEFAULT = "retrieval-eval-report.json"
MAX_HISTORY = 200  # reports read from the base branch's history, at most


class SettingsError(UsageError):
    """One or more settings are wrong; ``problems`` lists each, naming its setting."""

    def __init__(self, problems: list[str], *, hint: str | None = None) -> None:
        super().__init__("; ".join(problems), hint=hint or f"fix the settings named, or the keys in {DEFAULT_CONFIG}")
        self.problems = list(problems)


@dataclass(frozen=True)
class BaselineSpec:
    """Where the base branch's report comes from."""

    kind: str  # auto | none | path | git | artifact
    path: str = ""
    ref: str = ""
    name: str = ""

    def describe(self) -> str:
        if self.kind == "git":
            return f"git:{self.ref}:{self.path}"
        if self.kind == "artifact":
            return f"artifact:{self.name}"
        return self.path if self.kind == "path" else self.kind


@dataclass(frozen=True)
class Runner:
    """Where the evaluation runs: the workspace relative paths start from, and (in a workflow)
    what the runner tells every step about the job (the ``GITHUB_*`` variables)."""

    workspace: Path
    repository: str = ""
    event_name: str = ""
    event_path: str = ""
    sha: str = ""
    step_summary: str = ""
    output_file: str = ""


@dataclass(frozen=True)
class Settings:
    """Every setting, parsed. The CLI leaves the workflow-only ones at their defaults."""

    mode: str
    runner: Runner
    judgments: str
    run: str
    k: tuple[int, ...]
    threshold: int
    gain: str
    run_format: str
    unjudged: str
    gates: tuple[str, ...]
    judged: tuple[tuple[str, str], ...]
    corpus: str
    floor: str
    easy_set: float | None
    answer_in_query: int | None
    collapse_to_documents: bool
    max_drift: float | None
    baseline: BaselineSpec
    baseline_path: str
    report: str
    comment: str
    comment_id: str
    fail_on_indeterminate: bool
    api_url: str
    template_dir: str
    config_file: str
    github_token: str = field(repr=False, default="")
    confined: bool = False  # in a workflow: every path must stay inside the workspace
    history: int = 20  # base-branch reports in the summary's history; 0: none
    power: float = 0.8  # at which each minimum detectable effect is stated
    require_detectable: bool = False  # a delta gate that cannot see its tolerance is INDETERMINATE
    bounds: bool = False  # compute the bounds even when nothing reads them
    full_depth: bool = False  # "all" among the cutoffs
    machine_labels: str = ""  # the judge's labels, read under the machine policy
    judge_endpoint: str = ""  # in a workflow: a judge labels the queue (machine policy)
    judge_model: str = ""
    judge_key_env: str = ""
    judge_max_calls: int | None = 200
    judge_max_tokens: int | None = None
    judge_key: str = field(repr=False, default="")  # read from judge_key_env by the action
    label_queue: str = "auto"  # in a workflow: when the label queue is built and written

    @property
    def queue_limit(self) -> int | None:
        """The longest label queue built and written; None: any (asked for, or a judge labels it)."""
        if self.label_queue == "write" or self.judge_endpoint:
            return None
        return 0 if self.label_queue == "off" else QUEUE_AUTO_LIMIT

    @property
    def machine_labels_out(self) -> str:
        """Where a judge run in a workflow writes (and caches) its labels."""
        return self.machine_labels or _beside(self.report, ".machine-labels.jsonl")

    @property
    def queue_file(self) -> str:
        return _beside(self.report, ".queue.jsonl")

    def resolve(self, path: str, *, setting: str = "") -> Path:
        """A path as the user wrote it, anchored at the workspace when relative.

        In a workflow the pull request controls the paths and what they link to, so the
        path is followed through every symbolic link and refused when it leaves the
        workspace: a committed link must not make us read a secret or write elsewhere.
        """
        anchored = self.runner.workspace / path
        if self.confined:
            confine(anchored, self.runner.workspace, shown=f"{setting}: {path}" if setting else path)
        return anchored

    @property
    def summary_file(self) -> str:
        return _beside(self.report, ".summary.md")

    @property
    def comment_file(self) -> str:
        return _beside(self.report, ".comment.md")

    @property
    def html_file(self) -> str:
        return _beside(self.report, ".html")


def confine(path: Path, workspace: Path, *, shown: str) -> None:
    """Refuse ``path`` when, links followed, it is not inside ``workspace``."""
    real, root = os.path.realpath(path), os.path.realpath(workspace)
    if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
        # Said as it is: a path written outside, or one that a link inside leads out of.
        written, lexical_root = os.path.abspath(path), os.path.abspath(workspace)
        linked = os.path.commonpath([written, lexical_root]) == lexical_root
        how = ", through a symbolic link" if linked else ""
        raise UsageError(
            f"{shown} leads outside the workspace (to {real}){how}",
            hint="keep every path the action reads or writes inside the repository, links included",
        )


def inputs_of(settings: Settings) -> list[tuple[str, str]]:
    """Every file the evaluation reads, by role: what an output must never replace."""
    baseline = settings.baseline.path if settings.baseline.kind == "path" else ""
    named = [("judgments", settings.judgments), ("run", settings.run), ("corpus", settings.corpus)]
    named += [("floor", settings.floor)] if settings.floor != "bm25" else []
    named += [("baseline", baseline), ("config", settings.config_file)]
    named += [(f"judged {name}", path) for name, path in settings.judged]
    named += [("machine labels", settings.machine_labels)]
    return [(role, str(settings.resolve(path))) for role, path in named if path]


def _beside(report: str, suffix: str) -> str:
    """Files derived from the report's name, so two instances with two reports never collide."""
    path = PurePosixPath(report)
    return str(path.with_name(path.stem + suffix))


# -- where values come from --------------------------------------------------------------


@dataclass
class Values:
    """Looks each setting up (given, then config, then default) and collects problems.

    ``label`` names a setting as the user of this adapter knows it; ``confined`` says that
    paths must stay inside the workspace (a workflow, where the pull request controls them).
    """

    given: Mapping[str, str]
    config: Mapping[str, str]
    label: Callable[[str], str]
    confined: bool
    noun: str = "setting"  # what the adapter calls a setting: "input" in the action, "option" in the CLI
    given_where: str = ""  # where a setting is given, e.g. "under `with:`"
    problems: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)  # what to do, for the problems that know

    def problem(self, name: str, text: str, hint: str = "") -> None:
        label = self.label(name)
        self.problems.append(f"{label}: {text}" if label else text)
        if hint:
            self.hints.append(hint)

    def raw(self, name: str) -> str:
        return self.given.get(name, "") or self.config.get(name, "") or self.default(name)

    def default(self, name: str) -> str:
        if name == "report" and self.confined:
            return ACTION_REPORT_DEFAULT
        return BY_NAME[name].default

    def parse(self, name: str, parser: Callable[[str], Any], fallback: Any) -> Any:
        text = self.raw(name)
        try:
            value = parser(text)
        except ValueError as exc:
            self.problem(name, str(exc))
            return fallback
        bounds = BY_NAME[name].bounds
        problem = None if bounds is None or value is None else bounds.problem(_numbers_of(value))
        if problem is not None:
            self.problem(name, problem)
            return fallback
        return value


def _numbers_of(value: Any) -> Any:
    """The number(s) a parsed value holds: the cutoffs of ``k`` come with its ``all`` flag."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], bool):
        return value[0]
    return value


def parse_settings(values: Values, *, runner: Runner, config_file: str = "", token: str = "") -> Settings:
    """Every setting from ``values``; raises SettingsError naming each bad one."""
    mode = values.parse("mode", _choice(MODES), "evaluate")
    known = len(values.problems)
    k, full_depth = values.parse("k", _cutoffs, (DEFAULT_CUTOFFS, False))
    cutoffs_given = len(values.problems) == known  # else the gates are not checked against the default's
    path = _inside_path if values.confined else _any_path
    settings = Settings(
        mode=mode,
        runner=runner,
        judgments=values.raw("judgments"),
        run=values.raw("run"),
        k=k,
        threshold=values.parse("threshold", _positive_int, 1),
        gain=values.parse("gain", _choice(GAINS), "exponential"),
        run_format=values.parse("run-format", _choice(RUN_FORMATS), "auto"),
        unjudged=values.parse("unjudged", _choice((*UNJUDGED_POLICIES, MACHINE)), "assume-irrelevant"),
        gates=tuple(_gates(values, k, full_depth, cutoffs_given=cutoffs_given)),
        judged=values.parse("judged", _judged, ()),
        corpus=values.raw("corpus"),
        floor=values.parse("floor", _floor(path), ""),
        easy_set=values.parse("easy-set", parse_easy_set, 0.95),
        answer_in_query=values.parse("answer-in-query", parse_answer_in_query, 8),
        collapse_to_documents=values.parse("collapse-to-documents", _boolean, False),
        max_drift=values.parse("max-drift", _ratio, None),
        baseline=values.parse("baseline", _baseline(path), BaselineSpec("none")),
        baseline_path=values.parse("baseline-path", path(".retrieval-eval/report.json"), ""),
        # The summary and comment files are written beside the report: it must stay inside too.
        report=values.parse("report", _a_file(path(ACTION_REPORT_DEFAULT)), ""),
        comment=values.parse("comment", _choice(COMMENT_CHOICES), "auto"),
        label_queue=values.parse("label-queue", _choice(QUEUE_CHOICES), "auto"),
        comment_id=values.parse("comment-id", check_comment_id, "default"),
        fail_on_indeterminate=values.parse("fail-on-indeterminate", _boolean, True),
        api_url=values.parse("api-url", _url, DEFAULT_API_URL),
        template_dir=values.parse("template-dir", _optional(path(".github/retrieval-eval")), ""),
        config_file=config_file,
        github_token=token,
        confined=values.confined,
        history=values.parse("history", _history, 20),
        power=values.parse("power", parse_power, 0.8),
        require_detectable=values.parse("require-detectable", _boolean, False),
        bounds=values.parse("bounds", _boolean, False),
        full_depth=full_depth,
        machine_labels=values.parse("machine-labels", _optional(path("machine-labels.jsonl")), ""),
        judge_endpoint=values.parse("judge-endpoint", _optional(_judge_url), ""),
        judge_model=values.raw("judge-model"),
        judge_key_env=values.parse("judge-key-env", _optional(_variable_name), ""),
        judge_max_calls=values.parse("judge-max-calls", _optional_count, 200),
        judge_max_tokens=values.parse("judge-max-tokens", _optional_count, None),
    )
    _check_together(settings, values)
    if values.problems:
        one_hint = values.hints[0] if len(values.problems) == 1 and len(values.hints) == 1 else None
        raise SettingsError(values.problems, hint=one_hint)
    return settings


def _check_together(settings: Settings, values: Values) -> None:
    """Rules between settings, and the required ones, all reported with the others."""
    if settings.max_drift is not None and not settings.corpus:
        values.problem("max-drift", "drift is measured against a corpus; set corpus too")
    if settings.floor == "bm25" and not settings.corpus:
        values.problem("floor", "bm25 is computed over a corpus; set corpus too")
    if settings.collapse_to_documents and not settings.corpus:
        values.problem("collapse-to-documents", "needs a corpus, which maps chunks to documents")
    if settings.unjudged == MACHINE and not (settings.machine_labels or settings.judge_endpoint):
        values.problem("unjudged", "the machine policy reads the judge's labels; set machine-labels too")
    for name, given in (("machine-labels", settings.machine_labels), ("judge-endpoint", settings.judge_endpoint)):
        if given and settings.unjudged != MACHINE:
            values.problem(name, "machine labels are read only under unjudged: machine; set that too")
    if settings.judge_endpoint and not settings.judge_model:
        values.problem("judge-model", "the judge endpoint needs the model it serves")
    if values.confined and settings.mode == "evaluate" and settings.report:
        _check_outputs(settings, values)
    missing = [name for name in ("judgments", "run") if settings.mode == "evaluate" and not values.raw(name)]
    if missing:
        names = [values.label(name) for name in missing]
        values.problems.insert(
            0,
            f"missing required {values.noun}{'s' if len(missing) > 1 else ''}: {', '.join(names)} "
            f"(set {' and '.join(names)}{values.given_where} or in {DEFAULT_CONFIG})",
        )


def _check_outputs(settings: Settings, values: Values) -> None:
    """In a workflow the pull request names the report: no file the action writes (the report and
    the files beside it) may replace an input, an input's sidecar, or anything in ``.git``."""
    label = values.label("report")
    beside = (settings.summary_file, settings.comment_file, settings.html_file, settings.queue_file)
    try:
        outputs = [(label, str(settings.resolve(settings.report)))]
        outputs += [(f"{label}'s neighbour", str(settings.resolve(path))) for path in beside]
        refuse_output_over_input(outputs, inputs_of(settings))
    except UsageError as exc:
        values.problems.append(exc.message)
    except InputError:
        pass  # an output that cannot be written (a folder): said when it is written, the answer kept


# -- the parsers, one per kind of value ------------------------------------------------------


def _choice(options: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(f"{text!r} is not one of {', '.join(options)}")
        return text

    return parse


def _cutoffs(text: str) -> tuple[tuple[int, ...], bool]:
    try:
        return parse_cutoff_list(text)
    except ValueError:
        raise ValueError(
            f"{text!r} must be positive whole numbers or all, separated by commas, e.g. 10, 5,10,20 or 10,all"
        ) from None


def parse_cutoff_option(text: str, *, label: str = "-k") -> tuple[tuple[int, ...], bool]:
    """A ``-k`` given to a command outside the shared settings (``validate``), read exactly as the
    ``k`` setting is: the cutoffs in their range, and whether ``all`` was given; UsageError else."""
    try:
        cutoffs, full_depth = _cutoffs(text)
    except ValueError as exc:
        raise UsageError(f"{label}: {exc}", hint="-k 10, -k 5,10,20 or -k 10,all") from None
    check_number("k", cutoffs, label=label)
    return cutoffs, full_depth


def _positive_int(text: str) -> int:
    if not is_positive_decimal(text):
        raise ValueError(f"{text!r} must be a positive whole number (the lowest relevant grade), e.g. 1")
    return int(text)


def _history(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_HISTORY:
        raise ValueError(f"{text!r} must be a whole number from 0 (no history) to {MAX_HISTORY}, e.g. 20")
    return int(text)


def parse_power(text: str) -> float:
    try:
        value = parse_decimal(text)  # the one grammar: float() also reads " 0.8" and other scripts' digits
    except ValueError:
        value = -1.0
    if not 0.5 <= value < 1.0:
        raise ValueError(f"{text!r} must be a power from 0.5 to below 1, e.g. 0.8 or 0.9")
    return value


def _ratio(text: str) -> float | None:
    if not text:
        return None
    try:
        value = parse_decimal(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{text!r} must be a ratio between 0 and 1 (e.g. 0.05), or empty to only warn")
    return value


def _off_or(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``off`` turns a check off (None); anything else is read by ``parse``."""

    def read(text: str) -> Any:
        if text == "off":
            return None
        value = parse(text)
        if value is None:
            raise ValueError(f"{text!r}: give a value, or off")
        return value

    return read


def _span(text: str) -> int:
    if not is_positive_decimal(text):
        raise ValueError(f"{text!r} must be a positive whole number of words (e.g. 8), or off")
    return int(text)


parse_easy_set: Callable[[str], float | None] = _off_or(_ratio)
parse_answer_in_query: Callable[[str], int | None] = _off_or(_span)


def _optional(parse: Callable[[str], str]) -> Callable[[str], str]:
    """An optional path: empty means not given."""
    return lambda text: parse(text) if text else ""


def _judge_url(text: str) -> str:
    # Shown without a user, password or query: a key pasted into the URL never reaches the log.
    problem = endpoint_problem(text)
    if problem is not None:
        raise ValueError(f"{shown_url(text)!r} {problem}")
    return text.rstrip("/")


def _variable_name(text: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text):
        raise ValueError(f"{text!r} must be an environment variable's name, e.g. JUDGE_KEY")
    return text


def _optional_count(text: str) -> int | None:
    if not text:
        return None
    try:
        count = parse_whole(text)
    except ValueError:
        raise ValueError(f"{text!r} must be a whole number (digits 0-9), or empty for no limit") from None
    if count < 0:
        raise ValueError(f"{text!r} must not be negative, or empty for no limit")
    return count


def _floor(path: PathParser) -> Callable[[str], str]:
    """``bm25``, a run path, or empty (no floor)."""
    return lambda text: text if text in ("", "bm25") else path("floor.jsonl")(text)


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE or lowered in _FALSE:
        return lowered in _TRUE
    raise ValueError(f"{text!r} must be true or false")


def _url(text: str) -> str:
    text = text or DEFAULT_API_URL
    if not re.match(r"https?://[^/\s]+", text):
        raise ValueError(f"{text!r} must be an http(s) URL such as https://api.github.com")
    return text.rstrip("/")


PathParser = Callable[[str], Callable[[str], str]]


def _inside_path(example: str) -> Callable[[str], str]:
    """A parser for a path that must stay inside the repository (no absolute path, no ``..``)."""

    def parse(text: str) -> str:
        path = PurePosixPath(text)
        if not text or path.is_absolute() or ".." in path.parts:
            raise ValueError(f"{text!r} must be a path inside the repository, e.g. {example}")
        return str(path)

    return parse


def _a_file(parse: Callable[[str], str]) -> Callable[[str], str]:
    """A path a file is written at: one ending in ``/`` names a folder (``reports/`` was written
    as a file named ``reports``, its side files beside it)."""

    def parse_file(text: str) -> str:
        if not text:
            return parse(text)  # not given (the command line writes no report then)
        last = text.replace("\\", "/").rstrip("/").rpartition("/")[2]
        if text.endswith(("/", "\\")) or last in ("", ".", ".."):
            folder = text if text.endswith(("/", "\\")) else text + "/"
            raise ValueError(f"{text!r} names a folder; name the report file, e.g. {folder}retrieval-eval-report.json")
        return parse(text)

    return parse_file


def _any_path(example: str) -> Callable[[str], str]:
    """On the command line the user owns every path; an empty one means "not given"."""
    return lambda text: text


def _baseline(path: PathParser) -> Callable[[str], BaselineSpec]:
    def parse(text: str) -> BaselineSpec:
        if text in ("auto", "none"):
            return BaselineSpec(text)
        if text.startswith("git:"):
            ref, sep, where = text[4:].partition(":")
            if not sep or not ref or not where:
                raise ValueError(f"{text!r}: write git:<ref>:<path>, e.g. git:origin/main:.retrieval-eval/report.json")
            return BaselineSpec("git", path=path(".retrieval-eval/report.json")(where), ref=ref)
        if text.startswith("artifact:"):
            name = text[len("artifact:") :].strip()
            if not name:
                raise ValueError(f"{text!r}: write artifact:<name>, e.g. artifact:retrieval-eval-report")
            return BaselineSpec("artifact", name=name)
        return BaselineSpec("path", path=text)

    return parse


def _judged(text: str) -> tuple[tuple[str, str], ...]:
    pairs = []
    for entry in split_gate_list(text):
        name, sep, path = entry.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise ValueError(f"{entry!r} must be NAME=PATH, e.g. faithfulness=samples.json")
        try:
            check_judged_name(name.strip())
        except UsageError as exc:
            raise ValueError(exc.message) from None
        pairs.append((name.strip(), path.strip()))
    return tuple(pairs)


def _gates(values: Values, ks: tuple[int, ...], full_depth: bool, *, cutoffs_given: bool = True) -> list[str]:
    """The gate expressions, each checked now so a typo is reported with the other settings.

    When ``k`` itself was refused, a gate is not checked against the default cutoffs ("recall@5
    is not computed at the cutoffs given (k: 10)" under ``k: 5,x`` named a k the user never
    gave): each is read at its own cutoff, so only its own faults are told."""
    gates = split_gate_list(values.raw("gates"))
    judged = {name for name, _ in _judged_names(values.raw("judged"))}
    for text in gates:
        try:
            if cutoffs_given:
                parse_gate(text, ks=ks, judged=judged, full_depth=full_depth)
            else:
                own = gate_metric(text).partition("@")[2]
                parse_gate(text, ks=(int(own),) if own.isdigit() else ks, judged=judged, full_depth=True)
        except UsageError as exc:
            # The engine's hints speak CLI ("-k 5,10"); name the setting as this adapter does.
            if values.confined:  # a workflow lists every problem in one summary: the hint goes beside it
                hint = _cutoffs_as(values.label("k"), exc.hint or "")
                values.problem("gates", _cutoffs_as(values.label("k"), exc.message) + (f" ({hint})" if hint else ""))
            else:
                values.problem("gates", exc.message, exc.hint or "")
    return gates


def _cutoffs_as(label: str, text: str) -> str:
    """The engine's "-k 5,10" and "add 3 to -k" as a workflow says them: "k: 5,10", "add 3 to k"."""
    return re.sub(r"(?<![\w-])-k\b", label, re.sub(r"(?<![\w-])-k (?=\S)", f"{label}: ", text))


def _judged_names(text: str) -> list[tuple[str, str]]:
    try:
        return list(_judged(text))
    except ValueError:
        return []  # reported by the judged setting itself
