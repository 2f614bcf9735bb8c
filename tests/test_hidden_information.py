"""Hidden information: one truth, and each seat's view of it.

A bot decides from its seat's view alone: swapping a card it cannot see (another
player's hand card for one in the draw pile) never changes its decision. Requests to an
agent hide what the seat may not see; the event log records who saw each card, and a
seat's view of the log shows the others' hidden cards as counts.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from sgs_dsl.loader import load_content
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.resolution.game import Game, SeatSetup, TableSetup
from sgs_runtime.resolution.requests import CardsRequest
from sgs_runtime.state.model import Card
from sgs_runtime.state.seatview import ask_agent
from sgs_runtime.state.visibility import HiddenCard, log_view, mask_request, unmask_answer, visible


@pytest.fixture(scope="module")
def content():  # type: ignore[no-untyped-def]
    return load_content()


def _clone(a: HeuristicAgent) -> HeuristicAgent:
    b = HeuristicAgent()
    b.rng.setstate(a.rng.getstate())
    b.belief = copy.deepcopy(a.belief)
    return b


def _plain(answer: Any) -> Any:
    """An answer in comparable form: cards by id, place holders by their index, players by seat."""
    if isinstance(answer, HiddenCard):
        return ("hidden", answer.index)
    if isinstance(answer, Card):
        return answer.id
    if isinstance(answer, (list, tuple)):
        return [_plain(a) for a in answer]
    if hasattr(answer, "__dataclass_fields__"):
        return {k: _plain(getattr(answer, k)) for k in answer.__dataclass_fields__}
    if hasattr(answer, "seat") and hasattr(answer, "hero"):
        return answer.seat
    return answer


def _swap(g: Game, c: Card, d: Card) -> None:
    """Exchange a hand card and a draw pile card, with what is known of them."""
    hand, pile = c.zone, d.zone
    assert hand is not None and pile is not None
    i, j = hand.cards.index(c), pile.cards.index(d)
    hand.cards[i], pile.cards[j] = d, c
    c.zone, d.zone = pile, hand
    c.seen, d.seen = d.seen, c.seen
    g.bump()


@pytest.mark.parametrize("rules_id", ["identity_all", "maneuvering_all"])
def test_a_hidden_card_never_changes_a_bot_decision(content, rules_id: str) -> None:  # type: ignore[no-untyped-def]
    checked = 0
    for seed in range(4):
        g = Game(content, content.ruleset(rules_id), players=5, seed=seed, keep_log=False)
        agents = [HeuristicAgent(seed * 10 + i) for i in range(5)]
        req = g.start()
        steps = 0
        while req is not None and steps < 400:
            seat = req.player.seat
            hidden = [c for q in g.players if q.seat != seat and q.alive for c in q.hand.cards if not visible(c, seat)]
            pile = [d for d in g.draw_pile.cards if not visible(d, seat)]
            if hidden and pile and steps % 3 == 0:
                masked = mask_request(req, seat)
                first = _plain(_clone(agents[seat]).decide(masked, g.view_for(seat)))
                c, d = hidden[steps % len(hidden)], pile[steps % len(pile)]
                _swap(g, c, d)
                masked = mask_request(req, seat)
                second = _plain(_clone(agents[seat]).decide(masked, g.view_for(seat)))
                _swap(g, d, c)
                assert first == second, f"seed {seed}, step {steps}: {first} != {second}"
                checked += 1
            req = g.answer(ask_agent(g, agents[seat], req))
            steps += 1
    assert checked > 100


def _table(content, hand0, hand1, pile):  # type: ignore[no-untyped-def]
    kinds = content.cards
    cards = iter(range(100))

    def make(spec: tuple[str, str, int]) -> Card:
        return Card(next(cards), kinds[spec[0]], spec[1], spec[2])

    return TableSetup([SeatSetup("zhangfei", "lord", hand=[make(x) for x in hand0]),
                       SeatSetup("guanyu", "rebel", hand=[make(x) for x in hand1]),
                       SeatSetup("caocao", "loyalist")],
                      [make(x) for x in pile], [], [], 0, "draw")


def test_a_drawn_card_is_seen_by_its_owner_only(content) -> None:  # type: ignore[no-untyped-def]
    table = _table(content, [], [], [("slash", "spade", 7), ("jink", "heart", 2), ("peach", "heart", 3)])
    g = Game(content, content.ruleset(), table=table)
    g.stop_at_phase = "draw"
    g.start()
    drawn = g.players[0].hand.cards
    assert len(drawn) == 2
    assert all(visible(c, 0) for c in drawn)
    assert not any(visible(c, 1) or visible(c, 2) for c in drawn)
    record = next(r for r in g.log if r.get("event") == "move" and r.get("reason") == "draw")
    assert record["seen"] == [0]
    mine = next(r for r in log_view(g.log, 0) if r.get("event") == "move" and r.get("reason") == "draw")
    theirs = next(r for r in log_view(g.log, 1) if r.get("event") == "move" and r.get("reason") == "draw")
    spectator = next(r for r in log_view(g.log, -1) if r.get("event") == "move" and r.get("reason") == "draw")
    assert mine["cards"] == record["cards"]
    assert theirs["cards"] == 2 and spectator["cards"] == 2 and theirs["hidden"]
    assert not any("♠7" in str(r) for r in log_view(g.log, 1))


def test_a_request_hides_another_players_hand(content) -> None:  # type: ignore[no-untyped-def]
    table = _table(content, [("slash", "spade", 7)], [("jink", "heart", 2), ("peach", "heart", 3)], [])
    g = Game(content, content.ruleset(), table=table)
    g.stop_at_phase = "draw"
    g.start()
    them = g.players[1]
    hand = list(them.hand.cards)
    req = CardsRequest(g.players[0], "take a card", candidates=list(them.hand.cards), min=1, max=1)
    masked = mask_request(req, 0)
    assert all(isinstance(c, HiddenCard) for c in masked.candidates)
    assert all(c.kind is None and c.suit is None for c in masked.candidates)
    assert unmask_answer(masked, [masked.candidates[1]]) == [hand[1]]
    assert mask_request(req, 1) is req  # their own cards: nothing to hide


def test_a_private_look_shows_the_looker_only(content) -> None:  # type: ignore[no-untyped-def]
    from sgs_runtime.state.visibility import let_see

    table = _table(content, [], [("jink", "heart", 2)], [])
    g = Game(content, content.ruleset(), table=table)
    g.stop_at_phase = "draw"
    g.start()
    them = g.players
    card = them[1].hand.cards[0]
    assert not visible(card, 0)
    let_see(g, [card], them[0])
    assert visible(card, 0) and not visible(card, 2)
    assert g.view_for(0).cards_of(them[1])[0] is card
    assert isinstance(g.view_for(2).cards_of(them[1])[0], HiddenCard)


def test_a_face_down_claim_shows_only_the_claim(content) -> None:  # type: ignore[no-untyped-def]
    """A question about 蛊惑's claim, and a window against it, show the others the claimed kind only."""
    from sgs_runtime.resolution.requests import ConfirmRequest
    from sgs_runtime.state.events import DeclareEvent
    from sgs_runtime.state.model import VirtualCard

    table = _table(content, [("jink", "diamond", 2)], [], [])
    g = Game(content, content.ruleset(), table=table)
    g.stop_at_phase = "draw"
    g.start()
    yuji_card = g.players[0].hand.cards[0]
    claim = VirtualCard(content.cards["slash"], [yuji_card], "guhuo")
    claim.face_down = True
    req = ConfirmRequest(g.players[1], "question the claim?", skill="guhuo", event=DeclareEvent(g.players[0], claim, "use"))
    masked = mask_request(req, 1)
    assert masked.event.card.kind.id == "slash" and masked.event.card.physical == []
    assert req.event.card.physical == [yuji_card]  # the truth is untouched
    assert mask_request(req, 0) is req  # its user sees it
