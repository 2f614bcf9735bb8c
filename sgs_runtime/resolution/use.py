"""Using cards (使用): the path of Slash, Peach, tricks and equipment.

1. The player picks a card, or a skill that turns cards into one (view-as).
2. Targets are chosen within the card's rules (filters, prohibitions).
3. The card moves to the processing area (``cards_lost`` fires: 连营).
4. ``card_used``.
5. ``targeting`` (user side) then ``targeted`` (target side) for each target.
6. Each target in seat order from the user: ``before_effect`` (may cancel),
   a counter window (无懈可击) for cards some card can counter, the card's
   ``effect``, ``after_effect``.
7. The card goes to the discard pile unless it went elsewhere.
8. ``use_finished``.

Equipment goes to the equipment area, replacing the same slot; a delayed trick
goes to its target's judge area.

This module also lists what a player can do in the play phase and carries
out their :class:`~sgs_runtime.resolution.requests.PlayAction`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

from sgs_runtime.resolution.moves import clear_processing, equip, move
from sgs_runtime.resolution.prohibitions import forbids_target, forbids_use
from sgs_runtime.resolution.quantities import quantity, reads_stable
from sgs_runtime.resolution.requests import CheckedAction, PlayAsks, PlayOption, PlayRequest, TargetPool
from sgs_runtime.resolution.triggers import count_use, fire, fire_deferred
from sgs_runtime.state.definitions import CardChoice, CardKind, ExprFn, QuantityCall, Skill, TargetSpec, ViewAs
from sgs_runtime.state.events import DeclareEvent, EffectEvent, TargetEvent, UseEvent
from sgs_runtime.state.frame import Frame, StopEffect
from sgs_runtime.state.model import AnyCard, Card, Player, VirtualCard
from sgs_runtime.state.statecache import recall, remember

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game, Gen


# ------------------------------------------------------------------ targets


def target_spec(card: AnyCard) -> TargetSpec:
    spec = card.kind.use
    return spec.targets if spec is not None else TargetSpec(mode="none", min=0)


def eligible(g: "Game", user: Player, target: Player, card: AnyCard, spec: TargetSpec) -> bool:
    """Whether ``target`` is a legal target of ``card`` for ``user`` (remembered per state version, or
    in part for the skill epoch: :func:`admits`)."""
    if isinstance(card, Card):
        admitted = admits(g, user, target, card, spec)
        if admitted is not None:
            return admitted and not (spec.respect_prohibitions and forbids_target(g, user, target, card))
    # (the players and the card are in the key themselves: they are hashed and compared by identity, with
    # no number made for each; the spec, a dataclass, by its id, kept alive with the entry)
    key = ("eligible", user, target, card, id(spec))
    hit = recall(g, key)
    if hit is not None:
        return bool(hit[0])
    version = g.version
    value = _eligible(g, user, target, card, spec)
    remember(g, version, key, value, (spec,))
    return value


def admits(g: "Game", user: Player, target: Player, card: Card, spec: TargetSpec) -> Optional[bool]:
    """Whether ``card``'s own word lets ``user`` choose ``target`` (alive, or the dead may be chosen; and
    passing its filter), when that changes only with the skill sets: remembered for the skill epoch and
    shared by every card of the kind. None when it may change sooner (then :func:`eligible` looks at the
    whole question for the state version). Prohibitions are the caller's to add, each time.

    So it is for the card's own targets (``spec`` is its kind's) when its filter reads nothing that changes
    within the epoch but quantities of that kind (:attr:`TargetSpec.filter_reads`,
    :func:`~sgs_runtime.resolution.quantities.reads_stable`): a Slash's attack range, a Duel's "another
    player". Whether a player is alive changes only with the epoch too. Such a filter sees the card only
    through its kind: the quantities it asks and the attributes printed for the kind
    (:data:`~sgs_runtime.resolution.vocabulary.EPOCH_ATTRS`), with no filter skill in force. A delayed
    trick (the target's judge area), further players (``then``) and a card lying as another face are
    not of that kind. With no filter there is nothing to remember: whether the target is alive (or the
    dead may be chosen) is the answer."""
    kind = card.base
    use = kind.use
    reads = spec.filter_reads
    if (reads is None or use is None or use.targets is not spec or spec.then or card.face is not None
            or kind.delayed is not None):
        return None
    fn = spec.filter
    if fn is None:
        return target.alive or spec.dead  # (nothing to remember)
    if not reads_stable(g, reads):
        return None
    key = ("admits", user, target, kind.id)  # (the kind by its id: every card of it shares the answer)
    hit = recall(g, key, True)
    if hit is not None:
        return bool(hit[0])
    epoch = g.epoch
    value = _admits(g, user, target, card, spec)
    remember(g, epoch, key, value, (), True)
    return value


def _admits(g: "Game", user: Player, target: Player, card: AnyCard, spec: TargetSpec) -> bool:
    if not target.alive and not spec.dead:
        return False
    return spec.filter is None or bool(spec.filter(Frame(g, {"me": user, "target": target, "card": card})))


def _eligible(g: "Game", user: Player, target: Player, card: AnyCard, spec: TargetSpec) -> bool:
    if not _admits(g, user, target, card, spec):
        return False
    if spec.respect_prohibitions and forbids_target(g, user, target, card):
        return False
    if card.kind.delayed is not None and any(c.kind.id == card.kind.id for c in target.judge.cards):
        return False  # no two delayed tricks of one name in a judge area
    return True


def secondary_candidates(g: "Game", user: Player, card: AnyCard, spec: TargetSpec, target: Player,
                         index: int = 0, enough: Optional[int] = None) -> list[Player]:
    """The further players ``spec.then[index]`` allows for ``target``, in seat order from the user.

    With ``enough``, the listing stops once that many are found (an existence check)."""
    sec = spec.then[index]
    out = []
    for p in g.alive_from(user):
        frame = Frame(g, {"me": user, "target": target, "card": card, sec.name: p})
        if sec.filter is None or sec.filter(frame):
            out.append(p)
            if enough is not None and len(out) >= enough:
                break
    return out


def _target_pool(g: "Game", user: Player, dead: bool, user_last: bool) -> list[Player]:
    """Whom a target choice looks at, in seat order from ``user`` (the dead too with ``dead``); with
    ``user_last``, the user after the others."""
    pool = g.seats_from(user) if dead else g.alive_from(user)
    if user_last and pool and pool[0] is user:
        pool = pool[1:] + pool[:1]
    return pool


def candidates(g: "Game", user: Player, card: AnyCard, spec: Optional[TargetSpec] = None,
               enough: Optional[int] = None, user_last: bool = False) -> list[Player]:
    """The legal targets of ``card`` for ``user``, in seat order from the user.

    With ``enough``, the listing stops once that many are found (an existence check). With
    ``user_last`` the user is looked at after the others (an existence check: most cards that
    choose their targets cannot choose their user, so the others find a witness sooner)."""
    spec = spec or target_spec(card)
    out = []
    for p in _target_pool(g, user, spec.dead, user_last):
        if target_ok(g, user, card, spec, p):
            out.append(p)
            if enough is not None and len(out) >= enough:
                break
    return out


def target_ok(g: "Game", user: Player, card: AnyCard, spec: TargetSpec, p: Player) -> bool:
    """Whether ``p`` is one of :func:`candidates`: a legal target that has, for each further player the
    card needs (``then``), at least one."""
    if not eligible(g, user, p, card, spec):
        return False
    return not spec.then or all(secondary_candidates(g, user, card, spec, p, i, enough=1)
                                for i in range(len(spec.then)))


def target_bounds(g: "Game", user: Player, card: AnyCard, spec: TargetSpec) -> tuple[int, int]:
    lo = spec.min
    hi = lo
    if spec.max is not None:
        hi = int(_of_user_and_card(g, spec.max, spec.max_call, user, card))
    return lo, max(lo, hi)


def _of_user_and_card(g: "Game", expr: ExprFn, call: Optional[QuantityCall], user: Player, card: AnyCard) -> Any:
    """The value of an expression of ``me`` and ``card`` (a use's limit, its targets' most) for ``user``
    and ``card``. Where it is one quantity (``call``) that quantity is asked itself, with no frame made and
    no snippet run; else, or where these rules lack that quantity, its snippet runs (whose error names the
    content's line)."""
    if call is not None and call.name in g.rules.quantities:
        return quantity(g, call.name, [user if a == "me" else card for a in call.args])
    return expr(Frame(g, {"me": user, "card": card}))


def _fixed_pool(g: "Game", user: Player, card: AnyCard, spec: TargetSpec) -> Optional[list[Player]]:
    """Whom a card that fixes its own targets (self, all, others) may reach, before eligibility;
    None when the user chooses (or for equipment and ``none``, which :func:`auto_targets` settles)."""
    if spec.mode == "self":
        return [user]
    if spec.mode == "all":
        return g.alive_from(user)
    if spec.mode == "others":
        return g.after(user)
    return None


def auto_targets(g: "Game", user: Player, card: AnyCard, spec: Optional[TargetSpec] = None) -> Optional[list[Player]]:
    """Targets fixed by the card (self, all, others, none), or None if the user chooses."""
    spec = spec or target_spec(card)
    if card.kind.equip is not None:
        return [user]
    pool = _fixed_pool(g, user, card, spec)
    if pool is not None:
        return [p for p in pool if eligible(g, user, p, card, spec)]
    if spec.mode == "none":
        return []
    return None


def has_targets(g: "Game", user: Player, card: AnyCard, spec: Optional[TargetSpec] = None) -> bool:
    """Whether ``card`` has a legal choice of targets for ``user``: stops at the first witness."""
    spec = spec or target_spec(card)
    if card.kind.equip is not None or spec.mode == "none":
        return True
    pool = _fixed_pool(g, user, card, spec)
    if pool is not None:
        return any(eligible(g, user, p, card, spec) for p in pool)
    need = max(spec.min, 1)  # (the least number of targets: the most, a quantity, is not needed here)
    return len(candidates(g, user, card, spec, enough=need, user_last=True)) >= need


def check_targets(g: "Game", user: Player, card: AnyCard, spec: TargetSpec, targets: Sequence[Player],
                  secondary: Sequence[Player]) -> Optional[str]:
    fixed = auto_targets(g, user, card, spec)
    if fixed is not None:
        if targets and sorted(p.seat for p in targets) != sorted(p.seat for p in fixed):
            return f"{card.kind.id} chooses its own targets"
        return None if (fixed or spec.mode == "none") else f"{card.kind.id} has no legal target"
    lo, hi = target_bounds(g, user, card, spec)
    if not lo <= len(targets) <= hi:
        return f"{card.kind.id} needs {lo if lo == hi else f'{lo} to {hi}'} target(s), not {len(targets)}"
    if len({p.seat for p in targets}) != len(targets):
        return "the same target was chosen twice"
    for t in targets:
        if not eligible(g, user, t, card, spec):
            return f"{t.name} is not a legal target of {card.kind.id} for {user.name}"
    if spec.valid is not None and not spec.valid(Frame(g, {"me": user, "targets": list(targets), "card": card})):
        return f"that choice of targets is not allowed for {card.kind.id}"
    if spec.then:
        if len(secondary) != len(targets) * len(spec.then):
            return f"{card.kind.id} needs a further player for each target"
        for ti, t in enumerate(targets):
            for si in range(len(spec.then)):
                p = secondary[ti * len(spec.then) + si]
                if p not in secondary_candidates(g, user, card, spec, t, si):
                    return f"{p.name} cannot be chosen as {spec.then[si].name} for {t.name}"
    return None


# ------------------------------------------------------------------ using


def limit_key(kind: CardKind) -> str:
    assert kind.use is not None
    return kind.use.limit_group or kind.id


def within_limit(g: "Game", user: Player, card: AnyCard) -> bool:
    spec = card.kind.use
    if spec is None or spec.limit is None:
        return True
    allowed = _of_user_and_card(g, spec.limit, spec.limit_call, user, card)
    return bool(user.uses.get(limit_key(card.kind), 0) < allowed)


def usable_in_play(g: "Game", user: Player, card: AnyCard) -> bool:
    spec = card.kind.use
    if spec is None or not spec.in_play:
        return False
    if spec.condition is not None and not spec.condition(Frame(g, {"me": user, "card": card})):
        return False
    if not within_limit(g, user, card) or forbids_use(g, user, card):
        return False
    return has_targets(g, user, card, spec.targets)


def counterable(g: "Game", card: AnyCard) -> bool:
    return bool(g.content.counters_for(card.type))


def use_card(g: "Game", user: Player, card: AnyCard, targets: Sequence[Player], *, extra: bool = False,
             unnullifiable: bool = False, secondary: Sequence[Player] = (),
             instigator: Optional[Player] = None) -> "Gen":
    """Use ``card`` on ``targets``: the whole path, timings included.

    ``instigator``: whose effect made ``user`` use the card (离间's Duel): everyone saw the act as theirs."""
    kind = card.kind
    spec = kind.use
    ordered = sorted(targets, key=g.order_key(user))
    use = UseEvent(user, card, list(ordered))
    use.instigator = instigator
    use.extra = extra
    use.unnullifiable = unnullifiable or (spec is not None and not spec.nullifiable)
    if spec is not None and spec.targets.then:
        per = len(spec.targets.then)
        for ti, t in enumerate(targets):
            use.secondary[t.seat] = {spec.targets.then[si].name: secondary[ti * per + si]
                                     for si in range(per) if ti * per + si < len(secondary)}
    g.push(use)
    try:
        if g.acting and user is g.current and not extra and spec is not None and spec.limit is not None:
            key = limit_key(kind)
            user.uses[key] = user.uses.get(key, 0) + 1
        phys = list(card.physical)
        g.record(user, card, "use")
        actor = instigator or user
        for t in use.targets:
            if t is not user and t is not actor:
                g.public.append(("use", actor.seat, t.seat, kind.id, 1))
        g.emit("use", user=user, card=card, targets=use.targets,
               **({"secondary": [p for d in use.secondary.values() for p in d.values()]} if use.secondary else {}),
               **face_down_fields(card))
        yield from move(g, phys, g.processing, reason="use", by=user, visible=False if is_face_down(card) else None)
        if not (yield from declare(g, user, card, "use", use.targets)):
            if g.acting and user is g.current and not extra and spec is not None and spec.limit is not None:
                user.uses[limit_key(kind)] -= 1  # a void card counts as never used
                g.touch()
            use.settled = use.voided = True
            yield from clear_processing(g, phys)
            return use
        yield from fire(g, "card_used", use)
        for t in list(use.targets):
            yield from _fire_target(g, "targeting", use, t)
        for t in list(use.targets):
            yield from _fire_target(g, "targeted", use, t)
        if kind.equip is not None:
            for c in phys:
                if c.zone is g.processing and user.alive:
                    yield from equip(g, user, c)
        elif kind.delayed is not None:
            if use.targets and use.targets[0].alive:
                for c in phys:
                    if c.zone is g.processing:
                        yield from move(g, [c], use.targets[0].judge, reason="place", by=user)
                        if c.base is not kind:
                            c.face = kind
        elif spec is not None:
            yield from resolve_effects(g, use)
        if use.deferred:  # the skills it set off, before it leaves the processing area (奸雄)
            yield from fire_deferred(g, use.deferred)
        use.settled = True
        yield from clear_processing(g, phys)
        yield from fire(g, "use_finished", use)
    finally:
        g.pop(use)
        if use.ignored:  # the ignored armour works again
            g.bump()
    return use


def is_face_down(card: AnyCard) -> bool:
    return isinstance(card, VirtualCard) and card.face_down


def face_down_fields(card: AnyCard) -> dict[str, Any]:
    """Log fields of a card used face down: its real cards, seen only by its user."""
    if not is_face_down(card):
        return {}
    holder = next((c.zone.owner for c in card.physical if c.zone is not None and c.zone.owner is not None), None)
    return {"cards": [c.label() for c in card.physical], "face_down": True,
            **({"seen": [holder.seat]} if holder is not None else {})}


def declare(g: "Game", user: Player, card: AnyCard, mode: str, targets: Sequence[Player] = ()) -> "Gen":
    """The ``card_declared`` timing: return False when a trigger voided the card."""
    if not g.owners_at("card_declared") and not g.rule_triggers("card_declared"):
        return True
    ev = DeclareEvent(user, card, mode, list(targets))
    g.push(ev)
    try:
        yield from fire(g, "card_declared", ev)
    finally:
        g.pop(ev)
    if ev.cancelled:
        g.emit("void", player=user, card=card)
        return False
    return True


def _fire_target(g: "Game", timing: str, use: UseEvent, target: Player) -> "Gen":
    if target not in use.targets:
        return
    if not g.waits(timing):
        g.pass_point()
        return
    ev = TargetEvent(use, target)
    g.push(ev)
    try:
        yield from fire(g, timing, ev)
    finally:
        g.pop(ev)


def use_frame(g: "Game", use: UseEvent, target: Optional[Player] = None) -> Frame:
    variables: dict[str, Any] = {"me": use.user, "card": use.card, "use": use, "targets": list(use.targets)}
    variables.update(use.data)
    if target is not None:
        variables["target"] = target
        variables.update(use.secondary.get(target.seat, {}))
    return Frame(g, variables)


def _run(block: Any, frame: Frame) -> "Gen":
    try:
        yield from block(frame)
    except StopEffect:
        pass


def resolve_effects(g: "Game", use: UseEvent) -> "Gen":
    from sgs_runtime.resolution.respond import counter_window

    spec = use.card.kind.use
    assert spec is not None
    if spec.prepare is not None:
        frame = use_frame(g, use)
        yield from _run(spec.prepare, frame)
        for k, v in frame.vars.items():
            if k not in ("me", "card", "use", "targets"):
                use.data[k] = v
    can_counter = counterable(g, use.card) and not use.unnullifiable
    for t in list(use.targets):
        if not t.alive:
            continue
        if spec.affects is not None and not spec.affects(Frame(g, {"me": use.user, "target": t, "card": use.card})):
            continue
        ev = EffectEvent(use, t)
        g.push(ev)
        try:  # (no break or continue inside: the compiled build has none in a try with a finally)
            yield from fire(g, "before_effect", ev)
            if ev.cancelled:
                g.emit("no_effect", card=use.card, target=t)
            elif can_counter and (yield from counter_window(g, use.card, t, use)):
                g.emit("countered", card=use.card, target=t)
            else:
                if spec.effect is not None:
                    yield from _run(spec.effect, use_frame(g, use, t))
                yield from fire(g, "after_effect", ev)
        finally:
            g.pop(ev)
    if spec.finish is not None:
        yield from _run(spec.finish, use_frame(g, use))


# ------------------------------------------------------------------ view-as & card choices


def choice_pool(g: "Game", player: Player, choice: CardChoice) -> list[Card]:
    return player.cards_in(choice.zones)


def choice_step_ok(g: "Game", player: Player, choice: CardChoice, chosen: Sequence[Card], card: Card) -> bool:
    if card in chosen or card.zone is None or card.zone.owner is not player or card.zone.name not in choice.zones:
        return False
    if choice.max is not None and len(chosen) >= choice.max:
        return False
    if choice.filter is None:
        return True
    return bool(choice.filter(Frame(g, {"me": player, "it": card, "chosen": list(chosen)})))


def check_choice(g: "Game", player: Player, choice: CardChoice, cards: Sequence[Card]) -> Optional[str]:
    hi = choice.max if choice.max is not None else 10**6
    if not choice.min <= len(cards) <= hi:
        return f"choose {choice.min}{'' if choice.max == choice.min else ' or more'} card(s), not {len(cards)}"
    for i, c in enumerate(cards):
        if not choice_step_ok(g, player, choice, list(cards[:i]), c):
            return f"{c.label()} cannot be chosen here"
    return None


def greedy_choice(g: "Game", player: Player, choice: CardChoice) -> Optional[list[Card]]:
    chosen: list[Card] = []
    for c in choice_pool(g, player, choice):
        if len(chosen) >= choice.min:
            break
        if choice_step_ok(g, player, choice, chosen, c):
            chosen.append(c)
    return chosen if len(chosen) >= choice.min else None


def view_as_card(g: "Game", skill: Skill, va: ViewAs, cards: Sequence[Card],
                 as_card: Optional[str] = None) -> VirtualCard:
    """The card a view-as makes; ``as_card`` picks among several names (one of :func:`view_as_kinds`)."""
    kinds = view_as_kinds(g, va)
    cid = as_card if as_card in kinds else kinds[0] if kinds else va.card
    vc = VirtualCard(g.content.cards[cid], cards, skill.id)
    vc.face_down = va.face_down
    return vc


def view_as_kinds(g: "Game", va: ViewAs) -> list[str]:
    """The kinds a view-as may make in this game: its names, 'basic' and 'trick' read from the rules' decks."""
    if not va.names:
        return [va.card]
    got = g.view_as_memo.get(id(va))
    if got is None:
        deck: list[str] = []  # the kinds of the rules' decks, in deck order
        for pack in g.rules.card_packs:
            for dc in g.content.decks.get(pack, []):
                if dc.kind not in deck:
                    deck.append(dc.kind)
        got = []
        for n in va.names:
            if n in ("basic", "trick"):
                for cid in deck:
                    k = g.content.cards[cid]
                    if k.type == n and k.delayed is None and cid not in got:
                        got.append(cid)
            elif n not in got:
                got.append(n)
        g.view_as_memo[id(va)] = got
    return got


def _first_name(g: "Game", va: ViewAs) -> Optional[str]:
    kinds = view_as_kinds(g, va)
    return kinds[0] if kinds else None


def count_view_as(player: Player, va: ViewAs) -> None:
    """A view-as with a limit of its own was used once more."""
    if va.limit is not None and va.skill is not None:
        key = (va.skill.id, va.limit.scope)
        player.skill_uses[key] = player.skill_uses.get(key, 0) + 1


def view_as_available(g: "Game", player: Player, va: ViewAs, mode: str, against: Optional[AnyCard] = None) -> bool:
    if mode not in va.modes:
        return False
    if va.limit is not None and va.skill is not None and \
            player.skill_uses.get((va.skill.id, va.limit.scope), 0) >= va.limit.count:
        return False
    if va.condition is not None and not va.condition(Frame(g, {"me": player, "against": against})):
        return False
    return True


# ------------------------------------------------------------------ play phase


def play_options(g: "Game", player: Player) -> list[PlayOption]:
    """Everything the player may do now in their play phase."""
    opts: list[PlayOption] = []
    for card in player.hand.cards:
        if usable_in_play(g, player, card):
            opts.append(PlayOption(card.label(), card=card, further=_further(card)))
        if card.kind.recast:
            opts.append(PlayOption(f"recast {card.label()}", card=card, recast=True))
    for skill in g.active_skills(player):
        for i, va in enumerate(skill.view_as):
            if not view_as_available(g, player, va, "use"):
                continue
            pick: Optional[list[Card]] = None
            for cid in view_as_kinds(g, va):
                kind = g.content.cards[cid]
                if kind.use is None or not kind.use.in_play:
                    continue
                if pick is None:
                    pick = greedy_choice(g, player, va.cards)
                    if pick is None:
                        break
                vc = view_as_card(g, skill, va, pick, cid)
                if usable_in_play(g, player, vc):
                    opts.append(PlayOption(f"{skill.id} as {cid}", skill=skill, view_as=i, as_card=cid,
                                           further=_further(vc)))
        if skill.active is not None and active_available(g, player, skill):
            opts.append(PlayOption(skill.id, skill=skill, active=True, view_as=-1 if skill.view_as else 0))
    return opts


def _further(card: AnyCard) -> int:
    """How many further players each target of ``card`` needs (:attr:`PlayOption.further`)."""
    spec = card.kind.use
    return len(spec.targets.then) if spec is not None else 0


def active_available(g: "Game", player: Player, skill: Skill) -> bool:
    spec = skill.active
    assert spec is not None
    if spec.limit is not None and player.skill_uses.get((skill.id + "#active", "phase"), 0) >= spec.limit:
        return False
    if spec.condition is not None and not spec.condition(Frame(g, {"me": player, "__skill__": skill.id})):
        return False
    if spec.cards is not None and greedy_choice(g, player, spec.cards) is None:
        return False
    tspec, _ = active_targets(g, skill)
    if tspec is not None and tspec.mode == "choose":
        lo, _hi = active_bounds(g, player, skill)
        need = max(lo, 1)
        if len(active_candidates(g, player, skill, enough=need, user_last=True)) < need:
            return False
    return True


def _active_card(g: "Game", skill: Skill) -> Optional[VirtualCard]:
    spec = skill.active
    assert spec is not None
    if spec.as_card is None:
        return None
    return VirtualCard(g.content.cards[spec.as_card], (), skill.id)


def active_targets(g: "Game", skill: Skill) -> tuple[Optional[TargetSpec], Optional[VirtualCard]]:
    """An active skill's targets: its own, or those of the card it targets as (激将: as a Slash)."""
    spec = skill.active
    assert spec is not None
    card = _active_card(g, skill)
    if spec.targets is not None:
        return spec.targets, card
    if card is not None:
        return target_spec(card), card
    return None, None


def active_candidates(g: "Game", player: Player, skill: Skill, enough: Optional[int] = None,
                      user_last: bool = False) -> list[Player]:
    """Whom the active part of ``skill`` may target, in seat order from ``player``.

    With ``enough``, the listing stops once that many are found (an existence check); with
    ``user_last``, ``player`` is looked at after the others (as :func:`candidates`)."""
    tspec, card = active_targets(g, skill)
    if tspec is None or tspec.mode != "choose":
        return []
    out = []
    for p in _target_pool(g, player, tspec.dead, user_last):
        if active_target_ok(g, player, tspec, card, p):
            out.append(p)
            if enough is not None and len(out) >= enough:
                break
    return out


def active_target_ok(g: "Game", player: Player, tspec: TargetSpec, card: Optional[VirtualCard], p: Player) -> bool:
    """Whether ``p`` is one of :func:`active_candidates` (``tspec`` and ``card``: :func:`active_targets`)."""
    if tspec.filter is not None and not tspec.filter(Frame(g, {"me": player, "target": p, "card": card})):
        return False
    return not (card is not None and tspec.respect_prohibitions and forbids_target(g, player, p, card))


def active_bounds(g: "Game", player: Player, skill: Skill) -> tuple[int, int]:
    tspec, card = active_targets(g, skill)
    if tspec is None or tspec.mode != "choose":
        return 0, 0
    lo = hi = tspec.min
    if tspec.max is not None:
        hi = int(tspec.max(Frame(g, {"me": player, "card": card})))
    return lo, max(lo, hi)


def option_card(g: "Game", opt: PlayOption, cards: Sequence[Card]) -> Optional[AnyCard]:
    if opt.card is not None:
        return opt.card
    if opt.skill is not None and not opt.active:
        return view_as_card(g, opt.skill, opt.skill.view_as[opt.view_as], cards, opt.as_card)
    if opt.skill is not None:
        return _active_card(g, opt.skill)
    return None


def make_play_request(g: "Game", player: Player) -> Optional[PlayRequest]:
    """The play request of ``player`` now, or None when nothing is usable. What it asks of the game is
    answered by a :class:`_PlayAsks` (an object, not closures that refer to each other, so a request and
    everything it found are freed when it is dropped, without the cyclic collector)."""
    opts = play_options(g, player)
    if not opts:
        return None
    return PlayRequest(player, "play phase: use a card or a skill, or end the phase", options=opts,
                       asks=_PlayAsks(g, player, opts))


class _PlayAsks(PlayAsks):
    """What a play request asks of the game while it waits (nothing changes meanwhile): the cards an
    option may take, its targets, whether an action is legal."""

    def __init__(self, g: "Game", player: Player, opts: list[PlayOption]) -> None:
        self.g = g
        self.player = player
        self.opts = opts
        #: the target pools found, by option and cards (their ids: each pool keeps the card it checks
        #: against, so the ids of a key stay taken)
        self.pools: dict[tuple[int, ...], TargetPool] = {}

    def card_choices(self, opt: PlayOption) -> tuple[list[Card], int, Optional[int]]:
        choice = _option_choice(opt)
        if choice is None:
            return [], 0, 0
        return choice_pool(self.g, self.player, choice), choice.min, choice.max

    def card_step(self, opt: PlayOption, chosen: list[Card], card: Card) -> bool:
        choice = _option_choice(opt)
        return choice is not None and choice_step_ok(self.g, self.player, choice, chosen, card)

    def target_pool(self, opt: PlayOption, cards: list[Card]) -> TargetPool:
        key = (id(opt), *[id(c) for c in cards]) if cards else (id(opt),)
        got = self.pools.get(key)
        if got is None:
            got = self.pools[key] = self.pool_of(opt, cards)
        return got

    def target_choices(self, opt: PlayOption, cards: list[Card], chosen: list[Player]) -> tuple[list[Player], int, int]:
        tp = self.target_pool(opt, cards)
        return tp.listed(), tp.lo, tp.hi

    def pool_of(self, opt: PlayOption, cards: list[Card]) -> TargetPool:
        g, player = self.g, self.player
        if opt.recast:
            return TargetPool([], _no_target, 0, 0)
        if opt.active and opt.skill is not None:
            lo, hi = active_bounds(g, player, opt.skill)
            tspec, vcard = active_targets(g, opt.skill)
            if tspec is None or tspec.mode != "choose":
                return TargetPool([], _no_target, lo, hi)
            active_spec: TargetSpec = tspec
            return TargetPool(_target_pool(g, player, tspec.dead, False),
                              lambda p: active_target_ok(g, player, active_spec, vcard, p), lo, hi)
        card = option_card(g, opt, cards)
        assert card is not None
        spec = target_spec(card)
        if auto_targets(g, player, card, spec) is not None:
            return TargetPool([], _no_target, 0, 0)
        lo, hi = target_bounds(g, player, card, spec)
        chosen_card: AnyCard = card
        return TargetPool(_target_pool(g, player, spec.dead, False),
                          lambda p: target_ok(g, player, chosen_card, spec, p), lo, hi)

    def validate(self, action: CheckedAction) -> Optional[str]:
        return validate_play(self.g, self.player, self.opts, action)

    def secondary_choices(self, opt: PlayOption, cards: list[Card], target: Player, index: int) -> list[Player]:
        card = option_card(self.g, opt, cards)
        assert card is not None
        return secondary_candidates(self.g, self.player, card, target_spec(card), target, index)


def _no_target(p: Player) -> bool:
    """The legality of a target where none is chosen."""
    return False


def _option_choice(opt: PlayOption) -> Optional[CardChoice]:
    if opt.skill is None:
        return None
    if opt.active:
        return opt.skill.active.cards if opt.skill.active else None
    return opt.skill.view_as[opt.view_as].cards


def skill_part(skill: Skill, view_as: int) -> Optional[int]:
    """Which part of ``skill`` a ``view_as`` index names: ``-1`` its active part, else a view-as entry; None: none.

    ``-1`` is the active part; with no view-as entries, ``0`` names it too (the default of an action).
    """
    if skill.active is not None and (view_as == -1 or (view_as == 0 and not skill.view_as)):
        return -1
    if 0 <= view_as < len(skill.view_as):
        return view_as
    return None


def action_kind(g: "Game", va: ViewAs, as_card: Optional[str]) -> str:
    """The card kind a view-as action makes: the one it names, or the view-as's first (as :func:`perform` does)."""
    if as_card is not None:
        return as_card
    first = _first_name(g, va)
    return first if first is not None else va.card


def find_option(g: "Game", opts: Sequence[PlayOption], action: CheckedAction) -> Optional[PlayOption]:
    """The option ``action`` takes: the same card (and recast or not), or the same part of the same skill.

    A skill's part is matched exactly: the active part only by ``view_as == -1`` (or ``0`` when the skill has
    no view-as entry), a view-as entry by its index and the kind it makes."""
    if action.card is not None:
        for o in opts:
            if o.card is action.card and o.skill is None and o.recast == action.recast:
                return o
        return None
    for o in opts:
        if o.skill is None or o.skill.id != action.skill or o.recast:
            continue
        part = skill_part(o.skill, action.view_as)
        if part is None:
            return None
        if o.active:
            if part == -1:
                return o
        elif part == o.view_as and action_kind(g, o.skill.view_as[part], action.as_card) == o.as_card:
            return o
    return None


def _of_game(g: "Game", p: Player) -> bool:
    return 0 <= p.seat < len(g.players) and g.players[p.seat] is p


def validate_play(g: "Game", player: Player, opts: Sequence[PlayOption], action: CheckedAction) -> Optional[str]:
    """Why ``action`` is not allowed now, or None (its fields' types checked: :func:`check_action_fields`)."""
    for what, players in (("target", action.targets), ("further player", action.secondary)):
        for p in players:
            if not _of_game(g, p):
                return f"{p.name} (seat {p.seat}) is not a player of this game and cannot be chosen as a {what}"
    if action.card is None and action.recast:
        return "only a hand card can be recast, not a skill"
    made: Optional[str] = None  # the kind a view-as action makes
    skill: Optional[Skill] = None
    part: Optional[int] = None
    if action.card is None and action.skill is not None:
        skill = next((s for s in g.active_skills(player) if s.id == action.skill), None)
        if skill is None:
            return f"{player.name} has no skill '{action.skill}' to use now"
        part = skill_part(skill, action.view_as)
        if part is None:
            parts = []
            if skill.active is not None:
                parts.append("-1 for its active part" if skill.view_as else "0 or -1 for its active part")
            if skill.view_as:
                n = len(skill.view_as)
                parts.append(f"{'0' if n == 1 else f'0 to {n - 1}'} for its view-as")
            return (f"{skill.id} has no part with view_as {action.view_as}: "
                    f"{'; '.join(parts) if parts else 'it cannot be used in the play phase'}")
        if part >= 0:
            kinds = view_as_kinds(g, skill.view_as[part])
            if action.as_card is not None and action.as_card not in kinds:
                return f"{skill.id} cannot make a {action.as_card} (it makes {', '.join(kinds)})"
            made = action_kind(g, skill.view_as[part], action.as_card)
    opt = find_option(g, opts, action)
    if opt is None:
        what = action.card.label() if action.card is not None else (action.skill or "nothing")
        hint = ""
        if made is not None and skill is not None and part is not None:
            what += f" as {made}"
            if action.as_card is None and len(view_as_kinds(g, skill.view_as[part])) > 1:
                hint = f" (with no as_card, {skill.id} makes a {made}: name the kind meant in as_card)"
        return f"{player.name} cannot {'recast' if action.recast else 'use'} {what} now{hint}"
    if opt.card is not None and (action.cards or action.as_card is not None or action.view_as != 0):
        return f"{opt.card.label()} is used by itself: it takes no further cards, no view_as and no as_card"
    if opt.recast:
        return "a recast card has no targets" if action.targets or action.cards or action.secondary else None
    if opt.active:
        skill = opt.skill
        assert skill is not None and skill.active is not None
        spec = skill.active
        if action.as_card is not None:
            return f"{skill.id}'s active part makes no card: it takes no as_card"
        if action.secondary:
            return f"{skill.id} takes no further players"
        if spec.cards is not None:
            problem = check_choice(g, player, spec.cards, action.cards)
            if problem:
                return f"{skill.id}: {problem}"
        elif action.cards:
            return f"{skill.id} takes no cards"
        tspec, _card = active_targets(g, skill)
        if tspec is not None and tspec.mode == "choose":
            cands = active_candidates(g, player, skill)
            lo, hi = active_bounds(g, player, skill)
            if not lo <= len(action.targets) <= hi:
                return f"{skill.id} needs {lo if lo == hi else f'{lo} to {hi}'} target(s)"
            if len({p.seat for p in action.targets}) != len(action.targets):
                return "the same target was chosen twice"
            for t in action.targets:
                if t not in cands:
                    return f"{t.name} is not a legal target of {skill.id}"
            if tspec.valid is not None and not tspec.valid(
                    Frame(g, {"me": player, "targets": list(action.targets), "card": _card})):
                return f"that choice of targets is not allowed for {skill.id}"
        elif action.targets:
            return f"{skill.id} chooses no targets"
        return None
    if opt.card is not None:
        card: AnyCard = opt.card
    else:
        assert opt.skill is not None
        va = opt.skill.view_as[opt.view_as]
        problem = check_choice(g, player, va.cards, action.cards)
        if problem:
            return f"{opt.skill.id}: {problem}"
        card = view_as_card(g, opt.skill, va, action.cards, action_kind(g, va, action.as_card))
        if not usable_in_play(g, player, card):
            return f"{card.label()} cannot be used now"
    tspec = target_spec(card)
    if action.secondary and not tspec.then:
        return f"{card.kind.id} takes no further players"
    return check_targets(g, player, card, tspec, action.targets, action.secondary)


def perform(g: "Game", player: Player, action: CheckedAction) -> "Gen":
    """Carry out a validated play-phase action (:func:`validate_play`: the same part, the same kind)."""
    if action.card is not None and action.recast:
        yield from recast(g, player, action.card)
        return
    if action.card is not None:
        card: AnyCard = action.card
        fixed = auto_targets(g, player, card)
        targets = fixed if fixed is not None else list(action.targets)
        yield from use_card(g, player, card, targets, secondary=action.secondary)
        return
    skill = next(s for s in g.active_skills(player) if s.id == action.skill)
    part = skill_part(skill, action.view_as)
    assert part is not None, "perform() is given validated actions only"
    if part == -1:
        yield from run_active(g, player, skill, list(action.cards), list(action.targets))
        return
    va = skill.view_as[part]
    vcard = view_as_card(g, skill, va, action.cards, action_kind(g, va, action.as_card))
    count_view_as(player, va)
    g.emit("skill", player=player, skill=skill.id, as_card=vcard.kind.id, cards=action.cards)
    fixed = auto_targets(g, player, vcard)
    targets = fixed if fixed is not None else list(action.targets)
    yield from use_card(g, player, vcard, targets, secondary=action.secondary)


def recast(g: "Game", player: Player, card: Card) -> "Gen":
    """重铸: put a card from hand into the discard pile and draw one. It is not a use (no 集智)."""
    from sgs_runtime.resolution.moves import discard, draw

    g.emit("recast", player=player, card=card)
    yield from discard(g, [card], player, reason="recast")
    yield from draw(g, player, 1)


def run_active(g: "Game", player: Player, skill: Skill, cards: list[Card], targets: list[Player]) -> "Gen":
    count_use(player, skill.id + "#active", "phase")
    g.emit("skill", player=player, skill=skill.id, cards=cards, targets=targets)
    g.public.extend(("skill", player.seat, t.seat, skill.id, 1) for t in targets if t is not player)
    assert skill.active is not None
    frame = Frame(g, {"me": player, "cards": cards, "targets": targets,
                      "target": targets[0] if targets else None, "__skill__": skill.id})
    yield from _run(skill.active.body, frame)


def play_loop(g: "Game", player: Player) -> "Gen":
    """The free actions of a play phase: use cards and skills until the player ends it."""
    player.uses.clear()
    g.touch()
    was = g.acting
    g.acting = True
    try:
        while player.alive and not g.end_turn and g.phase_active:
            req = make_play_request(g, player)
            if req is None:
                break
            action = yield req
            if action is None:
                break
            yield from perform(g, player, action)
    finally:
        g.acting = was

