"""Judgement (判定) and the resolution of delayed tricks.

1. The top card of the draw pile is turned up as the judge card.
2. ``judge_retrial``: retrial skills, in seat order from the current player,
   may each replace it (鬼才); the last replacement stands.
3. The result is fixed (suit, colour, rank) and the effect that asked for the
   judgement reads it.
4. ``judge_done``: 天妒 may take the final card; otherwise it goes to the
   discard pile.

A delayed trick in a judge area is resolved in the judge phase: it moves to
the processing area, a counter window opens (无懈可击), then its ``delayed``
effect runs with ``me`` and ``target`` bound to the judged player — or, when
countered, its ``countered`` block (闪电 moves on), else it is discarded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sgs_runtime.resolution.moves import clear_processing, move, top_cards
from sgs_runtime.resolution.triggers import fire
from sgs_runtime.state.events import JudgeEvent
from sgs_runtime.state.frame import Frame, StopEffect
from sgs_runtime.state.model import AnyCard, Card, Player, VirtualCard

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game, Gen


def _fix(ev: JudgeEvent) -> None:
    card = ev.card
    assert card is not None
    ev.suit, ev.color, ev.rank = card.suit, card.color, card.rank
    view = card.view
    if view is not None and view.game is not None:
        view.game.count_filters(card)


def judge(g: "Game", player: Player, reason: str = "") -> "Gen":
    ev = JudgeEvent(player, reason)
    g.push(ev)
    try:
        card = top_cards(g, 1)[0]
        yield from move(g, [card], g.processing, reason="judge", by=player)
        ev.card = card
        _fix(ev)
        g.emit("judge", player=player, card=card, reason=reason)
        yield from fire(g, "judge_retrial", ev)
        _fix(ev)
        g.emit("judge_result", player=player, card=ev.card, suit=ev.suit, rank=ev.rank)
        yield from fire(g, "judge_done", ev)
        yield from clear_processing(g, [ev.card] if ev.card is not None else [])
    finally:
        g.pop(ev)
    return ev


def retrial(g: "Game", by: Player, card: Card) -> "Gen":
    """Replace the innermost judge card with ``card``; the old one is discarded."""
    ev = next((e for e in reversed(g.stack) if isinstance(e, JudgeEvent)), None)
    if ev is None or ev.card is None:
        return
    old = ev.card
    yield from move(g, [card], g.processing, reason="retrial", by=by)
    card.holder, card.origin = ev.player, "judgement"  # it is the judged player's judge card now (红颜)
    ev.card = card
    _fix(ev)
    g.emit("retrial", player=by, card=card, replaced=old, judged=ev.player)
    yield from move(g, [old], g.discard_pile, reason="replaced judge card", by=by)


def resolve_delayed(g: "Game", owner: Player, card: Card) -> "Gen":
    """Resolve one delayed trick from ``owner``'s judge area."""
    from sgs_runtime.resolution.respond import counter_window

    kind = card.kind
    spec = kind.delayed
    if spec is None:
        return
    face: AnyCard = card if card.base is kind else VirtualCard(kind, [card])
    yield from move(g, [card], g.processing, reason="resolve", by=owner)
    g.emit("resolve", player=owner, card=face)
    frame = Frame(g, {"me": owner, "target": owner, "card": face})
    first = spec.counter_first is None or bool(spec.counter_first(Frame(g, {"me": owner, "card": face})))
    countered = (yield from counter_window(g, face, owner, None)) if first else False
    try:
        if countered:
            g.emit("countered", card=face, target=owner)
            if spec.countered is not None:
                yield from spec.countered(frame)
        else:
            yield from spec.effect(frame)
    except StopEffect:
        pass
    yield from clear_processing(g, [card])
