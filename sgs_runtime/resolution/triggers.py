"""Firing triggers at a timing point.

At a timing point, the skills waiting there fire from the current player in
seat order; a player with several picks their order (an ``order`` request);
locked skills (锁定技) fire without asking; the rules' own triggers fire after
every skill. A skill fires once per timing point per owner, or once per point
of damage (or per card) when it says so. With the rules' runtime setting
``dying_skills_wait`` the triggered skills of a dying player wait until they
are rescued, unless the skill works ``while_dying``.

A trigger's condition is checked again just before it fires, so an earlier
trigger can make a later one moot. Once an event is cancelled (a ``before``
timing), no further trigger fires at that point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Optional, Union

from sgs_runtime.resolution.requests import ConfirmRequest, OrderRequest
from sgs_runtime.state.events import TIMINGS, DyingEvent, Event, SignalEvent, UseEvent
from sgs_runtime.state.frame import Frame, StopEffect

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game, Gen
    from sgs_runtime.state.definitions import Trigger
    from sgs_runtime.state.model import Player


def subject_of(timing: str, event: Event) -> Optional["Player"]:
    t = TIMINGS.get(timing)
    if t is not None:
        return getattr(event, t.subject) if t.subject else None
    if isinstance(event, SignalEvent):
        return event.user
    return None


def _involves(event: Event, player: "Player") -> bool:
    for name, kind in event.FIELDS.items():
        value = getattr(event, name, None)
        if (kind == "player" and value is player) or (kind == "players" and value and player in value):
            return True
    return False


def _eligible(g: "Game", tr: "Trigger", owner: "Player", timing: str, event: Event,
              subject: Optional["Player"], condition: bool = True,
              immune: Optional[list["Player"]] = None) -> bool:
    """Whether ``tr`` may fire for ``owner`` now; ``immune``: :meth:`SkillSet.immune_to_equipment`, if known."""
    if not owner.alive:
        # only a player's own death timing reaches the dead
        if not (timing == "death" and subject is owner):
            return False
    skill = tr.skill
    if tr.who == "me" and subject is not owner:
        return False
    if skill is not None:
        if immune is None:
            immune = g.skillset.immune_to_equipment()
        if immune and g.from_equipment(owner, skill) and any(
                q is not owner and _involves(event, q) for q in immune):
            return False  # 乾坤: the equipment of others has no effect on this player
    if tr.who == "others" and (subject is None or subject is owner):
        return False
    if tr.limit is not None and skill is not None:
        if owner.skill_uses.get((skill.id, tr.limit.scope), 0) >= tr.limit.count:
            return False
    if condition and tr.condition is not None:
        return bool(tr.condition(Frame(g, {"me": owner, "event": event})))
    return True


def _waits(g: "Game", tr: "Trigger", owner: "Player") -> bool:
    """The older principle: a dying player's skills wait until rescued (unless they work while dying)."""
    return (owner.dying and tr.skill is not None and not tr.skill.while_dying
            and bool(g.rules.runtime.get("dying_skills_wait")))


def _skill_triggers(g: "Game", player: "Player", timing: str) -> list["Trigger"]:
    return g.triggers_at(player, timing)


def fire(g: "Game", timing: str, event: Event,
         extra: Optional[dict[int, list["Trigger"]]] = None) -> Union["Gen", tuple[()]]:
    """Fire every trigger waiting at ``timing`` for ``event`` (``yield from fire(...)``).

    ``extra`` adds triggers for some seats at this one point: the skills of equipment
    that has just left its owner, which still see their own leaving. When nobody waits
    at the point (most timings, most of the time) there is nothing to run: an empty
    tuple is returned instead of a generator.
    """
    if g.trace is not None and timing in g.why_timings:
        _watch(g, timing, event, extra)
    owners = g.skillset.owners_at(timing)
    if g.check_caches:
        g.skillset.verify(timing)
    if extra:
        owners = owners | frozenset(extra)
    if not owners and timing not in g._trigger_index:
        return _NOTHING
    return _fire(g, timing, event, owners, extra)


_NOTHING: Final[tuple[()]] = ()


def _watch(g: "Game", timing: str, event: Event, extra: Optional[dict[int, list["Trigger"]]]) -> None:
    """``--why``: note, for each skill watched that waits at ``timing``, whether it can fire for each
    player who has it, and if not what holds it back (as the point is reached, before anything fires)."""
    subject = subject_of(timing, event)
    for owner in g.seats_from(g.current):
        valid = {sk.id: sk for sk in g.active_skills(owner)} if owner.alive else {}
        for tr in (extra or {}).get(owner.seat, []):
            if tr.skill is not None:
                valid.setdefault(tr.skill.id, tr.skill)
        for sid in sorted(g.why):
            skill = valid.get(sid) or next((sk for sk in owner.skills if sk.id == sid), None)
            if skill is None:
                continue
            for tr in skill.triggers:
                if tr.timing == timing:
                    held = _held(g, tr, owner, timing, event, subject, sid in valid)
                    g.note("why", skill=sid, player=owner, timing=timing, held=held,
                           trigger=f"{tr.source.file}:{tr.source.line}")


def _quoted(tr: "Trigger") -> str:
    """A trigger's condition as written, with where it is: ``if: X (file:line)``."""
    if not tr.if_text:
        return "(if:)"
    text = tr.if_text if len(tr.if_text) <= 120 else tr.if_text[:117] + "..."
    where = f" ({tr.if_source.file}:{tr.if_source.line})" if tr.if_source is not None else ""
    return f"'if: {text}'{where}"


def _held(g: "Game", tr: "Trigger", owner: "Player", timing: str, event: Event,
          subject: Optional["Player"], valid: bool) -> Optional[str]:
    """What keeps ``tr`` from firing for ``owner`` now, in words; ``None``: nothing does."""
    whose = subject.name if subject is not None else "nobody"
    if not owner.alive and not (timing == "death" and subject is owner):
        return f"{owner.name} was dead"
    if not valid:
        return f"the skill was not valid for {owner.name} (lost, or made invalid)"
    if tr.who == "me" and subject is not owner:
        return f"the event was {whose}'s, not {owner.name}'s"
    if tr.who == "others" and (subject is None or subject is owner):
        return f"the event was {owner.name}'s own (the skill answers the events of others)"
    if tr.skill is not None and not _eligible(g, tr, owner, timing, event, subject, condition=False):
        if tr.limit is not None and owner.skill_uses.get((tr.skill.id, tr.limit.scope), 0) >= tr.limit.count:
            return f"its limit ({tr.limit.count} per {tr.limit.scope}) was used up"
        return "the equipment it comes from has no effect on a player of the event"
    if tr.condition is not None:
        try:
            ok = bool(tr.condition(Frame(g, {"me": owner, "event": event})))
        except Exception as exc:  # noqa: BLE001 - an explanation must not end the game
            return f"its condition {_quoted(tr)} could not be evaluated: {exc}"
        if not ok:
            return f"its condition {_quoted(tr)} was false"
    return None


def _fire(g: "Game", timing: str, event: Event, owners: frozenset[int],
          extra: Optional[dict[int, list["Trigger"]]]) -> "Gen":
    subject = subject_of(timing, event)
    t = TIMINGS.get(timing)
    before = t.before if t is not None else True
    holder = _deferral(g) if t is not None and t.after else None
    order: list["Player"] = []
    if owners:
        own_only = g.skillset.own_only_at(timing)
        # (one owner, the most common case: no need to go round the table for the order)
        pool = [g.players[seat] for seat in owners] if len(owners) == 1 else g.seats_from(g.current)
        if own_only:  # their triggers here answer their own events only: not this one
            mine = subject.seat if subject is not None else -1
            order = [p for p in pool if p.seat in owners and (
                p.seat not in own_only or p.seat == mine or (extra is not None and p.seat in extra))]
        else:
            order = [p for p in pool if p.seat in owners]
    for owner in order:
        if not owner.alive and not (timing == "death" and subject is owner):
            continue
        candidates = _skill_triggers(g, owner, timing)
        if extra and owner.seat in extra:
            candidates = [*candidates, *extra[owner.seat]]
        if not candidates:
            continue
        dying_queue = _dying_queue(g, owner) if owner.dying else None
        if holder is not None or dying_queue is not None:
            # skills set off now but fired later (after the card; once rescued); their
            # conditions are looked at when they fire
            now: list["Trigger"] = []
            for tr in candidates:
                if tr.skill is not None and dying_queue is not None and _waits(g, tr, owner):
                    queue = dying_queue
                elif tr.skill is not None and holder is not None:
                    queue = holder.deferred
                else:
                    now.append(tr)
                    continue
                if _eligible(g, tr, owner, timing, event, subject, condition=False):
                    queue.append((owner, tr, event))
            candidates = now
            if not candidates:
                continue
        done: set[int] = set()
        while True:
            immune = g.skillset.immune_to_equipment()
            ready = [tr for tr in candidates
                     if id(tr) not in done and _eligible(g, tr, owner, timing, event, subject, True, immune)]
            if not ready:
                break
            if len(ready) == 1:
                tr = ready[0]
            else:
                labels = [tr.label or (tr.skill.id if tr.skill else "rule") for tr in ready]
                idx = yield from g.ask(OrderRequest(owner, f"which fires first at {timing}?", options=labels))
                tr = ready[idx]
            done.add(id(tr))
            yield from run_trigger(g, tr, owner, event)
            if before and event.cancelled:
                return
    for tr in g.rule_triggers(timing):
        if before and event.cancelled:
            return
        me = subject if subject is not None else g.current
        frame = Frame(g, {"me": me, "event": event})
        if tr.condition is not None and not tr.condition(frame):
            continue
        try:
            yield from tr.body(frame)
        except StopEffect:
            pass


def _deferral(g: "Game") -> Optional[UseEvent]:
    """The card use that skills wait for, under the runtime setting ``skills_after_card``."""
    if not g.rules.runtime.get("skills_after_card"):
        return None
    for ev in reversed(g.stack):
        if isinstance(ev, UseEvent) and not ev.counter:
            return None if ev.settled else ev
    return None


def _dying_queue(g: "Game", owner: "Player") -> Optional[list[Any]]:
    for ev in reversed(g.stack):
        if isinstance(ev, DyingEvent) and ev.player is owner:
            return ev.deferred
    return None


def fire_deferred(g: "Game", queue: list[Any]) -> "Gen":
    """Fire skills that waited (for a card to resolve, or a dying player's rescue), from the
    current player in seat order; not for the dead; each condition is looked at now."""
    key = g.order_key(g.current)
    while queue:
        queue.sort(key=lambda item: key(item[0]))
        owner, tr, event = queue.pop(0)
        if not owner.alive:
            continue
        if owner.dying and _waits(g, tr, owner):
            later = _dying_queue(g, owner)
            if later is not None and later is not queue:
                later.append((owner, tr, event))  # still dying: wait for the rescue
            continue
        subject = subject_of(tr.timing, event)
        if _eligible(g, tr, owner, tr.timing, event, subject):
            yield from run_trigger(g, tr, owner, event)


def run_trigger(g: "Game", tr: "Trigger", owner: "Player", event: Event) -> "Gen":
    """Ask (if optional) and run one trigger for its owner."""
    skill = tr.skill
    times = 1
    if tr.per == "point":
        times = max(0, int(getattr(event, "amount", 1)))
    elif tr.per == "card":
        times = len(getattr(event, "cards", []) or [])
    for i in range(times):
        if i > 0 and not _eligible(g, tr, owner, tr.timing, event, subject_of(tr.timing, event)):
            break
        if tr.optional and not (skill is not None and skill.locked):
            if skill is not None:
                g.emit("offer", player=owner, skill=skill.id, timing=tr.timing)
            name = skill.name.zh if skill is not None else tr.label
            ok = yield from g.ask(ConfirmRequest(owner, f"invoke {skill.id if skill else tr.label} ({name})?",
                                                 skill=skill.id if skill else None, event=event,
                                                 part=tr.label))
            if not ok:
                break
        if skill is not None:
            if tr.limit is not None:
                key = (skill.id, tr.limit.scope)
                owner.skill_uses[key] = owner.skill_uses.get(key, 0) + 1
            g.emit("skill", player=owner, skill=skill.id, timing=tr.timing)
        frame = Frame(g, {"me": owner, "event": event, "__skill__": skill.id if skill else None})
        try:
            yield from tr.body(frame)
        except StopEffect:
            pass


def count_use(owner: "Player", skill_id: str, scope: str) -> None:
    key = (skill_id, scope)
    owner.skill_uses[key] = owner.skill_uses.get(key, 0) + 1


def reset_scope(g: "Game", scope: str, player: Optional["Player"] = None) -> None:
    """Forget per-turn, per-phase or per-round counters and marks; end what lasted until then."""
    g.touch()
    if player is None:
        g.skillset.expire(scope)
    targets = [player] if player is not None else g.players
    for p in targets:
        if p.skill_uses:
            for key in [k for k in p.skill_uses if k[1] == scope]:
                del p.skill_uses[key]
        if p.marks:
            for name in [m for m in p.marks if _mark_reset(g, m) == scope]:
                del p.marks[name]


def _mark_reset(g: "Game", name: str) -> str:
    md = g.content.marks.get(name)
    return md.reset if md is not None else "never"

