"""Quantities, distances and prohibitions: the static side of skills.

A *quantity* is a named number declared in content (``attack_range``,
``hand_limit``, ``slash_uses`` ...) with a base expression. Static skills
modify it: ``set`` replaces the base (the last one wins), ``add`` adds; the
result is clamped to the declared minimum. The engine only knows
``seat_distance``: seats apart the shorter way round, dead seats skipped.

A *prohibition* stops something outright: ``forbid: target`` on a skill makes
its owner an illegal target for the cards its condition names (空城, 谦逊).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from sgs_runtime.errors import GameError
from sgs_runtime.state.frame import Frame
from sgs_runtime.state.model import Player
from sgs_runtime.state.statecache import recall, remember

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game

INF = 10**6


def quantity(g: "Game", name: str, args: Sequence[Any]) -> Any:
    """The value of the quantity ``name`` for ``args``, remembered while the state does not change.

    The cache holds for one state version (:meth:`Game.touch`; every log record moves it on
    too). Its entries keep their arguments, so an argument's ``id`` is not reused while its
    entry lives. With ``g.check_caches`` every remembered value is computed again and compared.
    """
    n = len(args)
    if n == 1:
        key: tuple[Any, ...] = (name, id(args[0]))
    elif n == 2:
        key = (name, id(args[0]), id(args[1]))
    else:
        key = (name, *map(id, args))
    hit = recall(g, key)
    if hit is not None:
        return hit[0]
    version = g.version
    value = _quantity(g, name, args)
    remember(g, version, key, value, args)
    return value


#: how deeply quantities may ask each other (a modifier of one reading another ...)
MAX_QUANTITY_DEPTH = 40


def _quantity(g: "Game", name: str, args: Sequence[Any]) -> Any:
    """Compute a quantity: its base, then its modifiers (``set`` replaces, ``add`` adds), clamped to its minimum."""
    depth = g.quantity_depth
    if depth >= MAX_QUANTITY_DEPTH:
        raise GameError(f"the quantity '{name}' is computed in terms of itself (through its modifiers); "
                        f"more than {MAX_QUANTITY_DEPTH} quantities deep")
    q = g.rules.quantities.get(name)
    if q is None:
        raise GameError(f"the rules '{g.rules.id}' do not declare the quantity '{name}'")
    g.quantity_depth = depth + 1
    try:
        params = dict(zip(q.params, args))
        mods = g.skillset.modifiers(name)
        if not mods:
            value = q.base(Frame(g, params))
            if isinstance(value, bool):
                return value
        else:
            value = q.base(Frame(g, dict(params)))
            added = 0
            immune = g.skillset.immune_to_equipment()
            # one frame for every modifier: ``me`` is its owner (unless a parameter has that name);
            # expressions leave a frame's variables as they found them
            frame = Frame(g, params)
            own = "me" not in params
            for p, m, equipment in mods:
                if own and m.owner is not None and params.get(m.owner, p) is not p:
                    continue  # its condition asks for its owner there (``a == me``): another player's fails it
                if equipment and immune and any(q is not p and any(a is q for a in args) for q in immune):
                    continue  # 乾坤: another player's equipment does not count against the immune
                if own:
                    params["me"] = p
                if m.condition is not None and not m.condition(frame):
                    continue
                if m.set is not None:
                    value = m.set(frame)
                if m.add is not None:
                    added += m.add(frame)
            if isinstance(value, bool):
                return value
            value = value + added
        if q.minimum is not None and value < q.minimum:
            value = q.minimum
        return value
    finally:
        g.quantity_depth = depth


def seat_distance(g: "Game", a: Player, b: Player) -> int:
    """Seats apart the shorter way round, counting living players only."""
    if a is b:
        return 0
    alive = g.alive()
    if a not in alive or b not in alive:
        # a dead player is at no distance; treat them as out of reach
        return INF
    i, j = alive.index(a), alive.index(b)
    n = len(alive)
    d = abs(i - j)
    return min(d, n - d)


from sgs_runtime.resolution.prohibitions import forbids_target, forbids_use  # noqa: E402,F401  (their home is prohibitions.py)
