"""A heuristic bot: plays like a sensible, role-aware human.

It only chooses among the legal answers a request offers, and it knows the game
only through the content's ``ai`` hints (what a card or skill is for: harm, help,
gain, equip; whom it targets; how much a card is worth keeping) — no card or
skill is named here.

Roles. The lord is known to all; every other role is read from what players do in
public, into a :class:`~sgs_runtime.agents.beliefs.Belief` — for every seat a probability
per role, from this seat's view alone. Then:

* the lord and loyalists protect the lord and harm only players all but surely not on
  their side (rebel- or traitor-looking ones);
* rebels go for the lord and for loyalist-looking players;
* the traitor keeps the balance — helps the weaker side — and fights the lord last.

>>> HeuristicAgent(1).name
'heuristic'
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Callable, Final, Optional, Sequence

from sgs_runtime.agents import Agent, legal, pick_in_order, valid_players
from sgs_runtime.agents.beliefs import Belief, role_table, side_of
from sgs_runtime.agents.styles import NAMED, PLAIN, Style, Styles, place_of
from sgs_runtime.errors import IllegalDecision
from sgs_runtime.native import mypyc_attr
from sgs_runtime.resolution.requests import (
    ArrangeRequest,
    CardsRequest,
    ConfirmRequest,
    OptionRequest,
    OrderRequest,
    PlayAction,
    PlayersRequest,
    PlayOption,
    PlayRequest,
    Request,
    RespondOption,
    RespondRequest,
    Response,
)
from sgs_runtime.state.chance import below
from sgs_runtime.state.definitions import AiHints, CardKind, ExprFn
from sgs_runtime.state.events import UseEvent
from sgs_runtime.state.model import AnyCard, Card, Player
from sgs_runtime.state.seatview import SeatView, as_view

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game

NO_HINTS: Final = AiHints()
#: target modes that fix their own targets (the score of such a card is _fixed_score's)
_FIXED_MODES: Final = ("self", "all", "others", "none")
_UNBOUNDED: Final = float("inf")

#: How much a player of one side wants to harm a player of each side (the lord himself apart).
#: The lord's side holds its fire unless it is all but sure not to hit a friend; rebels less so.
ROLE_HOSTILITY: Final[dict[str, dict[str, float]]] = {
    "lord": {"lord": -25.0, "rebel": 1.0, "alone": 0.6},
    "rebel": {"lord": 1.5, "rebel": -1.2, "alone": 0.6},
}


@mypyc_attr(allow_interpreted_subclasses=True, serializable=True)  # (a custom bot extends it; copies)
class HeuristicAgent(Agent):
    """Role-aware bot driven by the content's ``ai`` hints."""

    name = "heuristic"

    def __init__(self, seed: int = 0, style: Optional[Styles] = None) -> None:
        self.rng = random.Random(seed)
        self.styles = style if style is not None else NAMED["plain"]  # the habits of each place (styles.py)
        self.belief: Optional[Belief] = None  # what this seat believes of the hidden roles
        self._hostile: dict[int, float] = {}  # this decision's hostilities (nothing changes while deciding)
        #: how hostile my side is to each role, in the order of my belief's roles: (those roles, my side, the values)
        self._role_wants: Optional[tuple[list[str], str, list[float]]] = None
        self._stronger: Optional[bool] = None  # this decision's _rebels_stronger() (a traitor's reading)
        self._deciding = False  # within decide: what the table shows holds till the answer
        self._lord: Optional[Player] = None  # this decision's lord(), once _lord_known
        self._lord_known = False
        self.view: Optional["SeatView"] = None
        self.me: Optional[Player] = None

    # ------------------------------------------------------------------ reading the table

    def lord(self) -> Optional[Player]:
        """The lord, once his role is shown (found once per decision)."""
        if self._lord_known:
            return self._lord
        assert self.view is not None
        found: Optional[Player] = None
        roles = self.view.rules.roles
        for p in self.view.players:
            rdef = roles.get(p.role)
            if p.role_revealed and rdef is not None and rdef.lord_skills:
                found = p
                break
        if self._deciding:
            self._lord, self._lord_known = found, True
        return found

    def side(self, p: Player) -> float:
        """How much ``p`` works against the lord (> 0) or for the lord (< 0): its expected alignment
        in this bot's belief, weighted more for the lord himself."""
        assert self.view is not None
        lean = self.belief_of().lean(self.view, p.seat)
        return (3.0 if p is self.lord() else 2.0) * lean

    def belief_of(self) -> Belief:
        """This seat's belief over the hidden roles (made at the first look at a table: a bot that
        plays a second game, or another seat, starts a new one)."""
        assert self.view is not None
        if self.belief is None or not self.belief.reads(self.view):
            self.belief = Belief(self.view.seat)
        return self.belief

    def observe(self, game: "SeatView") -> None:
        """Read what happened since the last decision into the belief."""
        self.view = game
        self.belief_of().update(game)

    def hostility(self, p: Player) -> float:
        """How much this bot wants to harm ``p`` (< 0: wants to help); worked out once per decision."""
        got = self._hostile.get(p.seat)
        if got is None:
            got = self._hostile[p.seat] = self._hostility(p)
        return got

    def _hostility(self, p: Player) -> float:
        me = self.me
        assert me is not None and self.view is not None
        if p is me:
            return -5.0
        lord = self.lord()
        role_side = self._my_side()
        if role_side in ("lord", "rebel"):
            if p is lord:
                return -4.0 if role_side == "lord" else 4.0
            belief = self.belief_of()
            roles = belief.roles(self.view)
            wanted = self._role_wants
            if wanted is None or wanted[0] is not roles or wanted[1] != role_side:
                # (the roles' list is the belief's table's: a new table, a new list; this one keeps it alive)
                wants, sides = ROLE_HOSTILITY[role_side], role_table(self.view.rules)
                wanted = self._role_wants = (roles, role_side, [wants[sides.side(r)] for r in roles])
            vector = wanted[2]
            row = belief.row(self.view, p.seat)
            got = 0.0  # (sums here are plain loops, in the order sum() of 3.11 adds: the same bits, no generator)
            for j in range(len(vector)):
                got += row[j] * vector[j]
            return max(-3.0, min(3.0, got))
        # the traitor: keep the balance (help the stronger side's enemies), the lord last
        lean = self.side(p)
        alive = [q for q in self.view.alive() if q is not me]
        if p is lord:
            return 3.0 if len(alive) == 1 else -0.5
        if self._stronger is None:
            self._stronger = self._rebels_stronger(alive)
        if self._stronger:
            return max(-1.0, min(2.0, lean))
        return max(-1.0, min(2.0, -lean)) + 0.2

    def _rebels_stronger(self, alive: Sequence[Player]) -> bool:
        """Whether the players believed against the lord hold at least as much HP as those for him
        (each player's HP shared between the sides by its expected alignment)."""
        assert self.view is not None
        belief = self.belief_of()
        against = for_lord = 0.0
        for q in alive:
            lean = belief.lean(self.view, q.seat)
            against += max(0.0, lean) * q.hp
            for_lord += max(0.0, -lean) * q.hp
        return against >= for_lord

    def _my_side(self) -> str:
        """lord / rebel / alone: the side my role plays for (the rules' role data); alone, the side my
        style plays for (:attr:`Style.traitor_as`) while more than one other player is alive and, for the
        lord's side, a rebel may be (for the rebels', while I have more than 1 HP)."""
        assert self.me is not None and self.view is not None
        side = side_of(self.view.rules.roles.get(self.me.role))
        if side == "alone":
            as_side = self.styles.alone.traitor_as
            if as_side is not None and sum(1 for q in self.view.alive() if q is not self.me) > 1 \
                    and (self._side_may_live("rebel") if as_side == "lord" else self.me.hp > 1):
                return as_side
        return side

    def _side_may_live(self, side: str) -> bool:
        """Whether a player of ``side`` other than me may still be alive, by my belief (the table's role
        counts and the roles revealed): for the lord's side, once no rebel is left, a traitor who played
        for it must fight it, or nobody would harm anybody."""
        assert self.view is not None and self.me is not None
        table = role_table(self.view.rules)
        probs = self.belief_of().probabilities(self.view)
        return any(pr > 0 and table.side(r) == side for q in self.view.alive() if q is not self.me
                   for r, pr in probs[q.seat].items())

    def style(self) -> Style:
        """The habits of my place at the table: the lord, his side, a rebel, a player alone."""
        if self.styles is NAMED["plain"]:
            return PLAIN
        assert self.me is not None and self.view is not None
        return self.styles.of(place_of(self.view.rules.roles.get(self.me.role)))

    def friend(self, p: Player) -> bool:
        return self.hostility(p) < -0.3

    def enemy(self, p: Player) -> bool:
        return self.hostility(p) > 0.3

    # ------------------------------------------------------------------ values

    @staticmethod
    def hints(kind: Optional[CardKind]) -> AiHints:
        return kind.ai if kind is not None else NO_HINTS

    def value(self, card: Any) -> float:  # (a card, or a place holder of one this seat cannot see)
        if card.kind is None:  # a card this seat cannot see (a place holder)
            return 4.5
        v = card.kind.ai.value
        if card.zone is not None and card.zone.name == "equip":
            v += 3  # equipped cards work for their owner
        if card.zone is not None and card.zone.name == "judge":
            v -= 10  # a delayed trick in one's own judge area is a burden
        return v

    # ------------------------------------------------------------------ dispatch

    def decide(self, request: Request, game: "Game | SeatView") -> Any:
        self.me = request.player
        self._hostile = {}
        self._stronger = None
        self.observe(as_view(game, request.player.seat))
        belief = self.belief_of()
        belief.hold()  # (nothing changes while this bot decides)
        self._deciding, self._lord_known = True, False
        try:
            return self._decide(request)
        finally:
            belief.release()
            self._deciding = self._lord_known = False

    def _decide(self, request: Request) -> Any:
        try:
            if isinstance(request, PlayRequest):
                return self.play(request)
            if isinstance(request, RespondRequest):
                return self.respond(request)
            if isinstance(request, ConfirmRequest):
                return self.confirm(request)
            if isinstance(request, CardsRequest):
                return self.cards(request)
            if isinstance(request, PlayersRequest):
                return self.players(request)
            if isinstance(request, OrderRequest):
                return 0
            if isinstance(request, OptionRequest):
                return self.option(request)
            if isinstance(request, ArrangeRequest):
                cards = sorted(request.cards, key=self.value, reverse=True)
                return ([c for c in cards if self.value(c) >= 4], [c for c in cards if self.value(c) < 4])
        except IllegalDecision:
            pass
        return request.decline()

    # ------------------------------------------------------------------ play phase

    def play(self, req: PlayRequest) -> Optional[PlayAction]:
        """The legal action of the highest score above 0 (the first listed of equal scores), or None.

        The options are scored in the order of their bounds (:meth:`bound`, highest first). The best
        action scored is checked once it beats the bound of every option left (and is listed first
        among equals), so the options left are never scored and their targets never listed. The
        actions are checked in the order scoring every option checks them, and the answer is the
        same (:meth:`play_scoring_all`)."""
        options = req.options
        order = sorted([(-self.bound(req, opt), i) for i, opt in enumerate(options)])
        found: list[tuple[float, int, PlayAction]] = []  # scored above 0, not checked yet: (-score, index, action)
        for neg, i in order:
            while found:
                top = min(found)
                if not (top[0] < neg or (top[0] == neg and top[1] < i)):
                    break  # this option may still do better
                found.remove(top)  # it beats every option left: the best, if it is legal
                if legal(req, top[2]):
                    return top[2]
            if neg >= 0.0:
                break  # (the options left cannot score above 0)
            got = self.evaluate(req, options[i])
            if got is not None and got[0] > 0.0:
                found.append((-got[0], i, got[1]))
        found.sort()
        return next((action for _neg, _i, action in found if legal(req, action)), None)

    def play_scoring_all(self, req: PlayRequest) -> Optional[PlayAction]:
        """What :meth:`play` answers, the long way (the reference it is tested against): every option
        scored, then the best checked first until one is legal."""
        scored: list[tuple[float, PlayAction]] = []
        for opt in req.options:
            got = self.evaluate(req, opt)
            if got is not None and got[0] > 0:
                scored.append(got)
        scored.sort(key=lambda s: -s[0])  # (a stable sort: equal scores stay in the listed order)
        return next((action for _score, action in scored if legal(req, action)), None)

    def bound(self, req: PlayRequest, opt: PlayOption) -> float:
        """A score :meth:`evaluate` cannot exceed for ``opt``, found without listing its targets; infinite
        for an option that is scored all the same (a skill's: its cards decide; a gamble's, which draws
        chance). Where the bound is a sum of hostilities it is added up as the score would be, or given
        a margin where the order of the additions may differ."""
        if opt.recast:
            return 0.5
        card = opt.card
        if card is None or opt.skill is not None:
            return _UNBOUNDED
        assert self.me is not None and self.view is not None
        kind = card.kind
        hints = kind.ai
        intent = hints.intent
        if intent == "gamble":
            return _UNBOUNDED
        base = hints.priority + 1.0
        if intent == "equip" or kind.equip is not None:
            return base + 4
        spec = kind.use.targets if kind.use is not None else None
        mode = spec.mode if spec is not None else "none"
        me = self.me
        if spec is None or mode in _FIXED_MODES:  # the score of _fixed_score
            if intent == "gain":
                return base + 3
            if mode == "self":
                return base + 2 if intent == "help" else base + 1
            if mode in ("others", "all"):
                others = [p for p in self.view.alive() if mode == "all" or p is not me]
                total = 0.0
                if intent == "harm":  # (the positive part of each term, in the score's order: no lower)
                    for p in others:
                        if p is not me:
                            total += max(0.0, self.hostility(p))
                    return base + total
                if intent == "help":
                    for p in others:
                        total += max(0.0, -self.hostility(p) * (1 if p.wounded else 0))
                    return base + total
                return base
            return 0.0  # (no target and no gain: never scored)
        # chosen targets: at most ``hi`` of the players (the request's own bounds, target_bounds)
        lo = spec.min
        hi = lo
        if spec.max is not None:
            hi = max(lo, int(spec.max(self.view.frame({"me": me, "card": card}))))
        pool = self.view.players if spec.dead else self.view.alive()
        got = base
        if hi > 0 and pool:
            if hints.targets == "friend":
                got = base + float(min(hi, len(pool)))  # (1.0 a target)
            else:
                gains = [max(0.0, self.hostility(p)) for p in pool]
                if hi == 1:
                    got = base + max(gains)  # (one target: the very addition of the score)
                else:
                    gains.sort(reverse=True)
                    got = base + sum(gains[:hi]) + 1e-9  # (the targets' order may round otherwise)
        if intent == "gain":  # (no target after all: _fixed_score's gain)
            got = max(got, base + 3)
        return got

    def _kind_of(self, opt: PlayOption) -> tuple[Optional[CardKind], AiHints]:
        assert self.view is not None
        if opt.card is not None:
            return opt.card.kind, opt.card.kind.ai
        if opt.skill is not None and not opt.active and opt.as_card:
            kind = self.view.content.cards.get(opt.as_card)
            return kind, self.hints(kind)
        if opt.skill is not None:
            return None, opt.skill.ai
        return None, NO_HINTS

    def evaluate(self, req: PlayRequest, opt: PlayOption) -> Optional[tuple[float, PlayAction]]:
        assert self.me is not None and self.view is not None
        me = self.me
        if opt.recast:  # 重铸: worth a little, when nothing better is to be done with the card
            return 0.5, PlayAction(card=opt.card, recast=True)
        kind, hints = self._kind_of(opt)
        if hints.when is not None and not hints.when(self.view.frame({"me": me, "card": opt.card})):
            return None
        cards: list[Card] = []
        if opt.card is None:
            pool, lo, hi = req.card_choices(opt)
            picked = self._cheapest(pool, lo, hi, lambda chosen, c: req.card_step(opt, chosen, c),
                                    want=lo if hints.intent != "gain" else None)
            if picked is None:
                return None
            cards = picked
        base = hints.priority + 1.0
        intent = hints.intent
        if intent == "equip" or (kind is not None and kind.equip is not None):
            return self._equip_score(opt, base)
        # the targets looked at one by one, as far as picking them needs (the pool, when the game gives one)
        tp = req.target_pool(opt, cards)
        cands, lo, hi = tp.pool, tp.lo, tp.hi
        legal_target: Optional[Callable[[Player], bool]] = tp.legal
        secondary: list[Player] = []
        if hi == 0:  # fixed targets: self, all, others, none
            score = self._fixed_score(opt, kind, hints, base)
            if score is None:
                return None
            targets: list[Player] = []
        else:
            elemental = kind is not None and kind.nature != "normal"
            picked_targets = self._pick_targets(cands, lo, hi, hints, elemental, legal_target)
            if picked_targets is None:
                return None
            targets = picked_targets
            gained = 0.0
            for t in targets:
                gained += max(0.0, self.hostility(t)) if hints.targets != "friend" else 1.0
            score = base + gained
            if opt.further and targets:
                for t in targets:
                    extra = req.secondary_choices(opt, cards, t, 0)
                    extra.sort(key=self.hostility, reverse=True)
                    if extra:
                        secondary.append(extra[0])
        if opt.card is None and cards:
            score -= 0.2 * sum(self.value(c) for c in cards) / max(1, len(cards))
        action = PlayAction(card=opt.card, skill=opt.skill.id if opt.skill else None, cards=cards, targets=targets,
                            view_as=-1 if opt.active and opt.skill and opt.skill.view_as else opt.view_as, as_card=opt.as_card,
                            secondary=secondary)
        return score, action

    def _fixed_score(self, opt: PlayOption, kind: Optional[CardKind], hints: AiHints, base: float) -> Optional[float]:
        assert self.me is not None and self.view is not None
        me = self.me
        spec = kind.use.targets if kind is not None and kind.use is not None else None
        mode = spec.mode if spec is not None else "none"
        intent = hints.intent
        if intent == "gain":
            return base + 3
        if intent == "gamble":
            return base if self.rng.random() < 0.15 and self._my_side() != "lord" else None
        if mode == "self":
            if intent == "help":
                return base + 2 if me.wounded else None
            return base + 1 if intent in (None, "gain") else base
        if mode in ("others", "all"):
            others = [p for p in self.view.alive() if mode == "all" or p is not me]
            if intent == "harm":
                if any(self.friend(p) for p in others if p is not me):
                    return None  # a card that hits everyone spares no friend
                total = 0.0
                for p in others:
                    if p is not me:
                        total += self.hostility(p)
                return base + total if total > 0.5 else None
            if intent == "help":
                total = 0.0
                for p in others:
                    total += -self.hostility(p) * (1 if p.wounded else 0)
                return base + total if total > 0.5 else None
            return base
        if opt.active:
            givers = self.view.givers(me, opt.skill) if opt.skill is not None else []
            if givers:  # a granted skill that helps its givers (黄天): only for a friend
                return base + 2 if all(self.hostility(p) < 0 for p in givers) else None
            return base if intent in ("gain", "help") else None
        return None

    def _equip_score(self, opt: PlayOption, base: float) -> Optional[tuple[float, PlayAction]]:
        assert self.me is not None
        card = opt.card
        if card is None or card.kind.equip is None:
            return None
        old = self.me.slot(card.kind.equip.slot)
        if old is not None:
            if (card.kind.equip.range or 0) <= (old.kind.equip.range or 0 if old.kind.equip else 0) \
                    and card.kind.ai.value <= old.kind.ai.value:
                return None
        return base + 4, PlayAction(card=card)

    def _pick_targets(self, cands: Sequence[Player], lo: int, hi: int, hints: AiHints,
                      elemental: bool = False, legal: Optional[Callable[[Player], bool]] = None) -> Optional[list[Player]]:
        """The targets to choose among ``cands``, or None when too few suit. With ``legal``, ``cands`` is a
        pool to be checked (:class:`~sgs_runtime.resolution.requests.TargetPool`): a player is looked at only
        where the pick comes to it, and the pick is the one of the legal players listed. (The rankings are
        stable sorts: ranking the pool, then leaving out who is not legal, ranks the legal the same.)"""
        me = self.me
        suits = _Suits(legal, hints.aim, self.view, me)
        chosen: list[Player]
        if hints.targets == "friend" or hints.intent == "help":
            ranked = sorted(cands, key=lambda p: (self.hostility(p), p.hp - p.max_hp))
            chosen = _first(ranked, max(lo, 1), lambda p: self.hostility(p) < 0.3 and suits(p))
        elif hints.targets == "self":
            chosen = _first([p for p in cands if p is me], 1, suits)
        elif hints.intent in ("harm", None) or hints.targets == "enemy":
            style = self.style()

            def order(p: Player) -> tuple[Any, ...]:
                # fire and thunder pass along the chain: a chained enemy first (铁索连环)
                hostile = -self.hostility(p) - (1.0 if elemental and p.chained else 0.0)
                if style.focus == "hp":
                    return (p.hp, hostile, len(p.hand))
                if style.focus == "finish":
                    return (p.hp > 1, hostile, p.hp, len(p.hand))
                return (hostile, p.hp, len(p.hand))

            ranked = sorted(cands, key=order)
            chosen = _first(ranked, hi, lambda p: self.hostility(p) > style.enemy_at and suits(p))
            if len(chosen) < lo:
                taken = chosen
                chosen = chosen + _first(ranked, lo - len(chosen),
                                         lambda p: p not in taken and self.hostility(p) > -0.3 and suits(p))
        else:
            chosen = _first(list(cands), max(lo, 1), suits)
        if len(chosen) < max(lo, 1):
            return None
        return chosen[:hi]

    def _cheapest(self, pool: Sequence[Card], lo: int, hi: Optional[int], step: Any,
                  want: Optional[int] = None) -> Optional[list[Card]]:
        ranked = sorted(pool, key=self.value)
        upper = len(ranked) if hi is None else min(hi, len(ranked))
        target = lo if want is not None else max(lo, min(upper, sum(1 for c in ranked if self.value(c) < 5)))
        return pick_in_order(ranked, target, lo, step)

    # ------------------------------------------------------------------ answers

    def _original_effect(self, req: RespondRequest) -> tuple[Optional[AnyCard], int]:
        """The card whose effect a counter window is about, and how many counters are in play."""
        assert self.view is not None
        depth = 0
        original: Optional[AnyCard] = req.against
        for ev in reversed(self.view.stack):
            if isinstance(ev, UseEvent):
                if ev.counter:
                    depth += 1
                else:
                    original = ev.card
                    break
        return original, depth

    def _wants(self, card: Optional[AnyCard], target: Optional[Player]) -> bool:
        """Whether this bot wants ``card``'s effect to happen to ``target``."""
        if card is None or target is None:
            return True
        hints = card.kind.ai
        if hints.intent == "harm" or card.kind.delayed is not None:
            return self.hostility(target) > 0
        if hints.intent in ("help", "gain"):
            return self.hostility(target) <= 0
        return True

    def respond(self, req: RespondRequest) -> Optional[Response]:
        assert self.me is not None and self.view is not None
        me = self.me
        if not req.options:
            return None
        if req.pattern == "rescue":
            target = req.target
            if target is None or not (target is me or (self.friend(target) and self.style().rescue_others)):
                return None
        elif req.target is not None and req.against is not None and self._is_counter(req):
            original, depth = self._original_effect(req)
            wants = self._wants(original, req.target)
            if (depth % 2 == 0 and wants) or (depth % 2 == 1 and not wants):
                return None
        elif req.beneficiary is not None and not self.friend(req.beneficiary):
            return None
        elif self._spares():
            return None
        elif req.on and not any(self.hostility(t) > 0 for t in req.on):
            # using a card on someone (借刀杀人's victim, a follow-up Slash): only on enemies;
            # when refusing costs the weapon, keep it unless the victim is a friend
            if any(self.friend(t) for t in req.on):
                return None
        return self._answer(req)

    def _spares(self) -> bool:
        """Inside a card whose answers pass its harm on (决斗, ``mutual``) between me and someone I
        would not harm: no answer, I take the harm rather than deal it."""
        assert self.view is not None and self.me is not None
        use = self.view.current_use()
        if use is None or not use.card.kind.ai.mutual:
            return False
        parties = [use.user, *use.targets]
        if self.me not in parties:
            return False
        return any(not self.enemy(p) for p in parties if p is not self.me)

    def _is_counter(self, req: RespondRequest) -> bool:
        """Whether this window asks for a card that cancels ``against``'s effect (无懈可击)."""
        assert self.view is not None
        if req.against is None:
            return False
        kinds = [o.card.kind for o in req.options if o.card is not None]
        kinds += [self.view.content.cards[o.as_card] for o in req.options if o.as_card]
        return any(k.use is not None and req.against.type in k.use.counters for k in kinds)

    def _answer(self, req: RespondRequest) -> Optional[Response]:
        real = [o for o in req.options if o.card is not None]
        if real:
            pick: RespondOption = min(real, key=lambda o: self.value(o.card) if o.card else 0)
            return Response(card=pick.card)
        for opt in req.options:
            pool, lo, hi = req.card_choices(opt)
            cards = self._cheapest(pool, lo, hi,
                                   lambda chosen, c, o=opt: req.card_step(o, chosen, c),
                                   want=lo)
            if cards is not None:
                ans = Response(skill=opt.skill.id if opt.skill else None, cards=cards, view_as=opt.view_as, as_card=opt.as_card)
                if legal(req, ans):
                    return ans
        return None

    def confirm(self, req: ConfirmRequest) -> bool:
        assert self.view is not None and self.me is not None
        skill = self.view.content.skills.get(req.skill) if req.skill else None
        actor = getattr(req.event, "user", None)
        if skill is not None and isinstance(actor, Player) and actor is not self.me and self.friend(actor) \
                and skill not in self.view.me_skills():
            return False  # another player's skill asks about their own move (蛊惑's question): not an ally's
        if skill is not None and skill.ai.accept is not None:
            return bool(skill.ai.accept(self.view.frame({"me": self.me, "event": req.event})))
        return True

    def cards(self, req: CardsRequest) -> list[Any]:
        assert self.me is not None
        me = self.me
        pool: list[Any] = list(req.candidates)  # (cards, and place holders of the cards it may not see)
        mine = all(c.owner is me for c in pool)
        if mine or req.purpose in ("discard", "give"):
            ranked = sorted(pool, key=self.value)
            if req.purpose == "give" or req.min == req.max:
                return ranked[: max(req.min, 1 if req.max else 0)]
            if mine and req.max and self._paying_pays():
                return ranked[: max(req.min, 1)]  # pay for my harmful card's effect (火攻)
            return ranked[: req.min]
        owners = {c.owner for c in pool if c.owner is not None}
        owner = next(iter(owners)) if len(owners) == 1 else None
        friendly = owner is not None and self.friend(owner)

        def worth(c: Any) -> float:
            if c.id in req.hidden:
                return 4.5 + self.rng.random()
            if c.zone is not None and c.zone.name == "judge":
                return 20.0 if friendly else -5.0
            if c.zone is not None and c.zone.name == "equip":
                return (1.0 if friendly else 8.0) + c.kind.ai.value / 10
            return c.kind.ai.value

        ranked = sorted(pool, key=worth, reverse=True)
        return ranked[: max(req.min, min(req.max, 1))]

    def _paying_pays(self) -> bool:
        """Inside my own harmful card's effect on an enemy: a card chosen now pays for the harm."""
        assert self.view is not None
        use = self.view.current_use()
        if use is None or use.user is not self.me or use.card.kind.ai.intent != "harm":
            return False
        return any(self.hostility(t) > 0.3 for t in use.targets)

    def players(self, req: PlayersRequest) -> list[Player]:
        assert self.view is not None
        skill = self.view.content.skills.get(req.skill) if req.skill else None
        hints = skill.ai if skill is not None else NO_HINTS
        helpful = req.purpose == "give" or hints.intent == "help" or hints.targets == "friend"
        key = (lambda p: self.hostility(p)) if helpful else (lambda p: -self.hostility(p))
        ranked = sorted(req.candidates, key=key)
        if helpful:
            chosen = [p for p in ranked if self.hostility(p) <= 0][: req.max] or ranked[: req.min]
        else:
            chosen = [p for p in ranked if self.hostility(p) > 0][: req.max] or ranked[: req.min]
        chosen = chosen[: req.max] if len(chosen) >= req.min else ranked[: req.min]
        if req.valid is not None and not req.valid(chosen):
            return valid_players(req) or chosen
        return chosen

    def option(self, req: OptionRequest) -> int:
        assert self.view is not None
        heroes = self.view.content.heroes
        if req.options and all(o in heroes for o in req.options):
            scores = [heroes[hid].hp + 1.5 * len(heroes[hid].skills) + heroes[hid].ai.value / 10 + self.rng.random()
                      for hid in req.options]
            return max(range(len(scores)), key=scores.__getitem__)
        return below(self.rng, len(req.options))


class _Suits:
    """Whether a player suits a card's aim (its hints' ``aim``) and, given a pool's ``legal``, may be
    chosen: a callable object, not a closure, so that the closures that call it make no cycle (a
    decision's garbage is then freed without the cyclic collector)."""

    def __init__(self, legal: Optional[Callable[[Player], bool]], aim: Optional[ExprFn], view: Optional["SeatView"],
                 me: Optional[Player]) -> None:
        self.legal = legal
        self.aim = aim
        self.view = view
        self.me = me

    def __call__(self, p: Player) -> bool:
        legal = self.legal
        if legal is not None and not legal(p):
            return False
        aim, view = self.aim, self.view
        return aim is None or view is None or bool(aim(view.frame({"me": self.me, "target": p})))


def _first(players: Sequence[Player], n: int, take: Callable[[Player], bool]) -> list[Player]:
    """The first ``n`` of ``players`` that ``take`` takes (looked at in order, no further than that).

    >>> _first([1, 2, 3, 4, 5], 2, lambda p: p % 2 == 1)
    [1, 3]
    """
    out: list[Player] = []
    if n <= 0:
        return out
    for p in players:
        if take(p):
            out.append(p)
            if len(out) >= n:
                break
    return out
