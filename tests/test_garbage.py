"""What a game makes and drops is freed by reference counting: no reference cycles per decision.

A cycle is found only by the cyclic collector, whose young collections run after every few hundred
objects made and not freed; a request whose callables referred to one another (closures do in the
compiled build: a closure's environment holds the closures that call each other) left some twenty
objects per decision for it, and cost a heuristic game 8% of its time. The game's own state (players,
zones, cards, the game and its running turn) does refer to itself, and is the only cyclic garbage left.
This module runs in the compiled build too (``tools/compiled.py check``), where closures make cycles
that they do not make in Python.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest

from sgs_runtime.resolution.game import Game
from sgs_runtime.runs.simulate import make_agent

#: what a decision makes and drops (requests, their options, target pools and the objects that answer for them)
DECISION_TYPES = {"PlayRequest", "PlayOption", "TargetPool", "_PlayAsks", "_RespondAsks", "_Suits", "RespondRequest",
                  "RespondOption", "CardsRequest", "PlayersRequest", "OptionRequest"}


def _closure_like(name: str) -> bool:
    """A Python closure or its cell, or what the compiled build makes of a nested function (``…_obj``)
    and of the variables it shares (``…_env``)."""
    return name in ("function", "cell") or name.endswith(("_env", "_obj"))


def cyclic_garbage(play: Any) -> set[str]:
    """The type names of the objects left in reference cycles by ``play()`` and what it dropped."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        play()
        gc.collect()
        return {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize("agents", ["heuristic", "random"])
@pytest.mark.parametrize("rules,players", [("identity", 5), ("maneuvering", 6)])
def test_a_games_cyclic_garbage_is_its_own_state_only(content: Any, agents: str, rules: str, players: int) -> None:
    def play() -> None:
        g = Game(content, content.ruleset(rules), players=players, seed=4, keep_log=False)
        g.play([make_agent(agents, 40 + i) for i in range(players)])

    kinds = cyclic_garbage(play)
    assert "Game" in kinds  # (the game's own state refers to itself: the check saw the garbage)
    leaked = sorted(k for k in kinds if k in DECISION_TYPES or _closure_like(k))
    assert not leaked, f"left in reference cycles: {leaked}"


def test_a_game_collects_less_while_it_plays_and_gives_the_threshold_back(content: Any) -> None:
    from sgs_runtime.resolution.game import YOUNG_THRESHOLD

    seen: list[int] = []

    class Watching:
        """A random bot that notes the young generation's threshold at each decision."""

        def __init__(self, seed: int) -> None:
            self.bot = make_agent("random", seed)

        def decide(self, request: Any, view: Any) -> Any:
            seen.append(gc.get_threshold()[0])
            return self.bot.decide(request, view)

    before = gc.get_threshold()
    try:
        for young in (700, 50_000, 0):  # Python's; one set higher by the program; automatic collection off
            gc.set_threshold(young, before[1], before[2])
            seen.clear()
            g = Game(content, content.ruleset("identity"), players=4, seed=6, keep_log=False)
            g.play([Watching(60 + i) for i in range(4)])
            assert seen and set(seen) == {YOUNG_THRESHOLD if young == 700 else young}
            assert gc.get_threshold()[0] == young  # given back (or never taken)
    finally:
        gc.set_threshold(*before)


def test_a_game_that_fails_gives_the_threshold_back(content: Any) -> None:
    class Failing:
        def decide(self, request: Any, view: Any) -> Any:
            raise RuntimeError("a bot that breaks")

    before = gc.get_threshold()
    g = Game(content, content.ruleset("identity"), players=4, seed=6, keep_log=False)
    with pytest.raises(RuntimeError):
        g.play([Failing() for _ in range(4)])
    assert gc.get_threshold() == before
