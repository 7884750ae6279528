"""A bounded fuzz over the template loader: seeded random template names (made of the pieces
that reach out: ``..``, ``.git``, absolute paths, links, NUL) and randomly mutated template
sources. Whatever the draw, a rendering holds nothing from outside the template folder or from a
``.git`` folder, and a refusal is our InputError or UsageError, never another exception."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from from_json import bare_view
from retrieval_eval.core.errors import RetrievalEvalError
from retrieval_eval.render import limits
from retrieval_eval.render.sandbox import template_drawer

ROUNDS = 300
SECRET = "SECRET-never-rendered"
PIECES = [
    ".",
    "..",
    ".git",
    ".GIT",
    "config",
    "outside.j2",
    "in.j2",
    "link.j2",
    "dirlink",
    "sub",
    "",
    "/",
    "\0",
    "x.j2",
]
STATEMENTS = [
    '{{% include "{}" %}}',
    '{{% import "{}" as m %}}',
    '{{% from "{}" import x %}}',
    '{{% extends "{}" %}}',
    '{{% include ["{}", "in.j2"] %}}',
]
BUILTIN = (Path(__file__).resolve().parents[1] / "src" / "retrieval_eval" / "templates" / "comment.md.j2").read_text()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A template folder with a .git inside it, a secret beside it, and links that lead to both."""
    root = tmp_path_factory.mktemp("fuzz")
    templates = root / "t"
    (templates / ".git").mkdir(parents=True)
    (templates / ".git" / "config").write_text(SECRET)
    (templates / ".git" / "x.j2").write_text(SECRET)
    (templates / "sub").mkdir()
    (templates / "in.j2").write_text("inside")
    (templates / "sub" / "in.j2").write_text("inside too")
    (root / "outside.j2").write_text(SECRET)
    (templates / "link.j2").symlink_to(root / "outside.j2")
    (templates / "dirlink").symlink_to(templates / ".git")
    return templates


def _name(rng: random.Random) -> str:
    return ("/" if rng.random() < 0.1 else "") + "/".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4)))


def _mutated(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(chars))
        chars[at : at + rng.randint(0, 3)] = rng.choice(["{%", "%}", "{{", "}}", "(", ")", "|", '"', "\n", "x"])
    return "".join(chars)


def _draw(folder: Path, source: str) -> str | None:
    (folder / "comment.md.j2").write_text(source, encoding="utf-8")
    try:
        return template_drawer("comment", str(folder))(bare_view("<!-- m -->"))
    except RetrievalEvalError:
        return None


def test_template_names_never_reach_out(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_SECONDS", 0.5)
    rng = random.Random(11)
    for _ in range(ROUNDS):
        name = _name(rng)
        source = "{{ marker }}" + rng.choice(STATEMENTS).format(json.dumps(name)[1:-1]) + "{% block x %}{% endblock %}"
        rendered = _draw(folder, source)
        assert rendered is None or SECRET not in rendered, name


def test_mutated_templates_are_rendered_or_refused(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_SECONDS", 0.5)
    rng = random.Random(12)
    for _ in range(ROUNDS // 3):
        _draw(folder, _mutated(rng, BUILTIN))  # no exception but ours; the view lacks names: refusals


def test_the_fixture_does_hold_the_secret(folder: Path) -> None:
    """The fuzz above could pass by never finding the secret: it is there, and a plain read finds it."""
    assert SECRET in (folder / ".git" / "config").read_text()
    assert SECRET in Path(os.path.realpath(folder / "link.j2")).read_text()
