"""Decisions: the game asks, an agent answers.

The game never calls ``input()``. When a player must decide, the game yields a
:class:`Request` and waits; whoever drives it (a bot, a scripted rule case, a
terminal or web UI) answers with :meth:`Game.answer`. Every request lists its
legal answers or can check one (:meth:`Request.check`), so an agent can only
choose among legal moves and a wrong answer is refused without harm.

Kinds and their answers:

=================  ==========================================================
``play``           :class:`PlayAction` or ``None`` (end the play phase)
``respond``        :class:`Response` or ``None`` (decline)
``confirm``        ``True`` / ``False``
``cards``          a list of :class:`~sgs_runtime.state.model.Card`
``players``        a list of :class:`~sgs_runtime.state.model.Player`
``option``         an index into ``options``
``order``          an index into ``options`` (which trigger fires first)
``arrange``        ``(top, bottom)``: two lists of the offered cards
=================  ==========================================================

Every ``check`` looks at the answer's type and range before anything else reads
it: a wrong type (a card id for a card, a string for an arrangement, a list for a
bool), a card or player that is not one of those offered (the same objects: a
card of the same id or a player of the same seat from another game is not), a
duplicate, an index out of range are refused with :class:`IllegalDecision` and a
sentence, and :meth:`Game.answer` records and changes nothing. A
:class:`PlayAction` naming a skill names one part of it exactly: ``view_as`` -1
is its active part (0 too when it has no view-as entry), 0.. a view-as entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Optional

from sgs_runtime.errors import GameError, IllegalDecision
from sgs_runtime.native import mypyc_attr
from sgs_runtime.state.model import AnyCard, Card, Player

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.state.definitions import Skill


def describe_value(value: Any) -> str:
    """A short, safe description of anything an agent might answer with (for refusal messages)."""
    if isinstance(value, Player):
        return value.name
    label = getattr(type(value), "label", None)
    if callable(label) and hasattr(value, "kind"):  # a card, a virtual card or a hidden card's place holder
        try:
            return str(value.label())
        except Exception:  # an object that only looks like a card: described by its repr
            pass
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _type_name(value: Any) -> str:
    """``None``, ``'x' (a str)``, ``42 (an int)``: what an answer was, for refusal messages."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"{describe_value(value)} ({'an' if name[:1].lower() in 'aeiou' else 'a'} {name})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _sequence(value: Any, what: str, of: type, of_name: str) -> list[Any]:
    """``value`` as a list when it is a list or tuple of ``of``; else an :class:`IllegalDecision`."""
    _check_sequence(value, what, "", of, of_name)
    return list(value)


def _check_sequence(value: Any, what: str, field: str, of: type, of_name: str) -> None:
    """Raise :class:`IllegalDecision` unless ``value`` is a list or tuple of ``of`` (``what`` and ``field``
    name it: joined only for the message)."""
    if not (isinstance(value, list) or isinstance(value, tuple)):
        raise IllegalDecision(f"{what}{field} must be a list of {of_name}, not {_type_name(value)}")
    for item in value:
        if not isinstance(item, of):
            raise IllegalDecision(f"{what}{field} must be a list of {of_name}, but it holds {_type_name(item)}")


def _pick_from(answer: list[Any], candidates: list[Any], lo: int, hi: int, noun: str, prompt: str) -> None:
    """A choice of ``lo``..``hi`` different objects, each one of ``candidates`` (the same objects, not look-alikes)."""
    if len({id(a) for a in answer}) != len(answer):
        raise IllegalDecision(f"the same {noun} was chosen twice")
    if not lo <= len(answer) <= hi:
        raise IllegalDecision(f"choose between {lo} and {hi} {noun}s for: {prompt}")
    offered = {id(c) for c in candidates}
    for a in answer:
        if id(a) not in offered:
            raise IllegalDecision(f"{describe_value(a)} cannot be chosen for: {prompt} (it was not offered)")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class _Plain:
    """What the requests and their options share: plain classes, not dataclasses, with their
    ``__init__`` written out, since a request is made at every decision and an option for every
    card at every listing, and the ``__init__`` a dataclass makes is interpreted Python where the
    runtime is compiled. They compare field by field and show their fields (``FIELDS``), as a
    dataclass would. (In the compiled build a serializable class with its own ``__init__`` is made
    right from interpreted code only when it allows interpreted subclasses, hence the second flag.)"""

    FIELDS: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self.FIELDS])

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({shown})"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class Request(_Plain):
    """Base of all requests: who decides, and what about (``kind`` names the subclass, for agents and UIs)."""

    FIELDS: ClassVar[tuple[str, ...]] = ("player", "prompt", "optional", "kind")

    def __init__(self, player: Player, prompt: str, optional: bool = False) -> None:
        self.player = player
        self.prompt = prompt
        self.optional = optional
        self.kind = ""
        #: a copy masked for a seat (visibility.mask_request): which card each place holder stands for, by id
        self.unmask: dict[int, Any] = {}

    def check(self, answer: Any) -> None:
        """Raise :class:`IllegalDecision` if ``answer`` is not allowed."""

    def accept(self, answer: Any) -> Any:
        """:meth:`check` ``answer``, and give what the game goes on with: the answer itself, or the
        checked form a request of its kind makes of it (:class:`CheckedAction`, :class:`CheckedResponse`)."""
        self.check(answer)
        return answer

    def decline(self) -> Any:
        """The answer meaning 'no' for an optional request."""
        return None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player.name, "prompt": self.prompt}


# --------------------------------------------------------------------- confirm


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class ConfirmRequest(Request):
    """Yes or no: invoke an optional skill, repeat, accept."""

    FIELDS: ClassVar[tuple[str, ...]] = Request.FIELDS + ("skill", "event", "part")

    def __init__(self, player: Player, prompt: str, optional: bool = False, skill: Optional[str] = None,
                 event: Any = None, part: str = "") -> None:
        super().__init__(player, prompt, True)  # (always optional: no is an answer)
        self.kind = "confirm"
        self.skill = skill
        self.event = event  # the event a "may" skill would answer
        self.part = part  # which part of the skill asks (a trigger's label), for a skill of several parts

    def check(self, answer: Any) -> None:
        if not isinstance(answer, bool):  # not 1, 0, "yes" or None: True or False
            raise IllegalDecision(f"{self.player.name} must answer yes or no (True or False) to: {self.prompt}, "
                                  f"not {_type_name(answer)}")

    def decline(self) -> Any:
        return False


# ------------------------------------------------------------------ selections


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class CardsRequest(Request):
    """Pick ``min``..``max`` cards from ``candidates``.

    ``hidden`` cards (another player's hand) are picked blind: an agent should
    choose among them without looking (the game shuffles them for bots).
    ``valid`` may further restrict a whole selection (e.g. cards of one colour).
    """

    FIELDS: ClassVar[tuple[str, ...]] = Request.FIELDS + ("candidates", "min", "max", "hidden", "valid", "step",
                                                          "skill", "purpose")

    def __init__(self, player: Player, prompt: str, optional: bool = False, candidates: Optional[list[Card]] = None,
                 min: int = 1, max: int = 1, hidden: frozenset[int] = frozenset(),
                 valid: Optional[Callable[[list[Card]], bool]] = None,
                 step: Optional[Callable[[list[Card], Card], bool]] = None, skill: Optional[str] = None,
                 purpose: str = "") -> None:
        super().__init__(player, prompt, optional or min == 0)
        self.kind = "cards"
        self.candidates = candidates if candidates is not None else []
        self.min = min
        self.max = max
        self.hidden = hidden
        self.valid = valid
        self.step = step  # may this card join these?
        self.skill = skill  # the skill whose effect asks, if any
        self.purpose = purpose  # what the cards are for: discard, give, take ...

    def check(self, answer: Any) -> None:
        if not isinstance(answer, (list, tuple)):
            raise IllegalDecision(f"{self.player.name} must choose cards (a list of the offered cards) for: "
                                  f"{self.prompt}, not {_type_name(answer)}")
        chosen = list(answer)
        # the offered objects themselves (a masked request offers place holders): not a card of the same id
        _pick_from(chosen, self.candidates, self.min, self.max, "card", self.prompt)
        if self.step is not None:
            for i, c in enumerate(chosen):
                if not self.step(chosen[:i], c):
                    raise IllegalDecision(f"{describe_value(c)} cannot be chosen with the cards before it for: "
                                          f"{self.prompt}")
        if self.valid is not None and not self.valid(chosen):
            raise IllegalDecision(f"that choice of cards is not allowed for: {self.prompt}")

    def decline(self) -> Any:
        return []


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class PlayersRequest(Request):
    """Pick ``min``..``max`` players from ``candidates``."""

    FIELDS: ClassVar[tuple[str, ...]] = Request.FIELDS + ("candidates", "min", "max", "skill", "purpose", "valid")

    def __init__(self, player: Player, prompt: str, optional: bool = False,
                 candidates: Optional[list[Player]] = None, min: int = 1, max: int = 1, skill: Optional[str] = None,
                 purpose: str = "", valid: Optional[Callable[[list[Player]], bool]] = None) -> None:
        super().__init__(player, prompt, optional or min == 0)
        self.kind = "players"
        self.candidates = candidates if candidates is not None else []
        self.min = min
        self.max = max
        self.skill = skill  # the skill whose effect asks, if any
        self.purpose = purpose  # give, target ...
        self.valid = valid  # a check of the whole choice, in order

    def check(self, answer: Any) -> None:
        if not isinstance(answer, (list, tuple)):
            raise IllegalDecision(f"{self.player.name} must choose players (a list of the offered players) for: "
                                  f"{self.prompt}, not {_type_name(answer)}")
        chosen = _sequence(answer, "the players chosen", Player, "players")
        # the offered players themselves: a player of another game (same seat) is not one of them
        _pick_from(chosen, self.candidates, self.min, self.max, "player", self.prompt)
        if self.valid is not None and not self.valid(chosen):
            raise IllegalDecision(f"that choice of players is not allowed for: {self.prompt}")

    def decline(self) -> Any:
        return []


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class OptionRequest(Request):
    """Pick one of ``options`` (labels); the answer is an index."""

    FIELDS: ClassVar[tuple[str, ...]] = Request.FIELDS + ("options", "purpose")

    def __init__(self, player: Player, prompt: str, optional: bool = False, options: Optional[list[str]] = None,
                 purpose: str = "") -> None:
        super().__init__(player, prompt, optional)
        self.kind = "option"
        self.options = options if options is not None else []
        self.purpose = purpose  # what is chosen: "hero" when the options are hero ids

    def check(self, answer: Any) -> None:
        if not _is_int(answer) or not 0 <= answer < len(self.options):
            raise IllegalDecision(f"{self.player.name} must pick one of {self.options} by its index "
                                  f"(0 to {len(self.options) - 1}) for: {self.prompt}, not {_type_name(answer)}")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class OrderRequest(OptionRequest):
    """Several of a player's skills fire at once: which first?"""

    def __init__(self, player: Player, prompt: str, optional: bool = False, options: Optional[list[str]] = None,
                 purpose: str = "") -> None:
        super().__init__(player, prompt, optional, options, purpose)
        self.kind = "order"


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class ArrangeRequest(Request):
    """Put ``cards`` on top of / at the bottom of the draw pile (观星)."""

    FIELDS: ClassVar[tuple[str, ...]] = Request.FIELDS + ("cards",)

    def __init__(self, player: Player, prompt: str, optional: bool = False,
                 cards: Optional[list[Card]] = None) -> None:
        super().__init__(player, prompt, optional)
        self.kind = "arrange"
        self.cards = cards if cards is not None else []

    def check(self, answer: Any) -> None:
        if not isinstance(answer, (list, tuple)) or len(answer) != 2:
            raise IllegalDecision(f"answer with (top cards, bottom cards): two lists of the offered cards, "
                                  f"not {_type_name(answer)}")
        top, bottom = answer
        for name, part in (("top", top), ("bottom", bottom)):
            if not isinstance(part, (list, tuple)):
                raise IllegalDecision(f"the {name} cards must be a list of the offered cards, not {_type_name(part)}")
        offered = {id(c) for c in self.cards}
        placed = [*top, *bottom]
        for c in placed:
            if id(c) not in offered:
                raise IllegalDecision(f"{describe_value(c)} is not one of the cards to arrange")
        if len({id(c) for c in placed}) != len(placed):
            raise IllegalDecision("a card was placed twice: every offered card must be placed exactly once")
        if len(placed) != len(self.cards):
            raise IllegalDecision("every offered card must be placed exactly once")

    def decline(self) -> Any:
        return (list(self.cards), [])


# ------------------------------------------------------------ card use / play


@mypyc_attr(native_class=False)  # (an agent's answer: checked field by field by the game, not at its making)
@dataclass
class PlayAction:
    """Use a card from hand, use cards through a view-as skill, or use an active skill.

    ``card`` is a hand card (or ``None`` with a ``skill``); ``cards`` are the
    cards given to a skill; ``targets`` the chosen targets in order.
    """

    card: Optional[Card] = None
    skill: Optional[str] = None
    cards: list[Card] = field(default_factory=list)
    targets: list[Player] = field(default_factory=list)
    view_as: int = 0  # which of the skill's view-as entries (-1: its active part, when it has both)
    secondary: list[Player] = field(default_factory=list)  # a further player per target (借刀杀人)
    recast: bool = False  # 重铸 ``card`` instead of using it: discard it and draw one
    as_card: Optional[str] = None  # the kind chosen, for a view-as over several names (蛊惑)

    def key(self) -> tuple[Any, ...]:
        """What the action says, by identity: two actions with one key are the same decision (cards and
        players compare by identity; the fields must hold what :func:`check_action_fields` allows)."""
        return _action_key(self.card, self.skill, self.cards, self.targets, self.view_as, self.secondary,
                           self.recast, self.as_card)


def _action_key(card: Any, skill: Any, cards: Any, targets: Any, view_as: Any, secondary: Any, recast: Any,
                as_card: Any) -> tuple[Any, ...]:
    return (card, skill, tuple(cards), tuple(targets), view_as, tuple(secondary), recast, as_card)


@mypyc_attr(serializable=True)  # (copied with what refers to it, as the other answer shapes)
class CheckedAction:
    """A :class:`PlayAction` as the game goes on with it once its fields are checked
    (:func:`check_action_fields`): the same fields, typed, its lists taken as tuples, so that
    what the agent does to its action afterwards changes nothing. :meth:`Game.answer` records
    it and hands it to the play phase (:meth:`PlayRequest.accept`).

    >>> a = CheckedAction(None, "some_skill", (), (), -1, (), False, None)
    >>> a.key == PlayAction(skill="some_skill", view_as=-1).key()
    True
    """

    def __init__(self, card: Optional[Card], skill: Optional[str], cards: tuple[Card, ...],
                 targets: tuple[Player, ...], view_as: int, secondary: tuple[Player, ...], recast: bool,
                 as_card: Optional[str]) -> None:
        self.card = card
        self.skill = skill
        self.cards = cards
        self.targets = targets
        self.view_as = view_as
        self.secondary = secondary
        self.recast = recast
        self.as_card = as_card
        #: what the action says, by identity (:meth:`PlayAction.key`)
        self.key = _action_key(card, skill, cards, targets, view_as, secondary, recast, as_card)  # (tuples kept)
        self._hash = hash(self.key)  # (found once: a request looks it up among the actions it passed)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        """Two checked actions that say the same (the same cards and players, by identity) are equal."""
        return isinstance(other, CheckedAction) and self._hash == other._hash and self.key == other.key

    def __repr__(self) -> str:
        return (f"CheckedAction(card={self.card!r}, skill={self.skill!r}, cards={self.cards!r}, "
                f"targets={self.targets!r}, view_as={self.view_as!r}, secondary={self.secondary!r}, "
                f"recast={self.recast!r}, as_card={self.as_card!r})")


@mypyc_attr(serializable=True)  # (kept by a request's functions, which a copy of the game copies)
class TargetPool:
    """The targets a play option may choose, to be looked at one player at a time: an agent that wants
    only a few of them stops looking once it has them (:attr:`PlayRequest.target_pool`).

    ``pool``: the players a listing looks at, in its order; ``legal(p)``: whether ``p`` is a legal target
    (and, for an option that needs further players, has one); ``lo`` to ``hi`` targets are chosen (both 0:
    the option fixes its own targets, or has none). The listing :attr:`PlayRequest.target_choices` gives is
    ``[p for p in pool if legal(p)]`` (:meth:`listed`). The game keeps one pool per option and cards while
    the request waits: read ``pool``, do not change it.

    >>> odd = TargetPool([1, 2, 3], lambda p: p % 2 == 1, 1, 1)
    >>> odd.listed()
    [1, 3]
    """

    def __init__(self, pool: list[Any], legal: Callable[[Any], bool], lo: int, hi: int) -> None:
        self.pool = pool
        self.legal = legal
        self.lo = lo
        self.hi = hi
        self._listed: Optional[list[Any]] = None

    def listed(self) -> list[Any]:
        """The legal targets, in the pool's order (looked at once; a new list each time)."""
        got = self._listed
        if got is None:
            legal = self.legal
            got = self._listed = [p for p in self.pool if legal(p)]
        return list(got)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class PlayOption(_Plain):
    """One thing a player can do: the agent completes it into a :class:`PlayAction`.

    ``as_card``: the card kind this produces (for view-as), for agents and UIs; ``recast``: recast
    ``card`` (重铸): no targets, not a use; ``further``: further players each target needs (借刀杀人: 1,
    whom the target must Slash; 0: none, and then :attr:`PlayRequest.secondary_choices` has nothing to list).

    >>> PlayOption("end", further=1)
    PlayOption(label='end', card=None, skill=None, view_as=0, active=False, as_card=None, recast=False, further=1)
    """

    FIELDS: ClassVar[tuple[str, ...]] = ("label", "card", "skill", "view_as", "active", "as_card", "recast", "further")

    def __init__(self, label: str, card: Optional[Card] = None, skill: Optional["Skill"] = None, view_as: int = 0,
                 active: bool = False, as_card: Optional[str] = None, recast: bool = False, further: int = 0) -> None:
        self.label = label
        self.card = card
        self.skill = skill
        self.view_as = view_as
        self.active = active
        self.as_card = as_card
        self.recast = recast
        self.further = further


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PlayAsks:
    """What a play request asks of the game while it waits (nothing changes meanwhile), one method a
    question: the cards an option may take, its targets, whether an action is legal. The game's own
    answers are in use.py; this base answers none (a request made without a game)."""

    def card_choices(self, opt: PlayOption) -> tuple[list[Card], int, Optional[int]]:
        raise _no_game("the cards an option takes")

    def card_step(self, opt: PlayOption, chosen: list[Card], card: Card) -> bool:
        raise _no_game("whether a card may be added to those chosen")

    def target_choices(self, opt: PlayOption, cards: list[Card], chosen: list[Player]) -> tuple[list[Player], int, int]:
        raise _no_game("the targets of an option")

    def secondary_choices(self, opt: PlayOption, cards: list[Card], target: Player, index: int) -> list[Player]:
        raise _no_game("the further players of a target")

    def validate(self, action: CheckedAction) -> Optional[str]:
        raise _no_game("whether an action is legal")

    def target_pool(self, opt: PlayOption, cards: list[Card]) -> TargetPool:
        raise _no_game("the targets of an option")


def _no_game(what: str) -> GameError:
    return GameError(f"this request was not made by a game: it cannot tell {what}")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class PlayRequest(Request):
    """The play phase: choose something to use, or end the phase (``None``).

    Its methods ask the game what a partly built action allows (:class:`PlayAsks`, ``asks``): one
    object answers them all, so that a request is made at every decision without a callable for each."""

    FIELDS: ClassVar[tuple[str, ...]] = Request.FIELDS + ("options", "asks")

    def __init__(self, player: Player, prompt: str, optional: bool = False,
                 options: Optional[list[PlayOption]] = None, asks: Optional[PlayAsks] = None) -> None:
        super().__init__(player, prompt, True)  # (always optional: None ends the phase)
        self.kind = "play"
        self.options = options if options is not None else []
        self.asks = asks if asks is not None else PlayAsks()
        # the actions found legal: the agent's own checks and the game's are one check
        self.passed: set[CheckedAction] = set()

    def card_choices(self, opt: PlayOption) -> tuple[list[Card], int, Optional[int]]:
        """The cards ``opt`` may take (a skill's), and how few and how many (None: no upper bound)."""
        return self.asks.card_choices(opt)

    def card_step(self, opt: PlayOption, chosen: list[Card], card: Card) -> bool:
        """Whether ``card`` may join the cards ``chosen`` so far for ``opt``."""
        return self.asks.card_step(opt, chosen, card)

    def target_choices(self, opt: PlayOption, cards: list[Card], chosen: list[Player]) -> tuple[list[Player], int, int]:
        """The legal targets of ``opt`` with ``cards``, and how few and how many are chosen."""
        return self.asks.target_choices(opt, cards, chosen)

    def secondary_choices(self, opt: PlayOption, cards: list[Card], target: Player, index: int) -> list[Player]:
        """The further players ``target`` may be given (借刀杀人: whom it must Slash)."""
        return self.asks.secondary_choices(opt, cards, target, index)

    def validate(self, action: CheckedAction) -> Optional[str]:
        """Why a checked action is not allowed now, or None."""
        return self.asks.validate(action)

    def target_pool(self, opt: PlayOption, cards: list[Card]) -> TargetPool:
        """The targets of ``opt`` with ``cards``, to be looked at one player at a time (:class:`TargetPool`):
        what :meth:`target_choices` lists, for an agent that needs only the first few."""
        return self.asks.target_pool(opt, cards)

    def check(self, answer: Any) -> None:
        self.accept(answer)

    def accept(self, answer: Any) -> Optional[CheckedAction]:
        if answer is None:
            return None
        if not isinstance(answer, PlayAction):
            raise IllegalDecision(f"answer a play request with a PlayAction or None, not {_type_name(answer)}")
        checked = check_action_fields(answer)
        if checked in self.passed:
            return checked  # the state has not changed while the request waits: the verdict holds
        problem = self.asks.validate(checked)
        if problem:
            raise IllegalDecision(problem)
        self.passed.add(checked)
        return checked


@mypyc_attr(native_class=False)  # (an agent's answer: checked field by field by the game, not at its making)
@dataclass
class Response:
    """Answer a response window with a hand card, or with cards through a skill."""

    card: Optional[Card] = None
    skill: Optional[str] = None
    cards: list[Card] = field(default_factory=list)
    view_as: int = 0
    as_card: Optional[str] = None  # the kind chosen, for a view-as over several names


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class RespondOption(_Plain):
    """One way to answer a response window: a hand card, or a skill's view-as entry (as ``as_card``)."""

    FIELDS: ClassVar[tuple[str, ...]] = ("label", "card", "skill", "view_as", "as_card")

    def __init__(self, label: str, card: Optional[Card] = None, skill: Optional["Skill"] = None, view_as: int = 0,
                 as_card: Optional[str] = None) -> None:
        self.label = label
        self.card = card
        self.skill = skill
        self.view_as = view_as
        self.as_card = as_card


@mypyc_attr(serializable=True)  # (copied with what refers to it, as the other answer shapes)
class CheckedResponse:
    """A :class:`Response` as the game goes on with it once its fields are checked
    (:func:`check_response_fields`), as :class:`CheckedAction` is a play action's.

    >>> CheckedResponse(None, "some_skill", (), 0, None).skill
    'some_skill'
    """

    def __init__(self, card: Optional[Card], skill: Optional[str], cards: tuple[Card, ...], view_as: int,
                 as_card: Optional[str]) -> None:
        self.card = card
        self.skill = skill
        self.cards = cards
        self.view_as = view_as
        self.as_card = as_card

    def __repr__(self) -> str:
        return (f"CheckedResponse(card={self.card!r}, skill={self.skill!r}, cards={self.cards!r}, "
                f"view_as={self.view_as!r}, as_card={self.as_card!r})")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class RespondAsks:
    """What a response window asks of the game while it waits (as :class:`PlayAsks`): the game's own
    answers are in respond.py; this base answers none."""

    def card_choices(self, opt: RespondOption) -> tuple[list[Card], int, Optional[int]]:
        raise _no_game("the cards an option takes")

    def card_step(self, opt: RespondOption, chosen: list[Card], card: Card) -> bool:
        raise _no_game("whether a card may be added to those chosen")

    def validate(self, answer: CheckedResponse) -> Optional[str]:
        raise _no_game("whether a response is legal")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # (made from Python too: see _Plain)
class RespondRequest(Request):
    """Use or play a card of ``pattern`` (a card name, or cards that can rescue)."""

    FIELDS: ClassVar[tuple[str, ...]] = Request.FIELDS + ("pattern", "mode", "against", "target", "on", "beneficiary",
                                                          "options", "asks")

    def __init__(self, player: Player, prompt: str, optional: bool = False, pattern: str = "", mode: str = "use",
                 against: Optional[AnyCard] = None, target: Optional[Player] = None,
                 on: Optional[list[Player]] = None, beneficiary: Optional[Player] = None,
                 options: Optional[list[RespondOption]] = None, asks: Optional[RespondAsks] = None) -> None:
        super().__init__(player, prompt, True)  # (always optional: None declines)
        self.kind = "respond"
        self.pattern = pattern
        self.mode = mode
        self.against = against
        self.target = target  # the player the answer is for (rescue) or the effect is on (counter)
        self.on = on if on is not None else []  # the answer will be used on these (借刀杀人's victim)
        self.beneficiary = beneficiary  # answering for this player (护驾)
        self.options = options if options is not None else []
        self.asks = asks if asks is not None else RespondAsks()

    def card_choices(self, opt: RespondOption) -> tuple[list[Card], int, Optional[int]]:
        """The cards ``opt`` may take (a view-as skill's), and how few and how many."""
        return self.asks.card_choices(opt)

    def card_step(self, opt: RespondOption, chosen: list[Card], card: Card) -> bool:
        """Whether ``card`` may join the cards ``chosen`` so far for ``opt``."""
        return self.asks.card_step(opt, chosen, card)

    def validate(self, answer: CheckedResponse) -> Optional[str]:
        """Why a checked response is not allowed now, or None."""
        return self.asks.validate(answer)

    def check(self, answer: Any) -> None:
        self.accept(answer)

    def accept(self, answer: Any) -> Optional[CheckedResponse]:
        if answer is None:
            return None
        if not isinstance(answer, Response):
            raise IllegalDecision(f"answer a response window with a Response or None, not {_type_name(answer)}")
        checked = check_response_fields(answer)
        problem = self.asks.validate(checked)
        if problem:
            raise IllegalDecision(problem)
        return checked



# ------------------------------------------------------------ answer shapes


def _check_card_skill(what: str, card: Any, skill: Any, cards: Any, view_as: Any, as_card: Any) -> None:
    """The fields a PlayAction and a Response share: their types, before anything reads them."""
    if card is not None and not isinstance(card, Card):
        raise IllegalDecision(f"{what}.card must be a card of the game or None, not {_type_name(card)}")
    if skill is not None and not isinstance(skill, str):
        raise IllegalDecision(f"{what}.skill must be a skill id (a string) or None, not {_type_name(skill)}")
    if card is not None and skill is not None:
        raise IllegalDecision(f"{what} names both a card ({card.label()}) and a skill ({skill}): name one")
    _check_sequence(cards, what, ".cards", Card, "cards of the game")
    if not _is_int(view_as):
        raise IllegalDecision(f"{what}.view_as must be an index (an int), not {_type_name(view_as)}")
    if as_card is not None and not isinstance(as_card, str):
        raise IllegalDecision(f"{what}.as_card must be a card kind id (a string) or None, not {_type_name(as_card)}")


def check_action_fields(action: PlayAction) -> CheckedAction:
    """Raise :class:`IllegalDecision` unless every field of ``action`` has the type it must have; else
    the action as the game goes on with it (:class:`CheckedAction`), made from the fields as they were checked."""
    # (read as Any, each field once: the compiled build would check each field against its declared type
    # as it is read, and raise a TypeError where the game owes the agent a refusal in words)
    given: Any = action
    card, skill, cards, targets = given.card, given.skill, given.cards, given.targets
    view_as, secondary, recast, as_card = given.view_as, given.secondary, given.recast, given.as_card
    _check_card_skill("a PlayAction", card, skill, cards, view_as, as_card)
    _check_sequence(targets, "a PlayAction", ".targets", Player, "players")
    _check_sequence(secondary, "a PlayAction", ".secondary", Player, "players")
    if not isinstance(recast, bool):
        raise IllegalDecision(f"a PlayAction.recast must be True or False, not {_type_name(recast)}")
    if card is None and skill is None:
        raise IllegalDecision("a PlayAction must name a card or a skill (answer None to end the play phase)")
    return CheckedAction(card, skill, tuple(cards), tuple(targets), view_as, tuple(secondary), recast, as_card)


def check_response_fields(ans: Response) -> CheckedResponse:
    """Raise :class:`IllegalDecision` unless every field of ``ans`` has the type it must have; else the
    response as the game goes on with it (:class:`CheckedResponse`)."""
    given: Any = ans  # (read as Any, as in check_action_fields)
    card, skill, cards, view_as, as_card = given.card, given.skill, given.cards, given.view_as, given.as_card
    _check_card_skill("a Response", card, skill, cards, view_as, as_card)
    if card is None and skill is None:
        raise IllegalDecision("a Response must name a card or a skill (answer None to decline)")
    return CheckedResponse(card, skill, tuple(cards), view_as, as_card)
