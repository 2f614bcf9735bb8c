"""Who may see a card: the one truth, and each seat's view of it.

Every card has a visibility. A card in a public zone (equipment, judge area,
discard pile, the processing area, a face-up pile) is seen by everyone, unless
it lies there face down (a private look, a card used under a claim). Anywhere
else (a hand, the draw pile, a face-down pile) it is seen by the seats that
know it, kept as a bit set on the card (``Card.seen``):

* a card drawn or dealt is known to its new owner;
* a card that was in a public zone stays known to everyone when it moves into a
  hand (taken from the discard pile, a weapon handed over, a card shown first);
* a card given or taken from hand to hand is known to the giver and the taker;
* a card looked at (攻心's ``look at``) is known to the looker; one shown (``show``)
  to everyone;
* shuffling forgets: a card shuffled into the draw pile is known to nobody.

:func:`visible` answers for one seat; :func:`mask_request` gives an agent a request
with only what its seat may see; :func:`log_view` filters the event log for a seat.

>>> EVERYONE == -1
True
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final, Iterable, Optional

from sgs_runtime.state.model import Card, VirtualCard

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.model import Player, Zone

#: the bit set of every seat
EVERYONE: Final = -1


def bit(seat: int) -> int:
    return 1 << seat


def visible(card: "Card", seat: Optional[int]) -> bool:
    """Whether the seat may see ``card`` now (``None``: the omniscient view sees everything)."""
    if seat is None:
        return True
    z = card.zone
    if z is not None and z.public and not card.covered:
        return True
    if z is not None and z.owner is not None and z.owner.seat == seat and z.name != "draw_pile":
        return True
    return bool(card.seen & bit(seat))


def seen_by(g: "Game", card: "Card") -> Optional[list[int]]:
    """The seats that may see ``card`` now, or ``None`` when everyone may."""
    z = card.zone
    if card.seen == EVERYONE or (z is not None and z.public and not card.covered):
        return None
    if all(visible(card, p.seat) for p in g.players):
        return None
    return [p.seat for p in g.players if visible(card, p.seat)]


def on_move(card: "Card", source: "Zone", to: "Zone", by: Optional["Player"], shown: Optional[bool]) -> None:
    """Update what is known of ``card`` as it moves from ``source`` to ``to``."""
    was_public = source.public and not card.covered
    card.covered = False
    if shown is True or was_public:
        card.seen = EVERYONE
    if to.name == "draw_pile" and source.name == "discard_pile":
        card.seen = 0
    if source.owner is not None:
        card.seen |= bit(source.owner.seat)  # the one it leaves saw it
    if to.owner is not None:
        card.seen |= bit(to.owner.seat)
    if by is not None:
        card.seen |= bit(by.seat)
    if shown is False and to.public:  # face down in a public place: only those who knew it
        card.covered = True
        if card.seen == EVERYONE:
            card.seen = bit(by.seat) if by is not None else 0


def forget(cards: Iterable["Card"]) -> None:
    """Shuffled: nobody knows these cards any more."""
    for c in cards:
        c.seen = 0
        c.covered = False


def let_see(g: "Game", cards: Iterable["Card"], who: "Player") -> None:
    """``who`` looks at the cards (攻心)."""
    for c in cards:
        c.seen |= bit(who.seat)


def show_all(cards: Iterable["Card"]) -> None:
    """The cards are shown to everyone."""
    for c in cards:
        c.seen = EVERYONE
        c.covered = False


# ---------------------------------------------------------------- requests


class HiddenCard:
    """A card an agent may not see: a place holder that stands for it in a request.

    It has no name, suit or rank; ``index`` tells the place holders of one request apart.
    An agent answers with the place holder; the game turns it back into the card.
    """

    __slots__ = ("index", "zone_name", "owner")
    virtual = False
    hidden = True
    kind = None
    suit = None
    color = None
    rank = 0

    def __init__(self, index: int, zone_name: str, owner: Optional["Player"]) -> None:
        self.index = index
        self.zone_name = zone_name
        self.owner = owner

    @property
    def id(self) -> int:
        return -2 - self.index

    def label(self) -> str:
        return f"hidden card {self.index + 1}"

    def __repr__(self) -> str:
        return f"<{self.label()}>"


#: which of the fields a request may hide cards in its class has (``against``, ``event``, ``candidates``):
#: looked up once per class, since asking an object for a field it lacks costs an exception each time
_REQUEST_FIELDS: Final[dict[type, tuple[bool, bool, bool]]] = {}


def _request_fields(req: Any) -> tuple[bool, bool, bool]:
    kind = type(req)
    got = _REQUEST_FIELDS.get(kind)
    if got is None:
        got = _REQUEST_FIELDS[kind] = (hasattr(req, "against"), hasattr(req, "event"), hasattr(req, "candidates"))
    return got


def mask_request(req: Any, seat: int) -> Any:
    """``req`` as ``seat`` may see it: cards it may not see become :class:`HiddenCard` place holders.

    Returns the request itself when it shows nothing hidden (most requests)."""
    masked: Any = req
    has_against, has_event, has_candidates = _request_fields(req)
    # a card used face down under a claim shows only its claim to the others (蛊惑)
    if has_against:
        hidden = _claim_hidden(req.against, seat)
        if hidden is not None:
            masked = copy.copy(req)
            masked.against = hidden
    if has_event:
        value = req.event
        hidden = _claim_hidden(_event_card(value), seat)
        if hidden is not None:
            if masked is req:
                masked = copy.copy(req)
            ev: Any = copy.copy(value)
            ev.card = hidden
            masked.event = ev
    cands = req.candidates if has_candidates else None
    if not cands or not any(isinstance(c, Card) and not visible(c, seat) for c in cands):
        return masked
    if masked is req:
        masked = copy.copy(req)
    table: dict[int, Any] = {}
    out: list[Any] = []
    for c in cands:
        if isinstance(c, Card) and not visible(c, seat):
            h = HiddenCard(len(table), c.zone.name if c.zone is not None else "", c.owner)
            table[id(h)] = c
            out.append(h)
        else:
            out.append(c)
    masked.candidates = out
    masked.hidden = frozenset(x.id for x in out if isinstance(x, HiddenCard))
    masked.unmask = table
    return masked


def _event_card(event: Any) -> Any:
    """The card an event is about, or None: read only from an event with a ``card`` field (its kind's
    ``FIELDS`` says), so that no look-up fails and raises on the way."""
    if event is None or "card" not in getattr(type(event), "FIELDS", _NO_FIELDS):
        return None
    return getattr(event, "card", None)


_NO_FIELDS: Final[dict[str, str]] = {}


def _claim_hidden(card: Any, seat: int) -> Any:
    """A face-down card as ``seat`` sees it: its claimed kind without its cards, or None if nothing is hidden."""
    if not isinstance(card, VirtualCard) or not card.face_down:
        return None
    if all(visible(c, seat) for c in card.physical):
        return None
    shown = VirtualCard(card.kind, [], card.skill)
    shown.face_down = True
    return shown


def unmask_answer(masked: Any, answer: Any) -> Any:
    """Turn the place holders of an agent's answer back into the cards they stand for."""
    table = getattr(masked, "unmask", None)
    if not table:
        return answer
    if isinstance(answer, HiddenCard):
        return table.get(id(answer), answer)
    if isinstance(answer, list):
        return [table.get(id(a), a) if isinstance(a, HiddenCard) else a for a in answer]
    return answer


# ---------------------------------------------------------------- the log


def log_view(records: Iterable[dict[str, Any]], seat: Optional[int]) -> list[dict[str, Any]]:
    """The event log as ``seat`` saw it (``None``: everything; ``-1``: a spectator).

    A record that names cards some seats could not see carries ``seen`` (the seats
    that saw them); for the others its cards become a count."""
    out = []
    for r in records:
        seen = r.get("seen")
        if seen is None or (seat is not None and seat >= 0 and seat in seen) or seat is None:
            out.append(r)
            continue
        hidden = dict(r)
        for key in ("cards", "card"):
            if key in hidden:
                v = hidden[key]
                hidden[key] = len(v) if isinstance(v, list) else 1
        hidden.pop("seen", None)
        hidden["hidden"] = True
        out.append(hidden)
    return out
