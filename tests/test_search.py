"""Copies of a game at a decision, the redeal of what a seat cannot see, the search bot, and the --agents spec."""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from typing import Any

import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgs_runtime.agents import RandomAgent
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.agents.search import SearchAgent
from sgs_runtime.agents.styles import NAMED
from sgs_runtime.errors import UsageError
from sgs_runtime.records.replay import encode
from sgs_runtime.resolution.game import Game
from sgs_runtime.resolution.requests import PlayRequest
from sgs_runtime.runs import fork, invariants
from sgs_runtime.runs.simulate import check_agents, make_agent
from sgs_runtime.state.redeal import redeal, unknown_roles
from sgs_runtime.state.seatview import ask_agent

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="this platform cannot fork")


def advance(game: Game, bots: list[Any], decisions: int) -> Any:
    """Start ``game`` and answer ``decisions`` requests; the pending request (None: it ended)."""
    req = game.start()
    for _ in range(decisions):
        if req is None:
            break
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    return req


def finish(game: Game, req: Any, seed: int) -> list[dict[str, Any]]:
    """Play ``game`` on from ``req`` with fresh bots seeded by ``seed``; its whole log."""
    bots = [HeuristicAgent(seed + i) for i in range(len(game.players))]
    while req is not None:
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    return game.log


def no_children() -> bool:
    """Whether this process has no child process (alive or a zombie) left."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def bots_for(n: int, seed: int) -> list[Any]:
    return [HeuristicAgent(seed * 31 + i) if i % 2 else RandomAgent(seed * 31 + i) for i in range(n)]


# ---------------------------------------------------------------- copies


@pytest.mark.parametrize("seed,steps", [(3, 40), (8, 100)])
def test_a_replayed_copy_continues_exactly_as_the_original(content: Any, identity: Any, seed: int, steps: int) -> None:
    game = Game(content, identity, players=5, seed=seed)
    req = advance(game, bots_for(5, seed), steps)
    assert req is not None
    copy = fork.copy_game(game, keep_log=True)
    assert copy.pending is not None and copy.pending.kind == req.kind and copy.pending.player.seat == req.player.seat
    assert copy.log == game.log and copy.snapshot() == game.snapshot()
    assert finish(copy, copy.pending, 5) == finish(game, req, 5)


@needs_fork
def test_a_forked_copy_continues_exactly_as_the_original(content: Any, identity: Any) -> None:
    game = Game(content, identity, players=5, seed=4)
    req = advance(game, bots_for(5, 4), 60)
    assert req is not None
    in_child = fork.in_fork(lambda: finish(game, req, 9))
    assert no_children()
    assert in_child is not None and in_child == finish(game, req, 9)


@needs_fork
def test_fork_and_replay_give_the_same_rollouts(content: Any, identity: Any) -> None:
    game = Game(content, identity, players=5, seed=6, keep_log=False)
    bots = [HeuristicAgent(i) for i in range(5)]
    req = game.start()
    while not (isinstance(req, PlayRequest) and req.options and game.turn_number >= 3):
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    before = game.snapshot()
    answer = encode(bots[req.player.seat].decide(req, game.view_for(req.player.seat)))
    jobs = [(answer, s) for s in range(6)] + [(None, s) for s in range(6)]
    forked = fork.rollouts(game, req.player.seat, jobs, method="fork")
    replayed = fork.rollouts(game, req.player.seat, jobs, method="replay")
    assert forked == replayed and all(v in (0.0, 0.5, 1.0) for v in forked)
    assert fork.rollouts(game, req.player.seat, jobs[:3], method="fork") == forked[:3]  # the same seed, the same end
    assert game.snapshot() == before and game.pending is req  # the game itself did not move
    assert no_children()


@needs_fork
def test_a_child_that_fails_or_overruns_is_lost_and_reaped() -> None:
    def fail() -> None:
        raise RuntimeError("boom")

    assert fork.in_fork(fail) is None
    assert fork.in_fork(lambda: time.sleep(30), timeout=0.3) is None
    assert fork.in_fork(lambda: os._exit(3)) is None
    assert fork.in_fork(lambda: [1, 2]) == [1, 2]
    assert no_children()


def test_copy_method_names_are_checked() -> None:
    with pytest.raises(UsageError, match="did you mean 'replay'"):
        fork.choose_method("replya")
    assert fork.choose_method("replay") == "replay"


# ---------------------------------------------------------------- the redeal


def what_the_seat_sees(game: Game, seat: int) -> Any:
    view = game.view_for(seat)
    zones = [(p.seat, z.name, [getattr(c, "label", lambda: "?")() if view.sees(c) else None
                               for c in z.cards]) for p in game.players for z in p.zones()]
    public = [(z.name, [c.label() if view.sees(c) else None for c in z.cards]) for z in
              (game.draw_pile, game.discard_pile, game.processing)]
    roles = [view.role_of(p) for p in game.players]
    return zones, public, roles, [(p.hp, p.max_hp, p.alive, len(p.hand)) for p in game.players]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 250), seat=st.integers(0, 4), deal=st.integers(0, 1000))
def test_the_redeal_keeps_counts_zones_and_all_the_seat_sees(content: Any, identity: Any, seed: int, steps: int,
                                                            seat: int, deal: int) -> None:
    game = Game(content, identity, players=5, seed=seed, keep_log=False)
    advance(game, bots_for(5, seed), steps)
    ids = [(z.name, [c.id for c in z.cards]) for z in game.all_zones()]
    faces = Counter((c.base.id, c.printed_suit, c.rank) for c in game.cards)
    roles = Counter(p.role for p in game.players)
    fixed_roles = {p.seat: p.role for p in game.players if p.seat not in unknown_roles(game, seat)}
    seen = what_the_seat_sees(game, seat)
    knowledge = [c.seen for c in game.cards]
    redeal(game, seat, random.Random(deal))
    assert [(z.name, [c.id for c in z.cards]) for z in game.all_zones()] == ids  # every card stays in its place
    assert Counter((c.base.id, c.printed_suit, c.rank) for c in game.cards) == faces  # the same deck
    assert Counter(p.role for p in game.players) == roles
    assert {s: game.players[s].role for s in fixed_roles} == fixed_roles
    assert what_the_seat_sees(game, seat) == seen
    assert [c.seen for c in game.cards] == knowledge
    assert invariants.check(game) == []


def test_the_redeal_changes_what_the_seat_cannot_see(content: Any, identity: Any) -> None:
    game = Game(content, identity, players=5, seed=2, keep_log=False)
    advance(game, bots_for(5, 2), 30)
    before = [c.label() for c in game.draw_pile.cards]
    hidden_roles = [game.players[s].role for s in unknown_roles(game, 0)]
    changed_roles = False
    for deal in range(10):
        redeal(game, 0, random.Random(deal))
        changed_roles |= [game.players[s].role for s in unknown_roles(game, 0)] != hidden_roles
    assert [c.label() for c in game.draw_pile.cards] != before
    assert changed_roles and len(set(hidden_roles)) > 1


def test_a_belief_leans_the_roles_dealt(content: Any, identity: Any) -> None:
    game = Game(content, identity, players=5, seed=2, keep_log=False)
    advance(game, bots_for(5, 2), 10)
    seats = unknown_roles(game, 0)
    target = seats[0]
    wanted = game.players[seats[-1]].role
    hits = 0
    for deal in range(200):
        redeal(game, 0, random.Random(deal), role_weight=lambda s, r: 50.0 if (s == target and r == wanted) else 1.0)
        hits += game.players[target].role == wanted
    assert hits > 120  # far more often than the uniform share


# ---------------------------------------------------------------- the search bot


def search_game(content: Any, identity: Any, seed: int, method: str = "auto") -> Game:
    game = Game(content, identity, players=5, seed=seed, keep_log=False)
    agent = SearchAgent(seed, rollouts=4, max_turns=2, method=method, hero_rollouts=0)
    game.play([agent] + [HeuristicAgent(seed * 31 + i) for i in range(1, 5)])
    assert agent.searched > 0 and agent.spent > 0
    return game


def test_the_search_bot_answers_legally_and_reproducibly(content: Any, identity: Any) -> None:
    first = search_game(content, identity, 21)  # every answer went through Game.answer's checks
    again = search_game(content, identity, 21)
    assert first.result is not None and first.decisions == again.decisions
    assert no_children()


def test_the_search_bot_plays_the_same_with_copies_by_replay(content: Any, identity: Any) -> None:
    game = search_game(content, identity, 23, method="replay")
    if hasattr(os, "fork"):
        assert search_game(content, identity, 23, method="fork").decisions == game.decisions


# ---------------------------------------------------------------- the --agents spec


def test_agent_specs_route_by_role_and_seat(content: Any, identity: Any) -> None:
    game = Game(content, identity, players=5, seed=1)
    req = game.start()
    seat = req.player.seat
    role = req.player.role
    assert type(make_agent("heuristic", 1)).__name__ == "HeuristicAgent"
    chosen = make_agent(f"random@{seat},heuristic", 1)
    assert type(chosen.inside).__name__ == "RandomAgent" and seat in chosen.seats
    by_role = make_agent(f"search:8@{role},heuristic", 1)
    assert by_role.inside.rollouts == 8 and type(by_role.outside).__name__ == "HeuristicAgent"
    legacy = make_agent("heuristic@rebel+traitor", 1)
    assert legacy.roles == {"rebel", "traitor"} and type(legacy.outside).__name__ == "RandomAgent"
    for spec in ("random", "search", "heuristic@rebel", "search@rebel,heuristic", "search@0+3,random@lord,heuristic",
                 "search:32@traitor,random", "search:16:hero=0:kinds=play+response:z=1.5:turns=4@0,heuristic"):
        check_agents(spec, identity, 5)


def test_a_spec_sets_the_search_bot_up() -> None:
    """``NAME=VALUE`` after the kind sets the search bot's hero worlds, the decisions its budget goes
    to, its confidence and its horizon; a part without settings is the bot as ``search:N`` makes it."""
    tuned = make_agent("search:24:hero=40:kinds=response:z=1.5:turns=3:alive=3@0,heuristic", 1).inside
    assert (tuned.rollouts, tuned.hero_rollouts, tuned.kinds, tuned.z, tuned.max_turns, tuned.alive) == \
        (24, 40, {"response"}, 1.5, 3, 3)
    assert make_agent("search:hero=0", 1).rollouts == SearchAgent(1).rollouts  # the default budget
    plain = make_agent("search:8", 1)
    assert (plain.hero_rollouts, plain.kinds, plain.max_turns) == (SearchAgent(1).hero_rollouts, {"play", "response"},
                                                                    None)


@pytest.mark.parametrize("spec,message", [
    ("serch", "unknown agents 'serch' in 'serch' (did you mean 'search'?)"),
    ("search@rebl,heuristic", "no role 'rebl' (did you mean 'rebel'?)"),
    ("search@5,heuristic", "names seat 5, but the seats are 0 to 4"),
    ("heuristic:4", "the heuristic bot takes no budget"),
    ("search:x", "must be a whole number of rollouts"),
    ("search::8", "nothing between two ':'"),
    ("search:", "nothing between two ':' or after the last"),
    ("search:8:9", "gives the budget twice"),
    ("search:heroes=3", "no setting 'heroes' (did you mean 'hero'?); it has alive, hero, kinds, style, turns, z"),
    ("heuristic:hero=3", "the heuristic bot has no setting 'hero'; it has style"),
    ("random:style=focus", "the random bot has no setting 'style'; it has none"),
    ("search:hero=many", "hero='many' cannot be used: a whole number"),
    ("search:kinds=plays", "unknown search decision kind 'plays'"),
    ("search:z=-2", "z='-2' cannot be used"),
    ("search@rebel,random@lord", "does not say which bots play the other seats"),
    ("random,heuristic", "names the bots for the other seats twice"),
    ("heuristic@", "names no role or seat after '@'"),
    ("heuristic@rebel+", "an empty role or seat"),
    ("heuristic,", "an empty part"),
    ("", "--agents is empty"),
])
def test_bad_agent_specs_are_refused_clearly(identity: Any, spec: str, message: str) -> None:
    with pytest.raises(UsageError) as err:
        check_agents(spec, identity, 5)
    assert message in str(err.value)


def test_the_cli_takes_the_tiers(tmp_path: Any) -> None:
    got = run_cli("simulate", "--games", "1", "--seed", "3", "--agents", "search:2:hero=4@0,heuristic", "--json")
    assert got.exit_code == 0 and '"agents": "search:2:hero=4@0,heuristic"' in got.output
    bad = run_cli("simulate", "--games", "1", "--agents", "search:heroes=4")
    assert bad.exit_code == 2 and "did you mean 'hero'" in bad.output
    bad = run_cli("simulate", "--games", "1", "--agents", "heuristic@rebel,serch")
    assert bad.exit_code == 2 and "did you mean 'search'" in bad.output
    bad = run_cli("play", "--agents", "search@9,heuristic", "--seed", "1")
    assert bad.exit_code == 2 and "names seat 9" in bad.output
    assert no_children()


def test_a_time_limit_per_decision_still_answers_legally(content: Any, identity: Any) -> None:
    game = Game(content, identity, players=5, seed=31, keep_log=False)
    agent = SearchAgent(31, rollouts=6, ms=0.001, max_turns=1, hero_rollouts=0)
    game.play([HeuristicAgent(i) for i in range(4)] + [agent])
    assert game.result is not None and agent.searched > 0
    assert agent.spent <= agent.searched * 3  # one world per decision: the time was up after the first
    assert no_children()


def test_a_game_not_started_cannot_be_copied(content: Any, identity: Any) -> None:
    from sgs_runtime.errors import GameError

    with pytest.raises(GameError, match="has not started"):
        fork.copy_game(Game(content, identity, players=5, seed=1))


def test_a_search_seat_that_changes_nothing_leaves_the_game_as_the_heuristic_played_it(content: Any) -> None:
    """Role-controlled comparisons change one seat only: the other seats' bots get the same seeds in both
    specs, and listing candidates does not move the heuristic's chance inside the search bot."""
    from sgs_runtime.runs import simulate
    from sgs_runtime.runs.simulate import play_one

    saved = simulate.BUDGETED["search"]
    simulate.BUDGETED["search"] = lambda s, b=None: SearchAgent(s, rollouts=1, hero_rollouts=0,  # too small a budget
                                                                 style=NAMED["plain"])
    try:
        for index in range(3):
            base = play_one(content, "identity", 5, 100 + index, index, agents="heuristic")
            mixed = play_one(content, "identity", 5, 100 + index, index, agents=f"search:1@{index},heuristic")
            assert (base.heroes, base.winners, base.turns) == (mixed.heroes, mixed.winners, mixed.turns)
    finally:
        simulate.BUDGETED["search"] = saved


def test_the_search_bot_deals_the_roles_by_its_heuristics_belief(content: Any, identity: Any) -> None:
    game = Game(content, identity, players=5, seed=2, keep_log=False)
    advance(game, bots_for(5, 2), 30)
    agent = SearchAgent(2)
    view = game.view_for(0)
    weight = agent._role_weight(view)
    probs = agent.base.belief_of().probabilities(view)
    for seat in unknown_roles(game, 0):
        for role, p in probs[seat].items():
            assert weight(seat, role) == p


def test_the_hero_choice_can_be_searched(content: Any, identity: Any) -> None:
    from sgs_runtime.resolution.requests import OptionRequest

    game = Game(content, identity, players=5, seed=4, keep_log=False)
    agent = SearchAgent(4, rollouts=1, hero_rollouts=2)  # too few rollouts to search anything else
    offered: list[int] = []
    decide = agent.decide

    def watching(req: Any, view: Any) -> Any:
        if isinstance(req, OptionRequest) and req.purpose == "hero":
            offered.append(len(req.options))
        return decide(req, view)

    agent.decide = watching  # type: ignore[method-assign]
    game.play([agent] + [HeuristicAgent(4 * 31 + i) for i in range(1, 5)])
    assert game.result is not None and len(offered) == 1
    assert agent.searched == 1 and agent.spent == 2 * offered[0]  # two whole-game worlds per hero offered
    assert no_children()


def test_the_candidates_race_and_a_loser_drops_out_after_its_first_round(monkeypatch: Any, content: Any,
                                                                         identity: Any) -> None:
    """Lost every world of the first round against the heuristic's answer: out of the race, no more worlds; clearly
    better in every round: it wins, having had every world the budget allowed."""
    game = Game(content, identity, players=5, seed=2, keep_log=False)
    req = advance(game, bots_for(5, 2), 30)
    view = game.view_for(req.player.seat)
    asked: list[list[str]] = []

    def scores(view: Any, request: Any, answers: list[str], seeds: list[int], **kw: Any) -> list[list[float]]:
        asked.append(list(answers))
        value = {"heuristic": 0.5, "worse": 0.0, "better": 0.7, "noisy": 0.5}
        return [[value[a] + ((0.3 if s % 2 else -0.25) if a == "noisy" else 0.0) for s in seeds] for a in answers]

    monkeypatch.setattr(fork, "evaluate", scores)
    agent = SearchAgent(2, rollouts=40, batch=4)
    got = agent._search(view, req, ["heuristic", "worse", "better"], agent.rollouts, None)
    assert got == "better" and agent.changed == 1
    assert asked[0] == ["heuristic", "worse", "better"] and all(a == ["heuristic", "better"] for a in asked[1:])
    assert agent.spent == 12 + 8 * 3 + 4  # the first round for three, then rounds for two while the budget lasts
    # a gain that is not clear (half the worlds no better) leaves the heuristic's answer
    agent = SearchAgent(3, rollouts=40, batch=4, z=2.0)
    assert agent._search(view, req, ["heuristic", "noisy"], agent.rollouts, None) == "heuristic"


def test_the_heroes_a_seat_has_not_seen_are_dealt_anew_during_the_hero_choice(content: Any, identity: Any) -> None:
    """At the third seat's hero choice, a copy keeps the lord's shown hero and the heroes the seat was
    offered, and shuffles the rest (the pile's order, the face-down picks, what was set aside)."""
    from sgs_runtime.state.redeal import redeal_heroes

    game = Game(content, identity, players=5, seed=6, keep_log=False)
    bots = bots_for(5, 6)
    req = game.start()
    while len([p for p in game.draft.picks if p is not None]) < 2:  # type: ignore[union-attr]
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    draft = game.draft
    assert draft is not None and req.purpose == "hero"
    seat = req.player.seat
    lord = next(iter(draft.shown))
    hidden = [s for s, h in enumerate(draft.picks) if h is not None and s != lord]
    before = (list(draft.pile), list(draft.picks), list(game.unused_heroes))
    orders = set()
    for deal in range(20):
        draft.pile[:], draft.picks[:], game.unused_heroes[:] = (list(x) for x in before)
        redeal_heroes(game, seat, random.Random(deal))
        assert draft.picks[lord] == before[1][lord] and draft.picks[seat] is None
        assert draft.pile[:len(req.options)] == before[0][:len(req.options)] == list(req.options)
        assert Counter(draft.pile + draft.picks + game.unused_heroes) == Counter(before[0] + before[1] + before[2])
        orders.add((tuple(draft.pile), tuple(draft.picks[s] for s in hidden)))
    assert len(orders) > 10
    while req is not None:  # the choice goes on from the dealt draft: the game is played to its end
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    assert game.result is not None and game.draft is None


def test_the_end_game_budget_waits_for_the_end_game(content: Any, identity: Any) -> None:
    """With ``alive``, the play and the responses are searched only once at most that many players
    are alive: every searched decision came then, and before it the bot played as the heuristic."""
    class Watching(SearchAgent):
        alive_then: list[int] = []

        def _search(self, view: Any, *args: Any, **kw: Any) -> Any:
            self.alive_then.append(len(view.alive()))
            return super()._search(view, *args, **kw)

    late = Watching(5, rollouts=4, hero_rollouts=0, alive=3)
    game = Game(content, identity, players=5, seed=14, keep_log=False)
    game.play([HeuristicAgent(i) for i in range(4)] + [late])
    assert game.result is not None and late.searched > 0
    assert late.alive_then and all(n <= 3 for n in late.alive_then)
    never = SearchAgent(5, rollouts=4, hero_rollouts=0, alive=1, style=NAMED["plain"])  # over before one is left
    again = Game(content, identity, players=5, seed=12, keep_log=False)
    again.play([HeuristicAgent(i) for i in range(4)] + [never])
    plain = Game(content, identity, players=5, seed=12, keep_log=False)
    plain.play([HeuristicAgent(i) for i in range(5)])
    assert never.searched == 0 and again.decisions == plain.decisions
