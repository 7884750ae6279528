"""The Jinja side: built-in templates, user templates over them, all rendered in a sandbox.

Templates ship in ``retrieval_eval/templates``. A directory of user
templates goes in front of them; a user template extends ``builtin/<name>``
and overrides its named blocks. Rendering runs in Jinja's sandbox with
``StrictUndefined``, so a misspelt name or an unsafe reach fails loudly.

This is the only module that imports Jinja, and only ``render`` imports it,
when Markdown is drawn: the score path never pays for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

from jinja2 import (
    ChoiceLoader,
    FileSystemLoader,
    PackageLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateError,
    TemplateSyntaxError,
)
from jinja2.sandbox import SandboxedEnvironment

from ..core.errors import InputError, UsageError

_BLANK_LINES = re.compile(r"\n{3,}")

Drawer = Callable[[dict[str, Any]], str]  # a view in, Markdown out


def environment(template_dir: str | None) -> SandboxedEnvironment:
    """A sandboxed Jinja environment: user templates first, then the built-ins.

    Built-ins are also reachable as ``builtin/<name>``, which is what a user
    template extends to override blocks of the built-in one.
    """
    builtin = PackageLoader("retrieval_eval", "templates")
    loaders: list[Any] = []
    if template_dir is not None:
        if not os.path.isdir(template_dir):
            raise UsageError(
                f"--template-dir {template_dir}: no such directory",
                hint="point it at a directory holding comment.md.j2 and/or summary.md.j2",
            )
        loaders.append(FileSystemLoader(template_dir))
    loaders += [PrefixLoader({"builtin": builtin}), builtin]
    return SandboxedEnvironment(
        loader=ChoiceLoader(loaders),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def template_drawer(kind: str, template_dir: str | None) -> Drawer:
    """The template for ``kind``, loaded once, as a function that draws a view."""
    try:
        template = environment(template_dir).get_template(f"{kind}.md.j2")
    except TemplateError as exc:
        raise _refusal(exc, kind, template_dir) from None

    def draw(view: dict[str, Any]) -> str:
        try:
            text = template.render(**view)
        except TemplateError as exc:
            raise _refusal(exc, kind, template_dir) from None
        # Blank lines mean the same in Markdown whether one or three; keep one, so
        # templates can be written for reading rather than for exact whitespace.
        return _BLANK_LINES.sub("\n\n", text)

    return draw


def _refusal(exc: TemplateError, kind: str, template_dir: str | None) -> InputError:
    line = exc.lineno if isinstance(exc, TemplateSyntaxError) else None
    # The template's name under the loader, not its path: messages stay the same wherever it lives.
    where = getattr(exc, "name", None) or f"{kind}.md.j2"
    return InputError(f"template {where}", line, str(exc.message or exc), path=template_dir)
