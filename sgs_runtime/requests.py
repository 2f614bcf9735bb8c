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
``cards``          a list of :class:`~sgs_runtime.model.Card`
``players``        a list of :class:`~sgs_runtime.model.Player`
``option``         an index into ``options``
``order``          an index into ``options`` (which trigger fires first)
``arrange``        ``(top, bottom)``: two lists of the offered cards
=================  ==========================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional

from .errors import IllegalDecision
from .model import AnyCard, Card, Player

if TYPE_CHECKING:  # pragma: no cover
    from .definitions import Skill


@dataclass
class Request:
    """Base of all requests: who decides, and what about."""

    player: Player
    prompt: str
    optional: bool = False
    kind: str = field(default="", init=False)

    def check(self, answer: Any) -> None:
        """Raise :class:`IllegalDecision` if ``answer`` is not allowed."""

    def decline(self) -> Any:
        """The answer meaning 'no' for an optional request."""
        return None

    def describe(self) -> dict[str, Any]:
        return {"kind": self.kind, "player": self.player.name, "prompt": self.prompt}


# --------------------------------------------------------------------- confirm


@dataclass
class ConfirmRequest(Request):
    """Yes or no: invoke an optional skill, repeat, accept."""

    skill: Optional[str] = None
    event: Any = None  # the event a "may" skill would answer

    def __post_init__(self) -> None:
        self.kind = "confirm"
        self.optional = True

    def check(self, answer: Any) -> None:
        if answer not in (True, False):
            raise IllegalDecision(f"{self.player.name} must answer yes or no to: {self.prompt}")

    def decline(self) -> Any:
        return False


# ------------------------------------------------------------------ selections


@dataclass
class CardsRequest(Request):
    """Pick ``min``..``max`` cards from ``candidates``.

    ``hidden`` cards (another player's hand) are picked blind: an agent should
    choose among them without looking (the game shuffles them for bots).
    ``valid`` may further restrict a whole selection (e.g. cards of one colour).
    """

    candidates: list[Card] = field(default_factory=list)
    min: int = 1
    max: int = 1
    hidden: frozenset[int] = frozenset()
    valid: Optional[Callable[[list[Card]], bool]] = None
    step: Optional[Callable[[list[Card], Card], bool]] = None  # may this card join these?
    skill: Optional[str] = None  # the skill whose effect asks, if any
    purpose: str = ""  # what the cards are for: discard, give, take ...

    def __post_init__(self) -> None:
        self.kind = "cards"
        if self.min == 0:
            self.optional = True

    def check(self, answer: Any) -> None:
        if not isinstance(answer, (list, tuple)):
            raise IllegalDecision(f"{self.player.name} must choose cards for: {self.prompt}")
        ids = [c.id for c in answer]
        if len(set(ids)) != len(ids):
            raise IllegalDecision("the same card was chosen twice")
        if not self.min <= len(answer) <= self.max:
            raise IllegalDecision(f"choose between {self.min} and {self.max} cards for: {self.prompt}")
        allowed = {c.id for c in self.candidates}
        for c in answer:
            if c.id not in allowed:
                raise IllegalDecision(f"{c.label()} cannot be chosen for: {self.prompt}")
        if self.valid is not None and not self.valid(list(answer)):
            raise IllegalDecision(f"that choice of cards is not allowed for: {self.prompt}")

    def decline(self) -> Any:
        return []


@dataclass
class PlayersRequest(Request):
    """Pick ``min``..``max`` players from ``candidates``."""

    candidates: list[Player] = field(default_factory=list)
    min: int = 1
    max: int = 1
    skill: Optional[str] = None  # the skill whose effect asks, if any
    purpose: str = ""  # give, target ...
    valid: Optional[Callable[[list[Player]], bool]] = None  # a check of the whole choice, in order

    def __post_init__(self) -> None:
        self.kind = "players"
        if self.min == 0:
            self.optional = True

    def check(self, answer: Any) -> None:
        if not isinstance(answer, (list, tuple)):
            raise IllegalDecision(f"{self.player.name} must choose players for: {self.prompt}")
        if len({p.seat for p in answer}) != len(answer):
            raise IllegalDecision("the same player was chosen twice")
        if not self.min <= len(answer) <= self.max:
            raise IllegalDecision(f"choose between {self.min} and {self.max} players for: {self.prompt}")
        seats = {p.seat for p in self.candidates}
        for p in answer:
            if p.seat not in seats:
                raise IllegalDecision(f"{p.name} cannot be chosen for: {self.prompt}")
        if self.valid is not None and not self.valid(list(answer)):
            raise IllegalDecision(f"that choice of players is not allowed for: {self.prompt}")

    def decline(self) -> Any:
        return []


@dataclass
class OptionRequest(Request):
    """Pick one of ``options`` (labels); the answer is an index."""

    options: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.kind = "option"

    def check(self, answer: Any) -> None:
        if not isinstance(answer, int) or isinstance(answer, bool) or not 0 <= answer < len(self.options):
            raise IllegalDecision(f"{self.player.name} must pick one of {self.options} for: {self.prompt}")


@dataclass
class OrderRequest(OptionRequest):
    """Several of a player's skills fire at once: which first?"""

    def __post_init__(self) -> None:
        self.kind = "order"


@dataclass
class ArrangeRequest(Request):
    """Put ``cards`` on top of / at the bottom of the draw pile (观星)."""

    cards: list[Card] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.kind = "arrange"

    def check(self, answer: Any) -> None:
        try:
            top, bottom = answer
        except (TypeError, ValueError):
            raise IllegalDecision("answer with (top cards, bottom cards)") from None
        given = sorted(c.id for c in [*top, *bottom])
        if given != sorted(c.id for c in self.cards):
            raise IllegalDecision("every offered card must be placed exactly once")

    def decline(self) -> Any:
        return (list(self.cards), [])


# ------------------------------------------------------------ card use / play


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


@dataclass
class PlayOption:
    """One thing a player can do: the agent completes it into a :class:`PlayAction`."""

    label: str
    card: Optional[Card] = None
    skill: Optional["Skill"] = None
    view_as: int = 0
    active: bool = False
    # the card kind this produces (for view-as), for agents and UIs
    as_card: Optional[str] = None
    recast: bool = False  # recast ``card`` (重铸): no targets, not a use


@dataclass
class PlayRequest(Request):
    """The play phase: choose something to use, or end the phase (``None``)."""

    options: list[PlayOption] = field(default_factory=list)
    # the game fills these in: they compute what a partially built action allows
    card_choices: Optional[Callable[[PlayOption], tuple[list[Card], int, Optional[int]]]] = None
    card_step: Optional[Callable[[PlayOption, list[Card], Card], bool]] = None
    target_choices: Optional[Callable[[PlayOption, list[Card], list[Player]], tuple[list[Player], int, int]]] = None
    secondary_choices: Optional[Callable[[PlayOption, list[Card], Player, int], list[Player]]] = None
    validate: Optional[Callable[[PlayAction], Optional[str]]] = None

    def __post_init__(self) -> None:
        self.kind = "play"
        self.optional = True

    def check(self, answer: Any) -> None:
        if answer is None:
            return
        if not isinstance(answer, PlayAction):
            raise IllegalDecision("answer a play request with a PlayAction or None")
        assert self.validate is not None
        problem = self.validate(answer)
        if problem:
            raise IllegalDecision(problem)


@dataclass
class Response:
    """Answer a response window with a hand card, or with cards through a skill."""

    card: Optional[Card] = None
    skill: Optional[str] = None
    cards: list[Card] = field(default_factory=list)
    view_as: int = 0
    as_card: Optional[str] = None  # the kind chosen, for a view-as over several names


@dataclass
class RespondOption:
    label: str
    card: Optional[Card] = None
    skill: Optional["Skill"] = None
    view_as: int = 0
    as_card: Optional[str] = None


@dataclass
class RespondRequest(Request):
    """Use or play a card of ``pattern`` (a card name, or cards that can rescue)."""

    pattern: str = ""
    mode: str = "use"
    against: Optional[AnyCard] = None
    target: Optional[Player] = None  # the player the answer is for (rescue) or the effect is on (counter)
    on: list[Player] = field(default_factory=list)  # the answer will be used on these (借刀杀人's victim)
    beneficiary: Optional[Player] = None  # answering for this player (护驾)
    options: list[RespondOption] = field(default_factory=list)
    card_choices: Optional[Callable[[RespondOption], tuple[list[Card], int, Optional[int]]]] = None
    card_step: Optional[Callable[[RespondOption, list[Card], Card], bool]] = None
    validate: Optional[Callable[[Response], Optional[str]]] = None

    def __post_init__(self) -> None:
        self.kind = "respond"
        self.optional = True

    def check(self, answer: Any) -> None:
        if answer is None:
            return
        if not isinstance(answer, Response):
            raise IllegalDecision("answer a response window with a Response or None")
        assert self.validate is not None
        problem = self.validate(answer)
        if problem:
            raise IllegalDecision(problem)

