"""Draws from a seeded :class:`random.Random`, made as the standard library makes them.

The bots and the game draw their chance from ``random.Random`` generators seeded from
the game's seed. :func:`below`, :func:`randint`, :func:`choice`, :func:`shuffle` and
:func:`sample` take the same bits from the generator, in the same order, as the methods
of the same names in Python 3.11 and 3.12, and give the same results; they are written
here so that they are compiled with the rest of the runtime (``SGS_COMPILE=1``), where
the standard library's are interpreted, and so that a game's chance does not hang on
how a later Python chooses to draw.

>>> import random
>>> a, b = random.Random(7), random.Random(7)
>>> [below(a, 10) for _ in range(5)] == [b.randrange(10) for _ in range(5)]
True
>>> sample(a, list("abcdefgh"), 3) == b.sample(list("abcdefgh"), 3)
True
>>> xs, ys = list(range(9)), list(range(9))
>>> shuffle(a, xs); b.shuffle(ys); xs == ys
True
>>> choice(a, [])
Traceback (most recent call last):
...
IndexError: Cannot choose from an empty sequence
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")


def below(rng: random.Random, n: int) -> int:
    """A number in ``range(n)``, ``n`` above 0 (``rng.randrange(n)``)."""
    if n <= 0:
        raise ValueError("empty range for randrange()")
    k = n.bit_length()  # (as _below, with the method called where it is: no bound method made each time)
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def _below(bits: Callable[[int], int], n: int) -> int:
    """:func:`below` with the generator's ``getrandbits`` at hand (looked up once for a whole shuffle: a
    shuffle drawing through :func:`below`, a call by name at each draw, counted 0.4% more instructions a
    game; one draw alone is cheaper by name than through a bound method made for it)."""
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def randint(rng: random.Random, a: int, b: int) -> int:
    """A number from ``a`` to ``b``, both included (``rng.randint(a, b)``)."""
    width = b + 1 - a
    if width <= 0:
        raise ValueError(f"empty range for randrange() ({a}, {b + 1}, {width})")
    return a + below(rng, width)


def choice(rng: random.Random, seq: Sequence[T]) -> T:
    """One item of a sequence that is not empty (``rng.choice(seq)``)."""
    n = len(seq)
    if not n:
        raise IndexError("Cannot choose from an empty sequence")
    return seq[below(rng, n)]


def shuffle(rng: random.Random, x: list[Any]) -> None:
    """Shuffle a list in place (``rng.shuffle(x)``)."""
    bits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        j = _below(bits, i + 1)
        x[i], x[j] = x[j], x[i]


def sample(rng: random.Random, population: Sequence[T], k: int) -> list[T]:
    """``k`` different items of a sequence, in the order drawn (``rng.sample(population, k)``)."""
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    setsize = 21  # (the standard library's choice between its two ways, kept for the same draws)
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    result: list[T] = []
    if n <= setsize:
        pool = list(population)
        for i in range(k):
            j = below(rng, n - i)
            result.append(pool[j])
            pool[j] = pool[n - i - 1]
    else:
        selected: set[int] = set()
        for _ in range(k):
            j = below(rng, n)
            while j in selected:
                j = below(rng, n)
            selected.add(j)
            result.append(population[j])
    return result
