"""Whether a path stays inside a folder once every link on the way is followed.

Kept apart from ``sandbox`` (which imports Jinja) so that settings checks can use it cheaply.
"""

from __future__ import annotations

import os


def inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """True when ``path``, with every symbolic link resolved, is ``root`` or lies below it.

    Both sides are resolved, so a root that is itself a link is fine; a path that
    leaves through a link (``t/x.j2 -> /proc/self/environ``) or ``..`` is not inside.
    """
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    try:
        return os.path.commonpath([real, real_root]) == real_root
    except ValueError:  # different drives on Windows: certainly not inside
        return False
