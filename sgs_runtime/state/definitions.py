"""Compiled content: what :mod:`sgs_dsl` produces and the runtime plays.

These objects are built once when content is loaded and shared, read-only, by
every game in a process. Behaviour is held as compiled callables:

* an *expression* is ``Callable[[Frame], value]``;
* a *block* (an effect) is ``Callable[[Frame], Generator[Request, answer, None]]``,
  a generator that yields requests for decisions.

Nothing here knows a card, hero or skill by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Generator, Optional, Union

from sgs_runtime.native import mypyc_attr

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.state.frame import Frame

ExprFn = Callable[["Frame"], Any]
BlockFn = Callable[["Frame"], Generator[Any, Any, None]]


@mypyc_attr(native_class=False)  # (frozen: a compiled copy could not be unpickled; shown, not played with)
@dataclass(frozen=True)
class Text:
    """A display text in Chinese and English."""

    zh: str
    en: str

    def __str__(self) -> str:
        return self.en or self.zh


@mypyc_attr(native_class=False)  # (frozen: a compiled copy could not be unpickled; shown, not played with)
@dataclass(frozen=True)
class Source:
    """Where a definition was written (for explanations and errors)."""

    file: str
    line: int
    col: int


@mypyc_attr(serializable=True)
@dataclass
class TargetSpec:
    """Who a card (or an active skill) may target.

    ``mode`` is ``self``, ``all`` (every living player from the user),
    ``others`` (every other living player from the user's next seat),
    ``choose`` (the user picks ``min``..``max`` players passing ``filter``) or
    ``none`` (no target).
    """

    mode: str = "choose"
    min: int = 1
    max: Optional[ExprFn] = None  # None: exactly ``min``
    max_call: Optional["QuantityCall"] = None  # ``max`` when it is one quantity of me and card
    filter: Optional[ExprFn] = None  # vars: me, target, card
    #: the quantities ``filter`` asks when it reads nothing else that changes within a skill epoch
    #: (:func:`sgs_dsl.epochs.epoch_reads`; no filter: none); None: it reads the changing state (or is not known)
    filter_reads: Optional[frozenset[str]] = None
    then: list["SecondaryTarget"] = field(default_factory=list)
    respect_prohibitions: bool = True
    dead: bool = False  # dead players may be targeted (转世: a sacrifice to the dead)
    valid: Optional[ExprFn] = None  # a check of the whole choice, in order (vars: me, targets, card)


@mypyc_attr(serializable=True)
@dataclass
class SecondaryTarget:
    """A further player chosen for each target, e.g. the victim of 借刀杀人."""

    name: str
    filter: Optional[ExprFn]  # vars: me, target, card, and ``name`` as the candidate


@mypyc_attr(serializable=True)
@dataclass
class QuantityCall:
    """An expression that is one quantity asked of the user and the card, nothing more (``limit:
    slash_uses(me)``, ``max: slash_targets(me, card)``): the runtime asks the quantity itself, with no
    frame made and no snippet run. ``args``: each argument, ``me`` or ``card``."""

    name: str
    args: tuple[str, ...]


@mypyc_attr(serializable=True)
@dataclass
class UseSpec:
    """How a card kind is used."""

    in_play: bool = False  # may be used on one's own initiative in the play phase
    condition: Optional[ExprFn] = None  # vars: me, card
    limit: Optional[ExprFn] = None  # uses allowed per play phase (vars: me, card)
    limit_call: Optional[QuantityCall] = None  # ``limit`` when it is one quantity of me and card
    limit_group: str = ""  # uses are counted per group (default: the card kind's id)
    targets: TargetSpec = field(default_factory=TargetSpec)
    rescue: Optional[ExprFn] = None  # usable on a dying player when this holds (vars me, target)
    counters: tuple[str, ...] = ()  # card types whose effects this card can cancel
    nullifiable: bool = True
    affects: Optional[ExprFn] = None  # the effect skips targets for which this is false (vars: me, target, card)
    prepare: Optional[BlockFn] = None
    effect: Optional[BlockFn] = None
    finish: Optional[BlockFn] = None


@mypyc_attr(serializable=True)
@dataclass
class DelayedSpec:
    """A delayed trick: resolved from a judge area."""

    effect: BlockFn
    countered: Optional[BlockFn] = None
    # whether a counter window opens before the judgement (default yes); when false,
    # the effect opens one itself with `counter` (the older ruling for 乐不思蜀)
    counter_first: Optional[ExprFn] = None


@mypyc_attr(serializable=True)
@dataclass
class EquipSpec:
    slot: str
    range: Optional[int] = None
    skills: tuple[str, ...] = ()


@mypyc_attr(serializable=True)
@dataclass
class CardKind:
    """One kind of card (杀, 闪, 诸葛连弩 ...); physical cards point at a kind."""

    id: str
    name: Text
    type: str  # basic / trick / equip
    text: Text
    source: Source
    aliases: tuple[str, ...] = ()
    use: Optional[UseSpec] = None
    delayed: Optional[DelayedSpec] = None
    equip: Optional[EquipSpec] = None
    attrs: dict[str, Any] = field(default_factory=dict)
    pack: str = ""
    ai: "AiHints" = field(default_factory=lambda: AiHints())
    parent: Optional[str] = None  # the kind it is a kind of (``is: slash``)
    family: frozenset[str] = frozenset()  # itself and every kind it is (thunder_slash: thunder_slash, slash)
    nature: str = "normal"  # normal / fire / thunder
    recast: bool = False  # 重铸: may be discarded from hand in the play phase to draw one

    def __post_init__(self) -> None:
        if not self.family:
            self.family = frozenset((self.id,))

    def is_a(self, kind_id: str) -> bool:
        """Whether this kind is ``kind_id`` or of its family.

        >>> k = CardKind("spark", Text("", ""), "basic", Text("", ""), Source("x", 1, 1),
        ...              parent="ember", family=frozenset({"spark", "ember"}))
        >>> k.is_a("ember"), k.is_a("spark"), k.is_a("ash")
        (True, True, False)
        """
        return kind_id in self.family


@mypyc_attr(serializable=True)
@dataclass
class AiHints:
    """What a card or skill is for, for heuristic bots (never read by the rules)."""

    intent: Optional[str] = None  # harm / help / gain / equip / gamble
    targets: Optional[str] = None  # enemy / friend / self / any
    value: float = 5.0  # worth of holding it (0-10)
    priority: float = 0.0
    when: Optional[ExprFn] = None  # use it only when this holds (vars: me)
    accept: Optional[ExprFn] = None  # invoke a "may" skill only when this holds (vars: me, event)
    aim: Optional[ExprFn] = None  # a target worth choosing (vars: me, target)
    mutual: bool = False  # answering it turns its harm on its user (决斗): no answer against a friend


@mypyc_attr(serializable=True)
@dataclass
class Limit:
    count: int
    scope: str  # turn / phase / round / game


@mypyc_attr(serializable=True)
@dataclass
class Trigger:
    """A skill (or rule) that fires at a timing point."""

    timing: str
    who: str  # me / anyone / others
    condition: Optional[ExprFn]
    optional: bool
    per: Optional[str]  # None, "point" (each point of damage) or "card" (each card moved)
    limit: Optional[Limit]
    body: BlockFn
    skill: Optional["Skill"]  # None for a rules trigger
    source: Source
    label: str = ""
    cost: Optional[BlockFn] = None
    if_text: str = ""  # the condition as written (explanations quote it)
    if_source: Optional[Source] = None


@mypyc_attr(serializable=True)
@dataclass
class CardChoice:
    """Cards picked when a view-as or active skill is used."""

    min: int
    max: Optional[int]  # None: no upper bound
    zones: tuple[str, ...]
    filter: Optional[ExprFn]  # vars: me, it (the candidate), chosen (already picked)


@mypyc_attr(serializable=True)
@dataclass
class ViewAs:
    """Use or play some of one's cards as another card."""

    card: str  # card kind id it becomes (the first of ``names``)
    cards: CardChoice
    modes: frozenset[str]  # use / play
    condition: Optional[ExprFn]  # vars: me
    skill: Optional["Skill"] = None
    names: tuple[str, ...] = ()  # every kind it may become (a view-as over a set of names)
    limit: Optional["Limit"] = None  # uses of this view-as, per turn / phase / round / game
    face_down: bool = False  # the cards are used face down under a claim (only the user sees them)

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.names or (self.card,)


@mypyc_attr(serializable=True)
@dataclass
class ActiveSpec:
    """A skill used on one's own initiative in the play phase."""

    limit: Optional[int]  # uses per play phase
    condition: Optional[ExprFn]
    cards: Optional[CardChoice]
    targets: Optional[TargetSpec]
    body: BlockFn
    as_card: Optional[str] = None  # targets chosen as for this card kind


@mypyc_attr(serializable=True)
@dataclass
class Modifier:
    """A static change to a quantity (咆哮, 马术, 英姿 ...)."""

    quantity: str
    condition: Optional[ExprFn]  # vars: me (the owner) and the quantity's parameters
    add: Optional[ExprFn] = None
    set: Optional[ExprFn] = None
    #: the parameter the condition requires to be its owner (``if: a == me and ...``: ``a``), read from
    #: the condition's text; another player's value there fails it, so it is not asked (None: always asked)
    owner: Optional[str] = None
    #: the quantities its expressions ask, when they read nothing else that changes within a skill
    #: epoch (:mod:`sgs_dsl.epochs`); None: they read the changing state (HP, a hand, a mark ...)
    reads: Optional[frozenset[str]] = None


@mypyc_attr(serializable=True)
@dataclass
class Prohibition:
    """A static rule that forbids something (空城, 谦逊)."""

    kind: str  # target: the owner cannot be targeted; use: the owner cannot use the card
    condition: Optional[ExprFn]  # vars: me (the owner), user, card


@mypyc_attr(serializable=True)
@dataclass
class MarkDef:
    name: str
    reset: str  # never / turn / phase / round
    visible: bool


@mypyc_attr(serializable=True)
@dataclass
class PileDef:
    """A named pile of cards on a player (face up: everyone sees it; face down: its owner)."""

    name: str
    text: Text
    face: str = "up"


@mypyc_attr(serializable=True)
@dataclass
class Filter:
    """How a skill's owner's cards are seen (锁定技 such as 红颜: ♠ is ♥; 武神: a heart in hand is a Slash).

    ``zones`` None means every card of the owner: their hand, equipment and judge
    area, their judge cards (``judgement``), and the cards they use or play from
    any of these. The condition sees the card as printed (``it``).
    """

    zones: Optional[frozenset[str]]
    condition: Optional[ExprFn]  # vars: me (the owner), it (the card as printed)
    suit: Optional[str] = None
    name: Optional[str] = None  # a card kind id


@mypyc_attr(serializable=True)
@dataclass
class Grant:
    """A skill given to other players while its giver has this one (黄天)."""

    skill: str  # the skill given
    condition: Optional[ExprFn]  # vars: me (the giver), it (the receiver)


@mypyc_attr(serializable=True)
@dataclass
class Copy:
    """Skills copied from other players, following them (伪帝: the lord's lord skills)."""

    source: ExprFn  # vars: me; a player or a list of players
    lord_only: bool = True


@mypyc_attr(serializable=True)
@dataclass
class Invalidation:
    """While ``condition`` holds, the owner's other skills are invalid (缠怨)."""

    condition: Optional[ExprFn]  # vars: me


@mypyc_attr(serializable=True)
@dataclass
class Skill:
    id: str
    name: Text
    text: Text
    source: Source
    locked: bool = False
    lord: bool = False
    while_dying: bool = False
    triggers: list[Trigger] = field(default_factory=list)
    view_as: list[ViewAs] = field(default_factory=list)
    active: Optional[ActiveSpec] = None
    modifiers: list[Modifier] = field(default_factory=list)
    prohibitions: list[Prohibition] = field(default_factory=list)
    immune: frozenset[str] = frozenset()  # "others_equipment": other players' equipment has no effect on the owner
    filters: list[Filter] = field(default_factory=list)
    grants: list[Grant] = field(default_factory=list)
    copies: Optional[Copy] = None
    invalidates: Optional[Invalidation] = None
    pack: str = ""
    aliases: tuple[str, ...] = ()
    ai: AiHints = field(default_factory=AiHints)


@mypyc_attr(serializable=True)
@dataclass
class Hero:
    id: str
    name: Text
    kingdom: str
    gender: str
    hp: int
    skills: tuple[str, ...]
    source: Source
    pack: str = ""
    aliases: tuple[str, ...] = ()
    kingdoms: tuple[str, ...] = ()  # every kingdom, the first being ``kingdom``
    can_be_lord: bool = True
    ai: AiHints = field(default_factory=AiHints)


@mypyc_attr(serializable=True)
@dataclass
class Quantity:
    """A named number that static skills modify (attack range, hand limit ...)."""

    name: str
    params: tuple[str, ...]
    base: ExprFn
    minimum: Optional[int] = None
    #: the quantities its base asks, when it reads nothing else that changes within a skill epoch
    #: (:mod:`sgs_dsl.epochs`); None: it reads the changing state, and is remembered for one version
    reads: Optional[frozenset[str]] = None
    #: the value, clamped to ``minimum``, while no modifier is in force, for a base that is a plain
    #: number or truth value (``base: 1``, ``base: false``); None: the base is worked out when asked
    fixed: Optional[Union[int, bool]] = None


@mypyc_attr(serializable=True)
@dataclass
class PhaseDef:
    id: str
    name: Text
    body: Optional[BlockFn]


@mypyc_attr(serializable=True)
@dataclass
class RoleDef:
    id: str
    name: Text
    revealed: bool = False
    first: bool = False
    lord_skills: bool = False
    bonus_hp: Optional[ExprFn] = None  # vars: players (the table)
    side: str = "alone"  # lord / rebel / alone: whom the role plays with (bots read it; victory is data)


@mypyc_attr(serializable=True)
@dataclass
class VictoryRule:
    condition: ExprFn
    winners: ExprFn
    label: str = ""


@mypyc_attr(serializable=True)
@dataclass
class Selection:
    """How heroes are chosen before the game (身份局: the lord first)."""

    lord_role: Optional[str]  # the role that chooses first, from lord heroes plus ``lord_random``
    lord_random: int = 2
    choices: int = 3
    choices_by_players: dict[int, int] = field(default_factory=dict)


@mypyc_attr(serializable=True)
@dataclass
class Ruleset:
    id: str
    name: Text
    source: Source
    extends: Optional[str]
    players_min: int
    players_max: int
    options: dict[str, Any]
    roles: dict[str, RoleDef]
    role_tables: dict[int, list[str]]
    phases: list[PhaseDef]
    start_hand: int
    dying: Optional[BlockFn]
    triggers: list[Trigger]
    victory: list[VictoryRule]
    quantities: dict[str, Quantity]
    slots: tuple[str, ...]
    card_packs: tuple[str, ...]
    hero_packs: tuple[str, ...]
    selection: Selection
    skills: bool = True  # heroes keep their skills
    uniform_hp: Optional[int] = None  # every hero has this HP (first game)
    removed_ranks: tuple[int, ...] = ()
    text: Text = field(default_factory=lambda: Text("", ""))
    runtime: dict[str, Any] = field(default_factory=dict)  # how the engine resolves (see RUNTIME_SETTINGS)
    skill_overrides: dict[str, Optional[str]] = field(default_factory=dict)  # skill id -> instead (None: none)
    player_skills: tuple[str, ...] = ()  # skills every player has under these rules
    role_table_variants: dict[str, dict[int, list[str]]] = field(default_factory=dict)


RUNTIME_SETTINGS = {
    "dying_skills_wait": "the triggered skills of a dying player wait until rescued (older rulings, seed 002)",
    "skills_after_card": "skills set off while a card resolves fire after it has resolved, and not for the dead "
                         "(the older resolution principle, seed 002)",
    "dead_stay_at_table": "dead players stay at the table and may hold hand cards (转世)",
}


@mypyc_attr(serializable=True)
@dataclass
class DeckCard:
    kind: str
    suit: str
    rank: int
    line: int = 0


@mypyc_attr(native_class=False)  # (keeps caches on itself, and is read once per question, not per step)
@dataclass
class Content:
    """Everything loaded: the result of :func:`sgs_dsl.load_content`."""

    cards: dict[str, CardKind] = field(default_factory=dict)
    skills: dict[str, Skill] = field(default_factory=dict)
    heroes: dict[str, Hero] = field(default_factory=dict)
    rulesets: dict[str, Ruleset] = field(default_factory=dict)
    decks: dict[str, list[DeckCard]] = field(default_factory=dict)
    hero_packs: dict[str, list[str]] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    marks: dict[str, MarkDef] = field(default_factory=dict)
    piles: dict[str, PileDef] = field(default_factory=dict)
    signals: dict[str, str] = field(default_factory=dict)  # signal name -> subject field
    files: list[str] = field(default_factory=list)
    env: Any = None  # the names content declares, for compiling expressions later (rule cases)
    default_rules: Optional[str] = None  # the rules file marked ``default: true``
    pack_triggers: list[Trigger] = field(default_factory=list)  # rules that come with card packs

    @property
    def has_filters(self) -> bool:
        """Whether some skill changes how cards are seen (filter skills)."""
        got = self.__dict__.get("_has_filters")
        if got is None:
            got = self.__dict__["_has_filters"] = any(s.filters for s in self.skills.values())
        return bool(got)

    def canonical(self, name: str) -> str:
        """The canonical id for an id or an alias (``sha`` -> ``slash``)."""
        return self.aliases.get(name, name)

    def ruleset(self, rid: Optional[str] = None) -> Ruleset:
        """The rules file ``rid``, or the one marked ``default: true`` when ``rid`` is None.

        With no default marked, a content tree holding a single rules file uses that one.
        """
        from sgs_runtime.errors import UsageError, did_you_mean

        if rid is None:
            rid = self.default_rules
            if rid is None:
                if len(self.rulesets) == 1:
                    return next(iter(self.rulesets.values()))
                raise UsageError("no rules file is marked 'default: true'; name one with --rules "
                                 f"(known: {', '.join(sorted(self.rulesets)) or 'none'})")
        key = self.canonical(rid)
        if key not in self.rulesets:
            raise UsageError(f"unknown rules '{rid}'{did_you_mean(rid, self.rulesets)}; "
                             f"known: {', '.join(sorted(self.rulesets))}")
        return self.rulesets[key]

    def counters_for(self, card_type: str) -> list[CardKind]:
        """Card kinds that can cancel the effect of a card of ``card_type`` (无懈可击)."""
        cache = self.__dict__.setdefault("_counters", {})
        if card_type not in cache:
            cache[card_type] = [k for k in self.cards.values() if k.use and card_type in k.use.counters]
        return cache[card_type]  # type: ignore[no-any-return]
