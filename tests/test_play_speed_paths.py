"""The shortcuts taken for speed give the answers the long way gives (whole games, fixed seeds)."""

from __future__ import annotations

from typing import Any

import pytest

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
    bots = [HeuristicAgent(seed * 31 + i) for i in range(5)]
    checked = 0
    req = g.start()
    while req is not None:
        if isinstance(req, PlayRequest):
            p = req.player
            for card in p.hand.cards:
                spec = target_spec(card)
                if card.kind.use is None or spec.mode != "choose":
                    continue
                full = candidates(g, p, card, spec)
                assert has_targets(g, p, card, spec) == (len(full) >= max(spec.min, 1))
                checked += 1
        req = g.answer(ask_agent(g, bots[req.player.seat], req))
    assert checked > 0
