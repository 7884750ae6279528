"""Point action.yml at a published image by digest, for a release commit.

    python scripts/pin_image.py ghcr.io/owner/retrieval-eval@sha256:<64 hex> [--action action.yml]

Rewrites the ``image:`` line of the ``runs:`` block to ``docker://<reference>`` and
leaves every other byte of the file as it was, so the release commit differs from
the tagged one by that line alone. Running it again with the same reference changes
nothing. Only a reference pinned by digest is accepted: a tag can be moved on the
registry, a digest cannot, and the point of the release commit is that its tag
always runs the same image.

Exit codes: 0 rewritten (or already pinned to this reference), 2 bad reference or an
action.yml without a ``runs.image`` line. Standard library only: the release job
runs it before anything is installed.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

# registry host (optional port), then lower-case path components, then the digest.
# A tag before the digest (name:tag@sha256:...) is refused: it reads as if the tag mattered.
_COMPONENT = r"[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*"
_HOST = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]+)?"
PINNED = re.compile(rf"(?:{_HOST}/)?{_COMPONENT}(?:/{_COMPONENT})*@sha256:[0-9a-f]{{64}}")

_TOP_LEVEL = re.compile(rb"[^\s#]")  # a line that starts a new top-level key
_RUNS = re.compile(rb"runs:[ \t]*(?:#.*)?\r?\n?")
_IMAGE = re.compile(rb"(?P<indent>[ \t]+)image:[ \t]*(?P<value>[^\r\n]*?)(?P<end>[ \t]*(?:#[^\r\n]*)?\r?\n?)")


class PinError(Exception):
    """A problem to report as one line, with exit code 2."""


def check_reference(reference: str) -> str:
    if not PINNED.fullmatch(reference):
        raise PinError(
            f"{reference!r} is not an image reference pinned by digest: "
            "expected name@sha256:<64 hex digits>, e.g. ghcr.io/owner/retrieval-eval@sha256:" + "0" * 64
        )
    return reference


def pin(text: bytes, reference: str, where: str = "action.yml") -> bytes:
    """``text`` with the ``runs.image`` value replaced by ``docker://<reference>``."""
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _RUNS.fullmatch(line)), None)
    if start is None:
        raise PinError(f"{where}: no top-level 'runs:' block")
    indent = None  # the block's own keys: a deeper "image:" belongs to something else
    for i in range(start + 1, len(lines)):
        if _TOP_LEVEL.match(lines[i]):
            break  # the runs block ended without an image line
        if indent is None and lines[i].strip() and not lines[i].lstrip().startswith(b"#"):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip(b" \t"))]
        found = _IMAGE.fullmatch(lines[i])
        if found and found["indent"] == indent:
            new = found["indent"] + b"image: docker://" + reference.encode("ascii") + found["end"]
            return b"".join([*lines[:i], new, *lines[i + 1 :]])
    raise PinError(f"{where}: the 'runs:' block has no 'image:' line")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reference", help="the pushed image, name@sha256:<digest>")
    parser.add_argument("--action", type=Path, default=Path("action.yml"), help="the file to rewrite")
    args = parser.parse_args(argv)
    try:
        reference = check_reference(args.reference)
        try:
            before = args.action.read_bytes()
        except OSError as exc:
            raise PinError(f"{args.action}: cannot be read ({exc.strerror})") from None
        after = pin(before, reference, str(args.action))
        if after != before:
            args.action.write_bytes(after)
    except PinError as exc:
        print(f"pin_image: {exc}", file=sys.stderr)
        return 2
    print(f"{args.action}: runs.image is docker://{reference}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
