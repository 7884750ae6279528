"""Reading user files with clear refusals, and writing ours atomically."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
from collections.abc import Iterator
from typing import BinaryIO, TextIO

from ..core.errors import InputError

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


def cannot_write(path: str | os.PathLike[str], exc: OSError) -> InputError:
    reason = _REASONS.get(exc.errno or 0, exc.strerror or str(exc))
    if os.path.isdir(path):
        reason = "is a directory"
    elif isinstance(exc, (FileExistsError, NotADirectoryError)):  # from creating the parents
        reason = "a part of the path is a file, not a directory"
    return InputError(
        f"cannot write {os.fspath(path)}",
        None,
        reason,
        hint="write to a file in a directory you can write to",
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


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A text handle whose content replaces ``path`` only if the block ends normally.

    Readers see the old file or the new one, never half of it; on any error
    the old file is untouched. The temporary file lives beside the target so
    the final rename stays on one filesystem; the target's mode is kept.
    """
    target = os.fspath(path)
    directory = os.path.dirname(target) or "."
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp_name = _create_beside(directory, os.path.basename(target))
    except OSError as exc:
        raise cannot_write(path, exc) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            yield handle
            _finish(handle, tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise


def _create_beside(directory: str, name: str) -> tuple[int, str]:
    """A new, private temporary file in ``directory`` (what tempfile.mkstemp does, without
    importing tempfile on the path of every command that writes)."""
    for _ in range(100):
        tmp_name = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp_name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", directory)


def _finish(handle: TextIO, tmp_name: str, target: str) -> None:
    """Flush the temporary file and rename it over ``target``; a failure names the target."""
    try:
        handle.flush()
        os.fsync(handle.fileno())
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except OSError as exc:
        raise cannot_write(target, exc) from None


def write_atomic(path: str | os.PathLike[str], data: str) -> None:
    """Replace ``path`` with ``data`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path) as handle:
        handle.write(data)
