"""The runtime: a game of Sanguosha played from compiled content.

The package is grouped by concern:

* :mod:`sgs_runtime.state` — what a table is at a moment: cards, zones and players
  (``model``), compiled content (``definitions``), events and timing points, which
  skills a player has now (``skillset``), what a card is now (``cardview``), who may
  see what (``visibility``, ``seatview``), remembered answers (``statecache``), and
  the redeal of what a seat cannot see (``redeal``);
* :mod:`sgs_runtime.resolution` — how things resolve: the game's driver (``game``),
  turns, triggers, card uses, response windows, moves, HP, judgement, the language's
  operations, requests and their legal answers, quantities and prohibitions;
* :mod:`sgs_runtime.agents` — who answers requests: the random agent, the heuristic
  bot and its reading of the hidden roles, the search bot, and the ``--agents`` spec;
* :mod:`sgs_runtime.runs` — bot games in bulk: simulation, backends, balance
  statistics, A/B runs and reports, role-reading figures, invariants, and copies of a
  game played out for search (``fork``);
* :mod:`sgs_runtime.records` — what a game leaves: replay from the decision log,
  sentences of the log, the presentation model for people, catalogue rows.

The names below are the small public face; they are imported when first used, so
``import sgs_runtime`` costs nothing.

>>> from sgs_dsl.loader import load_content
>>> from sgs_runtime import Game, RandomAgent
>>> content = load_content()
>>> game = Game(content, content.ruleset(None), players=5, seed=7)  # the default rules
>>> result = game.play([RandomAgent(seat) for seat in range(5)])
>>> result.winner_roles, result.reason
(['rebel'], 'the lord is dead')
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: public name -> the module that defines it
_PUBLIC = {
    "Game": "sgs_runtime.resolution.game",
    "GameResult": "sgs_runtime.resolution.game",
    "Limits": "sgs_runtime.resolution.game",
    "TableSetup": "sgs_runtime.resolution.game",
    "SeatSetup": "sgs_runtime.resolution.game",
    "SeatView": "sgs_runtime.state.seatview",
    "Content": "sgs_runtime.state.definitions",
    "Agent": "sgs_runtime.agents",
    "RandomAgent": "sgs_runtime.agents",
    "HeuristicAgent": "sgs_runtime.agents.bots",
    "play_actions": "sgs_runtime.resolution.legal",
    "simulate": "sgs_runtime.runs.simulate",
    "play_one": "sgs_runtime.runs.simulate",
    "replay": "sgs_runtime.records.replay",
    "transcript": "sgs_runtime.records.replay",
    "SgsError": "sgs_runtime.errors",
    "UsageError": "sgs_runtime.errors",
    "GameError": "sgs_runtime.errors",
    "IllegalDecision": "sgs_runtime.errors",
    "LimitExceeded": "sgs_runtime.errors",
}

__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'sgs_runtime' has no attribute '{name}'")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
