"""Events and their timing points: the vocabulary triggers are written in.

Everything that happens is an :class:`Event` pushed on the game's stack while
it resolves. Each event passes named *timing points*; a trigger names the
timing it fires at (``on: damaged``). :data:`TIMINGS` lists every timing, the
event kind it belongs to, whose timing it is (the *subject*: a trigger with
``who: me`` fires only when its owner is the subject), and whether triggers
there may change the event (``before`` timings: change fields, ``cancel``).

Cards may add *signals* of their own (``signal dodged`` in the Slash's effect);
a signal is a timing whose subject is the player whose effect sent it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final, Optional

from sgs_runtime.native import mypyc_attr
from sgs_runtime.state.model import AnyCard, Card, Player


# (every event class: serializable, as a fork copies them, and open to interpreted subclasses, without
# which the compiled build leaves an event made from interpreted code without its fields; see
# docs/architecture.md, "The compiled build")
@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Event:
    """Base class of events. ``cancelled`` is set by ``cancel`` in a trigger.

    Each kind's name and field tables belong to its class (the compiler reads them there)."""

    kind: ClassVar[str] = "event"
    FIELDS: ClassVar[dict[str, str]] = {}
    MUTABLE: ClassVar[frozenset[str]] = frozenset()
    ANY_TIME: ClassVar[frozenset[str]] = frozenset()

    def __init__(self) -> None:
        self.cancelled = False

    def get(self, name: str) -> Any:
        return getattr(self, name)

    def log_fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.FIELDS:
            out[name] = _plain(getattr(self, name, None))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Player):
        return value.name
    if isinstance(value, Card):
        return value.label()
    if hasattr(value, "label") and hasattr(value, "kind"):
        return value.label()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class GameEvent(Event):
    kind = "game"
    FIELDS = {"player": "player"}

    def __init__(self, player: Optional[Player] = None) -> None:
        super().__init__()
        self.player = player


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class TurnEvent(Event):
    kind = "turn"
    FIELDS = {"player": "player", "number": "num"}

    def __init__(self, player: Player, number: int) -> None:
        super().__init__()
        self.player = player
        self.number = number


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class PhaseEvent(Event):
    kind = "phase"
    FIELDS = {"player": "player", "phase": "sym:phase"}

    def __init__(self, player: Player, phase: str) -> None:
        super().__init__()
        self.player = player
        self.phase = phase


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class DrawEvent(Event):
    kind = "draw"
    FIELDS = {"player": "player", "count": "num", "phase": "sym:phase", "cards": "cards"}
    MUTABLE = frozenset({"count"})

    def __init__(self, player: Player, count: int, phase: Optional[str]) -> None:
        super().__init__()
        self.player = player
        self.count = count
        self.phase = phase  # the phase whose own draw this is, else None
        self.cards: list[Card] = []


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class UseEvent(Event):
    """One use of a card, from choosing it to its end."""

    kind = "use"
    FIELDS = {"user": "player", "card": "card", "targets": "players", "counter": "bool", "extra_damage": "num"}
    MUTABLE = frozenset({"extra_damage"})
    #: fields that may change at any of the event's timings, not only 'before' ones
    ANY_TIME = frozenset({"extra_damage"})

    def __init__(self, user: Player, card: AnyCard, targets: list[Player]) -> None:
        super().__init__()
        self.user = user
        self.card = card
        self.targets = targets
        self.extra = False
        self.unnullifiable = False
        self.counter = False  # a use that cancels another card's effect
        self.extra_damage = 0  # added to the damage its effect deals (酒), as the effect says
        self.countered = False
        self.data: dict[str, Any] = {}  # per-use variables (prepare -> effect -> finish)
        self.secondary: dict[int, dict[str, Any]] = {}  # per-target secondary choices, by seat
        self.denied: set[int] = set()  # seats that cannot respond to this card
        self.deferred: list[tuple[Any, Any, "Event"]] = []  # skills set off, fired after it (skills_after_card)
        self.settled = False  # its skills have been fired; nothing more is deferred to it
        self.voided = False  # a trigger at card_declared voided it (蛊惑 questioned and false)
        self.ignored: set[tuple[int, str]] = set()  # (seat, slot) equipment ignored for this use
        self.instigator: Optional[Player] = None  # whose effect made the user use it (离间): the act is theirs


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class DeclareEvent(Event):
    """A card is about to be used or played (打出), in the processing area, before anything else happens.

    ``card_declared`` is a ``before`` timing: cancelling it voids the card (it goes to the
    discard pile, counts as never used or played, and has no effect). A card used face down
    under a claim (蛊惑) is questioned here."""

    kind = "declare"
    FIELDS = {"user": "player", "card": "card", "mode": "text", "targets": "players"}

    def __init__(self, user: Player, card: AnyCard, mode: str, targets: Optional[list[Player]] = None) -> None:
        super().__init__()
        self.user = user
        self.card = card
        self.mode = mode  # use / play
        self.targets = list(targets or [])


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class TargetEvent(Event):
    """A card use has chosen one target (fired per target)."""

    kind = "target"
    FIELDS = {"user": "player", "target": "player", "card": "card", "targets": "players"}

    def __init__(self, use: UseEvent, target: Player) -> None:
        super().__init__()
        self.use = use
        self.user = use.user
        self.card = use.card
        self.target = target

    @property
    def targets(self) -> list[Player]:
        return list(self.use.targets)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class EffectEvent(Event):
    """A card's effect on one target."""

    kind = "effect"
    FIELDS = {"user": "player", "target": "player", "card": "card"}

    def __init__(self, use: UseEvent, target: Player) -> None:
        super().__init__()
        self.use = use
        self.user = use.user
        self.card = use.card
        self.target = target


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class RespondEvent(Event):
    """A player is asked to use or play a card (a response window)."""

    kind = "respond"
    FIELDS = {"player": "player", "pattern": "sym:card", "patterns": "syms:card", "mode": "text", "card": "card",
              "against": "card", "source": "player", "beneficiary": "player"}

    def __init__(self, player: Player, pattern: str, mode: str, against: Optional[AnyCard],
                 source: Optional[Player], beneficiary: Optional[Player]) -> None:
        super().__init__()
        self.player = player
        self.pattern = pattern  # the kinds asked for, joined by '/' (jink, or jink/slash)
        self.patterns = pattern.split("/")  # each kind asked for: `jink in event.patterns`
        self.mode = mode
        self.against = against
        self.source = source
        self.beneficiary = beneficiary
        self.card: Optional[AnyCard] = None  # the card that answered
        self.provided: Optional[AnyCard] = None


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class DamageEvent(Event):
    """One damage, as a value: source, target, amount, nature and the card that caused it.

    ``dealt`` is the amount as the source deals it (after the source side's changes,
    before the target side's); ``damage P like EVENT`` deals a copy of it (same source,
    amount dealt, nature and card) whose ``copy_of`` is the original.
    """

    kind = "damage"
    FIELDS = {"source": "player", "target": "player", "amount": "num", "nature": "sym:nature", "card": "card",
              "user": "player", "dealt": "num", "copy_of": "event:damage", "done": "bool"}
    MUTABLE = frozenset({"amount", "target"})

    def __init__(self, source: Optional[Player], target: Player, amount: int, nature: str,
                 card: Optional[AnyCard], user: Optional[Player] = None,
                 copy_of: Optional["DamageEvent"] = None) -> None:
        super().__init__()
        self.source = source
        self.target = target
        self.amount = amount
        self.nature = nature
        self.card = card
        self.user = user  # who used the card that caused the damage, if a card did
        self.dealt = amount
        self.copy_of = copy_of
        self.done = False  # HP went down


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class RecoverEvent(Event):
    kind = "recover"
    FIELDS = {"player": "player", "amount": "num", "source": "player", "card": "card"}
    MUTABLE = frozenset({"amount"})

    def __init__(self, player: Player, amount: int, source: Optional[Player], card: Optional[AnyCard]) -> None:
        super().__init__()
        self.player = player
        self.amount = amount
        self.source = source
        self.card = card


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class LoseHpEvent(Event):
    kind = "lose_hp"
    FIELDS = {"player": "player", "amount": "num"}
    MUTABLE = frozenset({"amount"})

    def __init__(self, player: Player, amount: int) -> None:
        super().__init__()
        self.player = player
        self.amount = amount


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class JudgeEvent(Event):
    kind = "judge"
    FIELDS = {"player": "player", "card": "card", "suit": "sym:suit", "color": "sym:color", "rank": "num",
              "reason": "text"}

    def __init__(self, player: Player, reason: str) -> None:
        super().__init__()
        self.player = player
        self.reason = reason
        self.card: Optional[Card] = None
        self.suit: Optional[str] = None
        self.color: Optional[str] = None
        self.rank = 0


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class MoveEvent(Event):
    """Cards moved; ``cards_lost`` fires for the player who had them."""

    kind = "move"
    FIELDS = {"player": "player", "cards": "cards", "from_zone": "sym:zone", "to_zone": "sym:zone",
              "to_player": "player", "reason": "text"}

    def __init__(self, player: Optional[Player], cards: list[Card], from_zone: str, to_zone: str,
                 to_player: Optional[Player], reason: str) -> None:
        super().__init__()
        self.player = player
        self.cards = cards
        self.from_zone = from_zone
        self.to_zone = to_zone
        self.to_player = to_player
        self.reason = reason


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class DyingEvent(Event):
    kind = "dying"
    FIELDS = {"player": "player", "source": "player", "damage": "event:damage", "spared": "bool"}
    MUTABLE = frozenset({"spared"})
    ANY_TIME = frozenset({"spared"})

    def __init__(self, player: Player, source: Optional[Player], damage: Optional[DamageEvent]) -> None:
        super().__init__()
        self.player = player
        self.source = source
        self.damage = damage
        self.spared = False  # a skill keeps the player alive at HP <= 0 (不屈): no rescue asked, no death
        self.deferred: list[tuple[Any, Any, "Event"]] = []  # the dying player's skills, fired if rescued


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class DeathEvent(Event):
    kind = "death"
    FIELDS = {"player": "player", "killer": "player", "role": "sym:role"}

    def __init__(self, player: Player, killer: Optional[Player]) -> None:
        super().__init__()
        self.player = player
        self.killer = killer
        self.role = player.role


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class SignalEvent(Event):
    """A timing sent by content (``signal dodged``)."""

    kind = "signal"
    FIELDS = {"name": "text", "user": "player", "target": "player", "card": "card"}

    def __init__(self, name: str, user: Player, target: Optional[Player], card: Optional[AnyCard]) -> None:
        super().__init__()
        self.name = name
        self.user = user
        self.target = target
        self.card = card


@mypyc_attr(serializable=True)
@dataclass(frozen=True)
class Timing:
    name: str
    event: type[Event]
    subject: Optional[str]  # the event field naming whose timing it is
    before: bool = False  # triggers may change fields or cancel
    doc: str = ""
    # a consequence rather than part of resolving: under the runtime setting
    # skills_after_card, skills set off here wait until the card has resolved
    after: bool = False


_T = Timing
TIMINGS: Final[dict[str, Timing]] = {t.name: t for t in [
    _T("game_start", GameEvent, None, doc="the game begins, after hands are dealt"),
    _T("turn_start", TurnEvent, "player", doc="a turn begins"),
    _T("turn_end", TurnEvent, "player", doc="a turn ends"),
    _T("before_phase", PhaseEvent, "player", True, doc="a phase is about to begin; cancel skips it"),
    _T("phase_start", PhaseEvent, "player", doc="a phase begins (准备阶段开始时 ...)"),
    _T("phase_end", PhaseEvent, "player", doc="a phase ends"),
    _T("phase_skipped", PhaseEvent, "player", doc="a phase was skipped"),
    _T("before_draw", DrawEvent, "player", True, doc="cards are about to be drawn; count may change"),
    _T("after_draw", DrawEvent, "player", doc="cards were drawn", after=True),
    _T("card_declared", DeclareEvent, "user", True,
       doc="a card is about to be used or played (in the processing area); cancel voids it (蛊惑's question)"),
    _T("card_used", UseEvent, "user", doc="a card was used (it is in the processing area)", after=True),
    _T("targeting", TargetEvent, "user", doc="a use chose a target (user side, per target)"),
    _T("targeted", TargetEvent, "target", doc="a use chose a target (target side, per target)"),
    _T("before_effect", EffectEvent, "target", True, doc="a card's effect is about to apply to a target"),
    _T("after_effect", EffectEvent, "target", doc="a card's effect on a target has resolved"),
    _T("use_finished", UseEvent, "user", doc="a card use has ended"),
    _T("respond_asked", RespondEvent, "player", True, doc="a player is asked to use or play a card"),
    _T("responded", RespondEvent, "player", doc="a player used or played a card in answer", after=True),
    _T("damage_caused", DamageEvent, "source", True, doc="damage is about to be dealt (source side)"),
    _T("damage_taken", DamageEvent, "target", True, doc="damage is about to be taken (target side)"),
    _T("damaged", DamageEvent, "target", doc="damage was taken (after dying, only if alive)", after=True),
    _T("damage_done", DamageEvent, "source", doc="damage was dealt (source side)", after=True),
    _T("damage_finished", DamageEvent, "target",
       doc="a damage has been fully dealt, its dying included; fires even when the target died (铁索连环)",
       after=True),
    _T("before_recover", RecoverEvent, "player", True, doc="HP is about to be recovered"),
    _T("recovered", RecoverEvent, "player", doc="HP was recovered", after=True),
    _T("before_lose_hp", LoseHpEvent, "player", True, doc="HP is about to be lost"),
    _T("lost_hp", LoseHpEvent, "player", doc="HP was lost", after=True),
    _T("judge_retrial", JudgeEvent, "player", doc="a judge card is shown; retrial skills may replace it"),
    _T("judge_done", JudgeEvent, "player", doc="a judge's result has taken effect", after=True),
    _T("cards_lost", MoveEvent, "player", doc="cards left a player's hand, equipment or judge area", after=True),
    _T("cards_gained", MoveEvent, "to_player", doc="cards entered a player's hand or equipment", after=True),
    _T("dying", DyingEvent, "player", doc="a player's HP fell to 0 or below"),
    _T("death", DeathEvent, "player", doc="a player died", after=True),
]}
