"""The summary's per-stratum chart stays legible at any number of strata and any name length.

The chart is drawn by a real Mermaid (11, from the npm registry) in headless
Chromium, and the bounding boxes of its axis labels are measured: no two may
overlap. Mermaid is fetched once into pytest's cache; where npm or the registry
is unavailable, or Chromium is missing, the test is skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import pytest

from browser import dump_dom, needs_chromium
from from_json import render

MERMAID_VERSION = "11"

# One worker runs every test here, so Mermaid is fetched once: two npm installs into one folder
# at the same time leave a half-written package that draws nothing.
pytestmark = pytest.mark.xdist_group("mermaid")


@pytest.fixture(scope="module")
def mermaid_js(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Kept in pytest's cache between runs, or fetched for this run when the cache is off.
    cache = getattr(request.config, "cache", None)
    name = f"mermaid-{MERMAID_VERSION}"
    folder = Path(cache.mkdir(name)) if cache is not None else tmp_path_factory.mktemp(name)
    script = folder / "mermaid.min.js"
    if not script.exists():
        fetch_mermaid(name, folder, script)
    return script


def fetch_mermaid(name: str, folder: Path, script: Path) -> None:
    """Mermaid's one-file bundle, taken from its package. ``npm pack`` fetches that one package
    (1 s of CPU); ``npm install`` also fetches and unpacks its 112 dependencies, which the bundle
    already holds (10 s). The bundle is written beside, then moved in whole: a fetch that fails
    half-way never leaves a script that draws nothing. npm keeps its own cache in the staging
    folder, so no state of the machine's ~/.npm (or a HOME another test changed) gets in the way."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed, so Mermaid cannot be fetched")
    staging = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=folder.parent))
    environment = {
        **os.environ,
        "npm_config_cache": str(staging / ".npm-cache"),
        "npm_config_update_notifier": "false",
    }
    try:
        done = subprocess.run(
            [npm, "pack", "--json", "--pack-destination", str(staging), f"mermaid@{MERMAID_VERSION}"],
            capture_output=True,
            text=True,
            timeout=300,
            env=environment,
            stdin=subprocess.DEVNULL,
            cwd=staging,
        )
        if done.returncode != 0:
            pytest.skip(f"Mermaid could not be fetched (npm exit {done.returncode}): {done.stderr[-600:]}")
        package = staging / json.loads(done.stdout)[0]["filename"]
        with tarfile.open(package) as archive:
            bundle = archive.extractfile("package/dist/mermaid.min.js")
            assert bundle is not None, f"{package.name} has no dist/mermaid.min.js"
            (staging / script.name).write_bytes(bundle.read())
        os.replace(staging / script.name, script)
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.skip(f"Mermaid could not be fetched from the npm registry: {exc}")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def report_with_strata(names: list[str]) -> dict[str, Any]:
    strata = {
        name: {"n": 3, "queries": 3, "metrics": {"recall@5": {"value": round(i / len(names), 3), "n": 3}}}
        for i, name in enumerate(names)
    }
    return {
        "config": {"k": [5]},
        "metrics": {"recall@5": {"value": 0.5, "n": 3 * len(names)}},
        "per_stratum": strata,
        "judgments": {"queries": 3 * len(names), "queries_scored": 3 * len(names)},
        "verdict": {"status": "PASS"},
    }


def mermaid_block(markdown: str) -> str:
    found = re.search(r"```mermaid\n(.*?)```", markdown, re.S)
    assert found, "the summary has no Mermaid chart"
    return found.group(1)


LABELS = "#chart svg .left-axis .label text, #chart svg .bottom-axis .label text"
BARS = "#chart svg [class^=bar-plot] rect"
LINES = "#chart svg [class^=line-plot] path"


Box = tuple[str, float, float, float, float]


def draw_all(charts: list[tuple[str, tuple[str, ...]]], mermaid: Path, directory: Path) -> list[list[list[Box]]]:
    """For each (chart, selectors): the boxes, (text, left, top, right, bottom), of what each
    selector picks in the drawn chart.

    Every chart is drawn in one page, one after the other into the same element, so Chromium and
    Mermaid's 3 MB bundle start once for all of them (about 1.2 s each time); each chart is measured
    as soon as it is drawn, in the same place a page of its own would draw it.
    """
    page = directory / "charts.html"
    # In a JSON script element: "<" escaped, so no chart text can close the element.
    cases = json.dumps([[chart, list(selectors)] for chart, selectors in charts]).replace("<", "\\u003c")
    page.write_text(
        f"""<!DOCTYPE html><html><body><script type="application/json" id="charts">{cases}</script>
<div id="chart"></div><pre id="boxes"></pre>
<script src="{mermaid.resolve().as_uri()}"></script>
<script>
mermaid.initialize({{ startOnLoad: false }});
var charts = JSON.parse(document.getElementById("charts").textContent), measured = [];
charts.reduce(function (done, chart, number) {{
  return done.then(function () {{
    return mermaid.render("strata" + number, chart[0]).then(function (drawn) {{
      document.getElementById("chart").innerHTML = drawn.svg;
      measured.push(chart[1].map(function (selector) {{
        return Array.prototype.map.call(document.querySelectorAll(selector), function (t) {{
          var b = t.getBoundingClientRect();
          return [t.textContent, b.left, b.top, b.right, b.bottom];
        }});
      }}));
    }});
  }});
}}, Promise.resolve()).then(function () {{
  document.getElementById("boxes").textContent = JSON.stringify(measured);
}}).catch(function (error) {{ document.getElementById("boxes").textContent = "error: " + error; }});
</script></body></html>""",
        encoding="utf-8",
    )
    # A busy machine can dump the page before Mermaid's promises settle (an empty box list, no
    # error): the page is drawn again, up to three times, before that counts as a failure.
    for _ in range(3):
        dom = dump_dom(page, budget_ms=20_000)
        found = re.search(r'<pre id="boxes">(.*?)</pre>', dom, re.S)
        if not found or found.group(1):
            break
    assert found and found.group(1).startswith("["), f"Mermaid did not draw the charts: {found and found.group(1)}"
    drawn = json.loads(found.group(1))
    assert [len(boxes) for boxes in drawn] == [len(selectors) for _, selectors in charts]
    return [[[tuple(box) for box in boxes] for boxes in chart] for chart in drawn]  # type: ignore[misc]


def overlaps(boxes: list[Box]) -> list[tuple[str, str]]:
    return [
        (a[0], b[0])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]
    ]


STRATA = {
    "30-strata": [f"s{i:02d}" for i in range(30)],  # thirty strata
    "long-names": [f"stratum {i} " + "x" * 24 for i in range(8)],  # names longer than the label limit
    "30-long-names": [f"topic-{i:02d}-long-descriptive-name" for i in range(30)],  # both
}
WITH_BASE = {
    "three": ["billing", "faq", "howto"],
    "30-long-names": [f"topic-{i:02d}-long-descriptive-name" for i in range(30)],
}


def with_base(names: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The strata report and a comparison whose base is 1.0 everywhere: every stratum moved."""
    report = report_with_strata(names)
    strata = {
        name: {"n": 3, "base": 1.0, "head": entry["metrics"]["recall@5"]["value"], "delta": 0.0}
        for name, entry in report["per_stratum"].items()
    }
    return report, {"primary": "recall@5", "metrics": {}, "per_stratum": strata}


def strata_chart(names: list[str]) -> str:
    return mermaid_block(render("summary", report=report_with_strata(names)))


def vertical_chart() -> str:
    """The 30-long-names chart with categories along the bottom, as it was drawn before."""
    chart = strata_chart(STRATA["30-long-names"])
    return re.sub(r"^---\n.*?\n---\n", "", chart, flags=re.S).replace("xychart-beta horizontal", "xychart-beta")


def base_chart(names: list[str]) -> str:
    report, comparison = with_base(names)
    return mermaid_block(render("summary", report=report, comparison=comparison))


@pytest.fixture(scope="module")
def drawn(mermaid_js: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[list[Box]]]:
    """Every chart the tests below measure, drawn in one page (see draw_all)."""
    charts = {f"strata {case}": (strata_chart(names), (LABELS,)) for case, names in STRATA.items()}
    charts["vertical"] = (vertical_chart(), (LABELS,))
    charts.update({f"base {case}": (base_chart(names), (LABELS, BARS, LINES)) for case, names in WITH_BASE.items()})
    return dict(zip(charts, draw_all(list(charts.values()), mermaid_js, tmp_path_factory.mktemp("charts"))))


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("case", list(STRATA))
def test_stratum_labels_never_overlap_in_the_rendered_chart(case: str, drawn: dict[str, list[list[Box]]]) -> None:
    names = STRATA[case]
    (boxes,) = drawn[f"strata {case}"]
    labels = [box for box in boxes if box[0].startswith(("s", "topic"))]
    assert len(labels) == len(names), "every stratum has its label"
    assert all(box[3] > box[1] and box[4] > box[2] for box in labels), "labels have a size"
    assert overlaps(boxes) == []


@pytest.mark.browser
@needs_chromium
def test_the_measure_finds_the_overlap_of_the_old_vertical_chart(drawn: dict[str, list[list[Box]]]) -> None:
    """The same chart with categories along the bottom, as it was drawn before: labels collide."""
    (boxes,) = drawn["vertical"]
    assert overlaps(boxes)


@pytest.mark.browser
@needs_chromium
@pytest.mark.parametrize("case", list(WITH_BASE))
def test_the_base_is_a_bar_of_its_own_per_stratum_not_a_line(case: str, drawn: dict[str, list[list[Box]]]) -> None:
    names = WITH_BASE[case]
    assert "\n    line " not in base_chart(names)
    labels, bars, lines = drawn[f"base {case}"]
    assert overlaps(labels) == []
    assert len(bars) == 2 * len(names), "a base bar and a head bar per stratum"
    assert overlaps(bars) == [], "no bar is drawn over another"
    assert lines == []
    # Base first, then head, in the table's order: the widths follow the values (base 1.0 each).
    widths = [right - left for _, left, _, right, _ in sorted(bars, key=lambda box: box[2])]
    heads = [round(i / len(names), 3) for i in range(len(names))]
    assert all(widths[2 * i] >= widths[2 * i + 1] for i in range(len(names)))
    assert widths[1] < widths[-1] or heads[0] == heads[-1]
