"""What a card is: the one place that decides a card's name, kind and suit.

A physical card has a printed kind, suit and rank. What it *is* in play can differ:

* lying in a judge area as another card (a ♦ card *facing* as a delayed trick), it
  is that card (``Card.face``);
* a **filter skill** of the player whose card it is changes how it is seen while the
  skill is active (♠ counts as ♥, judge cards included; a heart in hand *is* an
  attack card).

Everything that looks at a card (expressions, requests and response windows,
judge results, limits, prohibitions, targets, bots, the log) reads ``card.kind``,
``card.name``, ``card.suit`` and ``card.color``; those properties ask the game's
:class:`CardView` here. Families (a kind declared ``is: ember`` is an ``ember``)
are part of the kind: ``card.kind.is_a("ember")``.

Whose card it is: the owner of the zone it lies in; for a card in the processing
area, the player who used, played or judged it (``Card.holder``), seen as it was
where it came from (``Card.origin``: ``hand``, ``equip``, ``judge`` or
``judgement`` for a judge card). A filter's condition sees the card as printed, so
filters never depend on each other.

>>> view = CardView(None)
>>> view.active     # nobody has a filter skill: cards are as printed
False
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from sgs_runtime.state.frame import Frame

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.definitions import CardKind, Filter
    from sgs_runtime.state.model import Card, Player

class CardView:
    """Per game: which players' filter skills are active, and how a card is seen."""

    __slots__ = ("game", "_owners", "_busy", "idle")

    def __init__(self, game: Optional["Game"]) -> None:
        self.game = game
        self._owners: Optional[dict[int, list[tuple["Filter", str]]]] = None if game is not None else {}
        self._busy = False
        # known that nobody has a filter skill now: every card is seen as printed (the usual case)
        self.idle = game is None

    def forget(self) -> None:
        """Skills may have changed: find the filter owners again when next asked."""
        if self.game is not None:
            self._owners = None
            self.idle = False

    def _filters(self) -> dict[int, list[tuple["Filter", str]]]:
        owners = self._owners
        if owners is None:
            g = self.game
            assert g is not None
            owners = {}
            for p in g.players:
                if p.alive:
                    got = [(flt, s.id) for s in g.active_skills(p) for flt in s.filters]
                    if got:
                        owners[p.seat] = got
            self._owners = owners
            self.idle = not owners
        return owners

    def filtering(self) -> bool:
        """Whether any player has a filter skill now (whether or not it changes a card at this moment)."""
        return self.game is not None and bool(self._filters())

    @property
    def active(self) -> bool:
        """Whether any card may be seen otherwise than printed right now."""
        return not self._busy and bool(self._filters())

    @staticmethod
    def whose(card: "Card") -> tuple[Optional["Player"], str]:
        """The player whose filters apply to ``card`` and where it counts as being."""
        zone = card.zone
        if zone is None:
            return None, ""
        if zone.owner is not None:
            return zone.owner, zone.name
        if zone.name == "processing":
            return card.holder, card.origin
        return None, ""

    def changers(self, card: "Card") -> list[str]:
        """The filter skills that make ``card`` look otherwise than printed now (for skill counts)."""
        holder, where = self.whose(card)
        if holder is None or self.look(card) is None:
            return []
        g = self.game
        assert g is not None
        out = []
        self._busy = True
        try:
            for flt, sid in self._filters().get(holder.seat, []):
                if (flt.zones is None or where in flt.zones) and (
                        flt.condition is None or flt.condition(Frame(g, {"me": holder, "it": card}))):
                    out.append(sid)
        finally:
            self._busy = False
        return out

    def look(self, card: "Card") -> Optional[tuple["CardKind", str]]:
        """``(kind, suit)`` as ``card`` is seen now, or None when it is seen as printed."""
        holder, where = self.whose(card)
        if holder is None:
            return None
        filters = self._filters().get(holder.seat)
        if not filters:
            return None
        g = self.game
        assert g is not None
        kind, suit = card.base, card.printed_suit
        changed = False
        self._busy = True  # conditions see the printed card
        try:
            for flt, _sid in filters:
                if flt.zones is not None and where not in flt.zones:
                    continue
                if flt.condition is not None and not flt.condition(Frame(g, {"me": holder, "it": card})):
                    continue
                if flt.suit is not None:
                    suit, changed = flt.suit, True
                if flt.name is not None:
                    kind, changed = g.content.cards[flt.name], True
        finally:
            self._busy = False
        return (kind, suit) if changed else None
