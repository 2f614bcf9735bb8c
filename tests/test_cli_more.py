"""More of the sgs command: options, several player counts, reports, agents, rules, play."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sgs_cli.main import main


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.output


def test_list_rules_json_names_what_each_extends() -> None:
    code, out = run("list", "rules", "--json")
    assert code == 0
    rows = {r["id"]: r for r in json.loads(out)}
    assert rows["identity"]["extends"] is None
    for rid in ("reincarnation", "two_players", "three_players", "first_game", "classic", "double_traitor"):
        assert rows[rid]["extends"] == "identity", rid
    assert rows["advanced_weapons"]["extends"] == "classic"


def test_simulate_option_chooses_a_role_table() -> None:
    code, out = run("simulate", "--players", "6", "--games", "10", "--seed", "1", "--json",
                    "--option", "role_table=six_two_traitors")
    assert code == 0
    rep = json.loads(out)
    assert rep["roles"]["traitor"]["seats"] == 20 and rep["options"] == {"role_table": "six_two_traitors"}


def test_simulate_unknown_option_is_a_usage_error() -> None:
    code, out = run("simulate", "--games", "2", "--option", "role_tabel=x")
    assert code == 2 and "role_table" in out


def test_simulate_unknown_role_table_is_a_usage_error() -> None:
    code, out = run("simulate", "--games", "2", "--option", "role_table=nope")
    assert code == 2 and "no role table 'nope'" in out


def test_simulate_several_player_counts() -> None:
    code, out = run("simulate", "--players", "5,8", "--games", "6", "--seed", "2", "--json")
    assert code == 0
    rep = json.loads(out)
    assert rep["players"] == [5, 8] and rep["games"] == 12
    assert set(rep["by_players"]) == {"5", "8"}
    assert sum(h["played"] for h in rep["heroes"].values()) == 6 * 5 + 6 * 8


@pytest.mark.parametrize("spec", ["heuristic", "heuristic@rebel", "random@lord+loyalist"])
def test_simulate_agent_specs(spec: str) -> None:
    code, out = run("simulate", "--games", "4", "--seed", "3", "--agents", spec, "--json")
    assert code == 0 and json.loads(out)["errors"] == 0


def test_simulate_unknown_agents_is_a_usage_error() -> None:
    code, out = run("simulate", "--games", "2", "--agents", "clever")
    assert code == 2 and "unknown agents" in out


def test_simulate_reports_reincarnations() -> None:
    code, out = run("simulate", "--rules", "reincarnation", "--games", "40", "--seed", "5", "--json")
    assert code == 0
    rep = json.loads(out)
    assert rep["errors"] == 0 and rep["reincarnations"] > 0
    assert rep["event_counts"]["revive"] == rep["reincarnations"]


def test_simulate_report_folder(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    code, out = run("simulate", "--players", "5,6", "--games", "5", "--seed", "4", "--report", str(tmp_path))
    assert code == 0
    assert (tmp_path / "index.html").is_file() and (tmp_path / "heroes.csv").is_file()


def test_play_a_whole_game_by_pressing_enter() -> None:
    # Enter takes each prompt's default: end the play phase, decline, the first choices
    code, out = run("play", "--players", "2", "--seed", "3", input="\n" * 20000)
    assert code == 0, out[-400:]
    assert "you won" in out or "you lost" in out


def test_play_rejects_a_bad_seat() -> None:
    code, out = run("play", "--players", "3", "--seat", "5")
    assert code == 2 and "--seat" in out
