"""The context compiled effects run in.

A :class:`Frame` holds the game and the variables of one running effect:
``me`` (whose effect it is), ``event`` (in a trigger), ``card``, ``target``
and ``use`` (in a card's effect), and whatever the effect binds with ``let``,
``as`` or statements such as ``judge``. Compiled expressions read
``frame.vars``; compiled statements are generators over a frame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game


class Frame:
    __slots__ = ("game", "vars")

    def __init__(self, game: "Game", variables: dict[str, Any]) -> None:
        self.game = game
        self.vars = variables

    def __getitem__(self, name: str) -> Any:
        return self.vars[name]

    def with_vars(self, **extra: Any) -> "Frame":
        merged = dict(self.vars)
        merged.update(extra)
        return Frame(self.game, merged)


class FramePool:
    """Frames for one kind of question asked again and again (a target's filter, a trigger's condition),
    reused rather than made anew each time: a frame and its variables' dictionary cost more to make than
    to fill, and an expression keeps nothing of the frame it ran in.

    :meth:`take` gives a frame whose variables are what its last user left there: the asker sets every
    variable the expression may read (the same names each time, so the dictionary is filled in place);
    :meth:`give` puts it back once the expression has returned. A frame that is not given back (the
    expression raised) is dropped; one taken while another is out (the same question asked inside the
    expression) is a new one.

    >>> pool = FramePool(None)
    >>> f = pool.take(); f.vars["me"] = 1
    >>> pool.give(f)
    >>> pool.take() is f
    True
    """

    __slots__ = ("game", "free")

    def __init__(self, game: "Game") -> None:
        self.game = game
        self.free: list[Frame] = []

    def take(self) -> Frame:
        free = self.free
        return free.pop() if free else Frame(self.game, {})

    def give(self, frame: Frame) -> None:
        self.free.append(frame)


class StopEffect(Exception):
    """``stop``: end the running effect."""


class BreakLoop(Exception):
    """``break``: leave the innermost ``repeat`` or ``for each``."""


class GameOver(Exception):
    """Raised through the stack when a victory condition holds."""

    def __init__(self, winners: list[Any], reason: str) -> None:
        super().__init__(reason)
        self.winners = winners
        self.reason = reason
