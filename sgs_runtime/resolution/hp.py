"""Damage, recovery, losing HP, dying and death.

Damage (伤害) passes ``damage_caused`` (source side; the amount may change or
the damage be prevented), ``damage_taken`` (target side), then HP goes down;
at HP <= 0 the dying procedure runs at once, inside the damage; then, only if
the target is still alive, ``damaged`` (刚烈, 奸雄, 反馈, 遗计), then
``damage_done`` for the source.

Dying (濒死) runs the rules file's ``dying`` block (which asks every living
player for a rescuing card); a player still at HP <= 0 afterwards dies. Death
fires ``death``: skills (the dead player's own among them) from the current
player in seat order, then the rules' triggers (discarding the cards, the
victory check, reward and penalty are all written in the rules file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from sgs_runtime.resolution.triggers import fire
from sgs_runtime.state.events import DamageEvent, DeathEvent, DyingEvent, LoseHpEvent, RecoverEvent, UseEvent
from sgs_runtime.state.frame import Frame, GameOver, StopEffect
from sgs_runtime.state.model import AnyCard, Player

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game, Gen


def damage(g: "Game", source: Optional[Player], target: Player, amount: int, nature: str = "normal",
           card: Optional[AnyCard] = None, copy_of: Optional[DamageEvent] = None) -> "Gen":
    if not target.alive:
        return None
    user = None
    if card is not None:
        use = next((e for e in reversed(g.stack) if isinstance(e, UseEvent) and e.card is card), None)
        user = use.user if use is not None else (copy_of.user if copy_of is not None else None)
    ev = DamageEvent(source, target, amount, nature, card, user, copy_of)
    g.push(ev)
    try:
        if source is not None and source.alive:
            yield from fire(g, "damage_caused", ev)
            if ev.cancelled:
                g.emit("damage_prevented", source=source, target=ev.target, card=card)
                return ev
        ev.dealt = ev.amount
        yield from fire(g, "damage_taken", ev)
        if ev.cancelled or ev.amount <= 0:
            g.emit("damage_prevented", source=source, target=ev.target, card=card)
            return ev
        victim = ev.target
        victim.hp -= ev.amount
        g.hp_changed()
        ev.done = True
        if source is not None:
            actor = public_actor(g, source, card)
            g.public.append(("damage", actor.seat, victim.seat, card.kind.id if card is not None else "", ev.amount))
        g.emit("damage", source=source, target=victim, amount=ev.amount, nature=ev.nature, card=card,
               hp=victim.hp)
        if victim.hp <= 0:
            yield from dying(g, victim, source, ev)
        if victim.alive:
            yield from fire(g, "damaged", ev)
        if source is not None and source.alive:
            yield from fire(g, "damage_done", ev)
        yield from fire(g, "damage_finished", ev)
        return ev
    finally:
        g.pop(ev)


def public_actor(g: "Game", source: Player, card: Optional[AnyCard]) -> Player:
    """Whose act a damage looks like to everyone: its source's, or the instigator's when the card
    dealing it was used at another player's command (离间's Duel)."""
    if card is not None:
        for ev in reversed(g.stack):
            if isinstance(ev, UseEvent) and ev.card is card:
                return ev.instigator or source
    return source


def damage_like(g: "Game", target: Player, original: DamageEvent) -> "Gen":
    """Deal ``target`` a copy of a damage: same source, amount dealt, nature and card."""
    got = yield from damage(g, original.source, target, original.dealt, original.nature, original.card, original)
    return got


def recover(g: "Game", player: Player, amount: int, source: Optional[Player] = None,
            card: Optional[AnyCard] = None) -> "Gen":
    if not player.alive or amount <= 0:
        return None
    ev = RecoverEvent(player, amount, source, card)
    g.push(ev)
    try:
        yield from fire(g, "before_recover", ev)
        if ev.cancelled:
            return ev
        gained = max(0, min(ev.amount, player.max_hp - player.hp))
        if gained <= 0:
            return ev
        player.hp += gained
        g.hp_changed()
        if source is not None and source is not player:
            g.public.append(("recover", source.seat, player.seat, card.kind.id if card is not None else "", gained))
        g.emit("recover", player=player, amount=gained, source=source, card=card, hp=player.hp)
        yield from fire(g, "recovered", ev)
        return ev
    finally:
        g.pop(ev)


def lose_hp(g: "Game", player: Player, amount: int) -> "Gen":
    if not player.alive or amount <= 0:
        return None
    ev = LoseHpEvent(player, amount)
    g.push(ev)
    try:
        yield from fire(g, "before_lose_hp", ev)
        if ev.cancelled or ev.amount <= 0:
            return ev
        player.hp -= ev.amount
        g.hp_changed()
        g.emit("lose_hp", player=player, amount=ev.amount, hp=player.hp)
        if player.hp <= 0:
            yield from dying(g, player, None, None)
        if player.alive:
            yield from fire(g, "lost_hp", ev)
        return ev
    finally:
        g.pop(ev)


def dying(g: "Game", player: Player, source: Optional[Player], damage_ev: Optional[DamageEvent]) -> "Gen":
    """Enter dying; the rules' dying block asks for rescue; die if still at HP <= 0."""
    if player.dying or not player.alive:
        return
    ev = DyingEvent(player, source, damage_ev)
    g.push(ev)
    player.dying = True
    g.emit("dying", player=player, hp=player.hp, source=source)
    try:
        yield from fire(g, "dying", ev)
        if player.hp <= 0 and g.rules.dying is not None and not ev.spared:
            frame = Frame(g, {"me": player, "event": ev})
            try:
                yield from g.rules.dying(frame)
            except StopEffect:
                pass
    finally:
        player.dying = False
        g.pop(ev)
    if player.hp <= 0 and player.alive and ev.spared:
        player.spared = True  # alive at HP <= 0: a skill keeps them (不屈)
    if player.hp <= 0 and player.alive and not ev.spared:
        yield from die(g, player, source)
    elif player.alive:
        g.emit("rescued", player=player, hp=player.hp)
        if ev.deferred:  # skills that waited while the player was dying
            from sgs_runtime.resolution.triggers import fire_deferred

            yield from fire_deferred(g, ev.deferred)


def die(g: "Game", player: Player, killer: Optional[Player]) -> "Gen":
    player.alive = False
    player.role_revealed = True
    g.bump()
    ev = DeathEvent(player, killer)
    g.push(ev)
    g.emit("death", player=player, role=player.role, killer=killer)
    player.burying = True  # until the death's timing is through (the game may end inside it: 武魂)
    try:
        yield from fire(g, "death", ev)
        player.burying = False
    finally:
        g.pop(ev)
    if player is g.current:
        g.end_turn = True


def check_victory(g: "Game") -> None:
    """Evaluate the rules' victory conditions in order; end the game on the first that holds."""
    frame = Frame(g, {"me": g.current})
    for rule in g.rules.victory:
        if rule.condition(frame):
            winners = rule.winners(frame)
            winners = list(winners) if isinstance(winners, (list, tuple)) else [winners]
            raise GameOver([w for w in winners if w is not None], rule.label or "victory")
    if not g.alive():
        raise GameOver([], "nobody is left alive")

