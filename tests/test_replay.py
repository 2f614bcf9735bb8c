"""A game is reproducible from its seed and its decision log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sgs_cli.main import main
from sgs_dsl.loader import load_content
from sgs_runtime.agents import RandomAgent
from sgs_runtime.agents.bots import HeuristicAgent
from sgs_runtime.errors import GameError
from sgs_runtime.records.narrate import narrate, story
from sgs_runtime.records.replay import replay, transcript
from sgs_runtime.resolution.game import Game

CONTENT = load_content()


@pytest.mark.parametrize("rules, players, seed, agent", [
    ("identity", 5, 11, RandomAgent), ("identity", 8, 12, HeuristicAgent), ("reincarnation", 5, 2, RandomAgent),
    ("classic", 4, 13, RandomAgent),
])
def test_a_transcript_replays_the_same_game(rules: str, players: int, seed: int, agent: type) -> None:
    g = Game(CONTENT, CONTENT.ruleset(rules), players=players, seed=seed)
    g.play([agent(seed * 7 + i) for i in range(players)])
    record = json.loads(json.dumps(transcript(g)))  # through JSON, as a saved file
    again = replay(CONTENT, record)
    assert again.log == g.log
    assert again.result is not None and g.result is not None
    assert again.result.as_dict() == g.result.as_dict()


def test_a_transcript_that_does_not_fit_is_a_clear_error() -> None:
    g = Game(CONTENT, CONTENT.ruleset("identity"), players=5, seed=3)
    g.play([RandomAgent(i) for i in range(5)])
    record = transcript(g)
    record["seed"] = 4  # another deal: the decisions no longer fit
    with pytest.raises(GameError):
        replay(CONTENT, record)


def test_sgs_replay_tells_the_game(tmp_path: Path) -> None:
    g = Game(CONTENT, CONTENT.ruleset("identity"), players=4, seed=21)
    g.play([RandomAgent(i) for i in range(4)])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(transcript(g)), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0
    assert result.output.splitlines() == story(g.log)
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(bad)])
    assert result.exit_code == 1 and "not a game transcript" in result.output


def test_every_record_of_a_game_reads_as_a_sentence() -> None:
    g = Game(CONTENT, CONTENT.ruleset("reincarnation"), players=6, seed=1)
    g.play([RandomAgent(i) for i in range(6)])
    for record in g.log:
        line = narrate(record)
        assert line is None or not line.startswith(record["event"] + ":"), line  # no raw fallback


def test_sgs_replay_tells_a_seats_view(tmp_path: Path) -> None:
    """--seat N: the other seats' drawn cards are counts; --spectator: nobody's hand is named."""
    g = Game(CONTENT, CONTENT.ruleset("identity_all"), players=4, seed=5)
    g.play([RandomAgent(i) for i in range(4)])
    path = tmp_path / "game.json"
    path.write_text(json.dumps(transcript(g)), encoding="utf-8")
    everything = CliRunner().invoke(main, ["replay", "--json", str(path)])
    seat0 = CliRunner().invoke(main, ["replay", "--json", "--seat", "0", str(path)])
    watcher = CliRunner().invoke(main, ["replay", "--json", "--spectator", str(path)])
    assert everything.exit_code == seat0.exit_code == watcher.exit_code == 0
    full = [json.loads(line) for line in everything.output.splitlines()]
    mine = [json.loads(line) for line in seat0.output.splitlines()]
    seen = [json.loads(line) for line in watcher.output.splitlines()]
    assert len(full) == len(mine) == len(seen)
    drawn = [i for i, r in enumerate(full) if r.get("event") == "move" and r.get("reason") == "draw"]
    assert drawn
    for i in drawn:
        owner = full[i]["seen"]
        assert isinstance(seen[i]["cards"], int)
        assert isinstance(mine[i]["cards"], list) == (0 in owner)
    bad = CliRunner().invoke(main, ["replay", "--seat", "9", str(path)])
    assert bad.exit_code == 2 and "Traceback" not in bad.output


@pytest.mark.parametrize("rules,players,agent", [("identity", 5, RandomAgent), ("wind_revised", 8, HeuristicAgent),
                                                 ("maneuvering_all", 6, RandomAgent), ("identity_all", 8, HeuristicAgent)])
def test_the_decision_log_reads_back_every_answer_as_encode_writes_it(rules: str, players: int, agent: type) -> None:
    """The log keeps each answer as plain tuples; read back, each is what :func:`encode` makes of the answer
    given (cards by id, players by seat, play actions and responses as objects of fields)."""
    from sgs_runtime.records.replay import DecisionLog, encode
    from sgs_runtime.state.visibility import unmask_answer

    given: list[tuple[int, str, object]] = []

    class Noting:
        def __init__(self, seed: int) -> None:
            self.bot = agent(seed)

        def decide(self, request: object, view: object) -> object:
            answer = self.bot.decide(request, view)
            # (the request as the seat saw it: its place holders of hidden cards stand for the cards)
            given.append((request.player.seat, request.kind, unmask_answer(request, answer)))  # type: ignore[attr-defined]
            return answer

    content = load_content()
    for seed in range(3):
        given.clear()
        g = Game(content, content.ruleset(rules), players=players, seed=seed)
        g.play([Noting(seed * 10 + i) for i in range(players)])
        assert isinstance(g.decisions, DecisionLog) and len(g.decisions) == len(given)
        expected = [{"player": seat, "kind": kind, "answer": encode(answer)} for seat, kind, answer in given]
        assert list(g.decisions) == expected and g.decisions == expected and g.decisions[:3] == expected[:3]
        kinds = {kind for _, kind, _ in given}
        assert {"play", "respond"} <= kinds
        first = g.decisions[0]
        first["answer"] = "changed"  # what the log gives out is a copy
        assert g.decisions[0] != first
