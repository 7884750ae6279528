"""Can this eval set tell retrievers apart? Two warnings, from a lexical floor and the texts.

An eval set whose answers BM25 finds trivially is unbeatable by construction: no dense,
hybrid or reranked retriever can show a gain over a floor at the ceiling. The two
checks (docs/floors.md "Eval-set sensitivity"):

- ``easy-set``: the BM25 floor reaches ``hit_rate@k`` (k the primary cutoff) at or
  above a threshold (0.95 by default) over the whole set, or over a stratum; each is
  named. The cure is distractors: chunks that share the queries' words but do not
  answer them.
- ``answer-in-query``: a query's text contains a long verbatim run of a relevant
  chunk's text: at least ``span`` consecutive words (8 by default) after the
  tokenizer's normalization (lower-case, ``\\w+`` words; no stemming, no stop words),
  which makes the query a lexical lookup.

Pure: the floor's scores and the chunk texts come from the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .precision import DECIMALS
from .scoring import Scores
from .tokenize import words
from .validate import Issue

DEFAULT_EASY_SET = 0.95
DEFAULT_ANSWER_SPAN = 8
SHOWN_WORDS = 12  # of a verbatim run, in a warning


@dataclass(frozen=True)
class Thresholds:
    easy_set: float | None = DEFAULT_EASY_SET  # None: the floor check is off
    answer_span: int | None = DEFAULT_ANSWER_SPAN  # None: the verbatim check is off


def easy_set_issues(floor: Scores, metric: str, threshold: float) -> list[Issue]:
    """The set, and each scored stratum, on which the floor reaches ``threshold`` on ``metric``."""
    issues = []
    overall = floor.metrics.get(metric)
    if overall is not None and round(overall, DECIMALS) >= threshold:
        issues.append(Issue("easy-set", "", _easy("the whole set", metric, overall, len(floor.per_query), threshold)))
    for name, stratum in floor.strata.items():
        value = stratum.metrics.get(metric)
        if stratum.n and value is not None and round(value, DECIMALS) >= threshold:
            issues.append(Issue("easy-set", name, _easy(f"stratum {name}", metric, value, stratum.n, threshold)))
    return issues


def _easy(where: str, metric: str, value: float, n: int, threshold: float) -> str:
    return (
        f"on {where} the BM25 floor reaches {metric} {value:.3f} over {n} queries (>= {threshold:g}): "
        "a set this easy for BM25 cannot tell retrievers apart; add distractors that share the "
        "queries' words without answering them"
    )


def longest_common_run(query: list[str], text: list[str]) -> tuple[int, int]:
    """(length, start in ``query``) of the longest run of words found consecutively in both."""
    best, start = 0, 0
    previous = [0] * (len(text) + 1)
    for i, word in enumerate(query, 1):
        current = [0] * (len(text) + 1)
        for j, other in enumerate(text, 1):
            if word == other:
                current[j] = previous[j - 1] + 1
                if current[j] > best:
                    best, start = current[j], i - current[j]
        previous = current
    return best, start


def answer_in_query_issues(
    queries: Mapping[str, str],
    relevant: Mapping[str, Iterable[str]],
    text_of: Callable[[str], str | None],
    span: int,
) -> list[Issue]:
    """Queries whose text holds ``span`` or more consecutive words of a relevant key's text."""
    issues = []
    for query_id, text in queries.items():
        query_words = words(text)
        if len(query_words) < span:
            continue
        for key in sorted(relevant.get(query_id, ())):
            chunk = text_of(key)
            if not chunk:
                continue
            length, start = longest_common_run(query_words, words(chunk))
            if length >= span:
                shown = " ".join(query_words[start : start + min(length, SHOWN_WORDS)])
                more = " …" if length > SHOWN_WORDS else ""
                issues.append(
                    Issue(
                        "answer-in-query",
                        query_id,
                        f"query {query_id} repeats {length} consecutive words of its relevant {key} "
                        f'("{shown}{more}"); a query that quotes its answer is a lexical lookup',
                    )
                )
                break
    return issues
