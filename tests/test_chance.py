"""The runtime's draws (sgs_runtime.state.chance) take the same bits as the standard library's."""

from __future__ import annotations

import doctest
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sgs_runtime.state import chance


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(1, 5000), lo=st.integers(-50, 50), width=st.integers(0, 300))
def test_numbers_as_the_standard_library(seed: int, n: int, lo: int, width: int) -> None:
    a, b = random.Random(seed), random.Random(seed)
    assert [chance.below(a, n) for _ in range(8)] == [b.randrange(n) for _ in range(8)]
    assert chance.randint(a, lo, lo + width) == b.randint(lo, lo + width)
    assert a.getstate() == b.getstate()


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), items=st.lists(st.integers(), max_size=120), data=st.data())
def test_lists_as_the_standard_library(seed: int, items: list[int], data: st.DataObject) -> None:
    a, b = random.Random(seed), random.Random(seed)
    k = data.draw(st.integers(0, len(items)))
    assert chance.sample(a, items, k) == b.sample(items, k)  # (both ways: a small and a large population)
    xs, ys = list(items), list(items)
    chance.shuffle(a, xs)
    b.shuffle(ys)
    assert xs == ys
    if items:
        assert chance.choice(a, items) == b.choice(items)
    assert a.getstate() == b.getstate()


def test_empty_ranges_are_refused_as_by_the_standard_library() -> None:
    rng = random.Random(1)
    for call in (lambda: chance.below(rng, 0), lambda: chance.randint(rng, 3, 2), lambda: chance.sample(rng, [1], 2)):
        try:
            call()
        except ValueError:
            continue
        raise AssertionError("an empty range was drawn from")


def test_the_examples() -> None:
    assert doctest.testmod(chance).failed == 0
