"""Golden playthroughs: a seeded game's event log, compared line by line with a stored copy.

Any change in how a game resolves shows up here as the first differing record. When
a change is intended (new content, a corrected rule), regenerate with

    SGS_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py

and read the diff of tests/golden/ before committing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sgs_dsl.loader import load_content
from sgs_runtime.agents import RandomAgent
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.resolution.game import Game

GOLDEN = Path(__file__).parent / "golden"
CASES = [
    ("identity", 5, 3, "random"),
    ("identity", 8, 4, "heuristic"),
    ("reincarnation", 5, 5, "heuristic"),
    ("reincarnation", 5, 2, "random"),
]


def playthrough(rules: str, players: int, seed: int, agents: str) -> list[str]:
    content = load_content()
    game = Game(content, content.ruleset(rules), players=players, seed=seed)
    make = RandomAgent if agents == "random" else HeuristicAgent
    game.play([make(seed * 31 + i) for i in range(players)])
    # card moves are implied by the records around them; leaving them out keeps the file readable
    return [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in game.log if r.get("event") != "move"]


@pytest.mark.parametrize("rules, players, seed, agents", CASES)
def test_golden_playthrough(rules: str, players: int, seed: int, agents: str) -> None:
    path = GOLDEN / f"{rules}_{players}p_seed{seed}_{agents}.jsonl"
    lines = playthrough(rules, players, seed, agents)
    if os.environ.get("SGS_UPDATE_GOLDEN"):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stored = path.read_text(encoding="utf-8").splitlines()
    for i, (got, want) in enumerate(zip(lines, stored)):
        assert got == want, f"{path.name}, record {i}: got\n{got}\nexpected\n{want}"
    assert len(lines) == len(stored), f"{path.name}: {len(lines)} records, expected {len(stored)}"
