"""Which skills a player has now, and which fire where: the one place that decides.

A player's skills are a set that changes in play. :class:`SkillSet` (one per
game, ``g.skillset``) builds it from, in this order:

1. the hero's skills and the rules' skills for every player (``Player.skills``),
   less those lost by an effect (``p loses skill X``), plus those gained by one
   (``p gains skill X [until turn_end]``);
2. the skills of the equipment in use (not the ignored slots);
3. skills copied from other players (``copies:``), following them: 伪帝 has the
   lord skills of whoever is lord now;
4. skills granted by another living player's skill while it lasts (``grants:``):
   黄天 gives every other 群 player a skill; the receiver knows its givers;
5. less the skills made invalid: by an effect (``invalidate p skills until
   turn_end``) or by a condition of one of the player's skills (``invalidates:``).

Triggers, the play phase, response windows, filters, prohibitions, quantities
and the bots all ask this one place. The answer is remembered until something
that may change it happens (:meth:`forget`, called by ``Game.bump``; after an
equipment move only its player's set is found again, while every player's set depends
on that player alone); a skill whose condition makes others invalid is looked at again
at every step.

>>> from sgs_runtime.state.skillset import Held
>>> Held.__slots__
('skill', 'source', 'givers', 'via')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Optional, Sequence

from sgs_runtime.errors import GameError
from sgs_runtime.state.frame import Frame

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.state.definitions import Modifier, Prohibition, Skill, Trigger
    from sgs_runtime.state.model import Player

_NOBODY: Final[frozenset[int]] = frozenset()
_NONE: Final[list[Any]] = []  # (shared, never changed)


def _reaches_others(skill: "Skill") -> bool:
    """Whether a skill makes some player's set depend on another player's (copies, grants) or on the
    state (a validity condition): then every set is found again together."""
    inv = skill.invalidates
    return skill.copies is not None or bool(skill.grants) or (inv is not None and inv.condition is not None)


#: where a skill comes from
SOURCES: Final = ("hero", "gained", "equipment", "copied", "granted", "rules")


def list_at(index: dict[Any, list[Any]], key: Any) -> list[Any]:
    """``index[key]``, an empty list put there first if there is none: ``index.setdefault(key, [])``
    without the KeyError that the compiled ``setdefault`` raises and clears at each miss.

    >>> d: dict[str, list[int]] = {}
    >>> list_at(d, "a").append(1); list_at(d, "a").append(2); d
    {'a': [1, 2]}
    """
    got = index.get(key)
    if got is None:
        got = index[key] = []
    return got


def set_at(index: dict[Any, set[Any]], key: Any) -> set[Any]:
    """``index[key]``, an empty set put there first if there is none (as :func:`list_at`).

    >>> d: dict[str, set[int]] = {}
    >>> set_at(d, "a").add(1); d
    {'a': {1}}
    """
    got = index.get(key)
    if got is None:
        got = index[key] = set()
    return got


class Held:
    """One skill a player has, where it comes from, and (granted skills) who gives it."""

    __slots__ = ("skill", "source", "givers", "via")

    def __init__(self, skill: "Skill", source: str, givers: tuple["Player", ...] = (), via: str = "") -> None:
        self.skill = skill
        self.source = source
        self.givers = givers
        self.via = via  # the skill that copies or grants it (伪帝, 黄天)

    def __repr__(self) -> str:
        by = f" from {', '.join(p.name for p in self.givers)}" if self.givers else ""
        return f"<{self.skill.id} ({self.source}{by})>"


class SkillSet:
    """Every player's skills now, and the look-ups built on them."""

    def __init__(self, game: "Game") -> None:
        self.game = game
        self._held: dict[int, list[Held]] = {}
        self._skills: dict[int, list["Skill"]] = {}
        self._triggers: dict[int, dict[str, list["Trigger"]]] = {}
        self._owners: dict[str, frozenset[int]] = {}
        self._own_only: dict[str, frozenset[int]] = {}
        self._modifiers: dict[str, list[tuple["Player", "Modifier", bool]]] = {}
        self._immune: Optional[list["Player"]] = None
        #: seat -> the prohibitions of each kind (use, target) the player's skills place on them
        self._prohibitions: dict[int, dict[str, list["Prohibition"]]] = {}
        self._equipment: dict[int, frozenset[int]] = {}
        #: seat -> the timing points where the player has a trigger, each with whether one of them is
        #: for other players' events too (``who`` other than ``me``): what :meth:`_index` joins
        self._timings: dict[int, dict[str, bool]] = {}
        #: seat -> the timing points the index (:attr:`_owners`) was joined from, for the seats forgotten
        #: alone since: the index is joined again only where theirs changed (:meth:`_settle`)
        self._before: dict[int, dict[str, bool]] = {}
        #: whether each player's set depends on that player alone (no copies, no grants, no validity
        #: condition): then a change of one player's equipment rebuilds that player's set only
        self._separate = False
        self._partial = False  # some seats were forgotten alone (:meth:`forget` with ``seats``)
        self._step = -1  # the game step the answers hold for, when a condition decides validity
        self._busy = False
        self.timed = False  # some change lasts until a turn, phase or round ends (expire has work)
        # whether someone holds a skill whose condition makes others invalid (缠怨): then the
        # answers hold for one step only; decided each time the sets are built
        self.volatile = False

    # ------------------------------------------------------------ caching

    @property
    def settled(self) -> bool:
        """Whether the sets, once found, stand until they are next forgotten (and so the skill epoch
        moves on): no skill's validity hangs on HP (:attr:`volatile`), and none is being found now."""
        return not self.volatile and not self._busy

    def forget(self, seats: Optional[Sequence[int]] = None) -> None:
        """Something that decides skills has changed (equipment, death, a gained skill ...): the skill
        epoch moves on (``Game.epoch``: what was remembered for the sets as they were is forgotten).

        ``seats``: only these players' own skills can have changed (their equipment). While every
        player's set depends on that player alone, only theirs are found again; the look-ups that join
        all players' sets (who waits where, the modifiers, the immune) are joined again."""
        self.game.epoch += 1
        if seats is not None and self._separate and self._held:
            for seat in seats:
                self._held.pop(seat, None)
                self._skills.pop(seat, None)
                self._triggers.pop(seat, None)
                self._equipment.pop(seat, None)
                self._prohibitions.pop(seat, None)
                timings = self._timings.pop(seat, None)
                if timings is None:  # (the index was not joined from it: join it all again)
                    self._owners.clear()
                elif seat not in self._before:
                    self._before[seat] = timings
            self._partial = True
        else:
            self._held.clear()
            self._skills.clear()
            self._triggers.clear()
            self._timings.clear()
            self._prohibitions.clear()
            self._equipment.clear()
            self._partial = False
            self._owners.clear()
        if not self._owners:
            self._own_only.clear()
            self._before.clear()
        self._modifiers.clear()
        self._immune = None

    def _fresh(self) -> None:
        if self.volatile and self._step != self.game.steps:
            self._step = self.game.steps
            self.forget()

    # ------------------------------------------------------------ the set

    def held(self, player: "Player") -> list[Held]:
        """The player's skills now, with where each comes from."""
        self._fresh()
        got = self._held.get(player.seat)
        if got is None and self._partial and not self._busy:
            got = self._build_one(player)
        if got is None:
            if self._busy:  # a condition asked while the sets are being built: the player's own skills
                return [Held(s, "hero") for s in self._own(player)]
            self._busy = True
            try:
                self._build()
            finally:
                self._busy = False
            got = self._held[player.seat]
        return got

    def of(self, player: "Player") -> list["Skill"]:
        """The player's valid skills now."""
        got = self._skills.get(player.seat) if not self.volatile or self._step == self.game.steps else None
        if got is None:
            got = [h.skill for h in self.held(player)]
            if not self._busy:  # asked while the sets are being built: a partial answer, not kept
                self._skills[player.seat] = got
        return got

    def has(self, player: "Player", skill_id: str) -> bool:
        return any(s.id == skill_id for s in self.of(player))

    def givers(self, player: "Player", skill: "Skill") -> list["Player"]:
        """Who gives ``player`` the granted ``skill`` (empty when it is not granted)."""
        for h in self.held(player):
            if h.skill is skill and h.givers:
                return list(h.givers)
        return []

    def source(self, player: "Player", skill: "Skill") -> Optional[str]:
        for h in self.held(player):
            if h.skill is skill:
                return h.source
        return None

    def via(self, player: "Player", skill_id: str) -> str:
        """The skill through which the player has ``skill_id`` (a copy or a grant), or ''."""
        for h in self.held(player):
            if h.skill.id == skill_id:
                return h.via
        return ""

    def from_equipment(self, player: "Player", skill: "Skill") -> bool:
        """Whether the player has this skill through a piece of equipment (not their hero)."""
        if self.volatile:
            self._fresh()
        got = self._equipment.get(player.seat)
        if got is None:
            first: dict[int, str] = {}
            for h in self.held(player):
                first.setdefault(id(h.skill), h.source)  # (as source(): the first entry decides)
            got = frozenset(k for k, src in first.items() if src == "equipment")
            if not self._busy:
                self._equipment[player.seat] = got
        return id(skill) in got

    def prohibitions(self, player: "Player", kind: str) -> list["Prohibition"]:
        """The prohibitions of ``kind`` (use, target) the player's skills place on them now."""
        if self.volatile:
            self._fresh()
        got = self._prohibitions.get(player.seat)
        if got is None:
            got = {}
            for s in self.of(player):
                for pr in s.prohibitions:
                    list_at(got, pr.kind).append(pr)
            if not self._busy:
                self._prohibitions[player.seat] = got
        return got.get(kind, _NONE)

    def _own(self, player: "Player") -> list["Skill"]:
        """Step 1: hero and rules skills, less the lost, plus the gained."""
        g = self.game
        lost = {sid for sid, _ in player.lost}
        out = [s for s in player.skills if s.id not in lost]
        for sid, _ in player.gained:
            sk = g.skill(sid)
            if sk is not None and sk not in out and sid not in lost:
                out.append(sk)
        return out

    def _equipped(self, p: "Player") -> list[Held]:
        """Steps 1 and 2 for one player: their own skills, then their equipment's."""
        g = self.game
        gained = {sid for sid, _ in p.gained}
        held = [Held(s, "gained" if s.id in gained and s not in p.skills else "hero") for s in self._own(p)]
        if p.equip.cards:
            ignored = g._ignored_slots(p)
            for card in p.equip.cards:
                eq = card.base.equip  # printed: equipment is what it is (no filter loop)
                if eq is None or eq.slot in ignored:
                    continue
                for sid in eq.skills:
                    sk = g.skill(sid)
                    if sk is not None:
                        held.append(Held(sk, "equipment"))
        return held

    def _build_one(self, player: "Player") -> Optional[list[Held]]:
        """The set of a player forgotten alone (:meth:`forget` with ``seats``), while every set depends on
        its player alone; None (everything forgotten) when this player's now reaches others."""
        own = self._equipped(player)
        if any(_reaches_others(h.skill) for h in own):
            self.forget()  # (its copies, grants or validity condition need every player's sets)
            return None
        got = self._held[player.seat] = self._valid(player, own)
        return got

    def _build(self) -> None:
        g = self.game
        own: dict[int, list[Held]] = {}
        for p in g.players:
            own[p.seat] = self._equipped(p)
        self._partial = False
        # (a validity condition makes the sets volatile as well: _reaches_others counts it)
        self._separate = not any(_reaches_others(h.skill) for held in own.values() for h in held)
        # copies follow the copied player's own skills (never their copies: no loops)
        for p in g.players:
            for h in list(own[p.seat]):
                cp = h.skill.copies
                if cp is None or not p.alive:
                    continue
                found = cp.source(Frame(g, {"me": p}))
                sources = found if isinstance(found, (list, tuple)) else [found] if found is not None else []
                have = {x.skill.id for x in own[p.seat]}
                for q in sources:
                    if q is p or not q.alive:
                        continue
                    for sk in self._own(q):
                        if (sk.lord or not cp.lord_only) and sk.id not in have:
                            own[p.seat].append(Held(sk, "copied", (q,), h.skill.id))
                            have.add(sk.id)
        self.volatile = any(h.skill.invalidates is not None and h.skill.invalidates.condition is not None
                            for held in own.values() for h in held)
        if self.volatile:
            self._step = g.steps
        for p in g.players:
            own[p.seat] = self._valid(p, own[p.seat])
        # grants: from every other living giver's valid skills
        granted: dict[int, dict[str, list["Player"]]] = {}
        via: dict[str, str] = {}
        for q in g.players:
            if not q.alive:
                continue
            for h in own[q.seat]:
                for gr in h.skill.grants:
                    for p in g.players:
                        if p is q or not p.alive:
                            continue
                        if gr.condition is None or gr.condition(Frame(g, {"me": q, "it": p})):
                            list_at(granted.setdefault(p.seat, {}), gr.skill).append(q)
                            via[gr.skill] = h.skill.id
        for p in g.players:
            held = own[p.seat]
            for sid, givers in granted.get(p.seat, {}).items():
                gift = g.skill(sid)
                if gift is not None and all(x.skill is not gift for x in held):
                    held.append(Held(gift, "granted", tuple(givers), via.get(sid, "")))
            self._held[p.seat] = self._valid(p, held)

    def _valid(self, player: "Player", held: list[Held]) -> list[Held]:
        """Step 5: leave out the invalid skills."""
        g = self.game
        gone: set[str] = set()
        everything = False
        for sid, _ in player.invalid:
            if sid is None:
                everything = True
            else:
                gone.add(sid)
        if everything:
            return []
        keep: Optional[str] = None
        for h in held:
            inv = h.skill.invalidates
            if inv is not None and (inv.condition is None or inv.condition(Frame(g, {"me": player}))):
                keep = h.skill.id  # its owner's other skills are invalid
                break
        return [h for h in held if h.skill.id not in gone and (keep is None or h.skill.id == keep)]

    # ------------------------------------------------------------ look-ups

    def triggers_at(self, player: "Player", timing: str) -> list["Trigger"]:
        """The player's triggers at a timing point."""
        if self.volatile:
            self._fresh()
        index = self._triggers.get(player.seat)
        if index is None:
            index = {}
            for skill in self.of(player):
                for tr in skill.triggers:
                    list_at(index, tr.timing).append(tr)
            self._triggers[player.seat] = index
        return index.get(timing, [])

    def owners_at(self, timing: str) -> frozenset[int]:
        """Seats of the players who have a trigger at a timing point now."""
        if self.volatile:
            self._fresh()
        if self._before:
            self._settle()
        owners = self._owners
        if not owners:
            owners = self._index()
        return owners.get(timing, _NOBODY)

    def own_only_at(self, timing: str) -> frozenset[int]:
        """Seats whose every trigger at ``timing`` is for their own events (``who: me``): they need
        looking at only when the event is theirs."""
        if self.volatile:
            self._fresh()
        if self._before:
            self._settle()
        if not self._owners:
            self._index()
        return self._own_only.get(timing, _NOBODY)

    def _settle(self) -> None:
        """Join the index again where the timing points of the seats forgotten alone have changed (most
        equipment brings no trigger: then nothing is joined), or all of it while the sets are being built."""
        before = self._before
        self._before = {}
        if self._busy:
            self._owners.clear()
            self._own_only.clear()
            return
        players = self.game.players
        epoch = self.game.epoch
        changed: set[str] = set()
        for seat, old in before.items():
            new = self._seat_timings(players[seat])
            if new != old:
                changed.update(t for t in old if new.get(t) != old[t])
                changed.update(t for t in new if t not in old)
        if not changed:
            return
        timings = [self._seat_timings(p) for p in players]
        if self.game.epoch != epoch:  # a set found again reached others: all was forgotten, join it all again
            self._owners.clear()
            self._own_only.clear()
            return
        for t in changed:
            seats = frozenset([p.seat for p, tm in zip(players, timings) if t in tm])
            if not seats:
                self._owners.pop(t, None)
                self._own_only.pop(t, None)
                continue
            wide = frozenset([p.seat for p, tm in zip(players, timings) if tm.get(t)])
            self._owners[t] = seats
            self._own_only[t] = seats - wide if wide else seats

    def _index(self) -> dict[str, frozenset[int]]:
        """Index every timing point in one pass: who waits there, and who only for their own events."""
        epoch = self.game.epoch
        seats: dict[str, set[int]] = {}
        wide: dict[str, set[int]] = {}
        for p in self.game.players:
            for timing, others in self._seat_timings(p).items():
                set_at(seats, timing).add(p.seat)
                if others:
                    set_at(wide, timing).add(p.seat)
        if self.game.epoch != epoch:
            # a set found again now reaches other players (_build_one): everything was forgotten and the
            # seats looked at first may have other skills now: index again, from sets built together
            return self._index()
        owners = {t: frozenset(s) for t, s in seats.items()}
        own_only: dict[str, frozenset[int]] = {}
        for t, s in seats.items():
            w = wide.get(t)
            own_only[t] = owners[t] if w is None else frozenset(s - w)
        owners[""] = frozenset()  # (indexed, even when nobody waits anywhere)
        if not self._busy:  # (asked while the sets are being built: a partial answer, not kept)
            self._owners = owners
            self._own_only = own_only
        return owners

    def _seat_timings(self, p: "Player") -> dict[str, bool]:
        """Where ``p`` has a trigger now, each point with whether one there is for others' events too."""
        got = self._timings.get(p.seat)
        if got is None:
            got = {}
            for skill in self.of(p):
                for tr in skill.triggers:
                    got[tr.timing] = got.get(tr.timing, False) or tr.who != "me"
            if not self._busy:
                self._timings[p.seat] = got
        return got

    def modifiers(self, quantity: str) -> list[tuple["Player", "Modifier", bool]]:
        """Every living player's modifiers of a quantity, in seat order."""
        if self.volatile:
            self._fresh()
        index = self._modifiers
        if not index:  # forgotten: every quantity's modifiers in one pass
            index = {"": []}
            for p in self.game.players:
                if p.alive:
                    for s in self.of(p):
                        for m in s.modifiers:
                            list_at(index, m.quantity).append((p, m, self.from_equipment(p, s)))
            if self._busy:  # (asked while the sets are being built: a partial answer, not kept)
                return index.get(quantity, [])
            self._modifiers = index
        return index.get(quantity, _NONE)

    def verify(self, timing: str) -> None:
        """The cache check (``Game.check_caches``): a set built afresh must agree on who waits at ``timing``
        and on every player's skills."""
        if self._busy:
            return
        fresh = SkillSet(self.game)
        mine, theirs = self.owners_at(timing), fresh.owners_at(timing)
        if mine != theirs:
            raise GameError(f"cache check: the players waiting at {timing} were remembered as seats {sorted(mine)} "
                            f"but are seats {sorted(theirs)} now: a change of skills did not call Game.bump")
        for p in self.game.players:
            if [s.id for s in self.of(p)] != [s.id for s in fresh.of(p)]:
                raise GameError(f"cache check: {p.name}'s skills were remembered as {[s.id for s in self.of(p)]} "
                                f"but are {[s.id for s in fresh.of(p)]} now: a change of skills did not call Game.bump")

    def immune_to_equipment(self) -> list["Player"]:
        """Players whom other players' equipment does not affect (乾坤)."""
        if self.volatile:
            self._fresh()
        got = self._immune
        if got is None:
            got = self._immune = [p for p in self.game.players if p.alive and any(
                "others_equipment" in s.immune for s in self.of(p))]
        return got

    # ------------------------------------------------------------ changes

    def gain(self, player: "Player", skill_id: str, until: Optional[str]) -> None:
        self.timed = self.timed or until is not None
        player.lost = [(s, u) for s, u in player.lost if s != skill_id]
        if all(s != skill_id for s, _ in player.gained):
            player.gained.append((skill_id, until))
        self.game.bump()

    def lose(self, player: "Player", skill_id: str, until: Optional[str]) -> None:
        self.timed = self.timed or until is not None
        player.gained = [(s, u) for s, u in player.gained if s != skill_id]
        if any(s.id == skill_id for s in player.skills):
            player.lost.append((skill_id, until))
        self.game.bump()

    def invalidate(self, player: "Player", skill_id: Optional[str], until: Optional[str]) -> None:
        self.timed = self.timed or until is not None
        player.invalid.append((skill_id, until))
        self.game.bump()

    def expire(self, scope: str) -> None:
        """A turn, phase or round has ended: changes that lasted until then are undone."""
        if not self.timed:
            return
        changed = False
        for p in self.game.players:
            for name in ("gained", "lost", "invalid"):
                entries: list[Any] = getattr(p, name)
                if any(u == scope for _, u in entries):
                    setattr(p, name, [(s, u) for s, u in entries if u != scope])
                    changed = True
            if p.bans and any(b.until == scope for b in p.bans):
                p.bans = [b for b in p.bans if b.until != scope]
        if changed:
            self.game.bump()
