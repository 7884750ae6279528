"""The numpy path draws the very resamples of the pure-Python path: equal sums, bit for bit."""

from __future__ import annotations

import random

import pytest

from retrieval_eval.core.significance import paired_bootstrap, resample_sums

np = pytest.importorskip("numpy")
fastdraws = pytest.importorskip("retrieval_eval.core.fastdraws")


def columns(n: int, changed: int, count: int, *, seed: int, largest: int = 10**12) -> list[list[int]]:
    """``count`` columns of ``n`` values, ``changed`` queries non-zero somewhere, the rest zero."""
    rng = random.Random(seed)
    moved = set(rng.sample(range(n), changed))
    drawn = [[rng.randint(-largest, largest) if i in moved else 0 for i in range(n)] for _ in range(count)]
    return drawn + [list(drawn[0])]  # a repeated column, resampled once


@pytest.mark.parametrize(
    ("n", "changed", "resamples"),
    [
        (1, 1, 7),  # one query: every resample draws it
        (2, 1, 600),  # binomial path, blocks of 250 and a partial one
        (3, 3, 251),  # odd table calls (a high half only) on every resample
        (40, 3, 1_000),  # few changed: the binomial's inversion
        (500, 300, 300),  # many changed: the binomial's rejection (BTRS)
        (1_000, 1_000, 251),
        (4_097, 4_097, 60),  # a modulus whose table rejects more than half the 16-bit numbers
        (65_536, 65_536, 3),  # the largest table
    ],
)
@pytest.mark.parametrize("seed", [0, 7, 20_240_601])
def test_numpy_draws_equal_the_pure_python_draws(n: int, changed: int, resamples: int, seed: int) -> None:
    data = columns(n, changed, 2, seed=seed + n)
    pure = resample_sums(data, resamples=resamples, seed=seed, use_numpy=False)
    assert resample_sums(data, resamples=resamples, seed=seed) == pure


def test_sets_beyond_the_table_take_the_general_drawer_with_equal_draws() -> None:
    data = columns(70_000, 69_000, 1, seed=3)
    for seed in (1, 2):
        assert resample_sums(data, resamples=2, seed=seed) == resample_sums(
            data, resamples=2, seed=seed, use_numpy=False
        )


@pytest.mark.slow
def test_many_seeds_and_sizes_agree() -> None:
    rng = random.Random(11)
    for case in range(60):
        n = rng.randint(1, 3_000)
        data = columns(n, rng.randint(1, n), rng.randint(1, 4), seed=case, largest=rng.choice((1, 10**6, 10**12)))
        resamples, seed = rng.randint(1, 600), rng.randrange(2**32)
        assert resample_sums(data, resamples=resamples, seed=seed) == resample_sums(
            data, resamples=resamples, seed=seed, use_numpy=False
        ), (case, n, resamples, seed)


def test_the_word_stream_is_the_generators_own_stream() -> None:
    rng = random.Random("20240601:3")
    stream = fastdraws.WordStream(random.Random("20240601:3"), fastdraws.Picks(10), 8)
    assert [int(w) for w in stream.words[:4]] == [rng.getrandbits(32) for _ in range(4)]
    stream.position = 4
    assert stream.random() == rng.random()


def test_sums_too_large_for_exact_floats_go_to_the_pure_path() -> None:
    assert fastdraws.fits([[10**12, -(10**12)]], 10_000)
    assert not fastdraws.fits([[1 << 60]], 10)
    huge = [[1 << 70, 0, -(1 << 69)]]
    assert resample_sums(huge, resamples=300, seed=1) == resample_sums(huge, resamples=300, seed=1, use_numpy=False)


def test_intervals_and_p_values_are_identical_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    base = {f"q{i}": {"m": rng.random(), "n": rng.random()} for i in range(2_000)}
    head = {q: {k: (v + rng.choice((0.0, 0.0, 0.1, -0.1))) for k, v in row.items()} for q, row in base.items()}
    fast = paired_bootstrap(base, head, ["m", "n"], resamples=2_000, seed=3)
    monkeypatch.setattr("retrieval_eval.core.significance._numpy_draws", lambda: None)
    assert paired_bootstrap(base, head, ["m", "n"], resamples=2_000, seed=3) == fast


def test_blocks_shared_with_forked_workers_give_the_same_sums(monkeypatch: pytest.MonkeyPatch) -> None:
    from retrieval_eval.core import significance
    from retrieval_eval.pipeline.forking import shared_map

    data = columns(3_000, 2_000, 3, seed=12)
    pure = resample_sums(data, resamples=1_000, seed=5, use_numpy=False)
    monkeypatch.setattr(significance, "SHARE_FROM", 0)
    seen = []

    def counted(function, items):  # type: ignore[no-untyped-def]
        seen.append(len(items))
        return shared_map(2)(function, items)

    assert resample_sums(data, resamples=1_000, seed=5, map_blocks=counted) == pure
    assert seen == [4], "the numpy path should draw its blocks through the map given"
