"""What every subcommand shares: error reporting, output, colour, time stamps."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..core.errors import RetrievalEvalError, UsageError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0
EXIT_BAD_ANSWER = 1
EXIT_NO_ANSWER = 2


def fail(message: str, hint: str | None = None) -> None:
    """Print an ``error`` line (and a ``try`` line) on stderr and exit 2.

    Messages quote file contents and arguments: their control characters are shown, not obeyed.
    """
    from ..render.terminal import clean

    click.echo(f"error  {clean(message)}", err=True)
    if hint:
        click.echo(f"        try  {clean(hint)}", err=True)
    sys.exit(EXIT_NO_ANSWER)


def handles_errors(function: F) -> F:
    """Turn the user's mistakes into a two-line message and exit code 2, never a traceback."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
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
    from ..pipeline.timestamps import generated_at as stamp

    return stamp(now=now, source_date_epoch=os.environ.get("SOURCE_DATE_EPOCH"))


# Characters JSON may carry raw that a terminal obeys (C1, DEL) or that reorder a line (bidi marks).
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def print_json(data: Any) -> None:
    """JSON on stdout; the characters a terminal would obey are written as \\u escapes (the same JSON)."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    click.echo(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def parse_k_list(text: str) -> tuple[int, ...]:
    from ..core.scoring import parse_cutoffs

    try:
        return parse_cutoffs(text)
    except ValueError as exc:
        raise UsageError(f"-k {text!r}: {exc}", hint="-k 5,10,20") from None
