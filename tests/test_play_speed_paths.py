"""The shortcuts taken for speed give the answers the long way gives (whole games, fixed seeds)."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgs_runtime.agents.beliefs import alignment
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.resolution.game import Game
from sgs_runtime.resolution.requests import PlayRequest
from sgs_runtime.resolution.use import candidates, has_targets, target_spec
from sgs_runtime.state.seatview import ask_agent


class _Watching(HeuristicAgent):
    """A heuristic bot that, at every decision, works its belief's leans out the long way and compares."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.compared = 0

    def decide(self, request: Any, game: Any) -> Any:
        answer = super().decide(request, game)
        belief = self.belief_of()
        probs = belief.probabilities(game)
        for seat in range(len(game.players)):
            slow = sum(p * alignment(game.rules.roles.get(r)) for r, p in probs[seat].items())
            assert belief.lean(game, seat) == slow
            self.compared += 1
        return answer


@pytest.mark.parametrize("seed", [3, 11])
def test_a_beliefs_remembered_leans_are_the_leans_of_its_probabilities_now(content: Any, seed: int) -> None:
    g = Game(content, content.ruleset("identity"), players=5, seed=seed, keep_log=False)
    bots = [_Watching(seed * 31 + i) for i in range(5)]
    g.play(bots)
    assert sum(b.compared for b in bots) > 0


@pytest.mark.parametrize("seed", [5, 8])
def test_has_targets_agrees_with_the_full_listing_at_every_play_decision(content: Any, seed: int) -> None:
    """``has_targets`` (which stops at the first witness and reads only the least number of
    targets) says yes exactly when the full listing has enough targets."""
    g = Game(content, content.ruleset("identity"), players=5, seed=seed, keep_log=False)
    checked = 0
    for req in _play_decisions(g, seed):
        p = req.player
        for card in p.hand.cards:
            spec = target_spec(card)
            if card.kind.use is None or spec.mode != "choose":
                continue
            full = candidates(g, p, card, spec)
            assert has_targets(g, p, card, spec) == (len(full) >= max(spec.min, 1))
            checked += 1
    assert checked > 0


def _play_decisions(g: Game, seed: int) -> Iterator[PlayRequest]:
    """Play ``g`` out with heuristic bots, giving each play request before it is answered."""
    bots = [HeuristicAgent(seed * 31 + i) for i in range(g.num_players)]
    req = g.start()
    while req is not None:
        if isinstance(req, PlayRequest):
            yield req
        req = g.answer(ask_agent(g, bots[req.player.seat], req))


class _BothWays(HeuristicAgent):
    """A heuristic bot that plays each play decision both ways, scoring every option and scoring by bounds,
    and checks they agree (the same action, the same chance drawn)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.compared = 0
        self.options = 0
        self.scored = 0

    def play(self, req: PlayRequest) -> Any:
        state = self.rng.getstate()
        every = self.play_scoring_all(req)
        after = self.rng.getstate()
        self.rng.setstate(state)
        got = super().play(req)
        assert self.rng.getstate() == after
        assert (got is None) == (every is None)
        assert got is None or every is None or got.key() == every.key()
        self.compared += 1
        self.options += len(req.options)
        return got

    def evaluate(self, req: PlayRequest, opt: Any) -> Any:
        self.scored += 1
        return super().evaluate(req, opt)


@pytest.mark.parametrize(("rules", "players", "seed"), [("identity", 5, 2), ("identity", 8, 9),
                                                         ("identity_all", 8, 4), ("maneuvering", 5, 6)])
def test_scoring_by_bounds_plays_what_scoring_every_option_plays(content: Any, rules: str, players: int,
                                                                 seed: int) -> None:
    """:meth:`HeuristicAgent.play` leaves out options whose bound cannot beat the best found: it plays
    what scoring every option plays, and draws the same chance (a gamble's score draws it)."""
    g = Game(content, content.ruleset(rules), players=players, seed=seed, keep_log=False)
    bots = [_BothWays(seed * 31 + i) for i in range(players)]
    g.play(bots)
    compared = sum(b.compared for b in bots)
    options = sum(b.options for b in bots)
    assert compared > 20
    # every option is scored once the long way; the bounds leave some out
    assert sum(b.scored for b in bots) < 2 * options


class _PoolAndList(HeuristicAgent):
    """A heuristic bot that, for every option it scores, picks its targets from the pool looked at one by
    one and from the full listing, and checks the two agree (and that the pool lists what the listing does)."""

    def __init__(self, seed: int, style: Any) -> None:
        super().__init__(seed, style)
        self.compared = 0
        self.looked = 0
        self.listed = 0

    def evaluate(self, req: PlayRequest, opt: Any) -> Any:
        assert req.target_pool is not None and req.target_choices is not None and req.card_choices is not None
        cards: list[Any] = []
        if opt.card is None and not opt.recast:
            pool, lo, _hi = req.card_choices(opt)
            cards = list(pool[:lo])  # (some cards the option takes: the pool is checked against the listing below)
        tp = req.target_pool(opt, cards)
        cands, lo, hi = req.target_choices(opt, cards, [])
        assert (tp.lo, tp.hi) == (lo, hi) and tp.listed() == cands
        if hi > 0:
            kind, hints = self._kind_of(opt)
            elemental = kind is not None and kind.nature != "normal"
            seen: list[Any] = []

            def legal(p: Any) -> bool:
                seen.append(p)
                return tp.legal(p)

            assert self._pick_targets(tp.pool, lo, hi, hints, elemental, legal) == \
                self._pick_targets(cands, lo, hi, hints, elemental)
            self.compared += 1
            self.looked += len(seen)
            self.listed += len(tp.pool)
        return super().evaluate(req, opt)


@pytest.mark.parametrize("style", ["plain", "focus", "finish", "wary", "bold"])
@pytest.mark.parametrize(("rules", "players", "seed"), [("identity", 5, 2), ("identity_all", 8, 4), ("maneuvering", 5, 6)])
def test_targets_picked_from_the_pool_are_those_picked_from_the_listing(content: Any, style: str, rules: str,
                                                                        players: int, seed: int) -> None:
    """The heuristic bot looks at the targets of an option one by one (:class:`TargetPool`) and stops
    once it has its pick: the pick is the one it makes from the full listing, and it looks at fewer."""
    from sgs_runtime.agents.styles import NAMED

    g = Game(content, content.ruleset(rules), players=players, seed=seed, keep_log=False)
    bots = [_PoolAndList(seed * 31 + i, NAMED[style]) for i in range(players)]
    g.play(bots)
    assert sum(b.compared for b in bots) > 10
    assert sum(b.looked for b in bots) < sum(b.listed for b in bots)


@given(st.lists(st.booleans(), max_size=10), st.integers(0, 11))
def test_the_table_gathered_by_index_is_the_slices_joined(alive: list[bool], seat: int) -> None:
    """``Game.seats_from``, ``alive_from`` and ``after`` gather the players by index (game._round): the
    lists the joined slices gave."""
    from types import SimpleNamespace

    from sgs_runtime.resolution.game import _round

    ps: Any = [SimpleNamespace(seat=i, alive=a) for i, a in enumerate(alive)]
    living = [p for p in ps if p.alive]
    assert _round(ps, seat, seat, False) == ps[seat:] + ps[:seat]
    assert _round(ps, seat, seat, True) == [p for p in ps[seat:] if p in living] + [p for p in ps[:seat] if p in living]
    assert _round(ps, seat + 1, seat, True) == [p for p in ps[seat + 1:] if p in living] + \
        [p for p in ps[:seat] if p in living]


@pytest.mark.parametrize(("rules", "seed"), [("identity", 3), ("identity_all", 7)])
def test_a_limit_or_most_asked_as_its_quantity_is_what_its_snippet_gives(content: Any, rules: str, seed: int) -> None:
    """``limit: slash_uses(me)`` and ``max: slash_targets(me, card)`` are asked as their quantity
    (``QuantityCall``), with no frame and no snippet: the same numbers, at every play decision."""
    from sgs_runtime.resolution.quantities import quantity
    from sgs_runtime.state.frame import Frame

    g = Game(content, content.ruleset(rules), players=8, seed=seed, keep_log=False)
    compared = 0
    for req in _play_decisions(g, seed):
        p = req.player
        for card in p.hand.cards:
            use = card.kind.use
            if use is None:
                continue
            for call, fn in ((use.limit_call, use.limit), (use.targets.max_call, use.targets.max)):
                if call is not None and fn is not None:
                    args = [p if a == "me" else card for a in call.args]
                    assert quantity(g, call.name, args) == fn(Frame(g, {"me": p, "card": card}))
                    compared += 1
    assert compared > 20
    assert content.cards["slash"].use.limit_call is not None  # (the built-in Slash is asked so)


def test_a_beliefs_rows_are_its_probabilities_in_the_order_of_its_roles(content: Any) -> None:
    g = Game(content, content.ruleset("identity"), players=6, seed=9, keep_log=False)
    bots = [HeuristicAgent(90 + i) for i in range(6)]
    g.play(bots)
    for bot in bots:
        if bot.belief is None or bot.view is None:
            continue
        view = bot.view
        probs = bot.belief.probabilities(view)
        roles = bot.belief.roles(view)
        for seat in range(len(view.players)):
            assert dict(zip(roles, bot.belief.row(view, seat))) == probs[seat]
            assert bot.belief.leans(view)[seat] == bot.belief.lean(view, seat)
