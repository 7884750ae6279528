"""The Jinja side: built-in templates, user templates over them, all rendered in a sandbox.

Templates ship in ``retrieval_eval/templates``. A directory of user
templates goes in front of them; a user template extends ``builtin/<name>``
and overrides its named blocks. Rendering runs in Jinja's immutable sandbox
with ``StrictUndefined``, so a misspelt name or an unsafe reach fails loudly.

A user template is code the pull request controls, so the sandbox also
bounds what it may allocate (``limits``): a template that asks for more is
refused, naming it, before the memory is taken. Its files must stay inside
the template directory once links are followed.

This is the only module that imports Jinja, and only ``render`` imports it,
when Markdown is drawn: the score path never pays for it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import fields

from jinja2 import (
    BaseLoader,
    BytecodeCache,
    ChoiceLoader,
    Environment,
    PackageLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateError,
    TemplateNotFound,
    TemplateSyntaxError,
)
from jinja2.bccache import Bucket
from jinja2.loaders import split_template_path

from ..core.errors import InputError, RetrievalEvalError, UsageError
from . import limits
from .confine import inside
from .history import HistoryPage
from .view import View

__all__ = ["Drawer", "environment", "inside", "template_drawer"]

_BLANK_LINES = re.compile(r"\n{3,}")
MAX_TEMPLATE_BYTES = 1 << 20  # one template file; the built-in ones are a few kilobytes
TEMPLATE_SUFFIX = ".j2"  # the only files a template may load: templates, never data or config
# A repository's own folder: its config holds the checkout's credential (an ``http.extraheader``).
GIT_FOLDER = ".git"

# A view in, Markdown out. The view's fields are the template's context: the names a user's template
# may read (docs/compare.md), each an escaped string, a number, or records and tuples of them.
Context = View | HistoryPage
Drawer = Callable[[Context], str]


class UnsafeTemplate(TemplateError):
    """A template file that may not be read: it leaves the template directory, or is no file."""


class ConfinedLoader(BaseLoader):
    """Templates from one directory, and only files that stay inside it once links are followed.

    A link to ``/proc/self/environ`` (or ``..`` in an include) would otherwise put
    the job's environment, token included, into the posted comment.
    """

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        pieces = split_template_path(template)  # refuses ".." pieces
        # Checked before the file is looked for: whether a file exists under .git is itself not shown.
        if any(_is_git_folder(piece) for piece in pieces):
            raise UnsafeTemplate(f"template {template} is inside a {GIT_FOLDER} folder, which templates never read")
        if not template.endswith(TEMPLATE_SUFFIX):
            raise UnsafeTemplate(f"template {template} is not a template file (*{TEMPLATE_SUFFIX})")
        path = os.path.join(self.root, *pieces)
        if not os.path.lexists(path):
            raise TemplateNotFound(template)
        if not inside(path, self.root):
            raise UnsafeTemplate(
                f"template {template} leads outside the template directory (to {os.path.realpath(path)})"
            )
        if under_git_folder(path):
            raise UnsafeTemplate(f"template {template} leads into a {GIT_FOLDER} folder, which templates never read")
        if not os.path.isfile(path):
            raise UnsafeTemplate(f"template {template} is not a regular file")
        with open(path, "rb") as handle:
            data = handle.read(MAX_TEMPLATE_BYTES + 1)
        if len(data) > MAX_TEMPLATE_BYTES:
            raise UnsafeTemplate(f"template {template} is larger than {MAX_TEMPLATE_BYTES:,} bytes")
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UnsafeTemplate(f"template {template} is not UTF-8 ({exc.reason} at byte {exc.start})") from None
        mtime = os.path.getmtime(path)
        return source, path, lambda: os.path.getmtime(path) == mtime


def _is_git_folder(name: str) -> bool:
    # Case-insensitive: on the file systems of macOS and Windows ".GIT" is the same folder.
    return name.lower() == GIT_FOLDER


def under_git_folder(path: str) -> bool:
    """True when ``path``, links followed, is or lies inside a ``.git`` folder."""
    return any(_is_git_folder(part) for part in os.path.realpath(path).split(os.sep))


class _CompiledTemplates(BytecodeCache):
    """The compiled code of templates this process has already compiled, kept in memory.

    Every render builds a fresh environment (a user's template folder may differ from one call to
    the next), and compiling the built-in templates took about 20 ms of each drawing: more than
    drawing them. Jinja keys a template's code by its name and file and checks it against the
    sha1 of the source it just read, so a template changed on disk is compiled again; the code
    depends on nothing else, as every environment here is made by :func:`environment` with the
    same options and code generator. A plain dict, whose reads and writes hold the interpreter's
    lock, so threads may share it; the oldest entries go once it holds ``SIZE``, so a
    long-lived process that renders ever-changing user templates does not grow without end.
    """

    SIZE = 64

    def __init__(self) -> None:
        self._codes: dict[tuple[str, str], object] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        bucket.code = self._codes.get((bucket.key, bucket.checksum))  # type: ignore[assignment]

    def dump_bytecode(self, bucket: Bucket) -> None:
        while len(self._codes) >= self.SIZE:
            self._codes.pop(next(iter(self._codes)), None)
        self._codes[(bucket.key, bucket.checksum)] = bucket.code


_COMPILED = _CompiledTemplates()


def environment(template_dir: str | None) -> limits.BoundedEnvironment:
    """A sandboxed Jinja environment: user templates first, then the built-ins.

    Built-ins are also reachable as ``builtin/<name>``, which is what a user
    template extends to override blocks of the built-in one.
    """
    builtin = PackageLoader("retrieval_eval", "templates")
    loaders: list[BaseLoader] = []
    if template_dir is not None:
        if not os.path.isdir(template_dir):
            raise UsageError(
                f"--template-dir {template_dir}: no such directory",
                hint="point it at a directory holding comment.md.j2 and/or summary.md.j2",
            )
        if under_git_folder(template_dir):
            raise UsageError(
                f"--template-dir {template_dir}: inside a {GIT_FOLDER} folder, which templates never read",
                hint="keep templates in a folder of their own, e.g. .github/retrieval-eval",
            )
        loaders.append(ConfinedLoader(template_dir))
    loaders += [PrefixLoader({"builtin": builtin}), builtin]
    return limits.BoundedEnvironment(
        loader=ChoiceLoader(loaders),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_COMPILED,
    )


def template_drawer(kind: str, template_dir: str | None) -> Drawer:
    """The template for ``kind``, loaded once, as a function that draws a view."""
    try:
        env = environment(template_dir)
        template = env.get_template(f"{kind}.md.j2")
    except TemplateError as exc:
        raise _refusal(exc, kind, template_dir) from None

    def draw(view: Context) -> str:
        env.start_clock()
        try:
            # Each field one name of the context, its value as it is: Jinja reads a record's fields
            # by attribute (``verdict.status``), and ``x["y"]`` falls back to the attribute too.
            text = _bounded_text(template.generate(**{field.name: getattr(view, field.name) for field in fields(view)}))
        except RetrievalEvalError:
            raise
        except Exception as exc:  # noqa: BLE001 - a template is user code: whatever it raises is a refusal
            raise _refusal(exc, kind, template_dir) from None
        # Blank lines mean the same in Markdown whether one or three; keep one, so
        # templates can be written for reading rather than for exact whitespace.
        return _BLANK_LINES.sub("\n\n", text)

    return draw


def _bounded_text(pieces: Iterator[str]) -> str:
    """The rendered text, cut once it is past anything GitHub could show.

    Cut text is over every budget, so the budget shortens the view and draws again,
    as for any over-long rendering; no more than ``MAX_OUTPUT`` is ever held.
    """
    kept: list[str] = []
    size = 0
    for piece in pieces:
        kept.append(piece)
        size += len(piece)
        if size > limits.MAX_OUTPUT:
            break
    return "".join(kept)[: limits.MAX_OUTPUT + 1]


def _refusal(exc: Exception, kind: str, template_dir: str | None) -> InputError:
    # The template's name under the loader, not its path: messages stay the same wherever it lives.
    name, line = _where(exc, template_dir)
    named = getattr(exc, "name", None) if isinstance(exc, TemplateError) else None
    where = named or name or f"{kind}.md.j2"
    if isinstance(exc, TemplateSyntaxError):
        line = exc.lineno
    if isinstance(exc, TemplateError):
        problem = str(exc.message or exc)
    else:
        problem = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if _DICT_METHOD.search(problem):
        # Before the views were records a template could call .get() or .items() on them.
        problem += '; a record is not a dict: read a field as verdict.status or verdict["status"]'
    # The hint names the user's own file, not only its directory; a built-in one, the directory.
    path = template_dir
    if template_dir is not None and not where.startswith("builtin/"):
        path = os.path.join(template_dir, where)
    return InputError(f"template {where}", line, problem, path=path)


# Jinja's words for a dict's method asked of a view record (``verdict.get``, ``row.items()``).
_DICT_METHOD = re.compile(r"'retrieval_eval\.[\w.]+ object' has no attribute '(get|items|keys|values)'")


def _where(exc: Exception, template_dir: str | None) -> tuple[str | None, int | None]:
    """The template and line a runtime error came from: Jinja rewrites the traceback so that
    its frames carry the template's file name and line."""
    name, line = None, None
    trace = exc.__traceback__
    while trace is not None:
        filename = trace.tb_frame.f_code.co_filename
        if filename.endswith(".j2"):
            name, line = _template_name(filename, template_dir), trace.tb_lineno
        trace = trace.tb_next
    return name, line


def _template_name(filename: str, template_dir: str | None) -> str:
    if template_dir is not None and inside(filename, template_dir):
        return os.path.relpath(os.path.realpath(filename), os.path.realpath(template_dir))
    return "builtin/" + os.path.basename(filename)
