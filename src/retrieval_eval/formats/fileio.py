"""Reading user files with clear refusals, and writing ours atomically.

Every output goes through :func:`atomic_writer`, which decides what the path is
before anything is written:

- a regular file (or none yet): a temporary file beside it, renamed over it at
  the end, so readers see the old file or the new one, never half of either;
- a symbolic link: the same, at the link's target, so the link stays a link;
- a character device or a FIFO (``/dev/stdout``, ``/dev/null``, a pipe): written
  through, as a shell redirection would, its write errors reported;
- anything else (a directory, a socket, a block device): refused.

A temporary file is removed when the write fails, on Ctrl-C, and on SIGTERM or
SIGHUP.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import io
import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO, Concatenate, ParamSpec, TextIO, TypeVar

from ..core.errors import InputError, RetrievalEvalError, UsageError
from .jsonl import INPUT_ENV, LINE_ENV, Limits

_REASONS = {
    errno.ENOENT: "no such file or directory",
    errno.EACCES: "permission denied",
    errno.EISDIR: "is a directory",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
}


# A command reads a relative path from where it runs; the action reads it from the workspace.
FROM_CURRENT_DIRECTORY = "check the path; it is resolved from the current directory"


def cannot_read(path: str | os.PathLike[str], exc: OSError) -> InputError:
    reason = _REASONS.get(exc.errno or 0, exc.strerror or str(exc))
    if isinstance(exc, IsADirectoryError):
        reason = "is a directory"
    return InputError(
        f"cannot read {os.fspath(path)}",
        None,
        reason,
        hint=FROM_CURRENT_DIRECTORY,
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


@contextlib.contextmanager
def read_once(paths: Iterable[str | None]) -> Iterator[list[str | None]]:
    """The paths, each pipe among them (``/dev/stdin`` fed by a pipe, a FIFO) replaced by a
    private temporary copy of its bytes, read once, and removed at the end.

    A pipe yields its bytes once; format detection, hashing and reading each open the
    path, so every later reader of a pipe would see nothing.
    """
    directory: str | None = None
    result: list[str | None] = []
    # SIGTERM and SIGHUP remove the copies too: a copy can be as large as the pipe's input.
    with _removed_on_signals() as pending:
        try:
            for path in paths:
                if path is None or _not_a_pipe(path):
                    result.append(path)
                    continue
                if directory is None:
                    directory = tempfile.mkdtemp(prefix="retrieval-eval-")
                    pending.add(directory)
                copy = os.path.join(directory, str(len(result)))
                pending.add(copy)
                with open_binary(path) as source, open(copy, "xb") as target:
                    _copy_within_limits(source, target, path)
                result.append(copy)
            yield result
        finally:
            if directory is not None:
                shutil.rmtree(directory, ignore_errors=True)


P = ParamSpec("P")
T = TypeVar("T")


def reads_once(read: Callable[Concatenate[str, P], T]) -> Callable[Concatenate[str, P], T]:
    """A reader whose first argument is a path, made to read a pipe once (see :func:`read_once`):
    readers that detect the format first open the path twice."""

    @functools.wraps(read)
    def reader(path: str, /, *args: P.args, **kwargs: P.kwargs) -> T:
        with read_once([path]) as (local,), named_as_given([(local, path)]):
            return read(local or path, *args, **kwargs)

    return reader


@contextlib.contextmanager
def named_as_given(copies: Iterable[tuple[str | None, str | None]]) -> Iterator[None]:
    """A refusal raised inside names each file as the user gave it (``/dev/stdin``), not by the
    private copy :func:`read_once` made of it (removed by the time anyone reads the message).
    ``copies``: (the path read, the path given) pairs, as ``read_once`` returns and takes them."""
    try:
        yield
    except RetrievalEvalError as exc:
        for local, given in copies:
            if local is None or given is None or local == given:
                continue
            exc.message = exc.message.replace(local, given)
            exc.hint = exc.hint.replace(local, given) if exc.hint else exc.hint
            exc.args = (exc.message,)
            if isinstance(exc, InputError) and exc.path == local:
                exc.path = given
        raise


def _copy_within_limits(source: BinaryIO, target: BinaryIO, path: str) -> None:
    """Copy a pipe, refusing it as the line readers would past their limits (an endless
    stream with no line end fills no disk)."""
    limits = Limits.from_environment()
    total = line = 0
    while True:
        try:
            block = source.read(1 << 20)
        except OSError as exc:
            raise cannot_read(path, exc) from None
        if not block:
            return
        total += len(block)
        end = block.rfind(b"\n")
        line = len(block) - end - 1 if end >= 0 else line + len(block)
        if line > limits.line or total > limits.total:
            raise InputError(
                "input",
                None,
                f"{path}: a line longer than {limits.line} bytes or more than {limits.total} bytes in all",
                path=path,
                hint=f"raise {LINE_ENV} or {INPUT_ENV} if the input is meant to be that large",
            )
        target.write(block)


def _not_a_pipe(path: str) -> bool:
    """Anything but a pipe: a FIFO (``/dev/stdin`` fed by a pipe) yields its bytes once; a
    file, a directory or a device (``/dev/zero``) is left to the reader, which refuses what
    it cannot read, and a path that names nothing too."""
    try:
        return not stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return True


def sha256_file(path: str | os.PathLike[str]) -> str:
    digest = hashlib.sha256()
    with open_binary(path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# The kinds of special file an output may not be, in the words of the refusal.
_REFUSED_KINDS = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISSOCK, "is a socket"),
    (stat.S_ISBLK, "is a block device"),
)


class _Sink(io.FileIO):
    """A file whose write errors name the output the user asked for.

    Only this file's writes are turned into refusals, so an error reading an
    input while the output is written (``convert`` streams) keeps its own words.
    Once ``discard`` is called, writes are dropped: closing a handle after a
    failure must not fail again.
    """

    def __init__(self, fd: int, shown: str) -> None:
        super().__init__(fd, "wb", closefd=True)
        self.shown = shown
        self.discarded = False

    def write(self, data: Any) -> int:
        if self.discarded:
            return len(data)
        try:
            return super().write(data)
        except BrokenPipeError:
            raise  # the reader of a pipe went away: the command's own handler decides
        except OSError as exc:
            raise cannot_write(self.shown, exc) from None

    def discard(self) -> None:
        self.discarded = True


def _text_handle(sink: _Sink) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BufferedWriter(sink), encoding="utf-8", newline="\n")


def _close_quietly(handle: io.TextIOWrapper, sink: _Sink) -> None:
    sink.discard()
    with contextlib.suppress(Exception):
        handle.close()


def output_kind(path: str) -> str:
    """``file`` (a regular file, or nothing yet) or ``stream`` (a character device, a FIFO);
    anything else is refused, naming the path."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "file"  # a new file, or a link to one not made yet
    except OSError as exc:
        raise cannot_write(path, exc) from None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "stream"
    reason = next((words for test, words in _REFUSED_KINDS if test(mode)), "is not a regular file")
    raise InputError(f"cannot write {path}", None, reason, hint="give the path of a file to write")


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[TextIO]:
    """A text handle whose content replaces ``path`` only if the block ends normally.

    See the module's note for what each kind of path gets. On any error the
    old file is untouched; the temporary file lives beside the (link's) target
    so the final rename stays on one filesystem; the target's mode is kept.
    """
    shown = os.fspath(path)
    if output_kind(shown) == "stream":
        with _stream_writer(shown) as handle:
            yield handle
        return
    # Follow a link to the file it names: replacing the link itself would leave that file as it was.
    target = os.path.realpath(shown) if os.path.islink(shown) else shown
    if not os.path.basename(target):  # "q/" names a folder: refused before its folders are made
        raise cannot_write(shown, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), shown))
    directory = os.path.dirname(target) or "."
    # The handlers are in place before the temporary file exists, and its name is pending before
    # it is created: a signal at any moment finds it (or finds nothing to remove).
    with _removed_on_signals() as pending:
        try:
            os.makedirs(directory, exist_ok=True)
            fd, tmp_name = _create_beside(directory, os.path.basename(target), pending)
        except OSError as exc:
            raise cannot_write(shown, exc) from None
        sink = _Sink(fd, shown)
        handle = _text_handle(sink)
        try:
            yield handle
            _finish(handle, tmp_name, target, shown)
        except BaseException:
            _close_quietly(handle, sink)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp_name)
            raise


@contextlib.contextmanager
def _stream_writer(shown: str) -> Iterator[TextIO]:
    """Write straight into a device or FIFO: nothing to rename, nothing to take back."""
    try:
        fd = os.open(shown, os.O_WRONLY | os.O_NOCTTY)
    except OSError as exc:
        raise cannot_write(shown, exc) from None
    sink = _Sink(fd, shown)
    handle = _text_handle(sink)
    try:
        yield handle
        handle.flush()
    except BaseException:
        _close_quietly(handle, sink)
        raise
    handle.close()


def _create_beside(directory: str, name: str, pending: set[str]) -> tuple[int, str]:
    """A new, private temporary file in ``directory`` (what tempfile.mkstemp does, without
    importing tempfile on the path of every command that writes), named in ``pending`` first."""
    for _ in range(100):
        tmp_name = os.path.join(directory, f".{name}.{os.urandom(6).hex()}.tmp")
        pending.add(tmp_name)
        try:
            return os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), tmp_name
        except FileExistsError:
            pending.discard(tmp_name)  # another's file: never ours to remove
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", directory)


def _finish(handle: io.TextIOWrapper, tmp_name: str, target: str, shown: str) -> None:
    """Flush the temporary file and rename it over ``target``; a failure names the path given."""
    handle.flush()  # a failed write raises here, already naming the path
    try:
        os.fsync(handle.fileno())
        try:
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o644
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
    except OSError as exc:
        raise cannot_write(shown, exc) from None
    handle.close()


# -- temporary files removed on SIGTERM and SIGHUP ----------------------------------

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _on_signal(signum: int, frame: Any) -> None:
    """Remove every temporary file being written, then let the signal do what it did before."""
    names = [name for pending in _WRITERS for name in pending]
    for name in names:
        with contextlib.suppress(OSError):
            os.unlink(name)
    for name in names:  # the folder of a pipe's copy, empty once its files are gone
        with contextlib.suppress(OSError):
            os.rmdir(name)
    previous = _PREVIOUS.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, previous)
    os.kill(os.getpid(), signum)


_PREVIOUS: dict[int, Any] = {}


_INSTALLED: list[int] = []


@contextlib.contextmanager
def _removed_on_signals() -> Iterator[set[str]]:
    """While the block runs, SIGTERM and SIGHUP remove the temporary files named in the set it
    gives before they end the process.

    The handlers stay while any file is pending, whichever writer opened first and whichever
    ends first. Handlers can only be set on the main thread; elsewhere the file is still removed
    on every exception, as before. A signal the process ignores stays ignored.
    """
    mine: set[str] = set()
    if threading.current_thread() is threading.main_thread() and not _INSTALLED:
        for signum in _SIGNALS:
            previous = signal.getsignal(signum)
            if previous is signal.SIG_IGN or previous is None:
                continue
            _PREVIOUS[signum] = previous
            signal.signal(signum, _on_signal)
            _INSTALLED.append(signum)
    _WRITERS.append(mine)
    try:
        yield mine
    finally:
        _WRITERS.remove(mine)
        if not _WRITERS:
            while _INSTALLED:
                signum = _INSTALLED.pop()
                signal.signal(signum, _PREVIOUS.pop(signum))


_WRITERS: list[set[str]] = []  # the pending names of every writer open now


def write_atomic(path: str | os.PathLike[str], data: str) -> None:
    """Replace ``path`` with ``data`` atomically (see :func:`atomic_writer`)."""
    with atomic_writer(path) as handle:
        handle.write(data)


# -- an output that is one of the inputs --------------------------------------------


def _identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


SIDECAR_SUFFIX = ".meta.json"  # ``<run>.meta.json``: how a run was made, read beside the run
GIT_FOLDER = ".git"


def refuse_output_over_input(
    outputs: Iterable[tuple[str, str | None]], inputs: Iterable[tuple[str, str | None]]
) -> None:
    """Refuse an output (``(option, path)``) that is the same file as an input (``(role, path)``)
    or as an input's sidecar: the same device and inode (a hard link, another spelling), or the
    same path once links are resolved. Writing it would replace what is being read. An output
    inside a ``.git`` folder is refused too: that is the repository's own store and config."""
    files = [(f"{role} file", path) for role, path in inputs if path and path != "-"]
    given = files + [(f"sidecar of the {noun}", path + SIDECAR_SUFFIX) for noun, path in files]
    for option, out in outputs:
        if out and inside_git_folder(out):
            raise UsageError(
                f"{option} {out} is inside a {GIT_FOLDER} folder, the repository's own store",
                hint=f"give {option} a path outside {GIT_FOLDER}",
            )
    _refuse_shared_output([(option, out) for option, out in outputs if out and output_kind(out) == "file"])
    for option, out in outputs:
        if not out or output_kind(out) == "stream":
            continue  # a device or a pipe is written through, never replaced
        out_id, out_real = _identity(out), os.path.realpath(out)
        for noun, path in given:
            same_inode = out_id is not None and out_id == _identity(path)
            if same_inode or out_real == os.path.realpath(path):
                raise UsageError(
                    f"{option} {out} is also an input (the {noun} {path}); writing it would replace it",
                    hint=f"give {option} a path of its own",
                )


def inside_git_folder(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` as written, or with its links followed, passes through a ``.git`` folder
    (in any letter case: on macOS and Windows ``.GIT`` is the same folder)."""
    spelled = os.path.normpath(os.path.abspath(path))
    return any(part.lower() == GIT_FOLDER for p in (spelled, os.path.realpath(path)) for part in p.split(os.sep))


def _refuse_shared_output(outputs: list[tuple[str, str]]) -> None:
    """Two outputs naming one file: the second written would replace the first."""
    seen: dict[str, tuple[str, str]] = {}
    for option, out in outputs:
        real = os.path.realpath(out)
        if real in seen:
            first, first_path = seen[real]
            raise UsageError(
                f"{option} {out} is the same file as {first} {first_path}; one would replace the other",
                hint=f"give {option} a path of its own",
            )
        seen[real] = (option, out)
