"""Invariants that hold after every step of every game.

* every card is in exactly one zone, and the zone knows it;
* no zone holds a card twice, and no card is lost or invented;
* HP never exceeds max HP, and is below 1 only while dying, or when a skill spared the player (不屈);
* the dead hold no cards (their areas are emptied at death, unless the game ended before
  their death was through) — except, under rules
  that keep the dead at the table (转世), the hand cards given to them.

:func:`check` returns a list of violations (empty when all hold); the
property tests call it after every request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game


def check(g: "Game", dead_hold_nothing: bool = True) -> list[str]:
    problems: list[str] = []
    seen: dict[int, str] = {}
    for zone in g.all_zones():
        where = f"{zone.owner.name}.{zone.name}" if zone.owner is not None else zone.name
        for c in zone.cards:
            if c.zone is not zone:
                problems.append(f"{c!r} is listed in {where} but thinks it is in {c.zone!r}")
            if c.id in seen:
                problems.append(f"{c!r} is in both {seen[c.id]} and {where}")
            seen[c.id] = where
    for c in g.cards:
        if c.id not in seen:
            problems.append(f"{c!r} is in no zone")
    if len(seen) != len(g.cards):
        problems.append(f"{len(seen)} cards are in zones, but the game has {len(g.cards)}")
    for p in g.players:
        if p.hp > p.max_hp:
            problems.append(f"{p.name} has {p.hp} HP over a maximum of {p.max_hp}")
        if p.alive and p.hp >= 1:
            p.spared = False
        if p.alive and p.hp < 1 and not p.dying and not p.spared:
            problems.append(f"{p.name} is alive at {p.hp} HP without dying")
        if dead_hold_nothing and not p.alive and not g.stack and not p.burying:
            kept = p.all_cards()
            if g.rules.runtime.get("dead_stay_at_table"):
                kept = [c for c in kept if c.zone is not p.hand]
            if kept:
                problems.append(f"{p.name} is dead but holds {kept}")
    return problems
