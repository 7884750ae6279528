"""The hidden line that marks our pull-request comment.

The action finds its own comment by this line and updates it instead of
posting a new one on every run; a rendering without it is refused.
"""

from __future__ import annotations

from ..core.comment_id import check_comment_id
from ..core.errors import UsageError

MARKER = "<!-- retrieval-eval:comment id={} -->"


def comment_marker(comment_id: str = "default") -> str:
    """The hidden line that identifies our comment, so it is updated instead of repeated."""
    try:
        return MARKER.format(check_comment_id(comment_id))
    except ValueError as exc:
        raise UsageError(f"comment id {exc}", hint="--comment-id nightly") from None


def check_marker(text: str, marker: str, template_dir: str | None) -> None:
    """Refuse a rendered comment that lost its marker (only a user template can drop it)."""
    if marker not in text:
        raise UsageError(
            f"the comment template in {template_dir} dropped the marker {marker}; "
            "without it the comment cannot be found again and would be posted anew on every run",
            hint='extend "builtin/comment.md.j2" and override its blocks; the marker sits outside every block',
        )
