"""The game from start to end: roles, heroes, the deal, and turns.

Set-up follows the rules file: roles from its role table, dealt at random;
hero selection as its ``selection`` says (the first role chooses from the
heroes with lord skills plus some random ones, every other player from a few
random heroes; the agents decide); the first role's bonus HP; the deck from
the rules' card packs, shuffled; the starting hand. A rule case gives the
table instead.

A turn: ``turn_start``, each phase of the rules file in order, ``turn_end``.
A phase: ``before_phase`` (cancel: skipped), ``phase_start``, its block,
``phase_end``; a skipped phase fires ``phase_skipped`` only.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, Optional

from sgs_runtime.errors import UsageError
from sgs_runtime.resolution.requests import OptionRequest
from sgs_runtime.resolution.triggers import fire, reset_scope
from sgs_runtime.state.chance import shuffle
from sgs_runtime.state.definitions import Hero, PhaseDef, Text
from sgs_runtime.state.events import GameEvent, PhaseEvent, TurnEvent
from sgs_runtime.state.frame import Frame, GameOver, StopEffect
from sgs_runtime.state.model import Card, HeroDraft, Player

if TYPE_CHECKING:  # pragma: no cover
    from sgs_runtime.resolution.game import Game, Gen, TableSetup


def build_deck(g: "Game") -> list[Card]:
    """The rules' deck, in the order of its packs (not shuffled); ids follow the game's cards."""
    first = max((c.id for c in g.cards), default=-1) + 1
    cards: list[Card] = []
    for pack in g.rules.card_packs:
        for dc in g.content.decks.get(pack, []):
            if dc.rank in g.rules.removed_ranks:
                continue
            cards.append(Card(first + len(cards), g.content.cards[dc.kind], dc.suit, dc.rank))
    return cards


def rest_of_deck(g: "Game") -> list[Card]:
    """The rules' deck without the cards already in the game (one copy of each: same card, suit and
    rank), shuffled: what a set table's draw pile holds below its named cards (rule cases' ``deck: rules``)."""
    placed = Counter((c.base.id, c.printed_suit, c.rank) for c in g.cards)
    rest = []
    for c in build_deck(g):
        key = (c.base.id, c.printed_suit, c.rank)
        if placed[key] > 0:
            placed[key] -= 1
            continue
        rest.append(c)
    shuffle(g.rng, rest)
    return rest


def hero_pool(g: "Game") -> list[str]:
    if g.hero_pool is not None:
        return list(g.hero_pool)
    out: list[str] = []
    seen: set[str] = set()
    for pack in g.rules.hero_packs:
        for hid in g.content.hero_packs.get(pack, []):
            if hid not in seen:
                seen.add(hid)
                out.append(hid)
    return out


def make_player(g: "Game", seat: int, hero: Hero, role: str) -> Player:
    p = Player(seat, hero, role)
    if g.rules.uniform_hp is not None:
        p.max_hp = p.hp = g.rules.uniform_hp
    rdef = g.rules.roles.get(role)
    if rdef is not None and rdef.revealed:
        p.role_revealed = True
    p.skills = skills_for(g, hero, role)
    return p


def skills_for(g: "Game", hero: Hero, role: str) -> list[Any]:
    rdef = g.rules.roles.get(role)
    lord_ok = rdef is not None and rdef.lord_skills
    out = []
    for sid in (*(hero.skills if g.rules.skills else ()), *g.rules.player_skills):
        sk = g.skill(sid)
        if sk is None or (sk.lord and not lord_ok):
            continue
        out.append(sk)
    return out


def _bonus(g: "Game", role: str) -> int:
    rdef = g.rules.roles.get(role)
    if rdef is None or rdef.bonus_hp is None:
        return 0
    return int(rdef.bonus_hp(Frame(g, {"players": list(g.players), "count": g.num_players})))


#: The one option the engine itself reads: it names an entry of ``role_table_variants``.
ROLE_TABLE_OPTION: Final = "role_table"


def role_table(g: "Game") -> list[str]:
    """The roles of the game's table (its option ``role_table`` or the rules' table), not yet dealt."""
    n = g.num_players
    chosen = g.option(ROLE_TABLE_OPTION)
    if chosen is not None and chosen not in g.rules.role_table_variants:
        raise UsageError(f"the rules '{g.rules.id}' have no role table '{chosen}'; "
                         f"tables: {', '.join(sorted(g.rules.role_table_variants)) or 'none'}")
    variant = g.rules.role_table_variants.get(str(chosen or ""), {})
    table = variant.get(n) or g.rules.role_tables.get(n)
    if table is None:
        raise UsageError(f"the rules '{g.rules.id}' have no role table for {n} players "
                         f"(they play {g.rules.players_min} to {g.rules.players_max})")
    return list(table)


def _roles(g: "Game") -> list[str]:
    roles = role_table(g)
    shuffle(g.rng, roles)
    return roles


def _stand_ins(g: "Game", roles: list[str], pool: list[str]) -> None:
    """Provisional players, so that the heroes' choice can name a seat: "seat0" ... until it is made."""
    template = g.content.heroes[pool[0]] if pool else next(iter(g.content.heroes.values()))
    g.players = [Player(i, _stand_in(template, i), role) for i, role in enumerate(roles)]


def _stand_in(template: Hero, seat: int) -> Hero:
    """The hero of seat ``seat``'s stand-in: ``template`` named after the seat, without skills (made once
    per template and seat; heroes are never changed once made)."""
    key = (id(template), seat)
    got = _STAND_INS.get(key)
    if got is not None and got[0] is template:
        return got[1]
    hero = replace(template, id=f"seat{seat}", name=Text(f"{seat}号位", f"seat {seat}"), skills=(), aliases=())
    if len(_STAND_INS) >= 4096:
        _STAND_INS.clear()
    _STAND_INS[key] = (template, hero)  # (the template kept: its id is not reused while the entry lives)
    return hero


#: (id of a template hero, seat) -> (the template, its stand-in for that seat)
_STAND_INS: Final[dict[tuple[int, int], tuple[Hero, Hero]]] = {}


def select_heroes(g: "Game", roles: list[str]) -> "Gen":
    """Hero selection; returns one hero id per seat. While it goes on, ``g.draft`` holds its state
    (:class:`~sgs_runtime.state.model.HeroDraft`): the pile, the picks, who was offered what."""
    if g.deal is not None:
        return (yield from dealt_heroes(g, roles))
    if g.table is not None and g.table.hero_pile is not None:
        pool = list(g.table.hero_pile)  # a rule case: the pile as it is after the shuffle
    else:
        pool = hero_pool(g)
        shuffle(g.rng, pool)
    sel = g.rules.selection
    n = len(roles)
    # the draft's pile is ``pool`` itself: a copy of the game deals its hidden heroes anew in place
    draft = g.draft = HeroDraft(pool, [None] * n)
    picks = draft.picks
    first_seats = [i for i, r in enumerate(roles) if r == sel.lord_role]
    _stand_ins(g, roles, pool)
    order = first_seats + [i for i in range(n) if i not in first_seats]
    for seat in order:
        if seat in first_seats:
            eligible_lords = [h for h in pool if g.content.heroes[h].can_be_lord]
            lords = [h for h in eligible_lords
                     if any((sk := g.skill(s)) is not None and sk.lord for s in g.content.heroes[h].skills)]
            others = [h for h in eligible_lords if h not in lords][: sel.lord_random]
            offer = lords + others
        else:
            k = sel.choices_by_players.get(n, sel.choices)
            remaining_seats = sum(1 for s in order[order.index(seat):] if picks[s] is None)
            k = max(1, min(k, len(pool) // max(1, remaining_seats)))
            offer = pool[:k]
        if not offer:
            raise UsageError("there are not enough heroes for this many players")
        draft.offered[seat] = list(offer)
        idx = yield from g.ask(OptionRequest(g.players[seat], "choose your hero", options=offer,
                                                 purpose="hero"))
        hid = offer[idx]
        picks[seat] = hid
        pool.remove(hid)
        if seat in first_seats:  # the lord shows his hero before the others choose theirs (face down)
            g.players[seat] = Player(seat, g.content.heroes[hid], roles[seat])
            draft.shown.add(seat)
        for h in offer:  # heroes offered and not taken go back (lord's) or aside (others')
            if h != hid and h in pool and seat not in first_seats:
                pool.remove(h)
                g.unused_heroes.append(h)
    g.unused_heroes.extend(pool)
    g.draft = None
    return [p for p in picks if p is not None]


def dealt_heroes(g: "Game", roles: list[str]) -> "Gen":
    """Hero selection from a designed deal (``g.deal``): each seat is offered the one hero its role's
    list gives it, in seat order. The random generator is not used, so that games with the same seed
    and the same roles go on alike whatever heroes are dealt (paired comparisons)."""
    assert g.deal is not None
    left = {role: list(heroes) for role, heroes in g.deal.items()}
    picks: list[str] = []
    for seat, role in enumerate(roles):
        if not left.get(role):
            raise UsageError(f"the deal gives no hero for the {role} of seat {seat}")
        picks.append(left[role].pop(0))
    _stand_ins(g, roles, picks)
    for seat, hid in enumerate(picks):
        yield from g.ask(OptionRequest(g.players[seat], "choose your hero", options=[hid]))
    g.unused_heroes.extend(h for h in hero_pool(g) if h not in picks)
    return picks


def setup_random(g: "Game") -> "Gen":
    """Roles dealt, heroes chosen, the deck shuffled and the start hands drawn; a rule case that deals
    from its hero pile fixes the roles (its seats'), the hero pile and the draw pile."""
    table = g.table
    roles = [s.role for s in table.seats] if table is not None else _roles(g)
    heroes = yield from select_heroes(g, roles)
    g.players = [make_player(g, i, g.content.heroes[h], roles[i]) for i, h in enumerate(heroes)]
    g.bump()
    for p in g.players:
        bonus = _bonus(g, p.role)
        p.max_hp += bonus
        p.hp = p.max_hp
    if table is not None:
        lay_piles(g, table)
    else:
        deck = build_deck(g)
        g.cards.extend(deck)
        shuffle(g.rng, deck)
        for c in deck:
            g.draw_pile.add(c)
    g.emit("setup", seed=g.seed, rules=g.rules.id,
           players=[{"seat": p.seat, "hero": p.name, "role": p.role if p.role_revealed else "?",
                     "hp": p.hp} for p in g.players])
    first = next((p for p in g.players if g.rules.roles.get(p.role) and g.rules.roles[p.role].first), g.players[0])
    g.current = first
    from sgs_runtime.resolution.moves import draw

    for p in g.alive_from(first):
        yield from draw(g, p, g.rules.start_hand)


def lay_piles(g: "Game", table: "TableSetup") -> None:
    """A set table's draw pile (from the top; the rest of the rules' deck below it with
    ``deck_from_rules``) and discard pile."""
    for c in table.draw_pile:
        g.draw_pile.add(c)
        g.cards.append(c)
    for c in table.discard_pile:
        g.discard_pile.add(c)
        g.cards.append(c)
    if table.deck_from_rules:
        for c in rest_of_deck(g):
            g.draw_pile.add(c)
            g.cards.append(c)


def setup_table(g: "Game") -> None:
    table = g.table
    assert table is not None
    g.players = []
    for i, seat in enumerate(table.seats):
        assert seat.hero is not None  # a table dealt from a hero pile is set up by setup_random
        hero = g.content.heroes[seat.hero]
        p = make_player(g, i, hero, seat.role)
        p.alive = seat.alive
        if not seat.alive:
            p.role_revealed = True
        for zone, cards in ((p.hand, seat.hand), (p.equip, seat.equip), (p.judge, seat.judge)):
            for c in cards:
                zone.add(c)
                g.cards.append(c)
        for name, cards in seat.piles.items():
            from sgs_runtime.state.model import Zone

            z = p.piles.setdefault(name, Zone(name, p))
            for c in cards:
                z.add(c)
                g.cards.append(c)
        p.marks.update(seat.marks)
        p.chained = seat.chained
        g.players.append(p)
    for p, seat in zip(g.players, table.seats):  # the lord's bonus depends on the whole table
        p.max_hp = seat.max_hp if seat.max_hp is not None else p.max_hp + _bonus(g, seat.role)
        p.hp = seat.hp if seat.hp is not None else p.max_hp
    lay_piles(g, table)
    g.unused_heroes = list(table.unused_heroes)
    g.current = g.players[table.current]


def run_game(g: "Game") -> "Gen":
    """The whole game as a generator of requests."""
    from sgs_runtime.resolution.game import GameResult

    g.bump()
    try:
        start_phase: Optional[str] = None
        if g.table is not None and g.table.hero_pile is None:
            setup_table(g)
            g.bump()  # the seats' equipment and skills are in place now
            start_phase = g.table.phase
            g.emit("setup", rules=g.rules.id, players=[p.describe() for p in g.players])
        else:
            yield from setup_random(g)
            ev = GameEvent(None)
            g.push(ev)
            yield from fire(g, "game_start", ev)
            g.pop(ev)
        if g.content.has_filters:  # cards ask the game's card view how they are seen (filter skills)
            for c in g.cards:
                c.view = g.card_view
        player = g.current
        assert player is not None
        played = 0
        round_from = player  # a round (轮) begins again when the turn comes back round to this seat
        last_seat: Optional[int] = None
        while True:
            if player.alive:
                key = (player.seat - round_from.seat) % len(g.players)
                if last_seat is not None and key <= last_seat:
                    g.round_number += 1
                    reset_scope(g, "round")
                last_seat = key
                yield from run_turn(g, player, start_phase)
                start_phase = None
                played += 1
            if g.stop_requested or (g.stop_turns is not None and played >= g.stop_turns):
                g.result = GameResult([], [], "stopped", g.turn_number, g.steps)
                return
            if g.turn_number >= g.limits.turns:
                from sgs_runtime.errors import LimitExceeded

                raise LimitExceeded("turn", g.limits.turns)
            nxt = g.next_alive(player) if player.alive else _next_seat_alive(g, player)
            if nxt is None:
                raise GameOver([], "nobody is left alive")
            player = nxt
    except GameOver as over:
        winners = [w for w in over.winners if isinstance(w, Player)]
        g.result = GameResult([w.name for w in winners], sorted({w.role for w in winners}), over.reason,
                              g.turn_number, g.steps)
        g.emit("game_over", winners=winners, roles=g.result.winner_roles, reason=over.reason)


def _next_seat_alive(g: "Game", player: Player) -> Optional[Player]:
    n = len(g.players)
    for i in range(1, n + 1):
        p = g.players[(player.seat + i) % n]
        if p.alive:
            return p
    return None


def run_turn(g: "Game", player: Player, start_phase: Optional[str] = None) -> "Gen":
    g.current = player
    g.turn_number += 1
    g.end_turn = False
    g.history.clear()
    ev = TurnEvent(player, g.turn_number)
    g.push(ev)
    try:
        g.emit("turn", player=player, number=g.turn_number)
        phases = g.rules.phases
        begin = 0
        if start_phase is not None:
            begin = next((i for i, ph in enumerate(phases) if ph.id == start_phase), 0)
        else:
            if player.face_down:
                player.face_down = False
                g.emit("turn_skipped", player=player, reason="face down")
                return
            yield from fire(g, "turn_start", ev)
        for ph in phases[begin:]:
            if not player.alive or g.end_turn:
                break
            yield from run_phase(g, player, ph)
            if g.stop_at_phase is not None and ph.id == g.stop_at_phase:
                g.stop_requested = True
                return
        if player.alive:
            yield from fire(g, "turn_end", ev)
    finally:
        g.pop(ev)
        g.phase = None
        player.skipped.clear()
        reset_scope(g, "turn")


def run_phase(g: "Game", player: Player, ph: PhaseDef) -> "Gen":
    ev = PhaseEvent(player, ph.id)
    g.push(ev)
    try:
        skipped = ph.id in player.skipped
        if not skipped:
            yield from fire(g, "before_phase", ev)
            skipped = ev.cancelled
        if skipped:
            player.skipped.discard(ph.id)
            g.emit("phase_skipped", player=player, phase=ph.id)
            yield from fire(g, "phase_skipped", ev)
            return
        g.phase = ph.id
        g.phase_active = True
        g.emit("phase", player=player, phase=ph.id)
        yield from fire(g, "phase_start", ev)
        if ph.body is not None and player.alive and not g.end_turn:
            try:
                yield from ph.body(Frame(g, {"me": player, "event": ev}))
            except StopEffect:
                pass
        if player.alive and not g.end_turn:
            yield from fire(g, "phase_end", ev)
    finally:
        g.phase_active = False
        g.pop(ev)
        reset_scope(g, "phase")
