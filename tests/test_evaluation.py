"""The search bot's position evaluation: the fitted model, its features, and horizon rollouts scored by it."""

from __future__ import annotations

import os
from typing import Any

import pytest

from sgs_runtime.agents import evaluation
from sgs_runtime.agents.beliefs import role_table
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.records.replay import encode
from sgs_runtime.resolution.game import Game
from sgs_runtime.resolution.requests import PlayRequest
from sgs_runtime.runs import fork
from sgs_runtime.state.seatview import ask_agent


def midgame(content: Any, identity: Any, seed: int, turns: int = 4) -> tuple[Game, Any]:
    """A 5-player game played by heuristic bots until a play request after ``turns`` turns."""
    game = Game(content, identity, players=5, seed=seed, keep_log=False)
    bots = [HeuristicAgent(seed * 31 + i) for i in range(5)]
    req = game.start()
    while req is not None and not (isinstance(req, PlayRequest) and req.options and game.turn_number > turns):
        req = game.answer(ask_agent(game, bots[req.player.seat], req))
    assert req is not None
    return game, req


def test_the_model_file_reads_the_features_and_says_what_it_was_fitted_on() -> None:
    m = evaluation.model()
    assert m.names == evaluation.FEATURES and set(m.weights) == set(evaluation.SIDES)
    info = m.info or {}
    assert info["games"] > 0 and info["log_loss"] < info["base_log_loss"]  # it knows more than the base rates


def test_a_model_of_other_features_is_refused_with_a_sentence() -> None:
    with pytest.raises(ValueError, match="fit it again"):
        evaluation.Model.from_dict({"features": ["bias", "hp"], "weights": {s: [0, 0] for s in evaluation.SIDES}})


def test_the_sides_chances_add_up_and_every_seat_gets_its_sides(content: Any, identity: Any) -> None:
    game, _ = midgame(content, identity, 5)
    xs = evaluation.features(game)
    assert len(xs) == len(evaluation.FEATURES)
    probs = evaluation.model().probabilities(xs)
    assert abs(sum(probs.values()) - 1.0) < 1e-9
    for p in game.players:
        v = evaluation.value(game, p.seat)
        assert 0.0 <= v <= 1.0
    lord_side = [p.seat for p in game.players if role_table(identity).side(p.role) == "lord"]
    assert len({evaluation.value(game, s) for s in lord_side}) == 1  # a side shares its chance


def test_the_lords_side_loses_chances_with_the_lords_hp(content: Any, identity: Any) -> None:
    game, _ = midgame(content, identity, 7)
    lord = next(p for p in game.players if identity.roles[p.role].lord_skills)
    before = evaluation.value(game, lord.seat)
    lord.hp = 1
    assert evaluation.value(game, lord.seat) < before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="this platform cannot fork")
def test_a_rollout_with_a_horizon_is_scored_by_the_evaluation(content: Any, identity: Any) -> None:
    game, req = midgame(content, identity, 9)
    seat = req.player.seat
    answer = encode(HeuristicAgent(1).decide(req, game.view_for(seat)))
    got = fork.rollouts(game, seat, [(answer, s) for s in range(4)], max_turns=1)
    assert all(g is not None and 0.0 <= g <= 1.0 for g in got)
    assert any(g not in (0.0, 0.5, 1.0) for g in got)  # positions, not ends: chances between
    assert got == fork.rollouts(game, seat, [(answer, s) for s in range(4)], max_turns=1, method="replay")


def test_the_fit_learns_a_side_that_the_features_tell() -> None:
    """benchmarks/fit_evaluation.py's Newton fit on made-up positions: the side whose players are alive wins."""
    np = pytest.importorskip("numpy")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    import fit_evaluation

    rng = np.random.default_rng(1)
    n = 600
    x = np.zeros((n, len(evaluation.FEATURES)))
    x[:, 0] = 1.0
    y = rng.integers(0, len(evaluation.SIDES), n)
    for i, side in enumerate(evaluation.SIDES):
        column = evaluation.FEATURES.index(f"{side}_side_alive")
        x[:, column] = rng.random(n) * 0.3 + np.where(y == i, 0.5, 0.0)
    w = fit_evaluation.fit(x, y)
    loss, accuracy = fit_evaluation.scores(w, x, y)
    assert accuracy > 0.95 and loss < 0.3
