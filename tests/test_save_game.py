"""`sgs simulate --save-game N FILE`: one game of a bot run played again and saved as a transcript.

A run's game is reproducible from its seed and its deal: the saved game is the very game the run
played (the same winners, turns and steps), and `sgs replay` plays its transcript back to the same end.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_cli

from sgs_dsl.loader import load_content
from sgs_runtime.records.replay import TranscriptError, check_record, replay
from sgs_runtime.runs.simulate import fair_deals, game_record, play_games

CONTENT = load_content()


@pytest.mark.parametrize("fair_pool, pool", [(False, None), (True, None),
                                             (False, ["caocao", "liubei", "sunquan", "guanyu", "zhangfei",
                                                      "zhaoyun", "machao", "huangyueying"])])
def test_the_saved_game_is_the_game_the_run_played(fair_pool: bool, pool: list[str] | None) -> None:
    run = dict(rules_id="identity", players=5, games=6, seed=9, agents="heuristic", hero_pool=pool)
    deals = fair_deals(CONTENT, "identity", 5, 6, 9, pool) if fair_pool else None
    played, _ = play_games(CONTENT, rules_id="identity", players=5, games=6, seed=9, agents="heuristic",
                           hero_pool=pool, deals=deals)
    for index in (0, 4):
        summary, record = game_record(CONTENT, index=index, fair_pool=fair_pool, **run)  # type: ignore[arg-type]
        want = played[index]
        assert (summary.winners, summary.turns, summary.events, summary.heroes) == \
               (want.winners, want.turns, want.events, want.heroes)
        assert ("deal" in record) == fair_pool and ("hero_pool" in record) == (pool is not None)
        game = replay(CONTENT, json.loads(json.dumps(record)))  # (as read back from the file)
        assert game.result is not None and list(game.result.winners) == want.winners
        assert [p.name for p in game.players] == [h for h, _ in want.heroes]


def test_cli_saves_a_game_that_sgs_replay_tells(tmp_path: Path) -> None:
    out = tmp_path / "game2.json"
    result = run_cli("simulate", "--players", "5", "--games", "8", "--seed", "3", "--fair-pool",
                     "--save-game", "2", str(out))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("game 2 (seed ") and f"written to {out}" in result.output
    told = run_cli("replay", str(out))
    assert told.exit_code == 0, told.output
    assert "game over" in told.output


@pytest.mark.parametrize("args, message", [
    (["--save-game", "8", "x.json"], "there is no game 8"),
    (["--players", "5,8", "--save-game", "0", "x.json"], "one player count"),
    (["--force-hero", "guanyu", "--save-game", "0", "x.json"], "without --compare or --force-hero"),
])
def test_cli_save_game_usage_errors(args: list[str], message: str) -> None:
    result = run_cli("simulate", "--games", "8", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("field, value, message", [
    ("hero_pool", "caocao", "'hero_pool' must be a list of hero ids"),
    ("hero_pool", ["caocoa"], "the hero 'caocoa', which the content does not have (did you mean 'caocao'?)"),
    ("deal", ["caocao"], "'deal' must be an object"),
    ("deal", {"lrod": ["caocao"]}, "the role 'lrod'"),
])
def test_a_transcript_with_a_wrong_pool_or_deal_is_refused(field: str, value: object, message: str) -> None:
    _, record = game_record(CONTENT, rules_id="identity", players=5, games=2, seed=1, index=0)
    record[field] = value
    with pytest.raises(TranscriptError, match=re.escape(message)):
        check_record(CONTENT, record)
