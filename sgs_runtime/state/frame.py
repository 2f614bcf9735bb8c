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
