"""How the corpus moved away from what the labels (and the base branch) were made against.

Apart from :mod:`.drift` so that ``score`` without a corpus loads neither it nor the corpus model.
"""

from __future__ import annotations

from .report_model import CorpusInfo


def corpus_changes(labeled: str | None, corpus: CorpusInfo, base_corpus: CorpusInfo | None) -> list[str]:
    """How the corpus moved away from what the labels (and the base branch) were made against.

    ``labeled`` is the judgments' fingerprint, ``corpus`` this run's corpus section and
    ``base_corpus`` the base report's (None without a base, or when it records none).
    """
    changes = []
    now = corpus.fingerprint
    if labeled and now and labeled != now:
        changes.append(f"the judgments were labeled against corpus {labeled}, the corpus is now {now}")
    base = base_corpus or CorpusInfo()
    for key, what in (("fingerprint", "corpus"), ("chunker_fingerprint", "chunker")):
        before, here = getattr(base, key), getattr(corpus, key)
        if before and here and before != here:
            changes.append(f"the {what} changed since the base branch ({before} there, {here} here)")
    return changes
