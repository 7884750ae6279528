"""Rendering a report (and its comparison with the base) as Markdown for GitHub, or as text.

One function, :func:`kinds.render`, for every kind: ``summary`` (the job summary,
full detail), ``comment`` (the compact pull-request comment) and ``text``
(the terminal rendering, no Markdown).

Markdown is drawn in three steps, each in its own module:

- ``view``: the view a template sees, built from the report and comparison;
  every user string escaped (``escape``), every number formatted
  (``numbers``), table rows in ``tables``;
- ``sandbox``: the Jinja templates (built-in, or a user's over them) that
  draw it, in Jinja's sandbox;
- ``budget``: GitHub's size limits, met by leaving out whole sections in a
  fixed order and saying so.

``marker`` is the hidden line by which the action finds its own comment;
``text`` is the ``text`` kind; ``terminal`` is what ``score`` prints.

This package's own names are the light ones (escaping, the marker, GitHub's limits): ``score``
imports ``terminal`` from here, and a Python package runs its ``__init__`` first, so whatever it
imported, ``score`` paid for at start-up though it never draws Markdown. ``kinds`` holds
``render`` and ``render_history`` with the view, the budget and the history pages they need;
``text`` holds ``comparison_text``; ``view`` holds ``BaselineNote``.

Jinja is imported by ``sandbox`` only, and ``sandbox`` only when Markdown is
drawn: the score path never pays for it.
"""

from __future__ import annotations

from .budget import COMMENT_LIMIT, SUMMARY_LIMIT
from .escape import escape_markdown
from .marker import comment_marker

__all__ = ["COMMENT_LIMIT", "SUMMARY_LIMIT", "comment_marker", "escape_markdown"]
