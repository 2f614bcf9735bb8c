"""The runtime with the built-in content: distances, driving a game, reproducibility, refusals and limits."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

from sgs_dsl.loader import load_content
from sgs_runtime.agents import RandomAgent
from sgs_runtime.errors import GameError, IllegalDecision, LimitExceeded
from sgs_runtime.resolution.game import Game, Limits, SeatSetup, TableSetup
from sgs_runtime.resolution.quantities import quantity
from sgs_runtime.resolution.requests import OptionRequest, PlayAction, PlayRequest, RespondRequest, Response
from sgs_runtime.runs import invariants
from sgs_runtime.state.model import Card, Player

FIVE = ["caocao", "simayi", "xiahoudun", "guojia", "zhangfei"]
ROLES5 = ["lord", "loyalist", "traitor", "rebel", "rebel"]


class Deck:
    """Physical cards with unique ids, for tables set by hand."""

    def __init__(self, content: Any) -> None:
        self.content = content
        self.ids: Iterator[int] = itertools.count()

    def __call__(self, kind: str, suit: str = "spade", rank: int = 7) -> Card:
        return Card(next(self.ids), self.content.cards[kind], suit, rank)

    def pile(self, n: int) -> list[Card]:
        return [self("jink", "diamond", 2 + i % 9) for i in range(n)]


def table_game(content: Any, rules: Any, equip: Optional[dict[int, list[str]]] = None,
               dead: tuple[int, ...] = (), hands: Optional[dict[int, list[tuple[str, str, int]]]] = None,
               heroes: list[str] = FIVE, roles: list[str] = ROLES5, phase: str = "play",
               limits: Optional[Limits] = None) -> tuple[Game, Deck]:
    deck = Deck(content)
    seats = []
    for i, (hero, role) in enumerate(zip(heroes, roles)):
        seats.append(SeatSetup(hero, role,
                               equip=[deck(k, "heart", 5) for k in (equip or {}).get(i, [])],
                               hand=[deck(k, s, r) for k, s, r in (hands or {}).get(i, [])],
                               alive=i not in dead))
    table = TableSetup(seats, deck.pile(20), phase=phase)
    return Game(content, rules, table=table, seed=1, limits=limits), deck


def distance(g: Game, a: int, b: int) -> int:
    return quantity(g, "distance", [g.players[a], g.players[b]])  # type: ignore[no-any-return]


def in_range(g: Game, a: int, b: int) -> bool:
    return bool(quantity(g, "in_attack_range", [g.players[a], g.players[b]]))


def play_to_end(g: Game, agents: list[RandomAgent]) -> int:
    """Drive the game request by request; return how many answers were given."""
    req = g.start()
    n = 0
    while req is not None:
        req = g.answer(agents[req.player.seat].decide(req, g))
        n += 1
    return n


def agents_for(seed: int, n: int) -> list[RandomAgent]:
    return [RandomAgent(seed * 31 + i) for i in range(n)]


# ------------------------------------------------------------------ distance and attack range


def test_seat_distance_without_horses(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity)
    g.start()
    assert [distance(g, 0, b) for b in range(1, 5)] == [1, 2, 2, 1]
    assert [distance(g, 2, b) for b in (0, 1, 3, 4)] == [2, 1, 1, 2]
    for a in range(5):
        for b in range(5):
            if a != b:
                assert distance(g, a, b) == distance(g, b, a)


def test_defensive_horse_adds_one_for_others(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity, equip={2: ["jueying"]})
    g.start()
    assert distance(g, 0, 2) == 3
    assert distance(g, 1, 2) == 2
    assert distance(g, 3, 2) == 2
    # the owner's own distances do not change
    assert distance(g, 2, 0) == 2
    assert distance(g, 2, 1) == 1


def test_offensive_horse_subtracts_one_for_the_owner(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity, equip={0: ["chitu"]})
    g.start()
    assert distance(g, 0, 2) == 1
    assert distance(g, 0, 3) == 1
    assert distance(g, 0, 1) == 1  # never below 1
    # others' distances to the owner do not change
    assert distance(g, 2, 0) == 2
    assert distance(g, 1, 0) == 1


def test_horses_cancel_out(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity, equip={0: ["chitu"], 2: ["jueying"]})
    g.start()
    assert distance(g, 0, 2) == 2
    assert distance(g, 4, 2) == 3


def test_dead_seats_do_not_count(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity, dead=(1,))
    g.start()
    assert distance(g, 0, 2) == 1
    assert distance(g, 0, 3) == 2
    assert distance(g, 2, 4) == 2


def test_attack_range_without_weapon(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity)
    g.start()
    assert [quantity(g, "attack_range", [p]) for p in g.players] == [1] * 5
    assert in_range(g, 0, 1) and in_range(g, 0, 4)
    assert not in_range(g, 0, 2) and not in_range(g, 0, 3)
    assert not in_range(g, 0, 0)  # never oneself


def test_crossbow_range_is_one(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity, equip={0: ["crossbow"]})
    g.start()
    assert quantity(g, "attack_range", [g.players[0]]) == 1
    assert not in_range(g, 0, 2)


def test_horses_change_attack_range_reach(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity, equip={0: ["chitu"], 1: ["jueying"]})
    g.start()
    assert in_range(g, 0, 2) and in_range(g, 0, 3)
    assert in_range(g, 0, 1)  # 1 + 1 - 1
    assert distance(g, 2, 1) == 2
    assert not in_range(g, 2, 1)


WEAPON_PACK = """\
pack: long_weapons
name: {zh: 长兵, en: Long Weapons}
cards:
  - id: long_bow
    name: {zh: 长弓, en: Long Bow}
    type: equip
    equip: {slot: weapon, range: 3}
deck:
  - long_bow S5
"""


def test_weapon_range_sets_attack_range(tmp_path: Path) -> None:
    pack = tmp_path / "weapons.yaml"
    pack.write_text(WEAPON_PACK, encoding="utf-8")
    content = load_content(None, [pack])
    rules = content.ruleset("identity")
    g, _ = table_game(content, rules, equip={0: ["long_bow"]})
    g.start()
    assert quantity(g, "attack_range", [g.players[0]]) == 3
    assert all(in_range(g, 0, b) for b in range(1, 5))
    assert not in_range(g, 1, 3)


def test_slash_targets_follow_attack_range(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity, hands={0: [("slash", "spade", 7)]})
    req = g.start()
    assert isinstance(req, PlayRequest) and req.player.seat == 0
    slash = g.players[0].hand.cards[0]
    opt = next(o for o in req.options if o.card is slash)
    assert req.target_choices is not None
    cands, lo, hi = req.target_choices(opt, [], [])
    assert sorted(p.seat for p in cands) == [1, 4]
    assert (lo, hi) == (1, 1)


def test_unknown_quantity_is_a_game_error(content: Any, identity: Any) -> None:
    g, _ = table_game(content, identity)
    g.start()
    with pytest.raises(GameError, match="no_such_quantity"):
        quantity(g, "no_such_quantity", [])


# ------------------------------------------------------------------ driving a game


@pytest.mark.parametrize("players, seed", [(5, 3), (2, 11), (8, 5)])
def test_random_game_reaches_a_result(content: Any, identity: Any, players: int, seed: int) -> None:
    g = Game(content, identity, players=players, seed=seed)
    answers = play_to_end(g, agents_for(seed, players))
    assert g.over and g.result is not None
    assert g.pending is None
    assert answers == len(g.decisions) > 0
    assert g.result.limit is None
    assert g.result.reason
    assert g.result.turns >= 1 and g.result.steps == g.steps
    winners = [p for p in g.players if p.name in g.result.winners]
    assert {p.role for p in winners} == set(g.result.winner_roles)
    assert g.log[-1]["event"] == "game_over"
    assert invariants.check(g) == []


def test_game_play_helper(content: Any, identity: Any) -> None:
    g = Game(content, identity, players=4, seed=21)
    result = g.play(agents_for(21, 4))
    assert result is g.result and result.reason


def test_first_request_is_the_lords_hero_choice(content: Any, identity: Any) -> None:
    g = Game(content, identity, players=5, seed=9)
    req = g.start()
    assert isinstance(req, OptionRequest)
    assert req.player.role == "lord"
    assert len(req.options) >= 2
    assert g.pending is req


def test_answer_without_a_pending_request(content: Any, identity: Any) -> None:
    g = Game(content, identity, players=2, seed=4)
    play_to_end(g, agents_for(4, 2))
    with pytest.raises(GameError):
        g.answer(None)


def test_game_is_reproducible_from_its_seed(content: Any, identity: Any) -> None:
    def run(seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], Any]:
        g = Game(content, identity, players=5, seed=seed)
        play_to_end(g, agents_for(seed, 5))
        return g.log, g.decisions, g.result.as_dict()  # type: ignore[union-attr]

    first = run(42)
    assert run(42) == first
    assert len(first[0]) > 10
    assert run(43)[0] != first[0]


def test_replaying_the_decision_log(content: Any, identity: Any) -> None:
    """The same seed and the same answers give the same game, whoever answers."""
    g = Game(content, identity, players=4, seed=77)
    answers: list[Any] = []
    agents = agents_for(77, 4)
    req = g.start()
    while req is not None:
        a = agents[req.player.seat].decide(req, g)
        answers.append(a)
        req = g.answer(a)
    replay = Game(content, identity, players=4, seed=77)
    it = iter(answers)

    req = replay.start()
    while req is not None:
        req = replay.answer(_same_answer(next(it), replay))
    assert replay.log == g.log
    assert replay.result.as_dict() == g.result.as_dict()  # type: ignore[union-attr]


def _same_answer(answer: Any, g: Game) -> Any:
    """An answer of the first game, with its cards and players taken from the replayed one."""
    cards = {c.id: c for c in g.cards}

    def conv(x: Any) -> Any:
        if isinstance(x, Card):
            return cards[x.id]
        if isinstance(x, Player):
            return g.players[x.seat]
        if isinstance(x, list):
            return [conv(i) for i in x]
        if isinstance(x, tuple):
            return tuple(conv(i) for i in x)
        if hasattr(x, "__dataclass_fields__"):
            return type(x)(**{k: conv(getattr(x, k)) for k in x.__dataclass_fields__})
        return x

    return conv(answer)


# ------------------------------------------------------------------ illegal answers


def test_illegal_hero_choice_is_refused(content: Any, identity: Any) -> None:
    g = Game(content, identity, players=5, seed=9)
    req = g.start()
    assert isinstance(req, OptionRequest)
    for bad in (len(req.options), -1, "caocao", True, None):
        with pytest.raises(IllegalDecision):
            g.answer(bad)
        assert g.pending is req
    assert g.decisions == []
    nxt = g.answer(0)
    assert nxt is not None and nxt is not req
    play_to_end_from(g, nxt, agents_for(9, 5))
    assert g.over and g.result is not None and g.result.limit is None


def play_to_end_from(g: Game, req: Any, agents: list[RandomAgent]) -> None:
    while req is not None:
        req = g.answer(agents[req.player.seat].decide(req, g))


def test_illegal_play_actions_are_refused_and_the_game_goes_on(content: Any, identity: Any) -> None:
    g, deck = table_game(content, identity, hands={0: [("slash", "spade", 7), ("slash", "club", 8)]})
    req = g.start()
    assert isinstance(req, PlayRequest) and req.player.seat == 0
    me = g.players[0]
    slash, second = me.hand.cards
    hp_before = [p.hp for p in g.players]
    bad_answers = [
        PlayAction(card=slash, targets=[g.players[2]]),  # out of attack range
        PlayAction(card=slash, targets=[me]),  # oneself
        PlayAction(card=slash, targets=[g.players[1], g.players[4]]),  # too many targets
        PlayAction(card=deck("slash", "heart", 10), targets=[g.players[1]]),  # not in the hand
        PlayAction(card=g.draw_pile.cards[0], targets=[g.players[1]]),  # a jink from the draw pile
        "slash",
        42,
    ]
    for bad in bad_answers:
        with pytest.raises(IllegalDecision):
            g.answer(bad)
        assert g.pending is req
        assert [p.hp for p in g.players] == hp_before
        assert slash in me.hand.cards and second in me.hand.cards
        assert invariants.check(g) == []
    assert g.decisions == []
    # a legal answer is accepted, and the game goes on
    nxt = g.answer(PlayAction(card=slash, targets=[g.players[1]]))
    assert nxt is not None
    assert slash not in me.hand.cards
    assert len(g.decisions) == 1


def test_second_slash_in_a_phase_is_refused(content: Any, identity: Any) -> None:
    # an Ex Nihilo keeps something to do after the first Slash, so the play phase asks again
    g, _ = table_game(content, identity,
                      hands={0: [("slash", "spade", 7), ("slash", "club", 8), ("ex_nihilo", "heart", 7)]},
                      heroes=["caocao", "simayi", "xiahoudun", "guojia", "liubei"])
    req = g.start()
    me = g.players[0]
    first, second, _ = me.hand.cards
    req = g.answer(PlayAction(card=first, targets=[g.players[1]]))
    # decline the jink window and simayi's optional skills until the play phase asks again
    while req is not None and not isinstance(req, PlayRequest):
        assert req.optional, req
        req = g.answer(req.decline())
    assert isinstance(req, PlayRequest) and req.player is me and g.turn_number == 1
    assert all(o.card is not second for o in req.options)
    with pytest.raises(IllegalDecision):
        g.answer(PlayAction(card=second, targets=[g.players[1]]))
    with pytest.raises(IllegalDecision):
        g.answer(PlayAction(card=second, targets=[g.players[4]]))
    assert g.pending is req and second in me.hand.cards
    # ending the phase is still allowed: the turn moves on without the second Slash
    g.answer(None)
    assert second in me.hand.cards
    assert not any(e.get("event") == "use" and e.get("card") == "slash ♣8" for e in g.log)


def test_illegal_response_is_refused(content: Any, identity: Any) -> None:
    g, deck = table_game(content, identity,
                         hands={0: [("slash", "spade", 7)], 1: [("peach", "heart", 3), ("jink", "diamond", 2)]},
                         heroes=["caocao", "xiahoudun", "zhangfei", "guojia", "liubei"])
    req = g.start()
    req = g.answer(PlayAction(card=g.players[0].hand.cards[0], targets=[g.players[1]]))
    while req is not None and not isinstance(req, RespondRequest):
        assert req.optional, req
        req = g.answer(req.decline())
    assert isinstance(req, RespondRequest) and req.player.seat == 1 and req.pattern == "jink"
    peach, jink = g.players[1].hand.cards
    with pytest.raises(IllegalDecision):
        g.answer(Response(card=peach))  # a peach is not a jink
    with pytest.raises(IllegalDecision):
        g.answer(Response(card=g.draw_pile.cards[0]))  # a jink, but not in the hand
    with pytest.raises(IllegalDecision):
        g.answer(PlayAction(card=jink))  # the wrong kind of answer
    assert g.pending is req
    assert g.players[1].hp == g.players[1].max_hp
    g.answer(None)  # decline: the Slash hits
    assert g.players[1].hp == g.players[1].max_hp - 1
    assert jink in g.players[1].hand.cards


# ------------------------------------------------------------------ limits


@pytest.mark.parametrize("limits, what", [
    (Limits(steps=30), "step"),
    (Limits(depth=4), "depth"),
    (Limits(decisions=3), "decision"),
    (Limits(turns=2), "turn"),
])
def test_tiny_limits_end_the_game(content: Any, identity: Any, limits: Limits, what: str) -> None:
    g = Game(content, identity, players=5, seed=3, limits=limits)
    with pytest.raises(LimitExceeded) as info:
        play_to_end(g, agents_for(3, 5))
    assert info.value.what == what
    assert f"{what} limit" in str(info.value)
    assert g.result is not None and g.result.limit == what
    assert g.pending is None
    assert g.over


RUNAWAY_PACK = """\
pack: runaway
name: {zh: 失控, en: Runaway}
heroes:
  - id: swinger
    name: {zh: 摇摆者, en: Swinger}
    kingdom: wei
    gender: male
    hp: 4
    skills: [ping, pong]
  - id: spinner
    name: {zh: 旋转者, en: Spinner}
    kingdom: wei
    gender: male
    hp: 4
    skills: [spin]
skills:
  - id: ping
    name: {zh: 乒, en: Ping}
    locked: true
    triggers:
      - on: turn_start
        do: |
          lose 1 hp
      - on: lost_hp
        do: |
          recover 1
  - id: pong
    name: {zh: 乓, en: Pong}
    locked: true
    trigger:
      on: recovered
      do: |
        lose 1 hp
  - id: spin
    name: {zh: 旋, en: Spin}
    locked: true
    trigger:
      on: turn_start
      do: |
        repeat:
          log "again"
"""


@pytest.fixture(scope="module")
def runaway(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = tmp_path_factory.mktemp("runaway") / "runaway.yaml"
    path.write_text(RUNAWAY_PACK, encoding="utf-8")
    return load_content(None, [path])


def runaway_game(content: Any, hero: str, limits: Optional[Limits] = None) -> Game:
    deck = Deck(content)
    table = TableSetup([SeatSetup(hero, "lord", hp=3), SeatSetup("caocao", "rebel")], deck.pile(10))
    return Game(content, content.ruleset("identity"), table=table, seed=1, limits=limits)


def test_runaway_trigger_cycle_hits_the_depth_limit(runaway: Any) -> None:
    g = runaway_game(runaway, "swinger")
    with pytest.raises(LimitExceeded) as info:
        play_to_end(g, agents_for(1, 2))
    assert info.value.what == "depth"
    assert g.result is not None and g.result.limit == "depth"


def test_runaway_trigger_cycle_hits_the_step_limit(runaway: Any) -> None:
    g = runaway_game(runaway, "swinger", Limits(steps=40))
    with pytest.raises(LimitExceeded) as info:
        play_to_end(g, agents_for(1, 2))
    assert info.value.what == "step"
    assert g.steps == 41


def test_endless_repeat_hits_the_loop_limit(runaway: Any) -> None:
    g = runaway_game(runaway, "spinner", Limits(loop=50))
    with pytest.raises(LimitExceeded) as info:
        play_to_end(g, agents_for(1, 2))
    assert info.value.what == "loop"
    assert g.result is not None and g.result.limit == "loop"
    assert sum(1 for e in g.log if e.get("event") == "log") <= 51


def test_the_lord_shows_his_hero_before_the_others_choose_face_down() -> None:
    """Seed 002 (挑选角色牌): the lord chooses first and shows his hero; the others choose theirs face
    down, and all are shown together."""
    from sgs_runtime.state.seatview import SeatView

    content = load_content()
    game = Game(content, content.ruleset("identity"), players=5, seed=3)
    req = game.start()
    assert req.player.seat == 0 and req.prompt == "choose your hero"
    lord_pick = req.options[1]
    req = game.answer(1)
    seen = [p.name for p in SeatView(game, req.player.seat).players]
    assert seen == [lord_pick, "seat1", "seat2", "seat3", "seat4"]
    picked = req.options[0]
    req = game.answer(0)  # seat 1's choice is not shown to seat 2
    assert [p.name for p in SeatView(game, req.player.seat).players][1] == "seat1" != picked
