"""docs/limits.md is the list of bounds: each range of the settings table and each bound of the
git reader and the templates appears there with the value the code holds."""

from __future__ import annotations

from pathlib import Path

from retrieval_eval.action import git
from retrieval_eval.formats import jsondoc
from retrieval_eval.pipeline.settings import OPTION_BOUNDS, SETTINGS
from retrieval_eval.render import limits, sandbox

LIMITS = Path(__file__).resolve().parent.parent / "docs" / "limits.md"


def ranges_table() -> str:
    rows = ["| setting or option | range |", "|---|---|"]
    rows += [f"| `{s.name}` | {s.bounds.describe()} |" for s in SETTINGS if s.bounds is not None]
    rows += [f"| `--{name}` | {bounds.describe()} |" for name, bounds in OPTION_BOUNDS.items()]
    return "\n".join(rows)


def test_every_range_is_listed() -> None:
    text = LIMITS.read_text(encoding="utf-8")
    assert ranges_table() in text, "docs/limits.md's range table is stale; paste:\n" + ranges_table()


def test_every_new_bound_is_listed_with_its_value() -> None:
    text = LIMITS.read_text(encoding="utf-8")
    values = [
        f"{git.MAX_DELTA_CHAIN:,}",
        f"{git.MAX_PACK_HOPS}",
        f"{git.MAX_OBJECT_BYTES >> 20} MiB",
        f"{git.MAX_INFLATED_BYTES >> 20} MiB",
        f"{git.MAX_VARINT_BYTES} bytes",
        f"{git.GIT_SECONDS:g} seconds",
        f"{limits.MAX_SECONDS:g} seconds",
        f"`{sandbox.TEMPLATE_SUFFIX}`",
        f"{jsondoc._BLOCK // 1024} KiB",
    ]
    for value in values:
        assert value in text, value
