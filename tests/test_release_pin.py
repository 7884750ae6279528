"""The release commit's action.yml: scripts/pin_image.py points runs.image at the pushed
image by digest, changing that line and nothing else; the release workflow calls it
after the push; main keeps building from the Dockerfile."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "pin_image.py"
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"
DIGEST = "sha256:" + "0123456789abcdef" * 4
REF = f"ghcr.io/aton-of-data/retrieval-eval@{DIGEST}"


def pin(action: Path, reference: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), reference, "--action", str(action)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def action(tmp_path: Path) -> Path:
    copy = tmp_path / "action.yml"
    copy.write_bytes((ROOT / "action.yml").read_bytes())
    return copy


def test_main_builds_the_image_from_the_dockerfile() -> None:
    # The digest lives on release commits only: `uses: ./` in CI must test the code.
    assert yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["runs"]["image"] == "Dockerfile"


def test_only_the_image_line_changes(action: Path) -> None:
    before = action.read_bytes()
    result = pin(action, REF)
    assert result.returncode == 0, result.stderr
    after = action.read_bytes()
    old_lines, new_lines = (
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
    )
    assert len(old_lines) == len(new_lines)
    changed = [(old, new) for old, new in zip(old_lines, new_lines, strict=True) if old != new]
    assert changed == [(b"  image: Dockerfile\n", f"  image: docker://{REF}\n".encode())]
    old_doc, new_doc = yaml.safe_load(before), yaml.safe_load(after)
    assert new_doc["runs"] == {
        "using": "docker",
        "image": f"docker://{REF}",
        "args": ["action"],
    }
    assert {k: v for k, v in new_doc.items() if k != "runs"} == {k: v for k, v in old_doc.items() if k != "runs"}


def test_pinning_twice_changes_nothing(action: Path) -> None:
    assert pin(action, REF).returncode == 0
    once = action.read_bytes()
    again = pin(action, REF)
    assert again.returncode == 0 and action.read_bytes() == once


def test_a_new_digest_replaces_the_old_one(action: Path) -> None:
    other = REF.replace("0123", "4567")
    assert pin(action, REF).returncode == 0
    assert pin(action, other).returncode == 0
    fresh = action.parent / "fresh.yml"
    fresh.write_bytes((ROOT / "action.yml").read_bytes())
    assert pin(fresh, other).returncode == 0
    assert action.read_bytes() == fresh.read_bytes()


@pytest.mark.parametrize(
    "reference",
    [
        "ghcr.io/aton-of-data/retrieval-eval:1.2.3",  # a tag can be moved
        f"ghcr.io/aton-of-data/retrieval-eval:1.2.3@{DIGEST}",  # a tag beside the digest reads as if it counted
        f"docker://{REF}",  # the script writes the scheme itself
        REF[:-1],  # 63 hex digits
        REF + "0",  # 65
        REF.replace("abcdef", "ABCDEF"),  # digests are lower-case hex
        "ghcr.io/aton-of-data/retrieval-eval@sha512:" + "0" * 128,
        f"GHCR.io/Aton/Retrieval-Eval@{DIGEST}",  # repository names are lower case
        f"@{DIGEST}",
        f"{REF} ",
        f"{REF}\nimage: evil",
    ],
)
def test_a_reference_not_pinned_by_digest_is_refused(action: Path, reference: str) -> None:
    before = action.read_bytes()
    result = pin(action, reference)
    assert result.returncode == 2
    assert result.stderr == (
        f"pin_image: {reference!r} is not an image reference pinned by digest: expected "
        "name@sha256:<64 hex digits>, e.g. ghcr.io/owner/retrieval-eval@sha256:" + "0" * 64 + "\n"
    )
    assert "Traceback" not in result.stderr
    assert action.read_bytes() == before


@pytest.mark.parametrize(
    "reference",
    [
        f"alpine@{DIGEST}",
        f"localhost:5000/team/retrieval-eval@{DIGEST}",
        f"registry.example.com/a_b/c--d.e@{DIGEST}",
    ],
)
def test_references_of_any_registry_are_accepted(action: Path, reference: str) -> None:
    assert pin(action, reference).returncode == 0
    assert yaml.safe_load(action.read_text(encoding="utf-8"))["runs"]["image"] == f"docker://{reference}"


def test_line_endings_quotes_and_comments_are_kept(tmp_path: Path) -> None:
    action = tmp_path / "action.yml"
    action.write_bytes(
        b"name: x\r\nruns:\r\n  # built on every run\r\n  using: docker\r\n"
        b"  image: 'Dockerfile'   # see docs\r\n  args: [action]\r\n"
    )
    assert pin(action, REF).returncode == 0
    assert action.read_bytes() == (
        b"name: x\r\nruns:\r\n  # built on every run\r\n  using: docker\r\n"
        b"  image: docker://" + REF.encode() + b"   # see docs\r\n  args: [action]\r\n"
    )


def test_only_the_image_of_the_runs_block_is_touched(tmp_path: Path) -> None:
    action = tmp_path / "action.yml"
    text = (
        "inputs:\n  image:\n    description: not this one\n"
        "runs:\n  using: docker\n  env:\n    image: nor this\n  image: Dockerfile\n"
    )
    action.write_text(text, encoding="utf-8")
    assert pin(action, REF).returncode == 0
    assert action.read_text(encoding="utf-8") == text.replace("image: Dockerfile", f"image: docker://{REF}")


@pytest.mark.parametrize(
    "text, problem",
    [
        ("name: x\n", "no top-level 'runs:' block"),
        (
            "runs:\n  using: composite\n  steps: []\nimage: Dockerfile\n",
            "the 'runs:' block has no 'image:' line",
        ),
    ],
)
def test_an_action_without_a_runs_image_is_refused(tmp_path: Path, text: str, problem: str) -> None:
    action = tmp_path / "action.yml"
    action.write_text(text, encoding="utf-8")
    result = pin(action, REF)
    assert result.returncode == 2
    assert result.stderr == f"pin_image: {action}: {problem}\n"
    assert action.read_text(encoding="utf-8") == text


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    result = pin(tmp_path / "nope.yml", REF)
    assert result.returncode == 2
    assert result.stderr == f"pin_image: {tmp_path / 'nope.yml'}: cannot be read (No such file or directory)\n"


# -- the release workflow ------------------------------------------------------------


def release_steps() -> list[dict[str, Any]]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    steps: list[dict[str, Any]] = workflow["jobs"]["image"]["steps"]
    return steps


def step_index(steps: list[dict[str, Any]], needle: str) -> int:
    found = [i for i, step in enumerate(steps) if needle in step.get("run", "")]
    assert len(found) == 1, f"{needle!r} should be run by exactly one step, found {len(found)}"
    return found[0]


def test_the_workflow_pins_the_pushed_digest_then_tags_the_release_commit() -> None:
    steps = release_steps()
    push, digest, pin_step = (
        step_index(steps, s) for s in ("docker push", "imagetools inspect", "scripts/pin_image.py")
    )
    assert push < digest < pin_step
    assert steps[digest]["id"] == "digest"
    assert steps[pin_step]["env"]["REF"] == "${{ steps.digest.outputs.ref }}"
    script = steps[pin_step]["run"]
    order = [
        script.index(s)
        for s in (
            'scripts/pin_image.py "$REF"',
            "git commit",
            'git tag -f "$GITHUB_REF_NAME"',
            'git tag -f "$MAJOR"',
            "git push -f origin",
        )
    ]
    assert order == sorted(order)
    # Nothing goes to a branch: the release commit is reachable from its tags alone.
    assert "refs/heads" not in script and "git push origin HEAD" not in script
