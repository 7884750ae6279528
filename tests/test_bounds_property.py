"""Upper bounds as properties: never below the value; never rising as labels are added.

A label given at grade 0 or at the threshold grade is one of the labelings the bound
ranges over, so adding it can only narrow what is possible. Labels at other grades
are outside that range (a higher grade can lift nDCG further) and are not drawn here.
judged@k, bpref and R-precision are not bounded (their bound is their value, see
core/metrics.py): a new label moves them either way.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval_eval.core.judgments import JudgmentSet, judgment_from_record
from retrieval_eval.core.labelindex import LabelIndex
from retrieval_eval.core.precision import DECIMALS
from retrieval_eval.core.scoring import ScoreConfig, score_rankings

KEYS = [f"d{i}" for i in range(12)]
SLACK = 10.0**-DECIMALS  # values and bounds are rounded to DECIMALS


def scores(
    grades: dict[str, int], ranking: list[str], config: ScoreConfig
) -> tuple[dict[str, float], dict[str, float]]:
    records = [{"query_id": "q", "doc_uri": key, "relevance": grade} for key, grade in grades.items()]
    index = LabelIndex.from_judgments(JudgmentSet(tuple(judgment_from_record(r, i + 1) for i, r in enumerate(records))))
    result = score_rankings(index, {"q": ranking}, config)
    values = result.per_query["q"]
    return values, {**values, **result.per_query_upper.get("q", {})}  # a metric without a bound: its value


cases = st.fixed_dictionaries(
    {
        "grades": st.dictionaries(st.sampled_from(KEYS), st.integers(0, 3), min_size=1),
        "ranking": st.lists(st.sampled_from(KEYS), unique=True, max_size=10),
        "threshold": st.integers(1, 2),
        "gain": st.sampled_from(["exponential", "linear"]),
        "new": st.lists(st.booleans(), min_size=12, max_size=12),
    }
)


@settings(max_examples=300, deadline=None)
@given(cases)
def test_value_is_at_most_upper_and_labels_only_lower_the_upper(case: dict) -> None:  # type: ignore[type-arg]
    grades, ranking = case["grades"], case["ranking"]
    threshold = case["threshold"]
    if not any(grade >= threshold for grade in grades.values()):
        grades = {**grades, KEYS[-1]: threshold}
    config = ScoreConfig(k=(1, 3, 5), threshold=threshold, gain=case["gain"])
    values, upper = scores(grades, ranking, config)
    assert all(values[m] <= upper[m] + SLACK for m in values)
    # Label every unjudged key of the ranking, each at grade 0 or at the threshold.
    labeled = dict(grades)
    for key, relevant in zip(ranking, case["new"]):
        labeled.setdefault(key, threshold if relevant else 0)
    after, after_upper = scores(labeled, ranking, config)
    assert after_upper == after  # nothing unjudged is left
    bounded = [m for m in upper if not m.startswith(("judged@", "bpref", "r_precision"))]
    assert all(after_upper[m] <= upper[m] + SLACK for m in bounded)
    # Metrics that do not divide by R never fall when labels are added (recall@k does, when a
    # key below the cutoff turns out relevant).
    assert all(after[m] + SLACK >= values[m] for m in ("precision@5", "mrr@5", "hit_rate@5"))
