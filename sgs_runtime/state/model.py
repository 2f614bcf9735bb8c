"""The state of a table: cards, zones and players.

Every physical :class:`Card` is in exactly one :class:`Zone` at every moment;
only :meth:`Zone.add` and :meth:`Zone.remove` (called by the game's card-move
pipeline) change that, and :func:`sgs_runtime.runs.invariants.check` verifies it.

>>> from sgs_runtime.state.definitions import CardKind, Text, Source
>>> kind = CardKind("k", Text("杀", "Slash"), "basic", Text("", ""), Source("x", 1, 1))
>>> c = Card(7, kind, "spade", 7)
>>> c.color, c.label()
('black', 'k ♠7')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Iterable, Iterator, Optional, Sequence

from sgs_runtime.state.cardview import CardView
from sgs_runtime.state.definitions import CardKind, Hero, Skill

SUITS: Final = ("spade", "heart", "club", "diamond")
SUIT_SIGN: Final = {"spade": "♠", "heart": "♥", "club": "♣", "diamond": "♦"}
SIGN_SUIT: Final = {"♠": "spade", "♥": "heart", "♣": "club", "♦": "diamond",
             "S": "spade", "H": "heart", "C": "club", "D": "diamond"}
RANK_TEXT: Final = {1: "A", 11: "J", 12: "Q", 13: "K"}
TEXT_RANK: Final = {"A": 1, "J": 11, "Q": 12, "K": 13}
COLOR: Final = {"spade": "black", "club": "black", "heart": "red", "diamond": "red"}


def rank_text(rank: int) -> str:
    return RANK_TEXT.get(rank, str(rank))


def parse_card_text(text: str) -> Optional[tuple[str, str, int]]:
    """``'spark S7'`` or ``'spark ♠7'`` -> ``('spark', 'spade', 7)``; None if it is not such a text.

    >>> parse_card_text("spark D10"), parse_card_text("ember ♥Q"), parse_card_text("hello")
    (('spark', 'diamond', 10), ('ember', 'heart', 12), None)
    """
    parts = text.split()
    if len(parts) != 2 or len(parts[1]) < 2 or parts[1][0] not in SIGN_SUIT:
        return None
    rank = TEXT_RANK.get(parts[1][1:]) or (int(parts[1][1:]) if parts[1][1:].isdigit() else 0)
    if not 1 <= rank <= 13:
        return None
    return parts[0], SIGN_SUIT[parts[1][0]], rank


def card_is(card: Any, text: str) -> bool:
    """Whether a physical card is the one ``text`` names (its base kind, suit and rank)."""
    parsed = parse_card_text(text)
    if parsed is None or not isinstance(card, Card):
        return False
    return (card.base.id, card.printed_suit, card.rank) == parsed or card.label() == text


class Card:
    """A physical card of the deck.

    ``base``, ``printed_suit`` and ``rank`` are what is printed on it; ``kind``,
    ``name``, ``suit`` and ``color`` are what it *is* now — the face it lies under in a
    judge area (国色), or what its holder's filter skills make of it
    (:mod:`sgs_runtime.state.cardview`).
    """

    __slots__ = ("id", "base", "face", "printed_suit", "rank", "zone", "holder", "origin", "view", "seen", "covered",
                 "_printed")

    virtual = False
    skill = None

    def __init__(self, cid: int, kind: CardKind, suit: str, rank: int) -> None:
        self.id = cid
        self.base = kind
        self.face: Optional[CardKind] = None  # set while it lies in a judge area as another card (国色)
        self.printed_suit = suit
        self.rank = rank
        self._printed = ""  # the label as printed, made when first asked (printed): most cards of a bot game never are
        self.zone: Optional[Zone] = None
        # in the processing area: who used, played or judged it, and where it came from
        self.holder: Optional[Player] = None
        self.origin = ""
        self.seen = 0  # seats that know this card where others cannot see it (visibility.py)
        self.covered = False  # face down in a public place (a private look, a claim)
        self.view: Optional[CardView] = None  # the game's, once the card is in a game

    def _seen(self) -> Optional[tuple[CardKind, str]]:
        """``(kind, suit)`` when a filter skill makes the card look otherwise than printed."""
        ident = self.view
        return ident.look(self) if ident is not None and not ident.idle and ident.active else None

    @property
    def kind(self) -> CardKind:
        if self.face is not None:
            return self.face
        ident = self.view
        if ident is None or ident.idle:
            return self.base
        seen = ident.look(self) if ident.active else None
        return seen[0] if seen is not None else self.base

    @property
    def suit(self) -> str:
        seen = self._seen()
        return seen[1] if seen is not None else self.printed_suit

    @property
    def name(self) -> str:
        return self.kind.id

    @property
    def type(self) -> str:
        return self.kind.type

    @property
    def nature(self) -> str:
        return self.kind.nature

    @property
    def color(self) -> str:
        return COLOR[self.suit]

    @property
    def cards(self) -> list["Card"]:
        return [self]

    @property
    def physical(self) -> list["Card"]:
        return [self]

    @property
    def owner(self) -> Optional["Player"]:
        return self.zone.owner if self.zone is not None else None

    @property
    def printed(self) -> str:
        """The label as printed: ``slash ♠7``."""
        got = self._printed
        if not got:
            got = self._printed = f"{self.base.id} {SUIT_SIGN.get(self.printed_suit, '?')}{rank_text(self.rank)}"
        return got

    def label(self) -> str:
        """``slash ♠7`` as printed; a card seen as another kind: ``slash[peach ♥3]``."""
        kind = self.kind
        return f"{kind.id}[{self.printed}]" if kind is not self.base else self.printed

    def __repr__(self) -> str:
        return f"<{self.label()} #{self.id}>"


class VirtualCard:
    """A card made by a skill or an effect: 'use X as Y', or a card with no body.

    A virtual card made of one card has that card's suit and rank; of several,
    the common colour if any; of none, no suit or colour.
    """

    __slots__ = ("kind", "subcards", "skill", "_suit", "_color", "_rank", "face_down")

    _suit: Optional[str]
    _color: Optional[str]

    virtual = True

    def __init__(self, kind: CardKind, subcards: Sequence[Card] = (), skill: Optional[str] = None) -> None:
        self.kind = kind
        self.subcards = list(subcards)
        self.skill = skill
        self.face_down = False  # used under a claim: only its user sees its cards (蛊惑)
        if len(self.subcards) == 1:
            only = self.subcards[0]
            self._suit, self._color, self._rank = only.suit, only.color, only.rank
        else:
            colors = {c.color for c in self.subcards}
            self._suit = None
            self._color = colors.pop() if len(colors) == 1 else None
            self._rank = 0

    @property
    def id(self) -> int:
        return -1

    @property
    def name(self) -> str:
        return self.kind.id

    @property
    def type(self) -> str:
        return self.kind.type

    @property
    def nature(self) -> str:
        return self.kind.nature

    @property
    def suit(self) -> Optional[str]:
        return self._suit

    @property
    def color(self) -> Optional[str]:
        return self._color

    @property
    def rank(self) -> int:
        return self._rank

    @property
    def cards(self) -> list[Card]:
        return list(self.subcards)

    @property
    def physical(self) -> list[Card]:
        return list(self.subcards)

    @property
    def zone(self) -> Optional["Zone"]:
        zones = {c.zone for c in self.subcards}
        return zones.pop() if len(zones) == 1 else None

    @property
    def owner(self) -> Optional["Player"]:
        z = self.zone
        return z.owner if z is not None else None

    def label(self) -> str:
        inner = ", ".join(c.label() for c in self.subcards)
        return f"{self.kind.id}[{inner}]" if inner else f"{self.kind.id}[virtual]"

    def __repr__(self) -> str:
        return f"<{self.label()}>"


AnyCard = Card | VirtualCard


@dataclass
class HeroDraft:
    """The hero choice while it goes on (``Game.draft``; ``None`` before and after it).

    ``pile``: the heroes not yet offered, in the order they will be (the shuffled hero
    pile); ``picks``: each seat's hero once chosen; ``shown``: the seats whose choice is
    public (the lord shows his at once, the others theirs when everyone has chosen);
    ``offered``: the heroes each seat was offered. A search bot's copies deal the hidden
    part anew (:func:`sgs_runtime.state.redeal.redeal`).
    """

    pile: list[str]
    picks: list[Optional[str]]
    shown: set[int] = field(default_factory=set)
    offered: dict[int, list[str]] = field(default_factory=dict)


class Zone:
    """An ordered pile of cards: a hand, an equipment area, the draw pile ...

    ``cards[0]`` is the top of the draw pile, the first card placed in a judge
    area, the oldest card of a hand.
    """

    __slots__ = ("name", "owner", "cards", "public")

    def __init__(self, name: str, owner: Optional["Player"] = None, public: bool = True) -> None:
        self.name = name
        self.owner = owner
        self.cards: list[Card] = []
        self.public = public

    def add(self, card: Card, top: bool = False) -> None:
        assert card.zone is None, f"{card!r} is still in {card.zone!r}"
        if top:
            self.cards.insert(0, card)
        else:
            self.cards.append(card)
        card.zone = self

    def remove(self, card: Card) -> None:
        cards = self.cards
        for i in range(len(cards)):  # (by identity, as cards compare: no comparison called for the others)
            if cards[i] is card:
                del cards[i]
                break
        else:
            raise ValueError(f"{card!r} is not in {self.name}")
        card.zone = None
        if self.name == "judge":
            card.face = None
        elif self.name == "processing":
            card.holder, card.origin = None, ""

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(list(self.cards))

    def __contains__(self, card: object) -> bool:
        return card in self.cards

    def __repr__(self) -> str:
        who = f"{self.owner.name}." if self.owner else ""
        return f"<zone {who}{self.name} ({len(self.cards)})>"


class Player:
    """One seat at the table."""

    def __init__(self, seat: int, hero: Hero, role: str) -> None:
        self.seat = seat
        self.hero = hero
        self.role = role
        self.max_hp = hero.hp
        self.hp = hero.hp
        self.alive = True
        self.dying = False
        self.role_revealed = False
        self.face_down = False
        self.chained = False  # 铁索连环: in the chained state (横置)
        self.hand = Zone("hand", self, public=False)
        self.equip = Zone("equip", self)
        self.judge = Zone("judge", self)
        self.piles: dict[str, Zone] = {}
        self.marks: dict[str, int] = {}
        self.skills: list[Skill] = []  # the hero's and the rules' (the SkillSet decides what holds now)
        self.gained: list[tuple[str, Optional[str]]] = []  # skills gained by an effect, until a scope or for good
        self.lost: list[tuple[str, Optional[str]]] = []  # own skills lost by an effect
        self.invalid: list[tuple[Optional[str], Optional[str]]] = []  # skills made invalid (None: all)
        self.bans: list[Any] = []  # prohibitions placed on this player (Ban), see prohibitions.py
        self.skipped: set[str] = set()  # phases to skip this turn
        self.uses: dict[str, int] = {}  # uses per play phase, keyed by limit quantity
        self.skill_uses: dict[tuple[str, str], int] = {}  # (skill id, scope) -> count
        self.reincarnations = 0
        self.burying = False  # dead, and the death's timing not yet through
        self.spared = False  # alive at HP <= 0 because a skill says so (不屈)
        self.chosen_kingdom: Optional[str] = None  # a god hero's kingdom, chosen where a rule needs one

    @property
    def name(self) -> str:
        return self.hero.id

    @property
    def kingdom(self) -> str:
        return self.chosen_kingdom or self.hero.kingdom

    @property
    def kingdoms(self) -> list[str]:
        if self.chosen_kingdom:
            return [self.chosen_kingdom]
        return list(self.hero.kingdoms or (self.hero.kingdom,))

    @property
    def gender(self) -> str:
        return self.hero.gender

    @property
    def wounded(self) -> bool:
        return self.hp < self.max_hp

    @property
    def lost_hp(self) -> int:
        return max(0, self.max_hp - self.hp)

    def zones(self) -> list[Zone]:
        return [self.hand, self.equip, self.judge, *self.piles.values()]

    def all_cards(self) -> list[Card]:
        out: list[Card] = []
        for z in self.zones():
            out.extend(z.cards)
        return out

    def cards_in(self, zones: Iterable[str]) -> list[Card]:
        out: list[Card] = []
        for z in zones:
            zone = self.zone(z)
            if zone is not None:
                out.extend(zone.cards)
        return out

    def zone(self, name: str) -> Optional[Zone]:
        if name == "hand":
            return self.hand
        if name == "equip":
            return self.equip
        if name == "judge":
            return self.judge
        return self.piles.get(name)

    def slot(self, slot: str) -> Optional[Card]:
        for c in self.equip.cards:
            if c.kind.equip is not None and c.kind.equip.slot == slot:
                return c
        return None

    def has_skill(self, skill_id: str) -> bool:
        return any(s.id == skill_id for s in self.skills)

    def mark(self, name: str) -> int:
        return self.marks.get(name, 0)

    def label(self) -> str:
        return f"{self.hero.id}@{self.seat}"

    def __repr__(self) -> str:
        state = "" if self.alive else " dead"
        return f"<{self.hero.id} seat {self.seat} {self.hp}/{self.max_hp}{state}>"

    def describe(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "hero": self.hero.id,
            "role": self.role,
            "hp": self.hp,
            "max_hp": self.max_hp,
            "alive": self.alive,
            "hand": [c.label() for c in self.hand.cards],
            "equip": [c.label() for c in self.equip.cards],
            "judge": [c.label() for c in self.judge.cards],
            **({"chained": True} if self.chained else {}),
            **({"piles": {n: [c.label() for c in z.cards] for n, z in self.piles.items() if z.cards}}
               if self.piles else {}),
        }
