"""The bounded sandbox reaches into Jinja's code generator; this is the check that it still does.

render/limits.py replaces how Jinja compiles ``~`` (inline joins) and captured output
(``{% set %}...{% endset %}``, macros). Those are internal to Jinja, so pyproject.toml pins the
minor version; if a new version compiles them another way, the bound silently stops applying.
These tests look at the generated Python and at the refusal, so an upgrade fails here first.
"""

from __future__ import annotations

import jinja2
import pytest

from retrieval_eval.render.limits import MAX_VALUE, BoundedEnvironment, TemplateLimit

TILDE = '{% set ns = namespace(s="x") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}'
PIECE = "x" * 1024
CAPTURED = "{% set big %}{% for i in range(N) %}" + PIECE + "{% endfor %}{% endset %}{{ big | length }}"


def test_the_pinned_jinja_is_the_minor_version_tested() -> None:
    assert jinja2.__version__.startswith("3.1."), jinja2.__version__


def test_tilde_and_captured_blocks_compile_through_our_hooks() -> None:
    env = BoundedEnvironment()
    assert "environment.join_values((" in env.compile("{{ a ~ b }}", raw=True)
    assert "environment.new_buffer()" in env.compile("{% set x %}a{% endset %}{{ x }}", raw=True)


def test_a_doubling_tilde_is_refused_at_the_bound() -> None:
    with pytest.raises(TemplateLimit):
        BoundedEnvironment().from_string(TILDE).render()


def test_a_captured_block_is_refused_past_the_bound_and_kept_below_it() -> None:
    env = BoundedEnvironment()
    below = MAX_VALUE // len(PIECE)
    assert env.from_string(CAPTURED.replace("N", str(below))).render() == str(below * len(PIECE))
    with pytest.raises(TemplateLimit):
        env.from_string(CAPTURED.replace("N", str(below + 1))).render()
