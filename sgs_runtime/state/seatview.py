"""One seat's view of the game: what its agent is given with each request.

The game keeps one truth. An agent (a bot, the terminal, a browser seat) gets a
:class:`SeatView` and a request masked for its seat (:func:`visibility.mask_request`):
cards it may not see are place holders. Through the view it reads the table as
that seat sees it: every player's public state (HP, equipment, judge area, marks,
face-up piles, the number of hand cards, revealed roles), its own hand, and the
cards of others only where it saw them (:meth:`SeatView.cards_of`).

>>> SeatView.__slots__
('game', 'seat')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Union

from sgs_runtime.state.frame import Frame
from sgs_runtime.state.visibility import HiddenCard, mask_request, unmask_answer, visible

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.resolution.requests import Request
    from sgs_runtime.state.definitions import Content, Ruleset
    from sgs_runtime.state.events import Event, UseEvent
    from sgs_runtime.state.model import Card, Player


class SeatView:
    """What ``seat`` may know of ``game``."""

    __slots__ = ("game", "seat")

    def __init__(self, game: "Game", seat: int) -> None:
        self.game = game  # private to the view: agents read through the methods below
        self.seat = seat

    # the table, as everyone sees it
    @property
    def me(self) -> "Player":
        return self.game.players[self.seat]

    @property
    def players(self) -> list["Player"]:
        return self.game.players

    @property
    def rules(self) -> "Ruleset":
        return self.game.rules

    @property
    def content(self) -> "Content":
        return self.game.content

    @property
    def current(self) -> Optional["Player"]:
        return self.game.current

    @property
    def phase(self) -> Optional[str]:
        """The phase the current player is in (its id in the rules), if any."""
        return self.game.phase

    @property
    def seated(self) -> bool:
        """Whether every seat has its hero (before, while heroes are chosen, the players are stand-ins)."""
        return self.game.current is not None or bool(self.game.cards)

    @property
    def draw_count(self) -> int:
        """How many cards the draw pile holds (its cards are seen by nobody)."""
        return len(self.game.draw_pile)

    def quantity(self, name: str, *args: Any) -> Any:
        """A quantity the rules declare (a distance, an attack range ...), as the table shows it to everyone;
        None when the rules declare no quantity of that name."""
        from sgs_runtime.resolution.quantities import quantity

        if name not in self.game.rules.quantities:
            return None
        return quantity(self.game, name, list(args))

    @property
    def public(self) -> list[tuple[str, int, int, str, int]]:
        """What everyone saw players do to each other (uses, damage, recovery)."""
        return self.game.public

    @property
    def stack(self) -> list["Event"]:
        """The events being resolved (what is happening is public)."""
        return self.game.stack

    def alive(self) -> list["Player"]:
        return self.game.alive()

    def current_use(self) -> Optional["UseEvent"]:
        return self.game.current_use()

    def role_of(self, p: "Player") -> Optional[str]:
        """A player's role if this seat knows it (its own, or revealed)."""
        return p.role if (p.seat == self.seat or p.role_revealed) else None

    def role_counts(self) -> dict[str, int]:
        """How many players hold each role: the table's role counts, which every player knows."""
        counts: dict[str, int] = {}
        for p in self.game.players:
            counts[p.role] = counts.get(p.role, 0) + 1
        return counts

    # cards, as this seat sees them
    def sees(self, card: "Card") -> bool:
        return visible(card, self.seat)

    def cards_of(self, p: "Player", zone: str = "hand") -> list[Union["Card", HiddenCard]]:
        """The cards of one of a player's zones, those this seat may not see as place holders."""
        z = p.zone(zone)
        if z is None:
            return []
        return [c if visible(c, self.seat) else HiddenCard(i, zone, p) for i, c in enumerate(z.cards)]

    def unseen(self, kind_id: str) -> int:
        """How many cards of a kind (family included) this seat has not seen anywhere now."""
        return sum(1 for c in self.game.cards if not visible(c, self.seat) and c.base.is_a(kind_id))

    def deck_kinds(self) -> set[str]:
        """The card kinds this game's deck holds (public: every player knows the deck)."""
        return {c.base.id for c in self.game.cards}

    def unseen_total(self) -> int:
        return sum(1 for c in self.game.cards if not visible(c, self.seat))

    def me_skills(self) -> list[Any]:
        """This seat's skills now."""
        return self.game.skillset.of(self.me)

    def givers(self, p: "Player", skill: Any) -> list["Player"]:
        """Who gives ``p`` a granted skill (public: skills are on the hero cards)."""
        return self.game.skillset.givers(p, skill)

    def frame(self, variables: dict[str, Any]) -> Frame:
        """A frame for the content's ai hints (expressions the content trusts to read public facts)."""
        return Frame(self.game, variables)


def as_view(where: Union["Game", SeatView], seat: int) -> SeatView:
    """A seat's view, from a view or from the game itself (for callers that hold the game)."""
    return where if isinstance(where, SeatView) else where.view_for(seat)


def ask_agent(game: "Game", agent: Any, req: "Request") -> Any:
    """Ask ``agent`` for ``req``'s answer with only what its seat may see; return the answer for the game."""
    seat = req.player.seat
    masked = mask_request(req, seat)
    answer = agent.decide(masked, game.view_for(seat))
    return answer if masked is req else unmask_answer(masked, answer)
