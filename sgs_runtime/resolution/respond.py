"""Response windows: "respond with X", counter windows and rescue.

``ask P use jink`` opens a window in which ``P`` may answer with any card of
that name or any view-as skill that makes one (武圣, 龙胆 ...). Before ``P`` is
asked, ``respond_asked`` fires: skills may answer for ``P`` (八卦阵 judges,
护驾 asks the Wei players) by ``provide``-ing a card. A window asked *for*
someone else (``ask p play jink for me``) does not fire ``respond_asked`` for
``p`` — 护驾 cannot use 八卦阵 on the lord's behalf — and the card counts as
the beneficiary's.

A counter window opens before each effect of a card on each target when some
card kind ``counters`` its type (无懈可击 against tricks): every living player,
in seat order from the current player, may use one; the first used cancels
the effect unless it is itself countered by a window of its own, recursively.

Players with nothing to answer with are not asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Optional, Sequence

from sgs_runtime.resolution.moves import clear_processing, move
from sgs_runtime.resolution.prohibitions import forbids_play, forbids_use
from sgs_runtime.resolution.requests import CheckedResponse, RespondAsks, RespondOption, RespondRequest
from sgs_runtime.resolution.triggers import fire
from sgs_runtime.resolution.use import (
    check_choice,
    choice_pool,
    choice_step_ok,
    count_view_as,
    declare,
    face_down_fields,
    greedy_choice,
    is_face_down,
    use_card,
    view_as_available,
    view_as_card,
    view_as_kinds,
)
from sgs_runtime.state.definitions import CardKind, ViewAs
from sgs_runtime.state.events import RespondEvent, UseEvent
from sgs_runtime.state.frame import Frame
from sgs_runtime.state.model import AnyCard, Card, Player

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game, Gen

RESCUE: Final = "rescue"


def _kind_matches(g: "Game", kind: CardKind, patterns: frozenset[str], player: Player,
                  target: Optional[Player]) -> bool:
    if RESCUE in patterns:
        spec = kind.use
        return spec is not None and spec.rescue is not None and bool(
            spec.rescue(Frame(g, {"me": player, "target": target})))
    return not patterns.isdisjoint(kind.family)  # a thunder Slash answers a request for a slash


def response_options(g: "Game", player: Player, patterns: frozenset[str], mode: str,
                     target: Optional[Player] = None, against: Optional[AnyCard] = None) -> list[RespondOption]:
    """What ``player`` could answer with: hand cards and view-as skills."""
    opts: list[RespondOption] = []
    for card in player.hand.cards:
        if _kind_matches(g, card.kind, patterns, player, target) and not (
                forbids_use(g, player, card) if mode == "use" else forbids_play(g, player, card)):
            opts.append(RespondOption(card.label(), card=card))
    for skill in g.active_skills(player):
        for i, va in enumerate(skill.view_as):
            if not view_as_available(g, player, va, mode, against):
                continue
            picked: Optional[bool] = None
            for cid in view_as_kinds(g, va):
                if not _kind_matches(g, g.content.cards[cid], patterns, player, target):
                    continue
                if picked is None:
                    picked = greedy_choice(g, player, va.cards) is not None
                if not picked:
                    break
                opts.append(RespondOption(f"{skill.id} as {cid}", skill=skill, view_as=i, as_card=cid))
    return opts


def _find_option(g: "Game", player: Player, opts: Sequence[RespondOption], ans: CheckedResponse) -> Optional[RespondOption]:
    """The option ``ans`` takes: the same card, or the same view-as entry of the same skill making the same kind."""
    if ans.card is not None:
        return next((o for o in opts if o.card is ans.card and o.skill is None), None)
    for o in opts:
        if o.skill is not None and o.skill.id == ans.skill and o.view_as == ans.view_as \
                and 0 <= ans.view_as < len(o.skill.view_as) \
                and _made_kind(g, player, o.skill.view_as[ans.view_as], ans) == o.as_card:
            return o
    return None


def _made_kind(g: "Game", player: Player, va: ViewAs, ans: CheckedResponse) -> str:
    """The kind :func:`build_card` makes for ``ans``: the one named, else the one asked for, else the first."""
    kinds = view_as_kinds(g, va)
    if ans.as_card is not None:
        return ans.as_card
    got = _first_match(g, player, va, ans)
    return got if got is not None else (kinds[0] if kinds else va.card)


def _first_match(g: "Game", player: Player, va: ViewAs, ans: CheckedResponse) -> Optional[str]:
    """The kind a view-as over several names makes when the answer does not say: the one asked for."""
    for ev in reversed(g.stack):
        if isinstance(ev, RespondEvent):
            for cid in view_as_kinds(g, va):
                if _kind_matches(g, g.content.cards[cid], frozenset(ev.patterns), player, None):
                    return cid
            break
    return None


def _view_as(opt: RespondOption) -> ViewAs:
    assert opt.skill is not None
    return opt.skill.view_as[opt.view_as]


def make_request(g: "Game", player: Player, patterns: frozenset[str], mode: str, opts: list[RespondOption],
                 against: Optional[AnyCard], target: Optional[Player], prompt: str) -> RespondRequest:
    pattern = "/".join(sorted(patterns))
    return RespondRequest(player, prompt, pattern=pattern, mode=mode, against=against, target=target, options=opts,
                          asks=_RespondAsks(g, player, opts))


class _RespondAsks(RespondAsks):
    """What a response window asks of the game while it waits (as use.py's ``_PlayAsks``)."""

    def __init__(self, g: "Game", player: Player, opts: list[RespondOption]) -> None:
        self.g = g
        self.player = player
        self.opts = opts

    def card_choices(self, opt: RespondOption) -> tuple[list[Card], int, Optional[int]]:
        if opt.skill is None:
            return [], 0, 0
        va = _view_as(opt)
        return choice_pool(self.g, self.player, va.cards), va.cards.min, va.cards.max

    def card_step(self, opt: RespondOption, chosen: list[Card], card: Card) -> bool:
        return opt.skill is not None and choice_step_ok(self.g, self.player, _view_as(opt).cards, chosen, card)

    def validate(self, ans: CheckedResponse) -> Optional[str]:
        """Why ``ans`` is not allowed, or None. The fields' types were checked (:class:`RespondRequest`)."""
        g, player = self.g, self.player
        skill = None
        if ans.card is None and ans.skill is not None:
            skill = next((s for s in g.active_skills(player) if s.id == ans.skill), None)
            if skill is not None and not 0 <= ans.view_as < len(skill.view_as):
                return (f"{skill.id} has no view-as entry {ans.view_as}"
                        + (f" (view_as must be 0 to {len(skill.view_as) - 1})" if skill.view_as else ""))
            if skill is not None and ans.as_card is not None and \
                    ans.as_card not in view_as_kinds(g, skill.view_as[ans.view_as]):
                return f"{skill.id} cannot make a {ans.as_card}"
        opt = _find_option(g, player, self.opts, ans)
        if opt is None:
            what = ans.card.label() if ans.card is not None else (ans.skill or "nothing")
            hint = ""
            if ans.card is None and skill is not None:
                va = skill.view_as[ans.view_as]
                made = _made_kind(g, player, va, ans)
                what += f" as {made}"
                if ans.as_card is None and len(view_as_kinds(g, va)) > 1:
                    hint = f" (with no as_card, {skill.id} makes a {made}: name the kind meant in as_card)"
            return f"{player.name} cannot answer with {what} here{hint}"
        if opt.skill is None:
            if ans.cards or ans.as_card is not None or ans.view_as != 0:
                return f"{ans.card.label() if ans.card else 'a card'} answers by itself: no further cards, " \
                       "no view_as and no as_card"
            return None
        problem = check_choice(g, player, _view_as(opt).cards, ans.cards)
        if problem:
            return f"{opt.skill.id}: {problem}"
        return None


def build_card(g: "Game", player: Player, ans: CheckedResponse) -> AnyCard:
    if ans.card is not None:
        return ans.card
    skill = next(s for s in g.active_skills(player) if s.id == ans.skill)
    va = skill.view_as[ans.view_as]  # a validated answer: the index and the kind are those of an option
    vcard = view_as_card(g, skill, va, ans.cards, _made_kind(g, player, va, ans))
    count_view_as(player, va)
    g.emit("skill", player=player, skill=skill.id, as_card=vcard.kind.id, cards=ans.cards)
    return vcard


def ask_respond(g: "Game", player: Player, patterns: frozenset[str], mode: str, *, times: int = 1,
                on: Optional[Sequence[Player]] = None, beneficiary: Optional[Player] = None,
                against: Optional[AnyCard] = None, source: Optional[Player] = None,
                extra: bool = False) -> "Gen":
    """Ask ``player`` to use or play ``times`` cards of ``patterns``; return the cards given."""
    given: list[AnyCard] = []
    pattern = "/".join(sorted(patterns))
    rescue_target = on[0] if (on and RESCUE in patterns) else None
    for _ in range(max(0, times)):
        if not player.alive:
            break
        ev = RespondEvent(player, pattern, mode, against, source, beneficiary)
        g.push(ev)
        try:
            card = yield from _answer_once(g, ev, patterns, on, rescue_target, extra)
        finally:
            g.pop(ev)
        if card is None:
            break
        given.append(card)
    return given


def _answer_once(g: "Game", ev: RespondEvent, patterns: frozenset[str], on: Optional[Sequence[Player]],
                 rescue_target: Optional[Player], extra: bool) -> "Gen":
    """One answer in :func:`ask_respond`'s window ``ev`` (pushed): the card given, or None when the
    window closes (no answer, a void use, a denied or dead player)."""
    player, pattern, mode = ev.player, ev.pattern, ev.mode
    against, beneficiary = ev.against, ev.beneficiary
    if _denied(g, player, against):  # 铁骑: no answer at all, not even 八卦阵's
        return None
    if beneficiary is None:
        yield from fire(g, "respond_asked", ev)
    card = ev.provided
    provided = card is not None
    if card is None and ev.cancelled:  # a trigger closed the window: no answer
        return None
    if card is None and player.alive:
        opts = response_options(g, player, patterns, mode, rescue_target, against)
        if opts:
            what = f"{mode} {pattern}" + (f" against {against.kind.id}" if against is not None else "")
            if on:
                what += " on " + ", ".join(p.name for p in on)
            req = make_request(g, player, patterns, mode, opts, against, rescue_target, what)
            req.on = list(on or [])
            req.beneficiary = beneficiary
            ans = yield from g.ask(req)
            if ans is not None:
                card = build_card(g, player, ans)
    if card is None:
        return None
    ev.card = card
    if on is not None:
        # a use with targets: the card goes the whole way of a use
        user = beneficiary or player
        done = yield from use_card(g, user, card, list(on), extra=extra)
        if done.voided:
            return None
    else:
        hidden = face_down_fields(card)
        yield from move(g, card.physical, g.processing, reason=mode, by=player,
                        visible=False if hidden else None)
        g.emit("respond", player=player, card=card, mode=mode, against=against,
               **({"for": beneficiary} if beneficiary is not None else {}),
               **({"provided": True} if provided else {}), **hidden)
        if not (yield from declare(g, player, card, mode)):
            yield from clear_processing(g, card.physical)
            return None
        g.record(beneficiary or player, card, mode)
        if beneficiary is None:
            yield from fire(g, "responded", ev)
            yield from clear_processing(g, card.physical)
    return card


def _denied(g: "Game", player: Player, against: Optional[AnyCard]) -> bool:
    if against is None:
        return False
    for ev in reversed(g.stack):
        if isinstance(ev, UseEvent) and ev.card is against:
            return player.seat in ev.denied
    return False


def counter_window(g: "Game", card: AnyCard, target: Player, use: Optional[UseEvent]) -> "Gen":
    """Ask every living player, from the current one, for a card that counters ``card``."""
    kinds = g.content.counters_for(card.type)
    if not kinds:
        return False
    patterns = frozenset(k.id for k in kinds)
    for p in g.alive_from(g.current):
        opts = response_options(g, p, patterns, "use", None, card)
        if not opts:
            continue
        prompt = f"counter {card.kind.id} on {target.name}?"
        ans = yield from g.ask(make_request(g, p, patterns, "use", opts, card, target, prompt))
        if ans is None:
            continue
        counter = build_card(g, p, ans)
        cuse = UseEvent(p, counter, [])
        cuse.counter = True
        g.push(cuse)
        try:
            g.emit("use", user=p, card=counter, against=card, target=target, **face_down_fields(counter))
            yield from move(g, counter.physical, g.processing, reason="use", by=p,
                            visible=False if is_face_down(counter) else None)
            voided = not (yield from declare(g, p, counter, "use"))
            if voided:
                yield from clear_processing(g, counter.physical)
            else:
                g.record(p, counter, "use")
                yield from fire(g, "card_used", cuse)
                itself = yield from counter_window(g, counter, target, cuse)
                yield from clear_processing(g, counter.physical)
                yield from fire(g, "use_finished", cuse)
        finally:
            g.pop(cuse)
        if voided:
            continue  # void: the window goes on to the next player
        return not itself
    return False


def provide(g: "Game", card: AnyCard) -> None:
    """Answer the innermost response window with ``card`` (八卦阵, 护驾)."""
    for ev in reversed(g.stack):
        if isinstance(ev, RespondEvent):
            ev.provided = card
            return

