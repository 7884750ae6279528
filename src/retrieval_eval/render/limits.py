"""What a sandboxed template may allocate: one bound per value, checked before the memory is taken.

Jinja's sandbox stops a template reaching Python internals, not asking for
memory: ``"x" * 10**10``, ``"{:>999999999}".format(1)``, ``"x".center(10**10)``,
a string doubled in a loop. Every way a template makes a new value goes
through here: the operators ``* + ** %`` and ``~``, every call (methods,
globals), every filter, every printed value and every captured block. Each
checks the size of what it is about to make against ``MAX_VALUE`` first,
from the sizes of its inputs, and refuses past it. What a template writes in
total is cut at ``MAX_OUTPUT`` (see ``sandbox``).

Sizes count characters of text (or items of a list), following references:
a list holding the same long string ten times counts it ten times, which is
what printing it would cost.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import string
import time
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from typing import Any, Protocol, TypeGuard

from jinja2 import Environment
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError
from jinja2.nodes import Call, Concat, EnvironmentAttribute, EvalContext, For
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Namespace

from .budget import SUMMARY_LIMIT

MAX_VALUE = 8 * SUMMARY_LIMIT  # characters (or items) of one value: 8x the most GitHub shows of anything
MAX_OUTPUT = 2 * SUMMARY_LIMIT  # characters a rendering is cut at: over every budget, so the budget takes over
MAX_INT_BITS = 1 << 16  # about 20,000 digits: far past any number a report needs
# Seconds of template code per drawer (every drawing of one template, the budget's shorter ones
# included): the built-in templates take milliseconds; loops that print nothing take no memory.
MAX_SECONDS = 5.0
SECONDS_ENV = "RETRIEVAL_EVAL_TEMPLATE_SECONDS"  # another bound, for a heavy template of one's own


def max_seconds() -> float:
    """The bound: ``RETRIEVAL_EVAL_TEMPLATE_SECONDS`` when it is a positive number of seconds (up to
    an hour), else ``MAX_SECONDS``. A value that cannot be one is ignored, never an unbounded run."""
    setting = os.environ.get(SECONDS_ENV, "").strip()
    try:
        seconds = float(setting)
    except ValueError:
        return MAX_SECONDS
    return seconds if 0 < seconds <= 3600 else MAX_SECONDS


_PACE = 256  # iterations of one loop between two looks at the clock (and one at each loop's start)

Estimate = Callable[[inspect.BoundArguments], int]


class TemplateLimit(SecurityError):
    """A template asked for a value larger than templates may make."""


def refuse(what: str, size: int) -> TemplateLimit:
    return TemplateLimit(
        f"{what} would make a value of {size:,} characters or items; "
        f"a template may make values of at most {MAX_VALUE:,}"
    )


def size_of(value: Any, limit: int = MAX_VALUE) -> int:
    """Characters ``str(value)`` would take (items for containers), counted until past ``limit``.

    Follows references, so it stops early (at most ``limit`` steps) however deep a
    structure of shared parts goes.
    """
    total, pending = 0, [value]
    while pending and total <= limit:
        item = pending.pop()
        if isinstance(item, (str, bytes, bytearray)):
            total += len(item)
            continue
        if isinstance(item, range):  # listed, it makes one number per item
            total += 2 + 8 * len(item)
            continue
        parts = _parts(item)
        if parts is None:
            total += item.bit_length() // 3 + 1 if isinstance(item, int) else 8
            continue
        total += 2 + len(parts)
        if total <= limit:
            pending.extend(parts)
    return total


def _parts(item: Any) -> list[Any] | None:
    """What a container prints: its items (keys and values of a mapping), or None for a scalar."""
    if isinstance(item, Namespace):  # Jinja's namespace prints its attributes
        item = item._Namespace__attrs
    if isinstance(item, Mapping):
        return [*item.keys(), *item.values()]
    if isinstance(item, (Sequence, Set)):
        return list(item)
    return None


def check(what: str, size: int) -> None:
    if size > MAX_VALUE:
        raise refuse(what, size)


def checked(what: str, result: Any) -> Any:
    """A value just made, refused when it is already over (what no estimate foresaw)."""
    if isinstance(result, (str, bytes, bytearray, Sequence, Set, Mapping)) and not isinstance(result, range):
        check(what, len(result))
    return result


# -- operators ------------------------------------------------------------------------------


def _int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def repeat_size(left: Any, right: Any) -> int | None:
    """``left * right``: the length of a repeated sequence, or the bits of a product of integers."""
    if _int(left) and _int(right):
        return None
    times, sequence = (right, left) if _int(right) else (left, right)
    if _int(times) and isinstance(sequence, (str, bytes, list, tuple)):
        return int(len(sequence) * max(times, 0))
    return 0


def check_binop(operator: str, left: Any, right: Any) -> None:
    if operator == "*":
        size = repeat_size(left, right)
        if size is None:
            _check_bits("*", left.bit_length() + right.bit_length())
        else:
            check("*", size)
    elif operator == "**" and _int(left) and _int(right) and right > 0 and abs(left) > 1:
        _check_bits("**", left.bit_length() * right)
    elif (
        operator == "+" and isinstance(left, (str, bytes, list, tuple)) and isinstance(right, (str, bytes, list, tuple))
    ):
        check("+", len(left) + len(right))
    elif operator == "%" and isinstance(left, str):
        check("%", percent_size(left, right))


def _check_bits(operator: str, bits: int) -> None:
    if bits > MAX_INT_BITS:
        raise TemplateLimit(
            f"{operator} would make an integer of about {bits:,} bits; templates may make at most {MAX_INT_BITS:,}"
        )


# -- formatting -----------------------------------------------------------------------------

_PERCENT = re.compile(r"%(?:\(([^)]*)\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)", re.DOTALL)


def percent_size(template: str, args: Any) -> int:
    """An upper bound on ``template % args``: each field's width and precision, plus its argument."""
    positional = list(args) if isinstance(args, tuple) else [args]
    stars = [a for a in positional if _int(a)]
    biggest = max((abs(a) for a in stars), default=0)
    total, index = len(template), 0
    for match in _PERCENT.finditer(template):
        key, width, precision, conversion = match.groups()
        if conversion == "%":
            continue
        for number in (width, precision):
            total += biggest if number == "*" else int(number or 0)
        if key is not None and isinstance(args, Mapping):
            total += size_of(args.get(key))
        elif index < len(positional):
            total += size_of(positional[index])
            index += 1
        if total > MAX_VALUE:
            break
    return total


def format_size(template: str, args: Sequence[object], kwargs: Mapping[str, object]) -> int:
    """An upper bound on ``template.format(*args, **kwargs)``: every field's widths, plus its argument.

    ``kwargs``: the call's keyword arguments, or the mapping ``format_map`` was given; each value
    whatever the template passed, which is why each is checked before it is used."""
    total, auto = len(template), 0
    nested = max((abs(a) for a in [*args, *kwargs.values()] if _int(a)), default=0)
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return total  # format itself refuses it, with its own message
    for _literal, field, spec, _conversion in fields:
        if field is None:
            continue
        spec = spec or ""
        total += sum(int(n) for n in re.findall(r"\d+", spec)) + (nested if "{" in spec else 0)
        head = re.split(r"[.\[]", field, maxsplit=1)[0]
        if head == "":
            head, auto = str(auto), auto + 1
        argument = args[int(head)] if head.isdigit() and int(head) < len(args) else kwargs.get(head)
        total += size_of(argument)
        if total > MAX_VALUE:
            break
    return total


# -- calls and filters ----------------------------------------------------------------------


def _count(bound: inspect.BoundArguments, name: str, default: int = 0) -> int:
    value = bound.arguments.get(name, default)
    return value if _int(value) else default


def _text(bound: inspect.BoundArguments, name: str) -> Any:
    return bound.arguments.get(name) or ""


def _replace_size(text: Any, old: Any, new: Any, count: Any) -> int:
    length = len(text) if isinstance(text, (str, bytes)) else size_of(text)
    places = length + 1 if not old else length // max(len(old), 1)
    if _int(count) and count >= 0:
        places = min(places, count)
    return length + places * size_of(new)


def _join_size(separator: Any, items: Sequence[Any]) -> int:
    return size_of(items) + len(items) * size_of(separator)


def _width(s: Any, /, *a: object, **k: object) -> int:
    width = a[0] if a else k.get("width", 0)
    return max(len(s), width if _int(width) else 0)


def _tabs(s: Any, /, *a: object, **k: object) -> int:
    size = a[0] if a else k.get("tabsize", 8)
    return int(len(s) + s.count("\t" if isinstance(s, str) else b"\t") * max(size if _int(size) else 8, 1))


def _replaced(s: Any, /, *a: object, **k: object) -> int:
    old, new = (a + ("", ""))[:2]
    return _replace_size(s, old, new, a[2] if len(a) > 2 else k.get("count", -1))


def _translated(s: Any, /, *a: object, **k: object) -> int:
    return len(s) * max([1, *(size_of(v) for v in _table_values(a[0] if a else None))])


def _to_bytes(s: Any, /, *a: object, **k: object) -> int:
    length = a[0] if a else k.get("length", 1)
    return length if _int(length) else 0


class Sizer(Protocol):
    """What one method call may make, from the call as a template made it: the object the method
    is bound to (a str, bytes or int), then the arguments, of whatever types the template passed
    (object: nothing here can type what a user's template writes, so every value is checked first)."""

    def __call__(self, owner: Any, /, *args: object, **kwargs: object) -> int: ...


# Methods of str and bytes (and int.to_bytes) whose result can be much larger than their inputs.
METHODS: dict[str, Sizer] = {
    "center": _width,
    "ljust": _width,
    "rjust": _width,
    "zfill": _width,
    "expandtabs": _tabs,
    "replace": _replaced,
    "translate": _translated,
    "to_bytes": _to_bytes,
}


def _table_values(table: Any) -> Iterable[Any]:
    return table.values() if isinstance(table, Mapping) else ()


def method_size(function: object, /, *args: object, **kwargs: object) -> int:
    """What a call of a str/bytes/int method may make, or 0 when it cannot amplify."""
    owner = getattr(function, "__self__", None)
    name = getattr(function, "__name__", "")
    if isinstance(owner, (str, bytes)) and name == "join":
        return 0  # join materialises its argument first: see ``call``
    estimate = METHODS.get(name)
    if estimate is None or not isinstance(owner, (int, str, bytes)) or (name == "to_bytes") != _int(owner):
        return 0
    return int(estimate(owner, *args, **kwargs))


# Filters that rearrange containers or compute numbers: they make no text from their input.
CONTAINER_FILTERS = frozenset(
    "abs attr batch count d default dictsort first float groupby int items last length list map max min "
    "random reject rejectattr reverse round select selectattr slice sort sum unique".split()
)
# Filters whose result can be much larger than their input, with what they may make.
FILTERS: dict[str, Estimate] = {
    "center": lambda b: size_of(_text(b, "value")) + _count(b, "width", 80),
    "indent": lambda b: (
        size_of(_text(b, "s"))
        + (str(_text(b, "s")).count("\n") + 1)
        * (_count(b, "width", 4) if _int(b.arguments.get("width", 4)) else size_of(b.arguments.get("width")))
    ),
    "wordwrap": lambda b: size_of(_text(b, "s")) * (1 + size_of(b.arguments.get("wrapstring") or "\n")),
    "replace": lambda b: _replace_size(
        str(_text(b, "s")), str(b.arguments.get("old", "")), str(b.arguments.get("new", "")), b.arguments.get("count")
    ),
    "join": lambda b: _join_size(b.arguments.get("d", ""), b.arguments.get("value") or []),
    "format": lambda b: percent_size(
        str(_text(b, "value")), b.arguments.get("kwargs") or tuple(b.arguments.get("args") or ())
    ),
    "batch": lambda b: _count(b, "linecount"),
    "slice": lambda b: _count(b, "slices"),
}


def guard_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` (a filter) that checks what it would make first, and what it made after."""
    try:
        signature: inspect.Signature | None = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without one: its result is still checked
        signature = None
    # Jinja's async-ready filters take an evaluation context their signature does not show.
    shown = next(iter(signature.parameters), "") if signature else ""
    hidden = (
        1 if getattr(function, "jinja_pass_arg", None) and shown not in ("context", "environment", "eval_ctx") else 0
    )
    stringifies = name not in CONTAINER_FILTERS
    estimate = FILTERS.get(name)

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if signature is None:
            return checked(f"filter {name}", function(*args, **kwargs))
        bound = signature.bind(*args[hidden:], **kwargs)
        if name == "join" and not isinstance(bound.arguments.get("value"), Sequence):
            bound.arguments["value"] = list(bound.arguments.get("value") or ())
        if stringifies:
            check(f"filter {name}", size_of([v for k, v in bound.arguments.items() if not _is_context(v)]))
        if estimate is not None:
            check(f"filter {name}", estimate(bound))
        return checked(f"filter {name}", function(*args[:hidden], *bound.args, **bound.kwargs))

    return guarded


def _is_context(value: Any) -> bool:
    return isinstance(value, (Context, Environment, EvalContext))


class BoundedEnvironment(ImmutableSandboxedEnvironment):
    """Jinja's immutable sandbox (no list or dict changed in place, so nothing doubles in a loop
    unseen), with every operator, call, filter and printed value bounded."""

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self, **options: Any) -> None:
        super().__init__(finalize=self._finalize, **options)
        self.code_generator_class = BoundedCodeGenerator
        self.filters = {name: guard_filter(name, function) for name, function in self.filters.items()}
        self.deadline = float("inf")  # set by whoever draws (``start_clock``)
        self.seconds = MAX_SECONDS  # the bound the deadline was set with

    def start_clock(self) -> None:
        """From now, templates of this environment have :func:`max_seconds` to run; once set, kept."""
        if self.deadline == float("inf"):
            self.seconds = max_seconds()
            self.deadline = time.monotonic() + self.seconds

    def paced(self, iterable: Iterable[Any]) -> Iterable[Any]:
        """A ``for`` loop's items, with a look at the clock at the loop's start and every few
        items: nested loops that print nothing allocate nothing, yet run for ever."""
        for number, item in enumerate(iterable):
            if number % _PACE == 0:
                self.check_clock()
            yield item

    def check_clock(self) -> None:
        if time.monotonic() > self.deadline:
            raise TemplateLimit(f"the template ran for more than {self.seconds:g} seconds; templates are time-bound")

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        check_binop(operator, left, right)
        return checked(operator, super().call_binop(context, operator, left, right))

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        __self.check_clock()  # a recursive loop's inner loops, and macros, arrive as calls
        name = getattr(__obj, "__name__", "a call")
        owner = getattr(__obj, "__self__", None)
        if name == "join" and isinstance(owner, (str, bytes)) and args:
            items = list(args[0])
            check("join", _join_size(owner, items))
            args = (items, *args[1:])
        elif name == "generate_lorem_ipsum":
            check("lipsum", _lipsum_size(*args, **kwargs))
        check(name, method_size(__obj, *args, **kwargs))
        return checked(name, super().call(__context, __obj, *args, **kwargs))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        wrapper = super().wrap_str_format(value)
        if wrapper is None:
            return None
        template: str = value.__self__
        is_map = value.__name__ == "format_map"

        @functools.wraps(wrapper)
        def bounded(*args: Any, **kwargs: Any) -> str:
            mapping = args[0] if is_map and args and isinstance(args[0], Mapping) else kwargs
            check("format", format_size(template, () if is_map else args, mapping))
            text: str = checked("format", wrapper(*args, **kwargs))
            return text

        return bounded

    def join_values(self, parts: Iterable[Any]) -> str:
        """The ``~`` operator: its parts printed and joined, once their total is known to fit."""
        parts = tuple(parts)
        check("~", size_of(list(parts)))
        return "".join(map(str, parts))

    @staticmethod
    def new_buffer() -> BoundedBuffer:
        return BoundedBuffer()

    @staticmethod
    def _finalize(value: Any) -> Any:
        check("printing a value", size_of(value))
        return value


def _lipsum_size(*args: object, **kwargs: object) -> int:
    count = args[0] if args else kwargs.get("n", 5)
    words = args[3] if len(args) > 3 else kwargs.get("max", 100)
    return (count if _int(count) else 5) * (words if _int(words) else 100) * 16


class BoundedBuffer(list[Any]):
    """Where Jinja gathers a captured block (``{% set %}...{% endset %}``, a macro's output,
    ``caller()``): refused once what it holds is over the bound, not when it is joined."""

    size = 0

    def append(self, piece: Any) -> None:
        self._grow(piece)
        super().append(piece)

    def extend(self, pieces: Iterable[Any]) -> None:
        for piece in pieces:
            self.append(piece)

    def _grow(self, piece: Any) -> None:
        self.size += len(piece) if isinstance(piece, str) else size_of(piece)
        check("a block's output", self.size)


class BoundedCodeGenerator(CodeGenerator):
    """Jinja's code generator, with ``~`` sent through ``join_values`` (Jinja joins it inline)
    and captured output gathered in a ``BoundedBuffer``."""

    def visit_For(self, node: For, frame: Frame) -> None:  # noqa: N802 - Jinja's visitor name
        # Every loop's items come through environment.paced, which watches the clock.
        if not (isinstance(node.iter, Call) and isinstance(node.iter.node, EnvironmentAttribute)):
            node.iter = Call(EnvironmentAttribute("paced"), [node.iter], [], None, None, lineno=node.lineno)
        super().visit_For(node, frame)

    def visit_Concat(self, node: Concat, frame: Frame) -> None:  # noqa: N802 - Jinja's visitor name
        self.write("environment.join_values((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")

    def buffer(self, frame: Frame) -> None:
        frame.buffer = self.temporary_identifier()
        self.writeline(f"{frame.buffer} = environment.new_buffer()")
