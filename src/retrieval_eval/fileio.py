"""Reading user files with clear refusals, and writing ours atomically."""

from __future__ import annotations

import errno
import hashlib
import os
import tempfile
from pathlib import Path
from typing import BinaryIO

from .errors import InputError

_REASONS = {
    errno.ENOENT: "no such file or directory",
    errno.EACCES: "permission denied",
    errno.EISDIR: "is a directory",
}


def cannot_read(path: str | os.PathLike[str], exc: OSError) -> InputError:
    reason = _REASONS.get(exc.errno or 0, exc.strerror or str(exc))
    if isinstance(exc, IsADirectoryError):
        reason = "is a directory"
    return InputError(
        f"cannot read {os.fspath(path)}",
        None,
        reason,
        hint="check the path; it is resolved from the current directory",
    )


def open_binary(path: str | os.PathLike[str]) -> BinaryIO:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise cannot_read(path, exc) from None


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    with open_binary(path) as handle:
        try:
            return handle.read()
        except OSError as exc:
            raise cannot_read(path, exc) from None


def sha256_file(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open_binary(path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never half.

    The temporary file lives in the target's directory so the final rename
    stays on one filesystem; the target's permission bits are kept.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    directory = target.parent if str(target.parent) else Path(".")
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            os.chmod(tmp_name, target.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
