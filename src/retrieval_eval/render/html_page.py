"""The HTML page's Jinja side: an autoescaping sandbox of its own, apart from the Markdown one.

A module apart so that :mod:`.html`, which ``render`` and the action import for every kind,
loads Jinja (about 14 ms, the least of seven ``python -X importtime`` runs) only when a page is drawn.
"""

from __future__ import annotations

from dataclasses import fields, replace
from functools import cache

from jinja2 import PackageLoader, StrictUndefined, Template, select_autoescape
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup

from .html_view import PageView


def draw_page(view: PageView) -> str:
    """The page drawn from its view. The style sheet and the script are ours, shipped with the
    package and hashed in the CSP: the only strings the page takes as markup."""
    marked = replace(view, style=Markup(view.style), script=Markup(view.script))
    return str(_template().render(**{field.name: getattr(marked, field.name) for field in fields(marked)}))


@cache
def _template() -> Template:
    """The page template, in an autoescaping environment of its own: every string is escaped as HTML."""
    env = SandboxedEnvironment(
        loader=PackageLoader("retrieval_eval", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("report.html.j2")
