"""The syntax tree of the effect language.

Every node carries ``pos``: the (line, col) of its first token in the content
file (already mapped from the snippet to the YAML file), so every later check
reports the exact place of the offending word.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

Pos = tuple[int, int]


# ------------------------------------------------------------------ expressions


@dataclass
class Expr:
    pos: Pos


@dataclass
class Num(Expr):
    value: int


@dataclass
class Str(Expr):
    value: str


@dataclass
class Name(Expr):
    id: str


@dataclass
class Const(Expr):
    value: object  # None, True or False


@dataclass
class ListExpr(Expr):
    items: list[Expr]


@dataclass
class Attr(Expr):
    obj: Expr
    name: str
    name_pos: Pos


@dataclass
class Call(Expr):
    func: Expr
    args: list[Expr]


@dataclass
class Comprehension(Expr):
    var: str
    source: Expr
    cond: Optional[Expr]


@dataclass
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass
class Compare(Expr):
    op: str  # == != < <= > >= in notin is isnot
    left: Expr
    right: Expr


@dataclass
class BoolOp(Expr):
    op: str  # and / or
    left: Expr
    right: Expr


@dataclass
class Not(Expr):
    operand: Expr


@dataclass
class Neg(Expr):
    operand: Expr


@dataclass
class CondExpr(Expr):
    then: Expr
    test: Expr
    orelse: Expr


# ------------------------------------------------------------------ statements


@dataclass
class Stmt:
    pos: Pos


Block = list[Stmt]


@dataclass
class Let(Stmt):
    name: str
    value: Expr


@dataclass
class Assign(Stmt):
    target: Expr  # Attr or Call (me.mark(x))
    op: str  # = += -=
    value: Expr


@dataclass
class Control(Stmt):
    kind: str  # stop break cancel pass


@dataclass
class If(Stmt):
    branches: list[tuple[Expr, Block]]
    orelse: Optional[Block]


@dataclass
class ForEach(Stmt):
    var: str
    source: Expr
    body: Block


@dataclass
class Repeat(Stmt):
    kind: str  # times while forever
    expr: Optional[Expr]
    body: Block


@dataclass
class Option:
    pos: Pos
    label: str
    cond: Optional[Expr]
    body: Block


@dataclass
class ChooseBlock(Stmt):
    subject: Optional[Expr]
    options: list[Option]


@dataclass
class Count:
    kind: str  # exact upto any
    expr: Optional[Expr]


@dataclass
class Action(Stmt):
    """A verb statement; ``subject`` is the acting player (``me`` when absent)."""

    subject: Optional[Expr]
    verb: str = ""


@dataclass
class Draw(Action):
    amount: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class DiscardDownTo(Action):
    amount: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class DiscardAll(Action):
    zones: list[str] = field(default_factory=list)


@dataclass
class DiscardChosen(Action):
    count: Count = field(default=None)  # type: ignore[assignment]
    zones: list[str] = field(default_factory=list)
    where: Optional[Expr] = None
    as_name: Optional[str] = None


@dataclass
class DiscardCards(Action):
    cards: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class ChooseCards(Action):
    count: Count = field(default=None)  # type: ignore[assignment]
    zones: list[str] = field(default_factory=list)
    source: Optional[Expr] = None
    where: Optional[Expr] = None
    as_name: str = ""


@dataclass
class ChoosePlayers(Action):
    count: Count = field(default=None)  # type: ignore[assignment]
    source: Optional[Expr] = None
    where: Optional[Expr] = None
    as_name: str = ""


@dataclass
class ChooseSymbol(Action):
    options: Expr = field(default=None)  # type: ignore[assignment]
    as_name: str = ""


@dataclass
class Gain(Action):
    cards: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Give(Action):
    cards: Expr = field(default=None)  # type: ignore[assignment]
    to: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Show(Action):
    cards: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Damage(Action):
    target: Expr = field(default=None)  # type: ignore[assignment]
    amount: Expr = field(default=None)  # type: ignore[assignment]
    nature: Optional[str] = None
    nature_pos: Optional[Pos] = None
    nature_expr: Optional[Expr] = None  # `nature EXPR`
    by: Optional[Expr] = None
    card: Optional[Expr] = None  # `with CARD`: the card that causes it
    like: Optional[Expr] = None  # `damage P like EVENT`: a copy of a damage event


@dataclass
class Recover(Action):
    amount: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class LoseHp(Action):
    amount: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Judge(Action):
    pass


@dataclass
class Retrial(Action):
    card: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class AskRespond(Action):
    player: Expr = field(default=None)  # type: ignore[assignment]
    mode: str = "use"  # use / play
    pattern: str = ""  # a card name, or "rescue"
    pattern_pos: Pos = (0, 0)
    more: list[tuple[str, Pos]] = field(default_factory=list)  # further names: `slash or jink`
    times: Optional[Expr] = None
    on: Optional[Expr] = None
    for_: Optional[Expr] = None
    extra: bool = False


@dataclass
class AskConfirm(Action):
    player: Expr = field(default=None)  # type: ignore[assignment]
    prompt: str = ""


@dataclass
class Provide(Action):
    card: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Use(Action):
    card: Expr = field(default=None)  # type: ignore[assignment]
    on: Optional[Expr] = None
    extra: bool = False
    unnullifiable: bool = False


@dataclass
class Skip(Action):
    phase: str = ""
    phase_pos: Pos = (0, 0)


@dataclass
class Signal(Action):
    name: str = ""
    name_pos: Pos = (0, 0)


@dataclass
class PutZone(Action):
    cards: Expr = field(default=None)  # type: ignore[assignment]
    player: Expr = field(default=None)  # type: ignore[assignment]
    zone: str = ""


@dataclass
class PutPile(Action):
    cards: Expr = field(default=None)  # type: ignore[assignment]
    where: str = "top"


@dataclass
class Arrange(Action):
    amount: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Distribute(Action):
    cards: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Reveal(Action):
    amount: Expr = field(default=None)  # type: ignore[assignment]
    as_name: str = ""
    private: bool = False


@dataclass
class Ignore(Action):
    slot: str = ""
    slot_pos: Pos = (0, 0)
    player: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Deny(Action):
    player: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Redirect(Action):
    player: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class CheckVictory(Action):
    pass


@dataclass
class TurnOver(Action):
    pass


@dataclass
class Log(Action):
    text: str = ""


@dataclass
class Resolve(Action):
    """Resolve a delayed trick from the subject's judge area (the judge phase)."""

    card: Expr = field(default=None)  # type: ignore[assignment]


@dataclass
class Act(Action):
    """The free actions of a play phase: use cards and skills until the player ends it."""


@dataclass
class EndTurn(Action):
    """The current turn ends once the running action has finished."""


@dataclass
class RevealRole(Action):
    """The subject shows their role card (铜铃)."""


@dataclass
class SkillChange(Action):
    """``p gains skill X`` / ``p loses skill X`` [until turn_end | phase_end | round_end]."""

    skill: str = ""
    skill_pos: Pos = (0, 0)
    gain: bool = True
    until: Optional[str] = None
    until_pos: Pos = (0, 0)


@dataclass
class Invalidate(Action):
    """``invalidate p skills`` / ``invalidate p skill X`` [until ...]."""

    player: Expr = field(default=None)  # type: ignore[assignment]
    skill: Optional[str] = None
    skill_pos: Pos = (0, 0)
    until: Optional[str] = None
    until_pos: Pos = (0, 0)


@dataclass
class Forbid(Action):
    """``forbid p use, play, discard cards where COND [until ...]``."""

    player: Expr = field(default=None)  # type: ignore[assignment]
    actions: list[tuple[str, Pos]] = field(default_factory=list)
    where: Optional[Expr] = None
    until: Optional[str] = None
    until_pos: Pos = (0, 0)


@dataclass
class Kill(Action):
    """``kill p [by q]``: the player dies, with the death's timings."""

    player: Expr = field(default=None)  # type: ignore[assignment]
    by: Optional[Expr] = None


@dataclass
class PutNamedPile(Action):
    """``put X into p pile NAME``."""

    cards: Expr = field(default=None)  # type: ignore[assignment]
    player: Expr = field(default=None)  # type: ignore[assignment]
    pile: str = ""
    pile_pos: Pos = (0, 0)


@dataclass
class LookAt(Action):
    """``look at X as seen``: the acting player sees the cards, privately (攻心)."""

    cards: Expr = field(default=None)  # type: ignore[assignment]
    as_name: str = ""


@dataclass
class Revive(Action):
    """A dead player returns as another hero (转世)."""

    player: Expr = field(default=None)  # type: ignore[assignment]
    hero: Expr = field(default=None)  # type: ignore[assignment]
    hp: Optional[Expr] = None


@dataclass
class Counter(Action):
    """Open a counter window (无懈可击) against a card's effect on a player; binds ``countered``."""

    card: Expr = field(default=None)  # type: ignore[assignment]
    target: Expr = field(default=None)  # type: ignore[assignment]


AnyNode = Union[Expr, Stmt]


def conjuncts(e: Expr) -> list[Expr]:
    """The parts of ``e`` joined by ``and`` at its top (``[e]`` when it is no ``and``).

    >>> [type(x).__name__ for x in conjuncts(BoolOp((1, 1), "and", Name((1, 1), "a"), Const((1, 7), True)))]
    ['Name', 'Const']
    """
    if isinstance(e, BoolOp) and e.op == "and":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]
