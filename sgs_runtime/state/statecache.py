"""Answers that only change with the state, remembered for one state version (or one skill epoch).

The game's *state version* (``Game.version``) moves on with every change that a
question about the state could notice: every log record (a card moved, HP changed,
a skill was invoked ...) and every change no record tells of (:meth:`Game.touch`:
a mark, a use counter, the phase). Between two changes, the same question has the
same answer, so pure questions asked again and again while a decision is listed,
checked by the agent, checked by the game and carried out — a quantity such as a
distance or an attack range, whether a player is a legal target of a card — are
computed once.

An entry keeps the objects its key names by ``id`` (a virtual card made for one
check), so an ``id`` cannot be reused while its entry lives; players and cards, which
compare by identity, may stand in a key themselves (the key then keeps them). With
``Game.check_caches`` (``SGS_CHECK_CACHES=1`` or ``sgs simulate --check``) every
remembered answer is computed again and compared, which proves the versioning right
over whole games.

Some answers change with even less: a distance or an attack range changes only with the
players' skill sets, whose every change (equipment, a death, a skill gained or lost) moves the
*skill epoch* on (``Game.epoch``); those are remembered for the epoch, in a cache of their own,
and checked the same way (``epoch=True``; quantities.py says which answers are of that kind).

>>> cache = StateCache()
>>> cache.get(0, ("distance", 1, 2)) is None
True
>>> cache.put(0, ("distance", 1, 2), 3, ())
>>> cache.get(0, ("distance", 1, 2))
(3, ())
>>> cache.get(1, ("distance", 1, 2)) is None  # the state changed
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from sgs_runtime.errors import GameError

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game


class StateCache:
    """One state version's remembered answers, keyed by the question."""

    __slots__ = ("version", "entries", "kinds")

    def __init__(self) -> None:
        self.version = -1
        self.entries: dict[tuple[Any, ...], tuple[Any, Sequence[Any]]] = {}
        #: a word about a whole kind of question, for the same version: by a quantity's name
        #: (quantities.epoch_stable), by the set of quantities an expression asks (quantities.reads_stable)
        self.kinds: dict[Any, bool] = {}

    def at(self, version: int) -> dict[tuple[Any, ...], tuple[Any, Sequence[Any]]]:
        """The entries made at ``version`` (everything older is dropped when the version moved on)."""
        if self.version != version:
            self.entries.clear()
            self.kinds.clear()
            self.version = version
        return self.entries

    def get(self, version: int, key: tuple[Any, ...]) -> Optional[tuple[Any, Sequence[Any]]]:
        """The entry for ``key`` if it was made at ``version``, else None."""
        return self.at(version).get(key)

    def put(self, version: int, key: tuple[Any, ...], value: Any, keep: Sequence[Any]) -> None:
        """Remember ``value`` for ``key`` at ``version``; ``keep`` holds the objects the key names by id."""
        self.at(version)[key] = (value, keep)


def recall(g: "Game", key: tuple[Any, ...], epoch: bool = False) -> Optional[tuple[Any, Sequence[Any]]]:
    """The entry remembered under ``key`` at the present state version, or None (always None with
    ``g.check_caches``, so that the answer is computed again and :func:`remember` compares it).

    ``epoch``: an answer that changes only with the players' skill sets, remembered for the present
    skill epoch (``Game.epoch``) in ``g.epoch_cache`` instead (quantities.py says which are).

    The questions asked most (quantities, legal targets) ask it before they build the arguments of a
    computation; on a miss they compute, then :func:`remember` the answer."""
    if g.check_caches:
        return None
    if epoch:
        return g.epoch_cache.at(g.epoch).get(key)
    return g.state_cache.at(g.version).get(key)


def remember(g: "Game", version: int, key: tuple[Any, ...], value: Any, keep: Sequence[Any],
             epoch: bool = False) -> None:
    """Keep ``value``, an answer computed at state ``version``, under ``key`` for that version.

    ``keep``: the objects ``key`` names by id (kept alive with the entry). An answer whose computing
    moved the version on is not kept (pure questions never do). With ``g.check_caches`` an answer
    already kept under ``key`` must be the same as ``value`` (for an epoch's answer: one computed at
    any version of the epoch, which proves that it changes only with the skill sets). ``epoch``: the
    answer was computed at skill epoch ``version`` and is kept for it (:func:`recall`).

    >>> from types import SimpleNamespace
    >>> g = SimpleNamespace(version=0, check_caches=False, state_cache=StateCache())
    >>> remember(g, 0, ("twice", 2), 4, ())
    >>> recall(g, ("twice", 2))
    (4, ())
    >>> g.version = 1  # the state changed
    >>> recall(g, ("twice", 2)) is None
    True
    """
    if (g.epoch if epoch else g.version) != version:
        return
    entries = (g.epoch_cache if epoch else g.state_cache).at(version)
    if g.check_caches:
        hit = entries.get(key)
        if hit is not None:
            _verify(key, keep, hit[0], value)
            return
    entries[key] = (value, keep)


def _verify(key: tuple[Any, ...], keep: Sequence[Any], remembered: Any, fresh: Any) -> None:
    """Raise when a remembered answer differs from one computed now (the cache check)."""
    if fresh != remembered:
        # (what the key names by identity, then what it names by id)
        shown = ", ".join(_shown(a) for a in [*(a for a in key[1:] if not isinstance(a, int)), *keep])
        raise GameError(f"cache check: {key[0]}({shown}) was remembered as {remembered!r} but is {fresh!r} now: "
                        "a change of the state did not move the state version on (Game.touch)")


def _shown(value: Any) -> str:
    name = getattr(value, "name", None)
    if isinstance(name, str):
        return name
    label = getattr(value, "label", None)
    return str(label()) if callable(label) else type(value).__name__
