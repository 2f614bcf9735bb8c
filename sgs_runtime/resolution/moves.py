"""Card moves: the only way a card changes zone.

Every move is logged and fires ``cards_lost`` for each player whose hand,
equipment or judge area lost cards (连营 and 枭姬 fire there, at once) and
``cards_gained`` for a player whose hand or equipment received them. Drawing
takes cards from the top of the draw pile; when it runs out, the discard pile
is shuffled into a new draw pile; when both are empty the game ends in a draw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Iterable, Optional, Sequence

from sgs_runtime.resolution.triggers import fire
from sgs_runtime.state.chance import shuffle
from sgs_runtime.state.events import DrawEvent, MoveEvent
from sgs_runtime.state.frame import GameOver
from sgs_runtime.state.model import AnyCard, Card, Player, Zone
from sgs_runtime.state.skillset import list_at
from sgs_runtime.state.visibility import forget, on_move, seen_by

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game, Gen
    from sgs_runtime.state.definitions import Trigger

OWNED: Final = ("hand", "equip", "judge")


def physical(cards: Iterable[AnyCard] | AnyCard | None) -> list[Card]:
    """Flatten cards, virtual cards and lists of them into physical cards."""
    if cards is None:
        return []
    if isinstance(cards, (list, tuple)):
        out: list[Card] = []
        for c in cards:
            out.extend(physical(c))
        return out
    if isinstance(cards, Card):
        return [cards]
    return list(getattr(cards, "physical", []))


def move(g: "Game", cards: Sequence[Card], to: Zone, *, reason: str, by: Optional[Player] = None,
         top: bool = False, visible: Optional[bool] = None) -> "Gen":
    """Move physical cards to ``to`` and fire the lose/gain timings.

    ``visible``: ``True`` shows the cards to everyone as they move, ``False`` moves them
    face down (a private look, a claim); ``None`` lets :mod:`visibility` decide."""
    cards = [c for c in cards if c.zone is not to]
    if not cards:
        return
    losses: dict[tuple[int, str], list[Card]] = {}
    owners: dict[int, Player] = {}
    into_processing = to is g.processing
    for c in cards:
        z = c.zone
        assert z is not None
        if z.owner is not None and z.name in OWNED:
            list_at(losses, (z.owner.seat, z.name)).append(c)
            owners[z.owner.seat] = z.owner
        z.remove(c)
        on_move(c, z, to, by, visible)
        if into_processing:  # whose card it is while it resolves, and where it came from (filters)
            c.holder = z.owner if z.owner is not None else by
            c.origin = z.name if z.owner is not None else ("judgement" if reason == "judge" else "")
    ordered = list(reversed(cards)) if top else cards
    for c in ordered:
        to.add(c, top=top)
    if by is not None:
        _public_moves(g, cards, losses, to, by)
    if to.name == "equip" or any(zname == "equip" for _, zname in losses):
        # only the players whose equipment changed have other skills now
        changed = [seat for seat, zname in losses if zname == "equip"]
        if to.name == "equip" and to.owner is not None and to.owner.seat not in changed:
            changed.append(to.owner.seat)
        g.bump(changed)
    if g.keep_log or g.log_sink is not None:
        seen = seen_by(g, cards[0]) if len(cards) == 1 else _common_seen(g, cards)
        g.emit("move", cards=[c.label() for c in cards], to=to.name, to_player=to.owner, reason=reason, by=by,
               **({"seen": seen} if seen is not None else {}))
    else:
        g.emit("move")
    if losses:
        waits = g.waits("cards_lost")
        groups = list(losses.items())
        if len(groups) > 1:  # in seat order from the current player, then by zone
            key = g.order_key(g.current)
            groups.sort(key=lambda kv: (key(owners[kv[0][0]]), kv[0][1]))
        for (seat, zname), lost in groups:
            if not waits and zname != "equip":
                g.pass_point()
                continue
            ev = MoveEvent(owners[seat], lost, zname, to.name, to.owner, reason)
            g.push(ev)
            # equipment sees its own leaving: the skills of what left still fire here (白银狮子)
            leaving = leaving_triggers(g, owners[seat], lost) if zname == "equip" else None
            yield from fire(g, "cards_lost", ev, leaving)
            g.pop(ev)
    if to.owner is not None and to.name in ("hand", "equip"):
        if not g.waits("cards_gained"):
            g.pass_point()
            return
        ev = MoveEvent(None, cards, "", to.name, to.owner, reason)
        ev.player = None
        g.push(ev)
        yield from fire(g, "cards_gained", ev)
        g.pop(ev)


def _public_moves(g: "Game", cards: Sequence[Card], losses: dict[tuple[int, str], list[Card]], to: Zone,
                  by: Player) -> None:
    """What everyone saw ``by`` do to another player with cards (:attr:`Game.public`): take or discard
    their hand or equipment (``take``), lift a card from their judge area (``relieve``), or hand over
    one's own cards (``give``)."""
    for (seat, zname), lost in losses.items():
        if seat != by.seat:
            g.public.append(("relieve" if zname == "judge" else "take", by.seat, seat, lost[0].kind.id, len(lost)))
    if to.owner is not None and to.owner is not by and to.name in ("hand", "equip") \
            and any(seat == by.seat for seat, _ in losses):
        g.public.append(("give", by.seat, to.owner.seat, cards[0].kind.id, len(cards)))


def leaving_triggers(g: "Game", owner: Player, lost: Sequence[Card]) -> Optional[dict[int, list["Trigger"]]]:
    """The ``cards_lost`` triggers of the skills that equipment leaving ``owner`` granted."""
    out: list["Trigger"] = []
    have = {id(tr) for tr in g.triggers_at(owner, "cards_lost")}
    for c in lost:
        eq = c.base.equip
        if eq is None:
            continue
        for sid in eq.skills:
            sk = g.skill(sid)
            if sk is not None:
                out.extend(tr for tr in sk.triggers if tr.timing == "cards_lost" and id(tr) not in have)
    return {owner.seat: out} if out else None


def _common_seen(g: "Game", cards: Sequence[Card]) -> Optional[list[int]]:
    """The seats that see every one of ``cards`` (``None``: everyone)."""
    got: Optional[set[int]] = None
    for c in cards:
        s = seen_by(g, c)
        if s is not None:
            got = set(s) if got is None else got & set(s)
    return sorted(got) if got is not None else None


def reshuffle(g: "Game") -> None:
    cards = list(g.discard_pile.cards)
    for c in cards:
        g.discard_pile.remove(c)
    forget(cards)
    shuffle(g.rng, cards)
    for c in cards:
        g.draw_pile.add(c)
    g.emit("reshuffle", count=len(cards))


def top_cards(g: "Game", n: int) -> list[Card]:
    """The top ``n`` cards of the draw pile, reshuffling when it runs out."""
    if n <= 0:
        return []
    if len(g.draw_pile) < n:
        reshuffle(g)
        if len(g.draw_pile) == 0:
            raise GameOver([], "draw: the draw pile and the discard pile are both empty")
    return list(g.draw_pile.cards[:n])


def draw(g: "Game", player: Player, n: int, phase: Optional[str] = None) -> "Gen":
    """``player`` draws ``n`` cards (``phase``: this is that phase's own draw)."""
    ev = DrawEvent(player, n, phase)
    g.push(ev)
    yield from fire(g, "before_draw", ev)
    if not ev.cancelled and ev.count > 0 and player.alive:
        cards = top_cards(g, ev.count)
        ev.cards = cards
        g.emit("draw", player=player, count=len(cards))
        yield from move(g, cards, player.hand, reason="draw", by=player, visible=False)
        yield from fire(g, "after_draw", ev)
    g.pop(ev)


def discard(g: "Game", cards: Sequence[Card], by: Optional[Player], reason: str = "discard") -> "Gen":
    yield from move(g, list(cards), g.discard_pile, reason=reason, by=by)


def clear_processing(g: "Game", cards: Iterable[Card]) -> "Gen":
    """Send whichever of ``cards`` are still being processed to the discard pile."""
    left = [c for c in cards if c.zone is g.processing]
    if left:
        yield from move(g, left, g.discard_pile, reason="resolved")


def equip(g: "Game", player: Player, card: Card) -> "Gen":
    """Put an equipment card into ``player``'s equipment area, replacing its slot."""
    eq = card.kind.equip
    assert eq is not None
    old = player.slot(eq.slot)
    if old is not None and old is not card:
        yield from move(g, [old], g.discard_pile, reason="replaced", by=player)
    yield from move(g, [card], player.equip, reason="equip", by=player)
