"""User templates are read only from inside their directory, once every link is followed.

A pull request controls the template directory; a link in it to ``/proc/self/environ`` or to
any file outside would put that file (the job's token) into the posted comment.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from from_json import render
from helpers import run_cli
from hostile.cases_render import REPORT
from retrieval_eval.core.errors import InputError
from retrieval_eval.render.sandbox import inside

SECRET = "INPUT_GITHUB-TOKEN=ghs_confinedTemplateSecret"
EXTENDS = '{% extends "builtin/comment.md.j2" %}\n'


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A template directory, and a secret file beside it (outside it)."""
    templates = tmp_path / "templates"
    templates.mkdir()
    secret = tmp_path / "environ"
    secret.write_text(SECRET, encoding="utf-8")
    return templates, secret


def _render(templates: Path) -> str:
    return render("comment", report=json.loads(REPORT), template_dir=str(templates))


def test_a_template_that_is_a_link_out_of_the_directory_is_refused(layout: tuple[Path, Path]) -> None:
    templates, secret = layout
    (templates / "comment.md.j2").symlink_to(secret)
    with pytest.raises(InputError, match="comment.md.j2 leads outside the template directory"):
        _render(templates)


@pytest.mark.parametrize(
    "include",
    [
        '{% include "leak.txt" %}',  # a link inside the directory pointing out
        '{% include "sub/leak.txt" %}',  # a linked folder
        '{% include "../environ" %}',
        '{% include "/../environ" %}',
        '{% import "leak.txt" as x %}',
        '{% from "leak.txt" import y %}',
    ],
)
def test_includes_and_imports_cannot_reach_outside(layout: tuple[Path, Path], include: str) -> None:
    templates, secret = layout
    (templates / "leak.txt").symlink_to(secret)
    (templates / "sub").symlink_to(secret.parent)
    (templates / "comment.md.j2").write_text(
        EXTENDS + "{% block footer %}" + include + "{% endblock %}\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as refused:
        _render(templates)
    assert "ghs_confined" not in refused.value.message


def test_proc_self_environ_is_never_read(layout: tuple[Path, Path]) -> None:
    templates, _ = layout
    (templates / "comment.md.j2").symlink_to("/proc/self/environ")
    with pytest.raises(InputError, match="outside the template directory"):
        _render(templates)


def test_a_link_that_stays_inside_is_followed(layout: tuple[Path, Path]) -> None:
    templates, _ = layout
    (templates / "real.md.j2").write_text(EXTENDS + "{% block footer %}kept inside{% endblock %}\n", encoding="utf-8")
    (templates / "comment.md.j2").symlink_to("real.md.j2")
    assert _render(templates).rstrip().endswith("kept inside")


def test_a_template_directory_that_is_itself_a_link_is_fine(layout: tuple[Path, Path], tmp_path: Path) -> None:
    templates, _ = layout
    (templates / "comment.md.j2").write_text(EXTENDS + "{% block footer %}via link{% endblock %}\n")
    (tmp_path / "alias").symlink_to(templates)
    assert _render(tmp_path / "alias").rstrip().endswith("via link")


def test_special_files_are_refused_before_they_are_read(layout: tuple[Path, Path]) -> None:
    templates, _ = layout
    os.mkfifo(templates / "comment.md.j2")  # reading it would block forever
    with pytest.raises(InputError, match="not a regular file"):
        _render(templates)


def test_the_cli_refuses_a_linked_template_with_exit_2(layout: tuple[Path, Path], tmp_path: Path) -> None:
    templates, secret = layout
    (templates / "comment.md.j2").symlink_to(secret)
    (tmp_path / "report.json").write_bytes(REPORT)
    out = tmp_path / "comment.md"
    result = run_cli(
        "render", "--report", str(tmp_path / "report.json"), "--format", "comment",
        "--template-dir", str(templates), "--out", str(out),
    )  # fmt: skip
    assert result.code == 2 and "Traceback" not in result.stderr
    assert "template comment.md.j2" in result.stderr and "ghs_confined" not in result.stdout + result.stderr
    assert not out.exists()


def test_inside_follows_links_on_both_sides(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "out").symlink_to(tmp_path)
    (tmp_path / "alias").symlink_to(root)
    assert inside(root / "a", root) and inside(root, root)
    assert inside(tmp_path / "alias" / "a", root) and inside(root / "a", tmp_path / "alias")
    assert not inside(root / "out", root) and not inside(root / "a" / ".." / "..", root)
    assert not inside(tmp_path / "rootless", root)  # a shared prefix is not a parent
