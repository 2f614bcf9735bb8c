"""The statements of the effect language, as runtime operations.

Compiled effects call these functions: each takes the running
:class:`~sgs_runtime.state.frame.Frame` first and is a generator when it may ask a
player something. They are thin: the rules of the game live in the modules
they call (moves, use, respond, hp, judge) and in the content.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Iterable, Optional, Sequence

from sgs_runtime.errors import GameError, LimitExceeded
from sgs_runtime.resolution import hp as _hp
from sgs_runtime.resolution import judge as _judge
from sgs_runtime.resolution import moves as _moves
from sgs_runtime.resolution import respond as _respond
from sgs_runtime.resolution import use as _use
from sgs_runtime.resolution.prohibitions import forbids_discard, forbids_target
from sgs_runtime.resolution.requests import ArrangeRequest, CardsRequest, ConfirmRequest, OptionRequest, PlayersRequest
from sgs_runtime.resolution.triggers import fire
from sgs_runtime.state.events import SignalEvent, TargetEvent
from sgs_runtime.state.frame import Frame
from sgs_runtime.state.model import AnyCard, Card, Player, VirtualCard, Zone

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Gen

DEFAULT_ZONES: Final = ("hand", "equip")


# ------------------------------------------------------------------ values


def cards_of(value: Any) -> list[Card]:
    """Physical cards of a card, virtual card, list or None."""
    return _moves.physical(value)


def players_of(value: Any) -> list[Player]:
    if value is None:
        return []
    if isinstance(value, Player):
        return [value]
    return [p for p in value if isinstance(p, Player)]


def to_card(f: Frame, value: Any) -> Optional[AnyCard]:
    """A card value: a card name becomes a card with no body (视为使用)."""
    if value is None:
        return None
    if isinstance(value, str):
        skill = f.vars.get("__skill__")
        return VirtualCard(f.game.content.cards[value], (), skill)
    if isinstance(value, (list, tuple)):
        if not value:
            return None
        if len(value) == 1:
            return to_card(f, value[0])
        raise GameError("a list of several cards cannot be used as one card")
    return value  # type: ignore[no-any-return]


def _bounds(kind: str, n: Optional[int], available: int) -> tuple[int, int]:
    if kind == "exact":
        k = min(int(n or 0), available)
        return k, k
    if kind == "upto":
        return 0, min(int(n or 0), available)
    return (1 if available else 0), available


def _filtered(f: Frame, cards: Iterable[Card], where: Any) -> list[Card]:
    if where is None:
        return list(cards)
    out = []
    for c in cards:
        f.vars["it"] = c
        if where(f):
            out.append(c)
    f.vars.pop("it", None)
    return out


# ------------------------------------------------------------------ cards


def draw(f: Frame, who: Player, n: int, phase: Optional[str] = None) -> "Gen":
    yield from _moves.draw(f.game, who, int(n), phase)


def choose_cards(f: Frame, chooser: Player, kind: str, n: Optional[int], zones: Sequence[str],
                 owner: Any, where: Any, prompt: str = "choose cards", purpose: str = "choose") -> "Gen":
    if owner is not None and not isinstance(owner, Player):  # choose among given cards (五谷丰登's revealed cards)
        pool = _filtered(f, [c for c in cards_of(owner) if not zones or (c.zone and c.zone.name in zones)], where)
        owner = None
    else:
        owner = owner or chooser
        pool = _filtered(f, owner.cards_in(zones or DEFAULT_ZONES), where)
        if purpose == "discard" and owner is chooser and chooser.bans:  # 鸡肋: some cards may not be discarded
            pool = [c for c in pool if not forbids_discard(f.game, chooser, c)]
    lo, hi = _bounds(kind, n, len(pool))
    if hi == 0:
        return []
    hidden = frozenset(c.id for c in owner.hand.cards) if owner is not None and owner is not chooser else frozenset()
    req = CardsRequest(chooser, prompt, candidates=pool, min=lo, max=hi, hidden=hidden,
                       skill=f.vars.get("__skill__"), purpose=purpose)
    chosen = yield from f.game.ask(req)
    return list(chosen)


def discard_chosen(f: Frame, who: Player, kind: str, n: Optional[int], zones: Sequence[str], where: Any) -> "Gen":
    what = {"exact": f"{n} card(s)", "upto": f"up to {n} card(s)"}.get(kind, "any number of cards")
    chosen = yield from choose_cards(f, who, kind, n, zones, who, where, prompt=f"discard {what}", purpose="discard")
    if chosen:
        yield from _moves.discard(f.game, chosen, who)
    return chosen


def discard_cards(f: Frame, who: Player, cards: Any) -> "Gen":
    phys = [c for c in cards_of(cards) if c.zone is not f.game.discard_pile]
    if phys:
        yield from _moves.discard(f.game, phys, who)


def discard_all(f: Frame, who: Player, zones: Sequence[str]) -> "Gen":
    names = zones or ("hand", "equip", "judge", *who.piles)
    cards = who.cards_in(names)
    if cards:
        yield from _moves.discard(f.game, cards, who)


def discard_down_to(f: Frame, who: Player, n: int) -> "Gen":
    excess = len(who.hand) - max(0, int(n))
    if excess <= 0:
        return
    allowed = [c for c in who.hand.cards if not forbids_discard(f.game, who, c)] if who.bans else list(who.hand.cards)
    excess = min(excess, len(allowed))  # cards one may not discard are kept (鸡肋)
    if excess <= 0:
        return
    req = CardsRequest(who, f"discard {excess} hand card(s) down to {n}", candidates=allowed,
                       min=excess, max=excess, purpose="discard")
    chosen = yield from f.game.ask(req)
    yield from _moves.discard(f.game, list(chosen), who)


def gain(f: Frame, who: Player, cards: Any) -> "Gen":
    phys = [c for c in cards_of(cards) if c.zone is not who.hand]
    if phys and who.alive:
        yield from _moves.move(f.game, phys, who.hand, reason="gain", by=who,
                               visible=all(c.zone is not None and c.zone.public for c in phys))


def give(f: Frame, who: Player, cards: Any, to: Player) -> "Gen":
    phys = cards_of(cards)
    if phys and to is not None and (to.alive or f.game.rules.runtime.get("dead_stay_at_table")):
        shown = all(c.zone is not None and c.zone.public for c in phys)  # a weapon handed over is seen
        yield from _moves.move(f.game, phys, to.hand, reason="give", by=who, visible=shown)


def show(f: Frame, who: Player, cards: Any) -> None:
    from sgs_runtime.state.visibility import show_all

    phys = cards_of(cards)
    show_all(phys)
    f.game.emit("show", player=who, cards=phys)


def put_zone(f: Frame, cards: Any, player: Player, zone: str) -> "Gen":
    g = f.game
    if zone == "hand":
        yield from gain(f, player, cards)
        return
    if zone == "equip":
        for c in cards_of(cards):
            if c.kind.equip is None:
                raise GameError(f"{c.label()} is not equipment and cannot be put into an equipment area")
            yield from _moves.equip(g, player, c)
        return
    items = cards if isinstance(cards, (list, tuple)) else [cards]
    for item in items:
        if item is None:
            continue
        kind = item.kind
        for c in cards_of(item):
            yield from _moves.move(g, [c], player.judge, reason="put", by=player)
            if c.base is not kind:
                c.face = kind


def put_pile(f: Frame, cards: Any, where: str) -> "Gen":
    phys = cards_of(cards)
    if phys:
        yield from _moves.move(f.game, phys, f.game.draw_pile, reason=f"put on {where}", top=(where == "top"),
                               visible=False)


def reveal(f: Frame, who: Player, n: int, private: bool) -> "Gen":
    cards = _moves.top_cards(f.game, int(n))
    yield from _moves.move(f.game, cards, f.game.processing, reason="look" if private else "reveal", by=who,
                           visible=not private)
    return cards


def arrange(f: Frame, who: Player, n: int) -> "Gen":
    g = f.game
    cards = _moves.top_cards(g, int(n))
    if not cards:
        return
    from sgs_runtime.state.visibility import let_see

    let_see(g, cards, who)  # the arranger sees them (观星)
    got = yield from g.ask(ArrangeRequest(who, f"arrange the top {len(cards)} cards", cards=cards))
    top: list[Card] = list(got[0])
    bottom: list[Card] = list(got[1])
    for c in cards:
        g.draw_pile.remove(c)
    for c in reversed(top):
        g.draw_pile.add(c, top=True)
    for c in bottom:
        g.draw_pile.add(c)
    g.emit("arrange", player=who, top=len(top), bottom=len(bottom))


def distribute(f: Frame, who: Player, cards: Any) -> "Gen":
    g = f.game
    left = [c for c in cards_of(cards)]
    while left and who.alive:
        left = [c for c in left if c.zone is g.processing or (c.zone is not None and c.zone.owner is who)]
        if not left:
            break
        part = yield from g.ask(CardsRequest(who, "give which cards?", candidates=left, min=1, max=len(left),
                                             purpose="give"))
        to = yield from g.ask(PlayersRequest(who, "give them to whom?", candidates=g.alive_from(who), min=1, max=1,
                                             purpose="give"))
        yield from give(f, who, list(part), to[0])
        left = [c for c in left if c not in part]
    yield from _moves.clear_processing(g, left)


# ------------------------------------------------------------------ choices


def choose_players(f: Frame, chooser: Player, kind: str, n: Optional[int], source: Any, where: Any,
                   prompt: str = "choose players") -> "Gen":
    g = f.game
    pool = players_of(source) if source is not None else g.alive_from(chooser)
    pool = [p for p in pool if p.alive]
    if where is not None:
        kept = []
        for p in pool:
            f.vars["it"] = p
            if where(f):
                kept.append(p)
        f.vars.pop("it", None)
        pool = kept
    lo, hi = _bounds(kind, n, len(pool))
    if hi == 0:
        return []
    chosen = yield from g.ask(PlayersRequest(chooser, prompt, candidates=pool, min=lo, max=hi,
                                             skill=f.vars.get("__skill__")))
    return list(chosen)


def choose_symbol(f: Frame, chooser: Player, options: Sequence[Any]) -> "Gen":
    opts = [str(o) for o in options]
    idx = yield from f.game.ask(OptionRequest(chooser, "choose one", options=opts))
    return options[idx]


def choose_option(f: Frame, chooser: Player, labels: list[str]) -> "Gen":
    if not labels:
        return None
    idx = yield from f.game.ask(OptionRequest(chooser, "choose one", options=labels))
    return idx


def ask_confirm(f: Frame, player: Player, prompt: str) -> "Gen":
    if player is None or not player.alive:
        return False
    ok = yield from f.game.ask(ConfirmRequest(player, prompt, skill=f.vars.get("__skill__"), event=f.vars.get("event")))
    return bool(ok)


# ------------------------------------------------------------------ hp


NO_CARD: Final[Any] = object()  # `damage` without `with CARD`: the card whose effect this is, if any


def damage(f: Frame, source: Optional[Player], target: Player, amount: int, nature: Optional[str],
           card: Any = NO_CARD) -> "Gen":
    if card is NO_CARD:
        card = f.vars.get("card")
        if isinstance(card, str):
            card = None
    if target is None:
        return
    yield from _hp.damage(f.game, source, target, int(amount), nature or "normal", card)


def damage_like(f: Frame, target: Player, original: Any) -> "Gen":
    """``damage P like EVENT``: a copy of a damage event for another target."""
    if target is None or original is None:
        return
    yield from _hp.damage_like(f.game, target, original)


def recover(f: Frame, who: Player, amount: int) -> "Gen":
    card = f.vars.get("card")
    yield from _hp.recover(f.game, who, int(amount), f.vars.get("me"), card if not isinstance(card, str) else None)


def lose_hp(f: Frame, who: Player, amount: int) -> "Gen":
    yield from _hp.lose_hp(f.game, who, int(amount))


# ------------------------------------------------------------------ judge


def judge(f: Frame, who: Player) -> "Gen":
    reason = f.vars.get("__skill__") or (f.vars["card"].kind.id if f.vars.get("card") is not None
                                          and not isinstance(f.vars.get("card"), str) else "")
    ev = yield from _judge.judge(f.game, who, reason)
    return ev


def retrial(f: Frame, who: Player, card: Any) -> "Gen":
    phys = cards_of(card)
    if phys:
        yield from _judge.retrial(f.game, who, phys[0])


def resolve(f: Frame, who: Player, card: Any) -> "Gen":
    for c in cards_of(card):
        if c.zone is who.judge:
            yield from _judge.resolve_delayed(f.game, who, c)


# ------------------------------------------------------------------ responses and uses


def ask_respond(f: Frame, player: Player, mode: str, patterns: frozenset[str], times: int, on: Any,
                beneficiary: Any, extra: bool) -> "Gen":
    if player is None:
        return []
    against = f.vars.get("card")
    if isinstance(against, str):
        against = None
    targets = players_of(on) if on is not None else None
    if targets is not None:
        targets = [t for t in targets if t.alive]
        if not targets:
            return []
    got = yield from _respond.ask_respond(f.game, player, patterns, mode, times=int(times),
                                          on=targets, beneficiary=beneficiary, against=against,
                                          source=f.vars.get("me"), extra=extra)
    return got


def provide(f: Frame, card: Any) -> None:
    c = to_card(f, card)
    if c is not None:
        _respond.provide(f.game, c)


def use(f: Frame, who: Player, card: Any, on: Any, extra: bool, unnullifiable: bool) -> "Gen":
    g = f.game
    c = to_card(f, card)
    if c is None or who is None or not who.alive:
        return
    if on is not None:
        # targets named by an effect still obey prohibitions (空城 against 离间's Duel)
        targets = [t for t in players_of(on) if t.alive and not forbids_target(g, who, t, c)]
    else:
        fixed = _use.auto_targets(g, who, c)
        if fixed is not None:
            targets = fixed
        else:
            spec = _use.target_spec(c)
            lo, hi = _use.target_bounds(g, who, c, spec)
            pool = _use.candidates(g, who, c, spec)
            if len(pool) < max(lo, 1):
                return
            check = spec.valid
            valid = (lambda chosen: bool(check(Frame(g, {"me": who, "targets": chosen, "card": c})))) if check else None
            targets = yield from g.ask(PlayersRequest(who, f"targets for {c.kind.id}", candidates=pool,
                                                      min=max(lo, 1), max=hi, valid=valid))
    if not targets and c.kind.use is not None and c.kind.use.targets.mode != "none":
        return
    secondary: list[Player] = []
    spec = _use.target_spec(c)
    for t in targets:  # a further player per target (借刀杀人's victim)
        for i in range(len(spec.then)):
            pool = _use.secondary_candidates(g, who, c, spec, t, i)
            if not pool:
                return
            got = yield from g.ask(PlayersRequest(who, f"{spec.then[i].name} for {t.name}", candidates=pool))
            secondary.extend(got)
    me = f.vars.get("me")
    yield from _use.use_card(g, who, c, targets, extra=extra, unnullifiable=unnullifiable, secondary=secondary,
                             instigator=me if isinstance(me, Player) and me is not who else None)


def revive(f: Frame, who: Player, hero: str, hp: Optional[int]) -> "Gen":
    """``who`` returns as ``hero`` (转世): the old hero goes to the unused pile."""
    from sgs_runtime.resolution.turn import skills_for

    g = f.game
    if who is None or hero is None or who.alive:
        return
    new = g.content.heroes[hero]
    if hero in g.unused_heroes:
        g.unused_heroes.remove(hero)
    g.unused_heroes.append(who.hero.id)
    old = who.hero.id
    who.hero = new
    who.max_hp = g.rules.uniform_hp if g.rules.uniform_hp is not None else new.hp
    who.hp = min(who.max_hp, int(hp)) if hp is not None else who.max_hp
    who.alive = True
    who.dying = False
    who.skills = skills_for(g, new, who.role)
    who.chosen_kingdom = None
    who.gained, who.lost, who.invalid = [], [], []
    who.reincarnations += 1
    g.bump()
    g.emit("revive", player=who, old=old, hero=new.id, hp=who.hp)
    return
    yield  # unreachable: makes this function a generator


def counter(f: Frame, card: Any, target: Player) -> "Gen":
    c = to_card(f, card)
    if c is None or target is None:
        return False
    countered = yield from _respond.counter_window(f.game, c, target, f.game.current_use())
    if countered:
        f.game.emit("countered", card=c, target=target)
    return bool(countered)


def act(f: Frame, who: Player) -> "Gen":
    yield from _use.play_loop(f.game, who)


def skip(f: Frame, who: Player, phase: str) -> None:
    if who is not None:
        who.skipped.add(phase)
        f.game.emit("skip", player=who, phase=phase)


def signal(f: Frame, name: str) -> "Gen":
    g = f.game
    ev = SignalEvent(name, f.vars["me"], f.vars.get("target"), f.vars.get("card"))
    g.push(ev)
    try:
        yield from fire(g, name, ev)
    finally:
        g.pop(ev)
    return ev


def ignore(f: Frame, slot: str, player: Player) -> None:
    use = f.game.current_use()
    if use is not None and player is not None:
        use.ignored.add((player.seat, slot))
        f.game.bump()


def deny(f: Frame, player: Player) -> None:
    use = f.game.current_use()
    if use is not None and player is not None:
        use.denied.add(player.seat)
        f.game.emit("deny", player=player, card=use.card)


def redirect(f: Frame, player: Player) -> None:
    ev = f.vars.get("event")
    if not isinstance(ev, TargetEvent):
        raise GameError("'redirect' works only in a targeted or targeting trigger")
    if player is None:  # nobody was chosen: the use keeps its target
        return
    use = ev.use
    old = ev.target
    use.targets = [player if t is old else t for t in use.targets]
    ev.target = player
    f.game.emit("redirect", card=use.card, old=old, new=player)


def check_victory(f: Frame) -> None:
    _hp.check_victory(f.game)


def turn_over(f: Frame, who: Player) -> None:
    who.face_down = not who.face_down
    f.game.emit("turn_over", player=who, face_down=who.face_down)


def log(f: Frame, who: Player, text: str) -> None:
    f.game.emit("narrate", player=who, text=text)


# ------------------------------------------------------------------ marks and events


def set_mark(f: Frame, who: Player, name: str, value: int) -> None:
    f.game.touch()
    if value:
        who.marks[name] = int(value)
    else:
        who.marks.pop(name, None)


def set_max_hp(f: Frame, who: Player, value: int) -> "Gen":
    """Change a player's max HP; HP above the new maximum is lost (not as damage).
    A player whose max HP falls to 0 dies."""
    old = who.max_hp
    who.max_hp = max(0, int(value))
    if who.hp > who.max_hp:
        who.hp = who.max_hp
        f.game.hp_changed()
    f.game.emit("max_hp", player=who, old=old, max_hp=who.max_hp, hp=who.hp)
    if who.max_hp <= 0 and who.alive:
        yield from _hp.die(f.game, who, None)


def set_hp(f: Frame, who: Player, value: int) -> "Gen":
    """Set a player's HP directly (not damage, recovery or loss: no timings), at most max HP.
    It does not start dying: outside dying it stays at least 1 (use damage or lose for that)."""
    old = who.hp
    hp = min(who.max_hp, int(value))
    who.hp = hp if who.dying or not who.alive else max(1, hp)
    f.game.hp_changed()
    f.game.emit("hp", player=who, old=old, hp=who.hp)
    return
    yield  # unreachable: makes this function a generator


def set_kingdom(f: Frame, who: Optional[Player], kingdom: Any) -> None:
    """A god hero takes a kingdom (神将 choose one where a rule needs it)."""
    if who is None or not kingdom:
        return
    who.chosen_kingdom = str(kingdom)
    f.game.bump()
    f.game.emit("kingdom", player=who, kingdom=who.chosen_kingdom)


def set_chained(f: Frame, who: Optional[Player], chained: bool) -> None:
    """Chain (横置) or unchain (重置) a player: 铁索连环."""
    if who is None or who.chained == chained:
        return
    who.chained = chained
    f.game.emit("chain", player=who, chained=chained)


def end_turn(f: Frame) -> None:
    """The current turn ends once the running action has finished (制衡's older text)."""
    f.game.end_turn = True
    f.game.emit("end_turn", player=f.game.current)


def reveal_role(f: Frame, who: Player) -> None:
    if who is not None and not who.role_revealed:
        who.role_revealed = True
        f.game.emit("reveal_role", player=who, role=who.role)


def loop_guard(f: Frame, count: int) -> None:
    if count > f.game.limits.loop:
        raise LimitExceeded("loop", f.game.limits.loop, "a 'repeat' ran too long")


# ------------------------------------------------------------------ skills, prohibitions, piles


def change_skill(f: Frame, who: Player, skill_id: str, gain: bool, until: Optional[str]) -> None:
    """``p gains skill X`` / ``p loses skill X`` (until the end of a turn, phase or round, or for good)."""
    if who is None:
        return
    if gain:
        f.game.skillset.gain(who, skill_id, until)
    else:
        f.game.skillset.lose(who, skill_id, until)
    f.game.emit("skill_change", player=who, skill=skill_id, gained=gain, **({"until": until} if until else {}))


def invalidate(f: Frame, who: Player, skill_id: Optional[str], until: Optional[str]) -> None:
    """``invalidate p skills`` / ``invalidate p skill X``."""
    if who is None:
        return
    f.game.skillset.invalidate(who, skill_id, until)
    f.game.emit("invalidate", player=who, skill=skill_id or "all", **({"until": until} if until else {}))


def forbid(f: Frame, who: Player, actions: frozenset[str], cond: Any, until: Optional[str]) -> None:
    """Place a prohibition on ``who`` (鸡肋): the condition sees the effect's variables and ``it``."""
    if who is None:
        return
    from sgs_runtime.resolution.prohibitions import Ban

    by = f.vars.get("me")
    who.bans.append(Ban(actions, cond, Frame(f.game, dict(f.vars)), until, by))
    f.game.skillset.timed = f.game.skillset.timed or until is not None
    f.game.emit("forbid", player=who, actions=sorted(actions), by=by, **({"until": until} if until else {}))


def kill(f: Frame, who: Player, by: Optional[Player]) -> "Gen":
    """``kill p [by q]``: the player dies at once, with the death's timings and the rules' consequences."""
    if who is None or not who.alive:
        return
    yield from _hp.die(f.game, who, by)


def put_named_pile(f: Frame, cards: Any, who: Player, pile: str) -> "Gen":
    """``put X into p pile NAME``: onto a named pile on a player (face up or down, as declared)."""
    if who is None:
        return
    g = f.game
    zone = who.piles.get(pile)
    if zone is None:
        pdef = g.content.piles.get(pile)
        zone = who.piles[pile] = Zone(pile, who, public=pdef is None or pdef.face == "up")
    phys = cards_of(cards)
    if phys:
        yield from _moves.move(g, phys, zone, reason="put", by=who)


def look_at(f: Frame, who: Player, cards: Any) -> list[Card]:
    """``look at X as seen``: ``who`` sees the cards (攻心), nobody else."""
    phys = cards_of(cards)
    if who is not None and phys:
        from sgs_runtime.state.visibility import let_see

        let_see(f.game, phys, who)
        f.game.emit("look", player=who, cards=phys, seen=[who.seat])
    return phys
