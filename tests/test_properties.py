"""Property tests: random legal games keep every invariant after every step, and end.

Each example is a whole game: a seed drawn by hypothesis, a RandomAgent per seat (their eagerness drawn
too), driven request by request. After every answer :func:`sgs_runtime.runs.invariants.check` must find nothing:
every card in exactly one zone, HP never above max HP and below 1 only while dying, the dead holding no
cards. The state cache is checked all along (statecache.py): a remembered answer that differs from a fresh
one fails the game. A failing example names its seed, which replays the game exactly.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgs_dsl.loader import load_content
from sgs_runtime.agents import RandomAgent
from sgs_runtime.errors import LimitExceeded
from sgs_runtime.resolution.game import Game
from sgs_runtime.runs import invariants
from sgs_runtime.state.events import DeathEvent

CONTENT = load_content()
RULES = CONTENT.ruleset("identity")

seeds = st.integers(min_value=0, max_value=2**32 - 1)
end_chances = st.sampled_from([0.05, 0.2, 0.5])
answer_chances = st.sampled_from([0.3, 0.75, 1.0])

SETTINGS: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


def play_checked(players: int, seed: int, end_chance: float, answer_chance: float, rules: Any = RULES) -> Game:
    g = Game(CONTENT, rules, players=players, seed=seed)
    g.check_caches = True  # every remembered quantity and legal target is computed again and compared
    agents = [RandomAgent(seed * 31 + i, end_chance=end_chance, answer_chance=answer_chance) for i in range(players)]
    total = None
    req = g.start()
    step = 0
    while True:
        problems = invariants.check(g)
        assert problems == [], f"after step {step} (seed {seed}): {problems}"
        for p in g.players:
            # the dead hold nothing once their death has been dealt with (invariants.check only looks when
            # the stack is empty, which it seldom is while a request is pending)
            if not p.alive and not p.burying and not any(isinstance(e, DeathEvent) and e.player is p for e in g.stack):
                assert p.all_cards() == [], f"after step {step} (seed {seed}): dead {p.name} holds {p.all_cards()}"
        if g.cards:  # once the deck is dealt, no card is created or destroyed
            total = total if total is not None else len(g.cards)
            assert len(g.cards) == total, "cards were created or destroyed"
            # (everyone may be dead once the game is over: 武魂 takes the traitor who killed the lord)
            assert any(p.alive for p in g.players) or g.result is not None, "everyone is dead"
        if req is None:
            break
        try:
            req = g.answer(agents[req.player.seat].decide(req, g))
        except LimitExceeded:
            assert g.result is not None and g.result.limit is not None
            break
        step += 1
    return g


def assert_finished(g: Game) -> None:
    assert g.result is not None, "the game ended without a result"
    if g.result.limit is not None:
        # random bots can stall a game (everyone dodges, 华佗 heals): the turn limit ends it with a clear
        # reason; any other limit (steps, depth, decisions) would mean a runaway resolution
        assert g.result.limit == "turn", g.result.reason
        return
    assert g.result.winners, g.result.reason
    assert not g.stack
    roles = {p.role for p in g.players if p.name in g.result.winners}
    assert roles == set(g.result.winner_roles)
    for p in g.players:
        if not p.alive and not p.burying:  # (the game may end inside a death's timing: 武魂)
            assert p.all_cards() == [], f"{p.name} is dead but holds {p.all_cards()}"
    # every card is somewhere at the end too
    assert sum(len(z.cards) for z in g.all_zones()) == len(g.cards)


@settings(max_examples=40, **SETTINGS)
@given(seed=seeds, end_chance=end_chances, answer_chance=answer_chances)
def test_five_player_games_keep_invariants(seed: int, end_chance: float, answer_chance: float) -> None:
    g = play_checked(5, seed, end_chance, answer_chance)
    assert_finished(g)


@settings(max_examples=25, **SETTINGS)
@given(seed=seeds, end_chance=end_chances, answer_chance=answer_chances)
def test_two_player_games_keep_invariants(seed: int, end_chance: float, answer_chance: float) -> None:
    g = play_checked(2, seed, end_chance, answer_chance)
    assert_finished(g)
    # one of the two is dead, unless the game ended for another reason
    assert sum(1 for p in g.players if p.alive) <= 2


@settings(max_examples=20, **SETTINGS)
@given(seed=seeds, end_chance=end_chances, answer_chance=answer_chances)
def test_eight_player_games_keep_invariants(seed: int, end_chance: float, answer_chance: float) -> None:
    g = play_checked(8, seed, end_chance, answer_chance)
    assert_finished(g)


@settings(max_examples=25, **SETTINGS)
@given(seed=seeds, end_chance=end_chances, answer_chance=answer_chances, players=st.sampled_from([3, 5, 8]))
def test_maneuvering_games_keep_invariants(seed: int, end_chance: float, answer_chance: float, players: int) -> None:
    # 军争: natures, the chained state and its transmission, recast, Wine, equipment that leaves
    g = play_checked(players, seed, end_chance, answer_chance, CONTENT.ruleset("maneuvering"))
    assert_finished(g)


@settings(max_examples=10, **SETTINGS)
@given(seed=seeds)
def test_games_replay_from_their_seed(seed: int) -> None:
    a = play_checked(4, seed, 0.2, 0.75)
    b = play_checked(4, seed, 0.2, 0.75)
    assert a.log == b.log
    assert a.result is not None and b.result is not None
    assert a.result.as_dict() == b.result.as_dict()


@settings(max_examples=25, **SETTINGS)
@given(seed=seeds, end_chance=end_chances, answer_chance=answer_chances, players=st.sampled_from([4, 5, 8]),
       rules_id=st.sampled_from(["identity_all", "maneuvering_all", "wind_revised", "prototype"]))
def test_games_with_every_hero_keep_invariants(seed: int, end_chance: float, answer_chance: float, players: int,
                                               rules_id: str) -> None:
    # the wind, god and SP heroes: skills that change hands, piles, face-down claims, prohibitions;
    # and the 1.0 prototype game
    g = play_checked(players, seed, end_chance, answer_chance, CONTENT.ruleset(rules_id))
    assert_finished(g)
