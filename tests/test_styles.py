"""Styles of play (sgs_runtime/agents/styles.py): the heuristic bot's habits, one set per place at the table."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import run_cli

from sgs_runtime.agents import RandomAgent
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.agents.search import SearchAgent
from sgs_runtime.agents.styles import NAMED, PLACES, PLAIN, place_of, style
from sgs_runtime.errors import UsageError
from sgs_runtime.records.replay import encode
from sgs_runtime.resolution.game import Game
from sgs_runtime.runs import fork
from sgs_runtime.runs.simulate import check_agents, make_agent
from sgs_runtime.state.definitions import AiHints
from sgs_runtime.state.seatview import ask_agent

HARM = AiHints(intent="harm", targets="enemy")


def started(content: Any, identity: Any, seed: int = 3, decisions: int = 25) -> Game:
    game = Game(content, identity, players=5, seed=seed, keep_log=False)
    bots = [HeuristicAgent(seed * 7 + i) for i in range(5)]
    req = game.start()
    for _ in range(decisions):
        assert req is not None
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    return game


def seated(game: Game, seat: int, name: str, hostility: dict[int, float]) -> HeuristicAgent:
    """A heuristic bot of style ``name`` at ``seat``, looking at the table, with the hostilities given."""
    bot = HeuristicAgent(1, NAMED[name])
    bot.observe(game.view_for(seat))
    bot.me = game.players[seat]
    bot.hostility = lambda p: hostility.get(p.seat, 0.0)  # type: ignore[method-assign]
    return bot


def test_every_place_of_the_identity_roles(identity: Any) -> None:
    places = {rid: place_of(rdef) for rid, rdef in identity.roles.items()}
    assert sorted(places.values()) == sorted(PLACES)
    assert place_of(None) == "alone"  # a role the rules do not define plays alone


def test_styles_are_named_and_a_wrong_name_is_explained() -> None:
    assert NAMED["plain"].plain and not NAMED["roles"].plain
    assert style("roles").of("lord").focus == "hp" and style("roles").of("alone").traitor_as == "lord"
    assert all(style("roles").of(p) == PLAIN for p in ("loyal", "rebel"))
    with pytest.raises(ValueError, match="did you mean 'finish'"):
        style("finsh")
    with pytest.raises(UsageError, match="no style is called 'agressive'.*use plain, focus"):
        check_agents("heuristic:style=agressive")
    assert make_agent("heuristic:style=focus", 1).styles is NAMED["focus"]
    assert make_agent("search:style=plain", 1).styles is NAMED["plain"]
    assert make_agent("search", 1).styles is NAMED["roles"]  # the search bot's default
    with pytest.raises(UsageError, match="takes no budget"):
        check_agents("heuristic:4:style=focus")


def test_the_cli_refuses_a_wrong_style_without_a_traceback() -> None:
    out = run_cli("simulate", "--games", "1", "--agents", "heuristic:style=fcous")
    assert out.exit_code == 2 and "did you mean 'focus'" in out.output and "Traceback" not in out.output


def test_focus_and_finish_order_the_enemies_by_hp(content: Any, identity: Any) -> None:
    game = started(content, identity)
    me, a, b, c = game.players[0], game.players[1], game.players[2], game.players[3]
    a.hp, b.hp, c.hp = 3, 1, 2
    hostile = {a.seat: 2.0, b.seat: 0.5, c.seat: 1.0}
    cands = [a, b, c]
    assert seated(game, me.seat, "plain", hostile)._pick_targets(cands, 1, 1, HARM) == [a]  # the most hostile
    assert seated(game, me.seat, "focus", hostile)._pick_targets(cands, 1, 1, HARM) == [b]  # the least HP
    b.hp = 2
    c.hp = 1
    assert seated(game, me.seat, "finish", hostile)._pick_targets(cands, 1, 1, HARM) == [c]  # the one at 1 HP
    c.hp = 2
    assert seated(game, me.seat, "finish", hostile)._pick_targets(cands, 1, 1, HARM) == [a]  # none: as plain
    # wary harms only the surest enemies; bold nearly anyone not a friend
    assert seated(game, me.seat, "plain", hostile)._pick_targets(cands, 1, 3, HARM) == [a, c, b]
    assert seated(game, me.seat, "wary", hostile)._pick_targets(cands, 1, 3, HARM) == [a, c]
    mild = {**hostile, a.seat: 0.1}
    assert seated(game, me.seat, "plain", mild)._pick_targets(cands, 1, 3, HARM) == [c, b]
    assert seated(game, me.seat, "bold", mild)._pick_targets(cands, 1, 3, HARM) == [c, b, a]


def test_a_traitor_of_a_style_plays_for_a_side_while_the_game_is_open(content: Any, identity: Any) -> None:
    game = started(content, identity)
    traitor = next(p for p in game.players if place_of(identity.roles.get(p.role)) == "alone")
    loyal = seated(game, traitor.seat, "traitor_loyal", {})
    rebel = seated(game, traitor.seat, "traitor_rebel", {})
    plain = seated(game, traitor.seat, "plain", {})
    assert (loyal._my_side(), rebel._my_side(), plain._my_side()) == ("lord", "rebel", "alone")
    traitor.hp = 1
    assert rebel._my_side() == "alone"  # for the rebels only while it has more than 1 HP
    rebels = [p for p in game.players if place_of(identity.roles.get(p.role)) == "rebel"]
    for p in rebels[:-1]:
        p.alive, p.role_revealed = False, True  # a dead player's role is shown
    assert loyal._my_side() == "lord"  # a rebel is left
    rebels[-1].alive, rebels[-1].role_revealed = False, True
    assert sum(1 for p in game.players if p.alive and p is not traitor) > 1
    assert loyal._my_side() == "alone"  # no rebel is left: he fights the lord's side, or nobody harms anybody
    for p in game.players:
        if p is not traitor and place_of(identity.roles.get(p.role)) != "lord":
            p.alive = False
    assert loyal._my_side() == "alone" and rebel._my_side() == "alone"  # the lord and he are left


def test_a_style_is_kept_by_place_and_others_play_plainly(content: Any, identity: Any) -> None:
    game = started(content, identity)
    for p in game.players:
        bot = seated(game, p.seat, "roles", {})
        assert bot.style() == NAMED["roles"].of(place_of(identity.roles.get(p.role)))


def test_the_search_bot_plays_its_rollouts_in_its_own_style(content: Any, identity: Any) -> None:
    """The seat plays on in a rollout with the bot ``own`` makes (the search bot's style); the others with
    the policy's."""
    game = Game(content, identity, players=5, seed=9, keep_log=False)
    bots = [HeuristicAgent(9 * 7 + i) for i in range(5)]
    req = game.start()
    for _ in range(30):
        assert req is not None
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    assert req is not None
    seat = req.player.seat
    made: list[RandomAgent] = []

    def own(seed: int) -> RandomAgent:
        made.append(RandomAgent(seed))
        return made[-1]

    answer = encode(ask_agent(game, bots[seat], req))
    score = fork.play_out(fork.copy_game(game), seat, answer, 5, own=own)
    assert score in (0.0, 0.5, 1.0) and len(made) == 1
    agent = SearchAgent(1, style=NAMED["focus"])
    mine = agent._own(4)
    assert isinstance(mine, HeuristicAgent) and mine.styles is NAMED["focus"]
    assert isinstance(SearchAgent(1, policy="random")._own(4), RandomAgent)
