"""A judge command for the tests: the JSONL protocol on stdin/stdout, answers from a hidden truth.

argv: truth.json noise leniency seed [mode]; mode ``junk`` also prints lines no reader can
use (not JSON, unknown ids), ``text`` answers with raw replies ({"text": ...}).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fake_judge import Behaviour, planted  # noqa: E402


def main() -> None:
    truth = json.loads(Path(sys.argv[1]).read_text())
    behaviour = Behaviour(float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]))
    mode = sys.argv[5] if len(sys.argv) > 5 else ""
    for line in sys.stdin:
        request = json.loads(line)
        answers: list[object] = []
        for text in request["passages"]:
            answer = planted(truth, text, request["sample"], behaviour)
            if answer == "garbage":
                answers.append({"grade": "high"})
            elif mode == "text" and isinstance(answer, int):
                answers.append({"text": f"##final score: {answer}"})
            else:
                answers.append(answer)
        if mode == "junk":
            print("not json at all")
            print(json.dumps({"id": "nobody", "answers": [3]}))
        print(json.dumps({"id": request["id"], "answers": answers, "tokens": 7 * len(answers)}))


if __name__ == "__main__":
    main()
