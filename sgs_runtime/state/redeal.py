"""Dealing the unseen anew: one of the games a seat cannot tell from the real one (determinization).

A seat knows its own hand, every public zone, the cards it has seen where others
cannot (:mod:`sgs_runtime.state.visibility`), the revealed roles, its own role, and how
many cards lie in each zone. :func:`redeal` changes everything else at random, in
place, keeping all of that:

* the faces (printed kind, suit and rank) of the cards the seat may not see are
  shuffled among those cards. A card object stays where it is, with its id, its
  zone, its place in the zone and who else knows it: only what is printed on it
  changes, so every count and every zone is kept, and any event that holds the card
  still holds it;
* the roles the seat does not know (of the other players whose role is not revealed)
  are shuffled among those players, so the role counts are kept;
* while the heroes are being chosen (``Game.draft``), the heroes the seat has not seen
  where they are (the hero pile's order, the others' face-down picks, the heroes set
  aside from offers it was not shown) are shuffled among those places.

Used on copies of a game (:mod:`sgs_runtime.runs.fork`), never on the game being played.

>>> from sgs_dsl.loader import load_content
>>> from sgs_runtime.resolution.game import Game
>>> import random
>>> content = load_content()
>>> g = Game(content, content.ruleset(), players=5, seed=3)
>>> _ = g.start()
>>> before = [(len(z), z.name) for z in g.all_zones()]
>>> seen = {c.id: c.label() for c in g.cards if visible(c, 0)}
>>> redeal(g, 0, random.Random(1))
>>> [(len(z), z.name) for z in g.all_zones()] == before
True
>>> {c.id: c.label() for c in g.cards if visible(c, 0)} == seen
True
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence

from sgs_runtime.state.chance import shuffle
from sgs_runtime.state.visibility import visible

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.model import Card


def unseen_cards(game: "Game", seat: int) -> list["Card"]:
    """The physical cards ``seat`` may not see now, in the game's card order."""
    return [c for c in game.cards if not visible(c, seat)]


def unknown_roles(game: "Game", seat: int) -> list[int]:
    """The seats whose role ``seat`` does not know (not its own, not revealed), in seat order.

    A hidden role that shows on the table (lord skills, bonus HP) is not counted as unknown."""
    roles = game.rules.roles
    return [p.seat for p in game.players if p.seat != seat and not p.role_revealed
            and not (p.role in roles and (roles[p.role].lord_skills or roles[p.role].bonus_hp is not None))]


#: how likely a seat is to hold a role, in a searching seat's belief (any positive scale)
RoleWeight = Callable[[int, str], float]


def deal_roles(seats: Sequence[int], roles: Sequence[str], rng: random.Random,
               weight: Optional[RoleWeight] = None) -> list[str]:
    """The roles dealt to ``seats``: a permutation of ``roles``; uniform, or leaning on ``weight``
    (each seat in turn draws from the roles left, each with a chance in proportion to its weight)."""
    if weight is None:
        out = list(roles)
        shuffle(rng, out)
        return out
    left = list(roles)
    out = []
    for s in seats:
        weights = [max(1e-9, weight(s, r)) for r in left]
        pick = rng.choices(range(len(left)), weights)[0]
        out.append(left.pop(pick))
    return out


def shuffle_faces(cards: Sequence["Card"], rng: random.Random) -> None:
    """Shuffle what is printed on ``cards`` (kind, suit, rank) among them, in place; each card object
    stays where it is, with its id."""
    faces = [(c.base, c.printed_suit, c.rank, c._printed) for c in cards]  # (the label, if made yet, goes along)
    shuffle(rng, faces)
    for card, (base, suit, rank, printed) in zip(cards, faces):
        card.base, card.printed_suit, card.rank, card._printed = base, suit, rank, printed


def redeal(game: "Game", seat: int, rng: random.Random, role_weight: Optional[RoleWeight] = None) -> None:
    """Shuffle, in place, what ``seat`` cannot see: the faces of its unseen cards and the unknown roles
    (uniformly, or leaning on the seat's belief ``role_weight``: only which assignment, never the counts).

    The same game state, seat and generator state give the same result."""
    shuffle_faces(unseen_cards(game, seat), rng)
    seats = unknown_roles(game, seat)
    roles = deal_roles(seats, [game.players[s].role for s in seats], rng, role_weight)
    for s, role in zip(seats, roles):
        game.players[s].role = role
    redeal_heroes(game, seat, rng)
    game.bump()  # which skills and filters apply, and every remembered quantity, are found again


def redeal_heroes(game: "Game", seat: int, rng: random.Random) -> None:
    """During the hero choice: shuffle, in place, the heroes ``seat`` does not know the place of among
    those places (the pile, the others' hidden picks, the heroes set aside); the heroes it was offered
    stay where they are. Nothing happens outside the hero choice."""
    draft = game.draft
    if draft is None:
        return
    known = set(draft.offered.get(seat, ()))
    slots: list[tuple[list[Any], int]] = [(draft.picks, s) for s, h in enumerate(draft.picks)
                                          if h is not None and s != seat and s not in draft.shown]
    slots += [(game.unused_heroes, i) for i, h in enumerate(game.unused_heroes) if h not in known]
    slots += [(draft.pile, i) for i, h in enumerate(draft.pile) if h not in known]
    heroes = [where[i] for where, i in slots]
    shuffle(rng, heroes)
    for (where, i), hero in zip(slots, heroes):
        where[i] = hero
