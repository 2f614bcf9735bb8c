"""What expressions can say: attributes, functions and their types.

The compiler checks every attribute and call against these tables (so a typo
is an error at its line and column) and compiles them to the getters here.

Types are short strings: ``num``, ``bool``, ``text``, ``player``,
``players``, ``card``, ``cards``, ``judge``, ``event:<kind>``, ``sym:<kind>``
(a name such as a suit or a card name), ``list``, ``any`` and ``none``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Final, Optional

from sgs_runtime.resolution.prohibitions import forbids_target
from sgs_runtime.resolution.quantities import seat_distance
from sgs_runtime.state.chance import shuffle
from sgs_runtime.state.events import Event
from sgs_runtime.state.model import COLOR, AnyCard, Card, Player, VirtualCard, card_is, parse_card_text
from sgs_runtime.state.visibility import visible

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.state.frame import Frame

Getter = Callable[[Any], Any]


class Field:
    """A getter that reads one attribute path (``"kind.id"``): compiled code reads the attributes itself."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, obj: Any) -> Any:
        for name in self.path.split("."):
            obj = getattr(obj, name)
        return obj


class OptionalField(Field):
    """An attribute that a value may lack (an event's field): none then.

    (Here beside :class:`Field`: the compiled build allows no subclass of a compiled class outside it.)"""

    __slots__ = ()

    def __call__(self, obj: Any) -> Any:
        return getattr(obj, self.path, None)


def _cards_in(zone: str) -> Getter:
    def cards_in(p: Player) -> list[Card]:
        z = p.zone(zone)
        return list(z.cards) if z is not None else []
    return cards_in


# The getters below are typed (not lambdas of an untyped value): the compiled build reads the
# attributes of a typed value directly, where it would look them up by name on an untyped one.


def _wounded(p: Player) -> bool:
    return p.hp < p.max_hp


def _dead(p: Player) -> bool:
    return not p.alive


def _own_cards(p: Player) -> list[Card]:
    return p.hand.cards + p.equip.cards


def _area_cards(p: Player) -> list[Card]:
    return p.hand.cards + p.equip.cards + p.judge.cards


def _hand_count(p: Player) -> int:
    return len(p.hand)


def _pile_names(p: Player) -> list[str]:
    return [n for n, z in p.piles.items() if z.cards]


def _slot(c: AnyCard) -> Optional[str]:
    equip = c.kind.equip
    return equip.slot if equip else None


def _range(c: AnyCard) -> int:
    equip = c.kind.equip
    return equip.range if equip and equip.range else 0


def _delayed(c: AnyCard) -> bool:
    return c.kind.delayed is not None


def _physical(c: AnyCard) -> list[Card]:
    return list(c.physical)


def _virtual(c: AnyCard) -> bool:
    return bool(c.virtual)


def _zone_name(c: AnyCard) -> Optional[str]:
    z = c.zone
    return z.name if z is not None else None


PLAYER_ATTRS: Final[dict[str, tuple[str, Getter, str]]] = {
    "hp": ("num", Field("hp"), "current HP"),
    "max_hp": ("num", Field("max_hp"), "maximum HP"),
    "lost_hp": ("num", Field("lost_hp"), "max HP minus HP"),
    "wounded": ("bool", _wounded, "HP below max HP"),
    "alive": ("bool", Field("alive"), "alive"),
    "dead": ("bool", _dead, "dead"),
    "dying": ("bool", Field("dying"), "in the dying state (濒死)"),
    "hand": ("cards", _cards_in("hand"), "hand cards"),
    "equip": ("cards", _cards_in("equip"), "equipped cards"),
    "judge": ("cards", _cards_in("judge"), "judge area, in placement order"),
    "cards": ("cards", _own_cards, "hand and equipped cards (牌)"),
    "area_cards": ("cards", _area_cards,
                   "hand, equipped and judge-area cards (区域里的牌)"),
    "hand_count": ("num", _hand_count, "number of hand cards"),
    "hero": ("sym:hero", Field("hero.id"), "hero id"),
    "kingdom": ("sym:kingdom", Field("kingdom"), "kingdom (势力); a god hero's chosen one once chosen; "
                "assignable: `p.kingdom = wei`"),
    "kingdoms": ("syms:kingdom", Field("kingdoms"),
                 "every kingdom the hero belongs to (孙尚香 of the classic pack is shu and wu)"),
    "gender": ("sym:gender", Field("hero.gender"), "gender"),
    "role": ("sym:role", Field("role"), "role (身份)"),
    "seat": ("num", Field("seat"), "seat number, from 0"),
    "face_down": ("bool", Field("face_down"), "turned over"),
    "pile_names": ("syms:pile", _pile_names, "the piles on this player"),
    "chained": ("bool", Field("chained"), "in the chained state (铁索连环); assignable: `p.chained = true`"),
}

CARD_ATTRS: Final[dict[str, tuple[str, Getter, str]]] = {
    "name": ("sym:card", Field("kind.id"), "the card's name (its kind id); `c is slash` tests the family"),
    "nature": ("sym:nature", Field("kind.nature"), "normal, fire or thunder"),
    "suit": ("sym:suit", Field("suit"), "suit; none for a card made of several cards or of none"),
    "color": ("sym:color", Field("color"), "red or black; none when its cards have no common colour"),
    "rank": ("num", Field("rank"), "1 (A) .. 13 (K); 0 when it has none"),
    "type": ("sym:type", Field("kind.type"), "basic, trick or equip"),
    "slot": ("sym:slot", _slot, "equipment slot, or none"),
    "range": ("num", _range, "a weapon's range"),
    "delayed": ("bool", _delayed, "a delayed trick"),
    "cards": ("cards", _physical, "the physical cards it is made of"),
    "virtual": ("bool", _virtual, "made by a skill or an effect"),
    "skill": ("sym:skill", Field("skill"), "the skill that made it, or none"),
    "owner": ("player", Field("owner"), "the player whose area holds it, or none"),
    "zone": ("sym:zone", _zone_name, "the zone it is in"),
}

JUDGE_ATTRS: Final[dict[str, tuple[str, Getter, str]]] = {
    "card": ("card", Field("card"), "the final judge card"),
    "suit": ("sym:suit", Field("suit"), "the result's suit"),
    "color": ("sym:color", Field("color"), "the result's colour"),
    "rank": ("num", Field("rank"), "the result's rank"),
    "player": ("player", Field("player"), "who judged"),
}

#: The attributes whose value changes only together with the players' skill sets (equipment in or out,
#: a death, a revival, the seating), and, while no filter skill is in force, with nothing at all (a
#: card's range and slot). Every such change forgets the skill sets and moves the skill epoch on
#: (``Game.epoch``), so a quantity that reads no more than these, the equipment slots (``p.weapon``),
#: its parameters, constants, :data:`EPOCH_FUNCTIONS` and quantities of the same kind is remembered
#: for an epoch rather than for one state version (:mod:`sgs_dsl.epochs`, quantities.py).
EPOCH_ATTRS: Final = frozenset({"alive", "dead", "seat", "equip", "range", "slot"})
#: the functions of that kind (``seat_distance`` counts the living seats)
EPOCH_FUNCTIONS: Final = frozenset({"seat_distance"})

EVENT_COMMON: Final[dict[str, tuple[str, Getter, str]]] = {
    "cancelled": ("bool", Field("cancelled"), "cancelled by a trigger"),
}

LIST_ATTRS: Final[dict[str, tuple[str, Getter, str]]] = {
    "count": ("num", lambda xs: len(xs) if xs is not None else 0, "number of items"),
    "empty": ("bool", lambda xs: not xs, "no items"),
}

SYMBOLS: Final[dict[str, tuple[str, ...]]] = {
    "suit": ("spade", "heart", "club", "diamond"),
    "color": ("red", "black"),
    "type": ("basic", "trick", "equip"),
    "nature": ("normal", "fire", "thunder"),
    "zone": ("hand", "equip", "judge", "draw_pile", "discard_pile", "processing"),
}


def element_type(t: str) -> str:
    return {"players": "player", "cards": "card"}.get(t, "any")


def list_type(t: str) -> str:
    return {"player": "players", "card": "cards"}.get(t, "list")


# ------------------------------------------------------------------ functions


def _count(f: "Frame", xs: Any) -> int:
    return len(xs) if xs is not None else 0


def _first(f: "Frame", xs: Any) -> Any:
    return xs[0] if xs else None


def _last(f: "Frame", xs: Any) -> Any:
    return xs[-1] if xs else None


def _reversed(f: "Frame", xs: Any) -> Any:
    return list(reversed(xs or []))


def _seat_distance(f: "Frame", a: Player, b: Player) -> int:
    return seat_distance(f.game, a, b)


def _after(f: "Frame", p: Player) -> list[Player]:
    return f.game.after(p)


def _from(f: "Frame", p: Player) -> list[Player]:
    return f.game.alive_from(p)


def _next(f: "Frame", p: Player) -> Optional[Player]:
    return f.game.next_alive(p)


def _option(f: "Frame", name: str) -> Any:
    return f.game.option(name)


def _color_of(f: "Frame", suit: str) -> Optional[str]:
    return COLOR.get(suit)


def _min(f: "Frame", *xs: Any) -> Any:
    return min(xs)


def _max(f: "Frame", *xs: Any) -> Any:
    return max(xs)


def _hero_kingdom(f: "Frame", hero: str) -> Optional[str]:
    h = f.game.content.heroes.get(hero) if hero else None
    return h.kingdom if h is not None else None


def _hero_hp(f: "Frame", hero: str) -> int:
    h = f.game.content.heroes.get(hero) if hero else None
    return h.hp if h is not None else 0


def _shuffled(f: "Frame", xs: Any) -> list[Any]:
    out = list(xs or [])
    shuffle(f.game.rng, out)  # chance is the game's: reproducible from its seed
    return out


def _pile(f: "Frame", zone: str) -> list[Any]:
    g = f.game
    pile = {"draw_pile": g.draw_pile, "discard_pile": g.discard_pile, "processing": g.processing}.get(zone)
    return list(pile.cards) if pile is not None else []


def _role_count(f: "Frame", role: str) -> int:
    return sum(1 for p in f.game.players if p.alive and p.role == role)


# name -> (argument types, result type, implementation, doc); "*" repeats the last
FUNCTIONS: Final[dict[str, tuple[tuple[str, ...], str, Callable[..., Any], str]]] = {
    "count": (("list",), "num", _count, "number of items of a list"),
    "first": (("list",), "elem", _first, "first item of a list, or none"),
    "last": (("list",), "elem", _last, "last item of a list, or none"),
    "reversed": (("list",), "same", _reversed, "the list backwards (judge area: last placed first)"),
    "min": (("num", "*"), "num", _min, "smallest number"),
    "max": (("num", "*"), "num", _max, "largest number"),
    "seat_distance": (("player", "player"), "num", _seat_distance,
                      "seats apart the shorter way round, dead seats skipped"),
    "after": (("player",), "players", _after, "living players after one in seat order"),
    "with_role": (("sym:role",), "players", lambda f, role: [p for p in f.game.alive_from(f.game.current)
                                                             if p.role == role],
                  "living players with a role, from the current player (the lord: with_role(lord))"),
    "seat_order": (("player",), "players", _from, "living players in seat order, beginning with one (if alive)"),
    "next": (("player",), "player", _next, "the next living player"),
    "option": (("text",), "any", _option, "a rules option's value"),
    "color_of": (("sym:suit",), "sym:color", _color_of, "the colour of a suit"),
    "alive_with_role": (("sym:role",), "num", _role_count, "how many living players have a role"),
    "hero_kingdom": (("sym:hero",), "sym:kingdom", _hero_kingdom, "a hero's kingdom"),
    "hero_hp": (("sym:hero",), "num", _hero_hp, "a hero's HP"),
    "shuffled": (("list",), "same", _shuffled, "the list in a random order (the game's seeded chance)"),
    "pile": (("sym:zone",), "cards", _pile, "the cards of draw_pile (top first), discard_pile or processing"),
}

# comprehension functions: f(x from xs where cond)
COMPREHENSIONS: Final = {
    "count": "num",
    "any": "bool",
    "all": "bool",
    "first": "elem",
    "select": "same",
}

def _mark(p: Player, f: "Frame", name: str) -> int:
    return p.marks.get(name, 0)


def _has_skill(p: Player, f: "Frame", sid: str) -> bool:
    return f.game.skillset.has(p, sid)


def _pile_cards(p: Player, f: "Frame", name: str) -> list[Card]:
    pile = p.piles.get(name)
    return list(pile.cards) if pile is not None else []


# player methods: name -> (argument types, result, implementation(player, frame, *args), doc)
PLAYER_METHODS: Final[dict[str, tuple[tuple[str, ...], str, Callable[..., Any], str]]] = {
    "mark": (("mark",), "num", _mark, "the number of a mark"),
    "has_skill": (("sym:skill",), "bool",
                  _has_skill, "has a skill now"),
    "pile": (("sym:pile",), "cards", _pile_cards,
             "the cards of a special pile"),
    "unseen": (("sym:card",), "num", lambda p, f, cid: _unseen(f, p, cid),
               "how many cards of that name (family included) this player has not seen anywhere now"),
    "unseen_total": ((), "num", lambda p, f: _unseen(f, p, None),
                     "how many cards of the game this player cannot see now"),
    "can_use": (("sym:card",), "bool", lambda p, f, cid: _can_use(f, p, cid),
                "could use a card of that name now (limits and targets)"),
    "can_target": (("player", "sym:card"), "bool", lambda p, f, q, cid: _can_target(f, p, q, cid),
                   "no prohibition stops this player targeting that one with a card of that name"),
    "used": (("sym:card", "sym:phase"), "num", lambda p, f, cid, ph: _used(f, p, cid, ph),
             "cards of that name this player used or played this turn during that phase of their own turn"),
}


def _unseen(f: "Frame", p: Player, cid: Any) -> int:
    name = cid.kind.id if hasattr(cid, "kind") else cid
    return sum(1 for c in f.game.cards if not visible(c, p.seat) and (name is None or c.base.is_a(name)))


def _can_target(f: "Frame", p: Player, q: Player, cid: str) -> bool:
    return q is not None and q.alive and not forbids_target(f.game, p, q, VirtualCard(f.game.content.cards[cid]))


def _used(f: "Frame", p: Player, cid: str, phase: str) -> int:
    cards = f.game.content.cards
    return sum(1 for seat, name, ph, _ in f.game.history
               if seat == p.seat and ph == phase and name in cards and cards[name].is_a(cid))


def _can_use(f: "Frame", p: Player, cid: str) -> bool:
    from sgs_runtime.resolution.use import (  # (use.py reads compiled content: imported when first asked)
        has_targets,
        within_limit,
    )

    card = VirtualCard(f.game.content.cards[cid])
    return within_limit(f.game, p, card) and has_targets(f.game, p, card)


# ------------------------------------------------------------------ what compiled expressions call
#
# The effect language's compiler (sgs_dsl/compiler.py) writes calls to these where the checker could
# not settle a value's type, or where a comparison may meet a card text: they live here, with the
# vocabulary, so that they are compiled with the runtime.


def nothing(v: Any) -> None:
    """No such attribute on this kind of value: none."""
    return None


def dynamic_getter(kind: type, name: str) -> Callable[[Any], Any]:
    """How to read attribute ``name`` of a value of type ``kind`` whose type the checker did not know."""
    if issubclass(kind, Player):
        return PLAYER_ATTRS[name][1] if name in PLAYER_ATTRS else (lambda p: p.slot(name))
    if issubclass(kind, (Card, VirtualCard)):
        return CARD_ATTRS[name][1] if name in CARD_ATTRS else nothing
    if issubclass(kind, Event):
        return OptionalField(name)  # ``cancelled`` too: every event has it
    if issubclass(kind, (list, tuple)):
        return LIST_ATTRS[name][1] if name in LIST_ATTRS else nothing
    return OptionalField(name)


#: (type, attribute) -> getter, filled as values of each type are met
_DYNAMIC: Final[dict[tuple[type, str], Callable[[Any], Any]]] = {}


def dynamic_get(v: Any, name: str) -> Any:
    """Attribute ``name`` of ``v``, a value whose type the checker did not know (none for none).

    >>> dynamic_get(None, "hp") is None
    True
    """
    if v is None:
        return None
    key = (type(v), name)
    getter = _DYNAMIC.get(key)
    if getter is None:
        getter = _DYNAMIC[key] = dynamic_getter(key[0], name)
    return getter(v)


def divide(a: Any, b: Any) -> Any:
    """Whole-number division; dividing by 0 gives 0 (the language has no errors at run time).

    >>> divide(7, 2), divide(7, 0)
    (3, 0)
    """
    return a // b if b else 0


def card_is_a(card: Any, name: str) -> bool:
    """Whether ``card`` is of the family ``name`` (``c is slash``)."""
    if isinstance(card, Card):  # (a card or a virtual one read as such: no look-up by name)
        return name in card.kind.family
    if isinstance(card, VirtualCard):
        return name in card.kind.family
    kind = getattr(card, "kind", None)
    return kind is not None and name in kind.family


def contains(container: Any, item: Any) -> bool:
    """``item in container``, where a card text names the cards it describes (``"slash S7" in hand``)."""
    if isinstance(item, str) and isinstance(container, (list, tuple)) and parse_card_text(item):
        return any(card_is(c, item) for c in container)
    return has(container, item)


def has(container: Any, item: Any) -> bool:
    """``item in container`` for an item that is no card text (false for none, or where ``in`` fails)."""
    if container is None:
        return False
    try:
        return item in container
    except TypeError:
        return False


def equal(a: Any, b: Any) -> bool:
    """``a == b``, where a card text equals the card it describes (``guanyu.weapon == "crossbow CA"``)."""
    if isinstance(a, str) and not isinstance(b, str) and parse_card_text(a):
        return card_is(b, a)
    if isinstance(b, str) and not isinstance(a, str) and parse_card_text(b):
        return card_is(a, b)
    return bool(a == b)
