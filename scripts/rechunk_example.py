"""Write the files of docs/rechunk.md's walkthrough into examples/rechunk/ (or check them).

They come from the test suite's re-chunk scenario (tests/rechunk_scenarios.py): a help centre
chunked by paragraphs on the base branch and by sentences in the pull request, a head run that
is worse, and two labels without a quote (they come out SPLIT, for a person to re-judge).

    python scripts/rechunk_example.py           # write the files
    python scripts/rechunk_example.py --check   # exit 1 when the shipped files differ
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from rechunk_scenarios import make_scenario  # noqa: E402  (tests/ is not a package)

FOLDER = ROOT / "examples" / "rechunk"
NAMES = ("corpus.v1.json", "corpus.v2.json", "run.v1.jsonl", "run.v2.jsonl", "judgments.jsonl")


def write(where: Path) -> None:
    files = make_scenario("sentences", "worse").write(where)
    labels = [json.loads(line) for line in files.judgments.read_text(encoding="utf-8").splitlines()]
    for label in labels[:2]:  # two labels keep only their paragraph: nothing can tell which sentence answers
        del label["quote"]
    files.judgments.write_text("".join(json.dumps(label) + "\n" for label in labels), encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv[1:] == ["--check"]:
        with tempfile.TemporaryDirectory() as made:
            write(Path(made))
            stale = [n for n in NAMES if (Path(made) / n).read_bytes() != (FOLDER / n).read_bytes()]
        print("stale: " + ", ".join(stale) if stale else "examples/rechunk/ is up to date")
        return 1 if stale else 0
    write(FOLDER)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
