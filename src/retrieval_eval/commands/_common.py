"""What every subcommand shares: error reporting, output, colour, time stamps."""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

import click
from click.core import ParameterSource

from ..core.errors import RetrievalEvalError, UsageError
from ..core.exits import EXIT_BAD_ANSWER, EXIT_NO_ANSWER, EXIT_OK
from ..core.numbers import parse_decimal, parse_whole
from ..formats.jsonout import indented
from ..pipeline.settings import BY_NAME, CONFIG_KEYS, DEFAULT_CONFIG, Runner, Settings, SettingsError, Values
from ..pipeline.settings import parse_settings as parse_values
from ..pipeline.timestamps import generated_at as stamp
from ..render.terminal import clean

__all__ = ["EXIT_BAD_ANSWER", "EXIT_NO_ANSWER", "EXIT_OK"]

F = TypeVar("F", bound=Callable[..., Any])


class PlainNumber(click.ParamType):  # type: ignore[type-arg]  # generic only in recent click
    """An option's number, read by the one number grammar (core/numbers.py): click's own
    int and float also read ``6_0``, ``1e3`` and other scripts' digits.

    ``minimum`` and ``maximum`` bound it, each end closed unless ``min_open``/``max_open``."""

    def __init__(
        self,
        whole: bool,
        minimum: float | None = None,
        maximum: float | None = None,
        *,
        min_open: bool = False,
        max_open: bool = False,
    ) -> None:
        self.whole = whole
        self.minimum = minimum
        self.maximum = maximum
        self.min_open = min_open
        self.max_open = max_open
        self.name = "integer" if whole else "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value  # a default, already a number
        try:
            number = parse_whole(value) if self.whole else parse_decimal(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if not self._within(number):
            self.fail(f"{value!r} is not in {self.range_text()}", param, ctx)
        return number

    def _within(self, number: float) -> bool:
        low, high = self.minimum, self.maximum
        above = low is None or (number > low if self.min_open else number >= low)
        below = high is None or (number < high if self.max_open else number <= high)
        return above and below

    def range_text(self) -> str:
        """The range as a reader writes it: ``0.5<=x<1``, ``x>=2``."""
        low = "" if self.minimum is None else f"{self.minimum:g}{'<' if self.min_open else '<='}"
        high = "" if self.maximum is None else f"{'<' if self.max_open else '<='}{self.maximum:g}"
        if not high:  # one end: written as click writes it, x>=2
            low = "" if self.minimum is None else f"x{'>' if self.min_open else '>='}{self.minimum:g}"
            return f"the range {low}"
        return f"the range {low}x{high}"

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str | None:
        if self.minimum is None and self.maximum is None:
            return None
        return f"{self.name.upper()} {self.range_text().removeprefix('the range ')}"


WHOLE = PlainNumber(whole=True)
DECIMAL = PlainNumber(whole=False)


def fail(message: str, hint: str | None = None) -> None:
    """Print an ``error`` line (and a ``try`` line) on stderr and exit 2.

    Messages quote file contents and arguments: their control characters are shown, not obeyed.
    """

    click.echo(f"error  {clean(message)}", err=True)
    if hint:
        click.echo(f"        try  {clean(hint)}", err=True)
    sys.exit(EXIT_NO_ANSWER)


def say(text: str, *, err: bool = False, nl: bool = True) -> None:
    """Print a line (or lines) of plain text: every line through the one cleaner, so a path, an
    id or a value read from a file shows its control characters and bidi marks, never obeys them."""
    click.echo("\n".join(clean(line) for line in text.split("\n")), err=err, nl=nl)


def handles_errors(function: F) -> F:
    """Turn the user's mistakes into a two-line message and exit code 2, never a traceback."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            _refuse_empty_options()
            return function(*args, **kwargs)
        except RetrievalEvalError as exc:
            fail(exc.message, exc.hint)
        except UnicodeEncodeError as exc:
            # Files are decoded strictly, so only an argument (decoded with surrogate
            # escapes) can hold text that is not UTF-8 when we hash or write it.
            fragment = exc.object[max(exc.start - 20, 0) : exc.end + 20]
            fail(f"an option's value is not valid UTF-8 (near {fragment!r})", "give names, tags and texts as UTF-8")
        except BrokenPipeError:
            # The reader went away (``| head``): not an error of ours or theirs.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_OK)

    return wrapper  # type: ignore[return-value]


def _refuse_empty_options() -> None:
    """Refuse an option given an empty value on the command line, rather than read it as left out:
    ``-g "$GATES"`` with the variable unset scored with no gate and said PASS, ``--corpus ""``
    checked no drift, ``compare -j ""`` compared without rescoring. A default is never refused."""
    context = click.get_current_context(silent=True)
    if context is None:
        return
    empty = [
        "/".join(param.opts)
        for param in context.command.params
        if isinstance(param, click.Option)
        and param.name is not None
        and context.get_parameter_source(param.name) is ParameterSource.COMMANDLINE
        and _given_empty(context.params.get(param.name))
    ]
    if empty:
        raise UsageError(
            "; ".join(f"{flag}: given an empty value" for flag in empty),
            hint="give each option a value (an unset variable in a script gives an empty one), or leave it out",
        )


def use_colour(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


colour_option = click.option(
    "--color",
    "color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour the terminal output; NO_COLOR in the environment means never.",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def now_option(function: F) -> F:
    return click.option(
        "--now",
        metavar="ISO-8601",
        help="Time stamp for generated_at (default: SOURCE_DATE_EPOCH if set, else the clock).",
    )(function)


def generated_at(now: str | None) -> str:
    """The report's time stamp: --now, else SOURCE_DATE_EPOCH, else the clock, in UTC."""

    return stamp(now=now, source_date_epoch=os.environ.get("SOURCE_DATE_EPOCH"))


# Characters JSON may carry raw that a terminal obeys (C1, DEL) or that reorder a line (bidi marks).
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def print_json(data: Any) -> None:
    """JSON on stdout; the characters a terminal would obey are written as \\u escapes (the same JSON)."""
    text = indented(data)  # json.dumps(data, indent=2, ensure_ascii=False), faster
    click.echo(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


# -- the shared settings as options ---------------------------------------------------------

_FLAGS = frozenset({"collapse-to-documents"})  # given or not
_SWITCHES = frozenset({"fail-on-indeterminate", "require-detectable", "bounds"})  # --x / --no-x
_REPEATED = frozenset({"gates", "judged"})  # repeat the option, or separate with commas


def _option_for(name: str) -> Callable[[F], F]:
    setting = BY_NAME[name]
    flags = [part.strip() for part in setting.flag.split(",")]
    key = name.replace("-", "_")
    text = setting.help + (f" [default: {setting.default}]" if setting.default and name not in _SWITCHES else "")
    if name in _FLAGS:
        return click.option(*flags, key, is_flag=True, default=None, help=text)
    if name in _SWITCHES:
        return click.option(setting.flag, key, default=None, help=text)
    return click.option(*flags, key, multiple=name in _REPEATED, metavar=name.upper(), help=text)


def settings_options(names: tuple[str, ...]) -> Callable[[F], F]:
    """The click options of the shared settings ``names``, from the one table."""

    def decorate(function: F) -> F:
        for name in reversed(names):
            function = _option_for(name)(function)
        return function

    return decorate


# What click hands a command for the settings' options: a string, a flag, a number, a repeated option's strings.
OptionValue: TypeAlias = str | int | float | bool | tuple[str, ...] | None


def _as_text(name: str, value: OptionValue) -> str | None:
    if value is None or value == ():
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "\n".join(value)
    return str(value)


def _cli_label(name: str) -> str:
    if name == "gates":
        return ""  # a gate's message names the gate already
    flag = BY_NAME[name].flag
    return flag.split(",")[-1].split("/")[0].strip() if flag else name


def settings_from_options(options: Mapping[str, OptionValue]) -> Settings:
    """Options given on the command line, over the config file, over the defaults.

    An option given an empty value never reaches here (:func:`handles_errors` refuses it)."""
    given = {}
    for key, value in options.items():
        text = _as_text(key, value)
        if text is not None and text.strip():
            given[key.replace("_", "-")] = text.strip()
    config, shown = _config(given.pop("config", ""))
    values = Values(given, config, label=_cli_label, confined=False, noun="option")
    return parse_values(values, runner=Runner(workspace=Path.cwd()), config_file=shown)


def _given_empty(value: OptionValue) -> bool:
    """A string option given as nothing but white space; for a repeated one, any of its values."""
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, tuple):
        return any(isinstance(item, str) and not item.replace(",", "").strip() for item in value)
    return False


def _config(named: str) -> tuple[dict[str, str], str]:
    """The config file: the one named, else ``.retrieval-eval.yml`` here when present; ``none``: no file."""
    if named == "none":
        return {}, ""
    path = Path(named or DEFAULT_CONFIG)
    if not named and not path.is_file():
        return {}, ""
    # PyYAML is loaded only when there is a file to read: about 9 ms of every command's start-up.
    from ..formats import config as config_file

    try:
        return config_file.read_config(path, source=str(path), keys=CONFIG_KEYS, not_here={}), str(path)
    except config_file.ConfigError as exc:
        raise SettingsError(exc.problems, hint=f"fix the keys named in {path}") from None
