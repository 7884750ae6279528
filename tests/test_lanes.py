"""The floor lanes against hand computations of their documented formulas, and against bm25s itself."""

from __future__ import annotations

import math
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrieval_eval.core.tokenize import ENGLISH_STOP_WORDS, TermIds, Tokenizer, TokenizerSpec, words

np = pytest.importorskip("numpy")
bm25s = pytest.importorskip("bm25s")
pytest.importorskip("scipy")
pytest.importorskip("Stemmer")

from retrieval_eval.lanes import english_stemmer  # noqa: E402
from retrieval_eval.lanes.bm25 import BM25Lane, BM25Params  # noqa: E402
from retrieval_eval.lanes.tfidf import TfidfLane  # noqa: E402
from retrieval_eval.lanes.topk import top_indices  # noqa: E402

# Three keys: 3, 6 and 3 words long, so avgdl = 12 / 3 = 4.
TEXTS = ["The cat sat.", "the dog sat on THE mat", "cats and dogs"]
PLAIN = TokenizerSpec()  # no stemming, no stop words


def index(texts: list[str], spec: TokenizerSpec = PLAIN) -> tuple[TermIds, list[list[int]]]:
    term_ids = TermIds(Tokenizer(spec, english_stemmer() if spec.stem else None))
    return term_ids, [term_ids.document(text) for text in texts]


# -- tokenizer ---------------------------------------------------------------------------


def test_tokenizer_lowercases_splits_on_non_word_characters_and_keeps_repeats() -> None:
    assert words("The cat's MAT, the_end 42!") == ["the", "cat", "s", "mat", "the_end", "42"]
    assert words("Ärger über Straße — naïve 東京") == ["ärger", "über", "straße", "naïve", "東京"]


def test_stop_words_are_lucenes_classic_english_set_and_stemming_is_snowball_english() -> None:
    assert len(ENGLISH_STOP_WORDS) == 33 and {"the", "on", "with"} <= ENGLISH_STOP_WORDS
    tokenizer = Tokenizer(TokenizerSpec(stem=True, stopwords="english"), english_stemmer())
    assert tokenizer.tokens("The cats were running on the mats") == ["cat", "were", "run", "mat"]
    assert Tokenizer(TokenizerSpec()).tokens("The cats") == ["the", "cats"]


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_the_ascii_shortcut_finds_what_the_regular_expression_finds(text: str) -> None:
    assert words(text) == re.findall(r"\w+", text.lower())


@given(st.text())
def test_any_text_splits_as_the_regular_expression_does(text: str) -> None:
    assert words(text) == re.findall(r"\w+", text.lower())


def test_query_terms_map_to_collection_ids_and_unknown_terms_drop_out() -> None:
    term_ids, documents = index(TEXTS)
    assert documents[0] == [0, 1, 2]  # the, cat, sat: ids in order of first appearance
    assert term_ids.query("sat SAT zebra cat") == [2, 2, 1]
    assert term_ids.vocabulary["mat"] == 5


# -- BM25 --------------------------------------------------------------------------------


def test_bm25_scores_equal_the_lucene_formula_by_hand() -> None:
    term_ids, documents = index(TEXTS)
    scores = BM25Lane(documents, term_ids.vocabulary, BM25Params()).scores(term_ids.query("cat sat"))
    # N = 3, avgdl = 4, k1 = 1.5, b = 0.75; idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
    idf_cat = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))  # df(cat) = 1: ln(8/3) = 0.98083
    idf_sat = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # df(sat) = 2: ln(1.6) = 0.47000
    # key 0: tf 1 each, |d| = 3: tf / (tf + 1.5 * (0.25 + 0.75 * 3/4)) = 1 / 2.21875
    # key 1: sat once, |d| = 6: 1 / (1 + 1.5 * (0.25 + 0.75 * 6/4)) = 1 / 3.0625
    # key 2: "cats" is not "cat" without stemming: 0
    assert scores.tolist() == pytest.approx([(idf_cat + idf_sat) / 2.21875, idf_sat / 3.0625, 0.0], rel=1e-6)
    assert scores[0] == pytest.approx(0.653896, abs=1e-6) and scores[1] == pytest.approx(0.153471, abs=1e-6)


def test_bm25_parameters_and_repeated_query_terms() -> None:
    term_ids, documents = index(TEXTS)
    lane = BM25Lane(documents, term_ids.vocabulary, BM25Params(k1=1.2, b=0.0))
    idf_sat = math.log(1.6)
    # b = 0: no length normalisation, tf / (tf + k1) = 1 / 2.2 for both keys holding "sat" once;
    # the query names "sat" twice, so it counts twice.
    assert lane.scores(term_ids.query("sat sat")).tolist() == pytest.approx([2 * idf_sat / 2.2] * 2 + [0], rel=1e-6)


def random_collection(seed: int) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    vocabulary = [f"w{n}" for n in range(300)]
    weights = [1 / (rank + 1) for rank in range(300)]
    texts = [" ".join(rng.choices(vocabulary, weights, k=rng.randint(5, 40))) for _ in range(500)]
    queries = [" ".join(rng.choices(vocabulary, weights, k=rng.randint(1, 6))) for _ in range(40)]
    return texts, queries


@pytest.mark.parametrize(
    ("spec", "params"),
    [(TokenizerSpec(), BM25Params()), (TokenizerSpec(stem=True, stopwords="english"), BM25Params(k1=0.9, b=0.4))],
)
def test_top_10_is_bm25s_own_retrieval(spec: TokenizerSpec, params: BM25Params) -> None:
    texts, queries = random_collection(7)
    term_ids, documents = index(texts, spec)
    ours = BM25Lane(documents, term_ids.vocabulary, params)
    # bm25s on its own: our tokens as strings, its own vocabulary and its own top-k.
    tokenizer = Tokenizer(spec, english_stemmer() if spec.stem else None)
    reference = bm25s.BM25(k1=params.k1, b=params.b, method="lucene")
    reference.index([tokenizer.tokens(text) for text in texts], show_progress=False)
    compared = 0
    for query in queries:
        tokens = tokenizer.tokens(query)
        ids, scores = reference.retrieve([tokens], k=11, show_progress=False)
        theirs, their_scores = ids[0].tolist(), scores[0].tolist()
        mine = top_indices(ours.scores(term_ids.query(query)), 10, ours.decimals)
        assert [round(s, 4) for s in ours.scores(term_ids.query(query))[mine].tolist()] == [
            round(s, 4) for s in their_scores[: len(mine)]
        ]
        distinct = [round(s, 4) for s in their_scores]
        if len(set(distinct)) == 11 and their_scores[9] > 0:  # no tie bm25s could order its own way
            assert mine == theirs[:10]
            compared += 1
    assert compared >= 30


# -- TF-IDF ------------------------------------------------------------------------------


def test_tfidf_cosine_equals_the_formula_by_hand() -> None:
    term_ids, documents = index(TEXTS)
    scores = TfidfLane(documents, len(term_ids.vocabulary)).scores(term_ids.query("cat sat"))
    # idf(t) = ln((1 + N) / (1 + df)) + 1 with N = 3: df 1 -> ln 2 + 1, df 2 -> ln(4/3) + 1
    one, two = math.log(2) + 1, math.log(4 / 3) + 1
    # key 0 = the(df 2) cat(df 1) sat(df 2); key 1 = the x2, dog, sat, on, mat
    norm0 = math.sqrt(two**2 + one**2 + two**2)
    norm1 = math.sqrt((2 * two) ** 2 + one**2 + two**2 + one**2 + one**2)
    query_norm = math.sqrt(one**2 + two**2)  # cat, sat once each
    expected = [(one * one + two * two) / (norm0 * query_norm), (two * two) / (norm1 * query_norm), 0.0]
    assert scores.tolist() == pytest.approx(expected, rel=1e-12)
    assert expected[0] == pytest.approx(0.855468, abs=1e-6) and expected[1] == pytest.approx(0.189665, abs=1e-6)


def test_tfidf_query_weights_count_repeats() -> None:
    term_ids, documents = index(TEXTS)
    lane = TfidfLane(documents, len(term_ids.vocabulary))
    one, two = math.log(2) + 1, math.log(4 / 3) + 1
    # "cat cat sat": the query vector is (2 * idf(cat), idf(sat)) before normalisation
    weights = [2 * one, two]
    norm0 = math.sqrt(2 * two**2 + one**2)
    expected = (2 * one * one + two * two) / (norm0 * math.sqrt(sum(w * w for w in weights)))
    assert lane.scores(term_ids.query("cat cat sat"))[0] == pytest.approx(expected, rel=1e-12)


# -- top of the scores --------------------------------------------------------------------


def test_top_orders_by_rounded_score_then_index_and_drops_zeros() -> None:
    scores = np.array([0.5, 0.0, 0.70000001, 0.7, 0.2, 0.7, 0.0], dtype=np.float64)
    assert top_indices(scores, 10, 4) == [2, 3, 5, 0, 4]  # 0.70000001 rounds to 0.7: a tie, index order
    assert top_indices(scores, 2, 4) == [2, 3]
    assert top_indices(scores, 2, 9) == [2, 3]
    assert top_indices(np.zeros(5), 3, 4) == []


def test_top_matches_a_full_sort_on_random_scores_with_many_ties() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        scores = rng.integers(0, 20, size=300).astype(np.float32) / 7
        depth = int(rng.integers(1, 60))
        expected = sorted((i for i in range(300) if scores[i] > 0), key=lambda i: (-round(float(scores[i]), 4), i))
        assert top_indices(scores, depth, 4) == expected[:depth]
