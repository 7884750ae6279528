"""How the corpus moved away from what the labels (and the base branch) were made against.

Apart from :mod:`.drift` so that ``score`` without a corpus loads neither it nor the corpus model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def corpus_changes(labeled: str | None, corpus: Mapping[str, Any], base_corpus: Mapping[str, Any]) -> list[str]:
    """How the corpus moved away from what the labels (and the base branch) were made against.

    ``labeled`` is the judgments' fingerprint, ``corpus`` this run's corpus description and
    ``base_corpus`` the base report's (which a pull request may have damaged: anything but a
    string there is no fingerprint).
    """
    changes = []
    now = corpus.get("fingerprint")
    if isinstance(labeled, str) and isinstance(now, str) and labeled and now and labeled != now:
        changes.append(f"the judgments were labeled against corpus {labeled}, the corpus is now {now}")
    for key, what in (("fingerprint", "corpus"), ("chunker_fingerprint", "chunker")):
        before, here = base_corpus.get(key), corpus.get(key)
        if isinstance(before, str) and isinstance(here, str) and before and here and before != here:
            changes.append(f"the {what} changed since the base branch ({before} there, {here} here)")
    return changes
