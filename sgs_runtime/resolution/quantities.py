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

from typing import TYPE_CHECKING, Any, Final

from sgs_runtime.errors import GameError
from sgs_runtime.state.definitions import Quantity
from sgs_runtime.state.frame import Frame
from sgs_runtime.state.model import Card, Player, VirtualCard
from sgs_runtime.state.statecache import recall, remember

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game

INF: Final = 10**6


def quantity(g: "Game", name: str, args: list[Any]) -> Any:
    """The value of the quantity ``name`` for ``args``, remembered while the state does not change.

    A quantity whose base is a plain value (:attr:`Quantity.fixed`) is that value while no modifier
    of it is in force, and is not remembered. The cache holds for one state version
    (:meth:`Game.touch`; every log record moves it on too). Its key holds players and cards themselves
    (they compare by identity), other arguments by ``id``; its entries keep their arguments, so an
    ``id`` is not reused while its entry lives. With ``g.check_caches`` every remembered value is
    computed again and compared.
    """
    q = g.rules.quantities.get(name)
    if q is None:
        raise GameError(f"the rules '{g.rules.id}' do not declare the quantity '{name}'")
    fixed = q.fixed
    if fixed is not None and not g.skillset.modifiers(name):
        return fixed  # a plain base, nothing modifying it: nothing to work out or remember
    n = len(args)
    if n == 1:
        a = args[0]
        key: tuple[Any, ...] = (name, a) if _by_identity(a) else (name, id(a))
    elif n == 2:
        a, b = args[0], args[1]
        key = (name, a, b) if _by_identity(a) and _by_identity(b) else (name, id(a), id(b))
    else:
        key = (name, *map(id, args))
    epoch = q.reads is not None and epoch_stable(g, q)
    hit = recall(g, key, epoch)
    if hit is not None:
        return hit[0]
    stamp = g.epoch if epoch else g.version
    value = _quantity(g, q, args)
    remember(g, stamp, key, value, args, epoch)
    return value


def _by_identity(x: Any) -> bool:
    """Whether ``x`` may stand in a key itself: a player or a card (hashed and compared by identity)."""
    return isinstance(x, Player) or isinstance(x, Card) or isinstance(x, VirtualCard)


def epoch_stable(g: "Game", q: Quantity) -> bool:
    """Whether the value of ``q`` changes now only with the players' skill sets (the skill epoch).

    So it is when its base and every modifier in force read nothing else that changes within an
    epoch (:mod:`sgs_dsl.epochs`), every quantity they ask is so too, the skill sets stand until the
    epoch moves on (no skill's validity hangs on HP, none is being found) and no filter skill is in
    force (a card's range or slot is then its printed one). Decided once per epoch and quantity."""
    skills = g.skillset
    if q.reads is None or not skills.settled:
        return False
    epoch = g.epoch
    cache = g.epoch_cache
    if cache.version != epoch:
        cache.at(epoch)
    memo = cache.kinds
    name = q.name
    got = memo.get(name)
    if got is not None:
        return got
    asked = q.reads
    stable = True
    for _p, m, _equipment in skills.modifiers(name):
        if m.reads is None:
            stable = False
            break
        asked = asked | m.reads
    memo[name] = False  # (asked again through its own modifiers: not of that kind)
    stable = stable and skills.settled and not g.card_view.filtering()
    if stable:
        for other in asked:
            oq = g.rules.quantities.get(other)
            if other != name and (oq is None or not epoch_stable(g, oq)):
                stable = False
                break
    if g.epoch == epoch and skills.settled:
        memo[name] = stable
    else:
        memo.pop(name, None)  # (the sets moved on meanwhile: decided again when next asked)
    return stable


def reads_stable(g: "Game", reads: frozenset[str]) -> bool:
    """Whether an expression that asks the quantities ``reads``, and reads nothing else that changes
    within a skill epoch (:func:`sgs_dsl.epochs.epoch_reads`), keeps its value for the present epoch:
    the skill sets stand, no filter skill is in force (a card reads as printed) and every quantity it
    asks is of that kind (:func:`epoch_stable`). Decided once per epoch and set of quantities."""
    epoch = g.epoch
    cache = g.epoch_cache
    if cache.version != epoch:
        cache.at(epoch)
    got = cache.kinds.get(reads)
    if got is not None:
        return got
    stable = g.skillset.settled and not g.card_view.filtering()
    if stable:
        quantities = g.rules.quantities
        for name in reads:
            q = quantities.get(name)
            if q is None or not epoch_stable(g, q):
                stable = False
                break
    if g.epoch == epoch and g.skillset.settled:
        cache.kinds[reads] = stable
    return stable


#: how deeply quantities may ask each other (a modifier of one reading another ...)
MAX_QUANTITY_DEPTH: Final = 40


def _quantity(g: "Game", q: Quantity, args: list[Any]) -> Any:
    """Compute a quantity: its base, then its modifiers (``set`` replaces, ``add`` adds), clamped to its minimum."""
    name = q.name
    depth = g.quantity_depth
    if depth >= MAX_QUANTITY_DEPTH:
        raise GameError(f"the quantity '{name}' is computed in terms of itself (through its modifiers); "
                        f"more than {MAX_QUANTITY_DEPTH} quantities deep")
    g.quantity_depth = depth + 1
    try:
        names = q.params
        params: dict[str, Any] = {}
        for i in range(min(len(names), len(args))):  # (as dict(zip(...)) pairs them, without its iterators)
            params[names[i]] = args[i]
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
                if equipment and immune and any(h is not p and any(a is h for a in args) for h in immune):
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
    i = j = -1  # their places among the living, found in one pass (by identity, no list made)
    n = 0
    for p in g.players:
        if p.alive:
            if p is a:
                i = n
            elif p is b:
                j = n
            n += 1
    if i < 0 or j < 0:
        # a dead player is at no distance; treat them as out of reach
        return INF
    d = abs(i - j)
    return min(d, n - d)


from sgs_runtime.resolution.prohibitions import forbids_target, forbids_use  # noqa: E402,F401  (their home is prohibitions.py)
