"""A template's time is bounded: every kind of loop looks at the clock, so loops that print nothing
(and so allocate nothing) still end, refused, naming the template. The bound is made small here
so each case takes a fraction of a second; the hostile table runs the real one."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from from_json import bare_view
from retrieval_eval.core.errors import InputError
from retrieval_eval.render import limits
from retrieval_eval.render.sandbox import template_drawer

FOREVER = "range(100000)"
LOOPS = {
    "nested": f"{{% for i in {FOREVER} %}}{{% for j in {FOREVER} %}}{{% endfor %}}{{% endfor %}}",
    "loop-variable": f"{{% for i in {FOREVER} %}}{{% for j in {FOREVER} %}}"
    "{{ '' if loop.last }}{% endfor %}{% endfor %}",
    "filtered": f"{{% for i in {FOREVER} if i >= 0 %}}{{% for j in {FOREVER} if j < 0 %}}{{% endfor %}}{{% endfor %}}",
    "else-branch": f"{{% for i in {FOREVER} %}}{{% for j in [] %}}{{% else %}}{{% endfor %}}{{% endfor %}}",
    "strings": "{% set s = 'x' * 3000 %}"
    "{% for a in s %}{% for b in s %}{% for c in s %}{% endfor %}{% endfor %}{% endfor %}",
    "three-deep": "{% for k in range(2000) %}" * 3 + "{% endfor %}" * 3,
    "recursive": (
        "{% for i in [[[1] * 3000] * 3000] recursive %}{% if i is iterable %}{{ loop(i) }}{% endif %}{% endfor %}"
    ),
    "macro-in-loop": "{% macro m() %}{% for j in range(3000) %}{% endfor %}{% endmacro %}"
    f"{{% for i in {FOREVER} %}}{{{{ m() }}}}{{% endfor %}}",
}


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_silent_loops_end_at_the_bound(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_SECONDS", 0.2)
    (tmp_path / "comment.md.j2").write_text("{{ marker }}\n" + LOOPS[name] + "\n")
    draw = template_drawer("comment", str(tmp_path))
    started = time.monotonic()
    with pytest.raises(InputError, match="time-bound") as refused:
        draw(bare_view("<!-- m -->"))
    assert time.monotonic() - started < 5
    assert "comment.md.j2" in str(refused.value)


def test_a_quick_template_is_not_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_SECONDS", 0.5)
    (tmp_path / "comment.md.j2").write_text("{{ marker }}{% for i in range(1000) %}{% endfor %}done\n")
    draw = template_drawer("comment", str(tmp_path))
    assert draw(bare_view("m")).endswith("done\n")
    assert draw(bare_view("m")).endswith("done\n")  # a second drawing within the same bound


def test_the_bound_is_five_seconds_unless_a_number_of_seconds_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    # RETRIEVAL_EVAL_TEMPLATE_SECONDS sets another bound; anything that is not a positive number
    # of seconds up to an hour keeps the default, never an unbounded run.
    for setting, bound in (("", 5.0), ("1", 1.0), ("0.25", 0.25), ("3600", 3600.0), ("0", 5.0), ("-1", 5.0),
                           ("3601", 5.0), ("inf", 5.0), ("nan", 5.0), ("ten", 5.0)):  # fmt: skip
        monkeypatch.setenv(limits.SECONDS_ENV, setting)
        assert limits.max_seconds() == bound, setting
