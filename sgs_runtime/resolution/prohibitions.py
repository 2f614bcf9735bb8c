"""What a player may not do: the one check for every prohibition.

Two kinds of prohibition bind a player:

* a skill's static ``forbid:`` entry (空城: cannot be targeted by Slash or Duel;
  a ``use`` prohibition binds the skill's owner);
* a :class:`Ban` placed by an effect, on any player, for a duration:
  ``forbid source use, play, discard cards where it.type == t until turn_end``
  (鸡肋). It ends with its turn, phase or round, or lasts for good.

The actions are ``use`` (使用), ``play`` (打出), ``discard`` (弃置) and
``target`` (being chosen as a card's target). Every place that lists or checks
those actions asks :func:`forbidden`.

>>> Ban(frozenset({"use"}), None, None, "turn", None).until
'turn'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Optional

from sgs_runtime.state.frame import Frame

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.model import AnyCard, Player

ACTIONS: Final = ("use", "play", "discard", "target")


class Ban:
    """A prohibition placed on a player by an effect."""

    __slots__ = ("actions", "condition", "frame", "until", "by")

    def __init__(self, actions: frozenset[str], condition: Any, frame: Optional[Frame], until: Optional[str],
                 by: Optional["Player"]) -> None:
        self.actions = actions
        self.condition = condition  # sees the placing effect's variables, ``it`` (the card) and ``user``
        self.frame = frame
        self.until = until  # turn / phase / round, or None: for good
        self.by = by

    def holds(self, card: Optional["AnyCard"], user: Optional["Player"]) -> bool:
        if self.condition is None:
            return True
        if card is None or self.frame is None:
            return False
        return bool(self.condition(self.frame.with_vars(it=card, user=user)))

    def __repr__(self) -> str:
        return f"<ban {'/'.join(sorted(self.actions))} until {self.until or 'ever'}>"


def forbidden(g: "Game", player: "Player", action: str, card: Optional["AnyCard"],
              user: Optional["Player"] = None) -> bool:
    """Whether ``player`` may not do ``action`` with ``card`` (for ``target``: be targeted by ``user``'s card)."""
    for ban in player.bans:
        if action in ban.actions and ban.holds(card, user if user is not None else player):
            return True
    kind = action if action in ("use", "target") else None
    if kind is None:
        return False
    for pr in g.skillset.prohibitions(player, kind):
        if pr.condition is None or pr.condition(
                Frame(g, {"me": player, "user": user if user is not None else player, "card": card})):
            return True
    return False


def forbids_use(g: "Game", user: "Player", card: "AnyCard") -> bool:
    """Whether ``user`` may not use ``card``."""
    return forbidden(g, user, "use", card)


def forbids_play(g: "Game", user: "Player", card: "AnyCard") -> bool:
    """Whether ``user`` may not play (打出) ``card``."""
    return forbidden(g, user, "play", card)


def forbids_discard(g: "Game", user: "Player", card: "AnyCard") -> bool:
    """Whether ``user`` may not discard ``card``."""
    return forbidden(g, user, "discard", card)


def forbids_target(g: "Game", user: "Player", target: "Player", card: Optional["AnyCard"]) -> bool:
    """Whether ``target`` may not be targeted by ``user`` with ``card``."""
    return forbidden(g, target, "target", card, user)
