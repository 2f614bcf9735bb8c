"""Beliefs over the hidden roles (sgs_runtime/agents/beliefs.py) and how simulations measure them."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sgs_dsl.loader import load_content
from sgs_runtime.agents.beliefs import WRITE_OUT_AT, Belief, _Plan, act_sign, marginals
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.resolution.game import Game, SeatSetup, TableSetup
from sgs_runtime.runs.simulate import game_seed, simulate
from sgs_runtime.state.model import Card
from sgs_runtime.state.seatview import ask_agent

HEROES = ["zhangfei", "guanyu", "caocao", "liubei", "sunquan"]


@pytest.fixture(scope="module")
def content():  # type: ignore[no-untyped-def]
    return load_content()


def _game(content: Any, roles: list[str]) -> Game:
    pile = [Card(i, content.cards["slash"], "spade", 7) for i in range(20)]
    table = TableSetup([SeatSetup(h, r) for h, r in zip(HEROES, roles)], pile, [], [], 0, "play")
    g = Game(content, content.ruleset(), table=table)
    g.stop_at_phase = "play"
    g.start()
    return g


ROLES = ["lord", "loyalist", "rebel", "rebel", "traitor"]


def _probs(g: Game, seat: int) -> dict[int, dict[str, float]]:
    b = Belief(seat)
    view = g.view_for(seat)
    b.update(view)
    return b.probabilities(view)


def test_damaging_the_lord_raises_the_rebel_probability(content) -> None:  # type: ignore[no-untyped-def]
    g = _game(content, ROLES)
    before = _probs(g, 0)[2]  # the lord's belief
    g.public.append(("damage", 2, 0, "slash", 1))
    after = _probs(g, 0)[2]
    assert after["rebel"] > before["rebel"] + 0.1
    assert after["loyalist"] < before["loyalist"] / 2
    assert after["lord"] == 0.0  # the lord is known


def test_helping_the_lord_raises_the_loyalist_probability(content) -> None:  # type: ignore[no-untyped-def]
    g = _game(content, ROLES)
    before = _probs(g, 0)[3]
    g.public.append(("recover", 3, 0, "peach", 1))
    after = _probs(g, 0)[3]
    assert after["loyalist"] > before["loyalist"] + 0.2
    assert after["rebel"] < before["rebel"]


def test_a_harmful_card_on_the_lord_is_a_sign_and_a_plain_card_is_none(content) -> None:  # type: ignore[no-untyped-def]
    assert act_sign(content, ("use", 2, 0, "dismantlement", 1)) == 1
    assert act_sign(content, ("use", 2, 0, "peach", 1)) == -1
    assert act_sign(content, ("take", 2, 0, "jink", 1)) == 1
    assert act_sign(content, ("relieve", 2, 0, "indulgence", 1)) == -1
    g = _game(content, ROLES)
    before = _probs(g, 1)[2]
    g.public.append(("use", 2, 0, "ex_nihilo", 1))  # a card for oneself tells nothing
    assert _probs(g, 1)[2] == before


def test_a_belief_never_reads_the_hidden_roles(content) -> None:  # type: ignore[no-untyped-def]
    # two tables that differ only in the hidden roles of seats 2 and 4: the lord's belief is the same
    records = [("damage", 2, 0, "slash", 1), ("recover", 3, 0, "peach", 1), ("use", 4, 2, "slash", 1)]
    a = _game(content, ["lord", "loyalist", "rebel", "rebel", "traitor"])
    b = _game(content, ["lord", "loyalist", "traitor", "rebel", "rebel"])
    for g in (a, b):
        g.public.extend(records)
    assert _probs(a, 0) == _probs(b, 0)
    # and its own role is certain: seat 2 knows it is the rebel in a, the traitor in b
    assert _probs(a, 2)[2]["rebel"] == 1.0 and _probs(b, 2)[2]["traitor"] == 1.0


def test_revealed_roles_are_certain(content) -> None:  # type: ignore[no-untyped-def]
    g = _game(content, ROLES)
    g.players[3].role_revealed = True
    probs = _probs(g, 1)
    assert probs[3]["rebel"] == 1.0
    # one rebel is known, so the other unknown seats share one rebel between them
    assert math.isclose(probs[2]["rebel"] + probs[4]["rebel"], 1.0)


def _brute(weights: list[list[float]], counts: list[int]) -> list[list[float]]:
    roles = [r for r, c in enumerate(counts) for _ in range(c)]
    out = [[0.0] * len(counts) for _ in weights]
    total = 0.0
    for deal in set(itertools.permutations(roles)):
        w = math.prod(weights[i][r] for i, r in enumerate(deal))
        total += w
        for i, r in enumerate(deal):
            out[i][r] += w
    return [[x / total for x in row] for row in out]


@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_marginals_are_exact(deal: list[int], rng: Any) -> None:
    counts = [deal.count(r) for r in range(4)]
    weights = [[math.exp(rng.uniform(-3, 3)) for _ in range(4)] for _ in deal]
    got = marginals(weights, counts)
    want = _brute(weights, counts)
    for row, wrow in zip(got, want):
        assert all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for x, y in zip(row, wrow))


@given(st.lists(st.integers(0, 3), min_size=1, max_size=6), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_marginals_are_exact_with_roles_ruled_out(deal: list[int], rng: Any) -> None:
    # a zero weight (a role a seat cannot hold) adds no term: the plan of the sums differs (beliefs._plan)
    counts = [deal.count(r) for r in range(4)]
    weights = [[0.0 if r != d and rng.random() < 0.3 else math.exp(rng.uniform(-3, 3)) for r in range(4)]
               for d in deal]  # (each seat keeps the role of the deal: some deal has weight)
    got = marginals(weights, counts)
    want = _brute(weights, counts)
    for row, wrow, w in zip(got, want, weights):
        assert all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for x, y in zip(row, wrow))
        assert all(x == 0.0 for x, wr in zip(row, w) if wr == 0.0)


@given(st.lists(st.integers(0, 3), min_size=1, max_size=8), st.randoms(use_true_random=False), st.booleans())
@settings(max_examples=60, deadline=None)
def test_the_written_out_sums_are_the_loops_bit_for_bit(deal: list[int], rng: Any, ruled_out: bool) -> None:
    # the games a seed plays hang on these bits: a bot compares scores made of them
    counts = [deal.count(r) for r in range(4)]
    weights = [[0.0 if ruled_out and r != d and rng.random() < 0.3 else math.exp(rng.uniform(-8, 8) * rng.choice((-1, 0, 1)))
                for r in range(4)] for d in deal]
    positive = tuple(tuple(x > 0.0 for x in w) for w in weights)
    plan = _Plan(counts, None if all(all(p) for p in positive) else positive, len(deal))
    got, want = plan.written_out()(weights), plan.loops(weights)
    assert [[x.hex() for x in row] for row in got] == [[x.hex() for x in row] for row in want]
    for _ in range(WRITE_OUT_AT + 1):  # (marginals() takes them in lists, then written out: the same bits)
        assert [[x.hex() for x in row] for row in marginals(weights, counts)] == [[x.hex() for x in row] for row in want]


@given(st.integers(0, 10_000), st.sampled_from([5, 8]), st.integers(20, 400))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_beliefs_stay_normalised_and_fit_the_role_counts(content, seed: int, players: int,  # type: ignore[no-untyped-def]
                                                         steps: int) -> None:
    g = Game(content, content.ruleset(), players=players, seed=game_seed(seed, 0), keep_log=False)
    bots = [HeuristicAgent(seed * 31 + i) for i in range(players)]
    req = g.start()
    for _ in range(steps):
        if req is None:
            break
        req = g.answer(ask_agent(g, bots[req.player.seat], req))
    counts = g.view_for(0).role_counts()
    for seat, bot in enumerate(bots):
        if bot.belief is None:
            continue
        view = g.view_for(seat)
        probs = bot.belief.probabilities(view)
        for p in g.players:
            row = probs[p.seat]
            assert math.isclose(sum(row.values()), 1.0)
            assert all(0.0 <= x <= 1.0 for x in row.values())
            if view.role_of(p) is not None:
                assert row[p.role] == 1.0
        for role, n in counts.items():  # every role: the expected number of its holders is its count
            assert math.isclose(sum(probs[p.seat][role] for p in g.players), n, abs_tol=1e-9)


def test_a_simulation_reports_friendly_fire_and_belief_accuracy(content) -> None:  # type: ignore[no-untyped-def]
    rep = simulate(content, players=5, games=4, agents="heuristic", seed=3)
    reading = rep["role_reading"]
    assert set(reading["friendly_fire"]) >= {"loyalist>lord", "lord>loyalist"}
    for rate in reading["friendly_fire"].values():
        assert 0.0 <= rate["rate"] <= 1.0 and rate["harm"] <= rate["of"]
    acc = reading["belief_accuracy"]
    assert acc["games"] == 4
    assert 0.0 < acc["prior"] < acc["mean"] <= 1.0  # reading the table beats knowing only the counts
    assert set(acc["by_role"]) == {"lord", "loyalist", "rebel", "traitor"}
    assert sum(reading["harmful_acts"].values()) == sum(reading["harm"].values())


def test_random_bots_have_no_belief_to_measure(content) -> None:  # type: ignore[no-untyped-def]
    rep = simulate(content, players=5, games=2, agents="random", seed=1)
    assert rep["role_reading"]["belief_accuracy"]["games"] == 0
    assert rep["role_reading"]["harmful_acts"]  # harm is still counted


def _lijian_table(content: Any, lord_hand: list[str]) -> Game:
    """貂蝉 (a rebel) in her play phase; 刘备 the lord, 关羽 the loyalist; her hand: one jink."""
    ids = iter(range(100))

    def card(kid: str) -> Card:
        return Card(next(ids), content.cards[kid], "spade", 7)

    table = TableSetup([SeatSetup("diaochan", "rebel", hand=[card("jink")]),
                        SeatSetup("liubei", "lord", hand=[card(k) for k in lord_hand]),
                        SeatSetup("guanyu", "loyalist", hand=[card("slash")]),
                        SeatSetup("zhangfei", "rebel"), SeatSetup("caocao", "traitor")],
                       [card("jink") for _ in range(10)], [], [], 0, "play")
    return Game(content, content.ruleset(), table=table)


def _sow_dissension(g: Game, answer: Any) -> None:
    """離間: 关羽 is made to Duel 刘备; every later request is answered by ``answer``."""
    from sgs_runtime.resolution.requests import PlayAction, PlayRequest

    req = g.start()
    assert isinstance(req, PlayRequest) and req.player.seat == 0
    req = g.answer(PlayAction(skill="lijian", cards=[g.players[0].hand.cards[0]],
                              targets=[g.players[1], g.players[2]]))
    for _ in range(30):
        if req is None or isinstance(req, PlayRequest):
            break
        req = g.answer(answer(req))


def test_a_use_made_at_another_players_command_is_their_act(content) -> None:  # type: ignore[no-untyped-def]
    g = _lijian_table(content, [])
    _sow_dissension(g, lambda req: req.decline())
    acts = [r for r in g.public if r[0] in ("use", "damage")]
    # everyone saw 貂蝉 set the Duel on the lord and deal its damage: not 关羽
    assert acts == [("use", 0, 1, "duel", 1), ("damage", 0, 1, "duel", 1)]


def test_the_lord_does_not_duel_back_a_player_he_does_not_count_an_enemy(content) -> None:  # type: ignore[no-untyped-def]
    g = _lijian_table(content, ["slash"])
    bots = {seat: HeuristicAgent(seat) for seat in range(5)}
    _sow_dissension(g, lambda req: ask_agent(g, bots[req.player.seat], req))
    lord = g.players[1]
    assert any(c.kind.id == "slash" for c in lord.hand.cards)  # he kept his Slash (决斗 is `mutual`)
    assert lord.hp == lord.max_hp - 1  # and took the damage
    assert ("damage", 0, 1, "duel", 1) in g.public


def test_the_cli_json_reports_the_role_reading() -> None:
    import json

    from conftest import run_cli

    result = run_cli("simulate", "--players", "8", "--games", "2", "--agents", "heuristic", "--json")
    assert result.exit_code == 0, result.output
    reading = json.loads(result.stdout)["role_reading"]
    assert {"loyalist>lord", "lord>loyalist"} <= set(reading["friendly_fire"])
    assert 0.0 < reading["belief_accuracy"]["mean"] <= 1.0


def test_a_bot_that_plays_a_second_game_starts_a_new_belief(content) -> None:  # type: ignore[no-untyped-def]
    """A heuristic bot kept for another game reads that game from its start: nothing of the first
    game's evidence is carried over (a belief reads one game's public records)."""
    first = _game(content, ROLES)
    bot = HeuristicAgent(1)
    first.public.append(("damage", 2, 0, "slash", 1))
    bot.observe(first.view_for(0))
    assert bot.belief is not None and bot.belief.evidence
    second = _game(content, ROLES)
    bot.observe(second.view_for(0))
    assert bot.belief.evidence == {} and bot.belief.seen == len(second.public)
    assert bot.belief.probabilities(second.view_for(0)) == _probs(second, 0)


class _LongWay:
    """Around a metered bot: after each of its decisions, what the meter should add, worked out the long way
    (the belief's probabilities as dictionaries, the hidden players asked of the view one by one)."""

    def __init__(self, metered: Any, bot: HeuristicAgent, game: Game, totals: dict[str, list[float]]) -> None:
        self.metered, self.bot, self.game, self.totals = metered, bot, game, totals

    def decide(self, request: Any, view: Any) -> Any:
        answer = self.metered.decide(request, view)
        me = request.player
        assert self.bot.belief is not None
        seat_view = self.game.view_for(me.seat)
        probs = self.bot.belief.probabilities(seat_view)
        hidden = [p for p in self.game.players if seat_view.role_of(p) is None]
        if hidden:
            left: dict[str, int] = {}
            for p in hidden:
                left[p.role] = left.get(p.role, 0) + 1
            row = self.totals.setdefault(me.role, [0.0, 0.0, 0])
            row[0] += sum(probs[p.seat].get(p.role, 0.0) for p in hidden)
            row[1] += sum(left[p.role] / len(hidden) for p in hidden)
            row[2] += len(hidden)
        return answer


@pytest.mark.parametrize("players,seed", [(5, 2), (8, 6)])
def test_the_role_reading_meter_adds_what_the_beliefs_probabilities_give(content: Any, players: int, seed: int) -> None:
    """The meter of ``sgs simulate`` reads a belief's rows, and only when its stamp changed: it adds up, bit for
    bit, what the probabilities' dictionaries give after every decision."""
    from sgs_runtime.runs.rolereading import ReadingMeter

    g = Game(content, content.ruleset("identity"), players=players, seed=seed, keep_log=False)
    meter = ReadingMeter(g)
    bots = [HeuristicAgent(seed * 31 + i) for i in range(players)]
    totals: dict[str, list[float]] = {}
    g.play([_LongWay(m, b, g, totals) for m, b in zip(meter.wrap(bots), bots)])
    belief = meter.summary()["belief"]
    assert belief and belief == totals
