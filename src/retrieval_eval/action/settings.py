"""The action's settings, parsed once from a mapping into a frozen dataclass.

Inputs arrive as ``INPUT_<NAME>`` with the input's hyphens kept (the runner
upper-cases the name and nothing else: ``INPUT_GITHUB-TOKEN``). A YAML config
file (``.retrieval-eval.yml`` when present) may set the same keys; an input
that is set wins over the file, and the file over the built-in default. That
is why action.yml leaves these inputs empty by default: a default there would
always be set and the file could never take effect.

Every bad value is reported with its input name, and every missing required
input at once, so one failed run tells the user everything to fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..core.errors import UsageError
from ..core.metrics import is_positive_decimal

INPUTS = (
    "judgments",
    "run",
    "k",
    "threshold",
    "gates",
    "config",
    "corpus",
    "max-drift",
    "baseline",
    "baseline-path",
    "report",
    "comment",
    "comment-id",
    "fail-on-indeterminate",
    "mode",
    "github-token",
    "api-url",
    "template-dir",
)
# Keys a config file may not set: the file cannot name itself, a token never
# belongs in a committed file, and one config serves both modes of the fork recipe.
NOT_IN_CONFIG = frozenset({"config", "github-token", "api-url", "mode"})
CONFIG_KEYS = tuple(name for name in INPUTS if name not in NOT_IN_CONFIG)
DEFAULT_CONFIG = ".retrieval-eval.yml"
DEFAULTS = {
    "k": "10",
    "threshold": "1",
    "baseline": "auto",
    "baseline-path": ".retrieval-eval/report.json",
    "report": "retrieval-eval-report.json",
    "comment": "auto",
    "comment-id": "default",
    "fail-on-indeterminate": "true",
    "mode": "evaluate",
}
MODES = ("evaluate", "post-comment")
COMMENT_CHOICES = ("auto", "always", "off")
DEFAULT_API_URL = "https://api.github.com"
_COMMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class SettingsError(UsageError):
    """One or more inputs are wrong; ``problems`` lists each, naming its input."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(
            "; ".join(problems), hint=f"fix the inputs under `with:` in the workflow, or the keys in {DEFAULT_CONFIG}"
        )
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
    """What the runner tells every step about the job (the ``GITHUB_*`` variables)."""

    workspace: Path
    repository: str = ""
    event_name: str = ""
    event_path: str = ""
    sha: str = ""
    step_summary: str = ""
    output_file: str = ""


@dataclass(frozen=True)
class Settings:
    mode: str
    runner: Runner
    judgments: str
    run: str
    k: tuple[int, ...]
    threshold: int
    gates: tuple[str, ...]
    corpus: str
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

    def resolve(self, path: str) -> Path:
        """A path as the user wrote it, anchored at the workspace when relative."""
        return self.runner.workspace / path

    @property
    def summary_file(self) -> str:
        return _beside(self.report, ".summary.md")

    @property
    def comment_file(self) -> str:
        return _beside(self.report, ".comment.md")


def _beside(report: str, suffix: str) -> str:
    """Files derived from the report's name, so two instances with two reports never collide."""
    path = PurePosixPath(report)
    return str(path.with_name(path.stem + suffix))


# -- reading the raw values --------------------------------------------------------


def input_value(env: Mapping[str, str], name: str) -> str:
    """An input as the runner passes it; the underscore spelling is accepted for hand-made envs."""
    for key in (f"INPUT_{name.upper()}", f"INPUT_{name.upper().replace('-', '_')}"):
        value = env.get(key, "").strip()
        if value:
            return value
    return ""


def runner_from_env(env: Mapping[str, str], *, cwd: Path) -> Runner:
    return Runner(
        workspace=Path(env.get("GITHUB_WORKSPACE") or cwd),
        repository=env.get("GITHUB_REPOSITORY", ""),
        event_name=env.get("GITHUB_EVENT_NAME", ""),
        event_path=env.get("GITHUB_EVENT_PATH", ""),
        sha=env.get("GITHUB_SHA", ""),
        step_summary=env.get("GITHUB_STEP_SUMMARY", ""),
        output_file=env.get("GITHUB_OUTPUT", ""),
    )


def config_location(env: Mapping[str, str], workspace: Path) -> tuple[Path | None, bool]:
    """The config file to read and whether the user named it (then it must exist)."""
    named = input_value(env, "config")
    if named:
        return workspace / named, True
    default = workspace / DEFAULT_CONFIG
    return (default if default.is_file() else None), False


def parse_config_text(text: str, *, source: str) -> dict[str, str]:
    """A config file's keys, validated and flattened to the strings inputs would carry."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SettingsError([f"config: {source} is not valid YAML ({_first_line(exc)})"]) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError([f"config: {source} must be a mapping of input names to values"])
    problems, values = [], {}
    for key, value in data.items():
        name = str(key).replace("_", "-")
        if name not in CONFIG_KEYS:
            why = "cannot be set in the config file" if name in NOT_IN_CONFIG else "is not an input"
            problems.append(f"config: {source}: {key!r} {why}; the keys are {', '.join(CONFIG_KEYS)}")
            continue
        try:
            values[name] = _flatten(name, value)
        except ValueError as exc:
            problems.append(f"config: {source}: {key}: {exc}")
    if problems:
        raise SettingsError(problems)
    return values


def _flatten(name: str, value: Any) -> str:
    if value is None:
        return ""
    if name == "comment" and value is False:
        return "off"  # YAML 1.1 reads an unquoted `off` as false
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value).strip()
    if isinstance(value, list) and all(isinstance(v, (int, float, str)) and not isinstance(v, bool) for v in value):
        return ("\n" if name == "gates" else ",").join(str(v).strip() for v in value)
    raise ValueError("expected a string, a number, a boolean or a list of them")


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


# -- parsing ------------------------------------------------------------------------


class _Collector:
    """Looks values up (input, then config, then default) and collects problems."""

    def __init__(self, env: Mapping[str, str], config: Mapping[str, str]) -> None:
        self.env, self.config, self.problems = env, config, []

    def raw(self, name: str) -> str:
        return input_value(self.env, name) or self.config.get(name, "") or DEFAULTS.get(name, "")

    def parse(self, name: str, parser: Any, fallback: Any) -> Any:
        text = self.raw(name)
        try:
            return parser(text)
        except ValueError as exc:
            self.problems.append(f"{name}: {exc}")
            return fallback


def parse_settings(
    env: Mapping[str, str], config: Mapping[str, str] | None = None, *, runner: Runner, config_file: str = ""
) -> Settings:
    """Build the settings from the inputs in ``env`` and an already-read config mapping."""
    values = _Collector(env, config or {})
    mode = values.parse("mode", _choice(MODES), "evaluate")
    k = values.parse("k", _cutoffs, (10,))
    settings = Settings(
        mode=mode,
        runner=runner,
        judgments=values.raw("judgments"),
        run=values.raw("run"),
        k=k,
        threshold=values.parse("threshold", _positive_int, 1),
        gates=tuple(_gates(values, k)),
        corpus=values.raw("corpus"),
        max_drift=values.parse("max-drift", _ratio, None),
        baseline=values.parse("baseline", _baseline, BaselineSpec("none")),
        baseline_path=values.parse("baseline-path", _relative_path, ""),
        # The summary and comment files are written beside the report: it must stay inside too.
        report=values.parse("report", _relative_path_like("retrieval-eval-report.json"), "retrieval-eval-report.json"),
        comment=values.parse("comment", _choice(COMMENT_CHOICES), "auto"),
        comment_id=values.parse("comment-id", _comment_id, "default"),
        fail_on_indeterminate=values.parse("fail-on-indeterminate", _boolean, True),
        api_url=_api_url(values, env),
        template_dir=values.raw("template-dir"),
        config_file=config_file,
        github_token=input_value(env, "github-token"),
    )
    if settings.max_drift is not None and not settings.corpus:
        values.problems.append("max-drift: drift is measured against a corpus; set corpus too")
    missing = [name for name in ("judgments", "run") if mode == "evaluate" and not values.raw(name)]
    if missing:
        values.problems.insert(
            0,
            f"missing required input{'s' if len(missing) > 1 else ''}: {', '.join(missing)} "
            f"(set {' and '.join(missing)} under `with:` or in {DEFAULT_CONFIG})",
        )
    if values.problems:
        raise SettingsError(values.problems)
    return settings


def _choice(options: tuple[str, ...]) -> Any:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(f"{text!r} is not one of {', '.join(options)}")
        return text

    return parse


def _cutoffs(text: str) -> tuple[int, ...]:
    from ..core.scoring import parse_cutoffs

    try:
        return parse_cutoffs(text)
    except ValueError:
        raise ValueError(f"{text!r} must be positive whole numbers separated by commas, e.g. 10 or 5,10,20") from None


def _positive_int(text: str) -> int:
    if not is_positive_decimal(text):
        raise ValueError(f"{text!r} must be a positive whole number (the lowest relevant grade), e.g. 1")
    return int(text)


def _ratio(text: str) -> float | None:
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{text!r} must be a ratio between 0 and 1 (e.g. 0.05), or empty to only warn")
    return value


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE or lowered in _FALSE:
        return lowered in _TRUE
    raise ValueError(f"{text!r} must be true or false")


def _comment_id(text: str) -> str:
    # It ends up inside an HTML comment: no spaces, no "-->".
    if not _COMMENT_ID.fullmatch(text) or "--" in text:
        raise ValueError(f"{text!r} must be 1-64 letters, digits, '.', '_' or single '-', e.g. nightly-eval")
    return text


def _url(text: str) -> str:
    if not re.match(r"https?://[^/\s]+", text):
        raise ValueError(f"{text!r} must be an http(s) URL such as https://api.github.com")
    return text.rstrip("/")


def _relative_path_like(example: str) -> Any:
    """A parser for a path that must stay inside the repository (no absolute path, no ``..``)."""

    def parse(text: str) -> str:
        path = PurePosixPath(text)
        if not text or path.is_absolute() or ".." in path.parts:
            raise ValueError(f"{text!r} must be a path inside the repository, e.g. {example}")
        return str(path)

    return parse


_relative_path = _relative_path_like(".retrieval-eval/report.json")


def _baseline(text: str) -> BaselineSpec:
    if text in ("auto", "none"):
        return BaselineSpec(text)
    if text.startswith("git:"):
        ref, sep, path = text[4:].partition(":")
        if not sep or not ref or not path:
            raise ValueError(f"{text!r}: write git:<ref>:<path>, e.g. git:origin/main:.retrieval-eval/report.json")
        return BaselineSpec("git", path=_relative_path(path), ref=ref)
    if text.startswith("artifact:"):
        name = text[len("artifact:") :].strip()
        if not name:
            raise ValueError(f"{text!r}: write artifact:<name>, e.g. artifact:retrieval-eval-report")
        return BaselineSpec("artifact", name=name)
    return BaselineSpec("path", path=text)


def _gates(values: _Collector, ks: tuple[int, ...]) -> list[str]:
    """The gate expressions, each checked now so a typo is reported with the other inputs."""
    from ..core.gates import parse_gate, split_gate_list

    gates = split_gate_list(values.raw("gates"))
    for text in gates:
        try:
            parse_gate(text, ks=ks)
        except UsageError as exc:
            # The engine's hints speak CLI ("-k 5,10"); here the input is "k".
            hint = (exc.hint or "").replace("-k ", "k: ")
            values.problems.append(f"gates: {exc.message}" + (f" ({hint})" if hint else ""))
    return gates


def _api_url(values: _Collector, env: Mapping[str, str]) -> str:
    """The API root: the input, else what the runner says, else github.com's."""
    text = input_value(env, "api-url") or env.get("GITHUB_API_URL", "") or DEFAULT_API_URL
    try:
        return _url(text)
    except ValueError as exc:
        values.problems.append(f"api-url: {exc}")
        return DEFAULT_API_URL
