"""Count oracles: how many legal actions the play phase offers on fixed tables.

Like a chess engine's perft, a count that is easy to work out by hand on a small
table pins down targeting, distance, range, prohibitions and view-as skills at once.
"""

from __future__ import annotations

from typing import Optional

import pytest

from sgs_dsl.loader import load_content
from sgs_runtime.resolution.game import Game, SeatSetup, TableSetup
from sgs_runtime.resolution.legal import play_actions
from sgs_runtime.resolution.requests import PlayRequest
from sgs_runtime.state.model import SIGN_SUIT, TEXT_RANK, Card

CONTENT = load_content()
_next = [5000]


def card(text: str) -> Card:
    name, cell = text.split()
    _next[0] += 1
    rank = TEXT_RANK.get(cell[1:]) or int(cell[1:])
    return Card(_next[0], CONTENT.cards[name], SIGN_SUIT[cell[0]], rank)


def seat(hero: str, role: str, hand: Optional[list[str]] = None, equip: Optional[list[str]] = None) -> SeatSetup:
    return SeatSetup(hero=hero, role=role, hand=[card(c) for c in hand or []], equip=[card(c) for c in equip or []])


def first_play_request(seats: list[SeatSetup]) -> PlayRequest:
    table = TableSetup(seats=seats, draw_pile=[card("jink D9"), card("jink D10")], current=0, phase="play")
    game = Game(CONTENT, CONTENT.ruleset("identity"), table=table)
    req = game.start()
    assert isinstance(req, PlayRequest)
    return req


def labels(req: PlayRequest) -> list[str]:
    out = []
    for a in play_actions(req):
        what = a.card.label() if a.card else f"{a.skill}[{','.join(c.label() for c in a.cards)}]"
        out.append(f"{what}->{','.join(t.name for t in a.targets)}")
    return sorted(out)


def test_guanyu_position() -> None:
    # seats: guanyu (0) zhangfei (1) luxun (2) xuchu (3): distances 1, 2, 1; attack range 1
    req = first_play_request([
        seat("guanyu", "lord", hand=["slash S7", "jink D2", "peach H3", "dismantlement S3", "snatch S4"]),
        seat("zhangfei", "rebel", hand=["jink D3"]),
        seat("luxun", "loyalist", hand=["jink D4"]),
        seat("xuchu", "traitor"),
    ])
    got = labels(req)
    # Slash: the two players at distance 1; 武圣 turns each red card (♦2, ♥3) into one: 2 more each;
    # Dismantlement: the two players with cards; Snatch: at distance 1 with cards, not 陆逊 (谦逊).
    # Peach: not wounded; Dodge: not usable.
    assert got == sorted([
        "slash ♠7->zhangfei", "slash ♠7->xuchu",
        "wusheng[jink ♦2]->zhangfei", "wusheng[jink ♦2]->xuchu",
        "wusheng[peach ♥3]->zhangfei", "wusheng[peach ♥3]->xuchu",
        "dismantlement ♠3->zhangfei", "dismantlement ♠3->luxun",
        "snatch ♠4->zhangfei",
    ])


def test_lijian_ordered_pairs_spare_kongcheng() -> None:
    # 离间: two males in order, the second duels the first; 空城 (no hand) cannot be the Duel's target
    req = first_play_request([
        seat("diaochan", "lord", hand=["jink D2"]),
        seat("guanyu", "rebel", hand=["jink D3"]),
        seat("zhugeliang", "rebel"),
        seat("xuchu", "loyalist", hand=["jink D4"]),
        seat("daqiao", "traitor", hand=["jink D5"]),
    ])
    got = labels(req)
    assert got == sorted([
        "lijian[jink ♦2]->guanyu,zhugeliang", "lijian[jink ♦2]->guanyu,xuchu",
        "lijian[jink ♦2]->xuchu,guanyu", "lijian[jink ♦2]->xuchu,zhugeliang",
    ])


def test_halberd_last_card_targets() -> None:
    # 方天画戟 (range 4): a Slash that is the last hand card may take up to 3 targets among 3 in range:
    # 3 single + 3 pairs + 1 triple = 7; with a second hand card only the 3 single targets
    seats = [seat("zhangfei", "lord", hand=["slash S7"], equip=["halberd DQ"]),
             seat("guanyu", "rebel"), seat("luxun", "loyalist"), seat("xuchu", "traitor")]
    assert len(play_actions(first_play_request(seats))) == 7
    seats = [seat("zhangfei", "lord", hand=["slash S7", "jink D2"], equip=["halberd DQ"]),
             seat("guanyu", "rebel"), seat("luxun", "loyalist"), seat("xuchu", "traitor")]
    assert len(play_actions(first_play_request(seats))) == 3


@pytest.mark.parametrize("horse, expected", [(None, 1), ("chitu H5", 2)])
def test_snatch_reach_with_a_minus_horse(horse: Optional[str], expected: int) -> None:
    # five seats: the players at seats 2 and 3 are at distance 2; a −1 horse brings them within reach
    seats = [seat("zhangfei", "lord", hand=["snatch S4"], equip=[horse] if horse else []),
             seat("guanyu", "rebel", hand=["jink D3"]), seat("luxun", "loyalist"),
             seat("xuchu", "traitor", hand=["jink D4"]), seat("daqiao", "rebel")]
    assert len(play_actions(first_play_request(seats))) == expected


def test_collateral_counts_victims() -> None:
    # 借刀杀人: the holder of a weapon, and each legal victim in the holder's attack range
    seats = [seat("zhangfei", "lord", hand=["collateral CQ"]),
             seat("guanyu", "rebel", equip=["blade S5"]),   # range 3: every other player
             seat("luxun", "loyalist"), seat("xuchu", "traitor")]
    got = play_actions(first_play_request(seats))
    assert sorted((a.targets[0].name, a.secondary[0].name) for a in got) == [
        ("guanyu", "luxun"), ("guanyu", "xuchu"), ("guanyu", "zhangfei")]
