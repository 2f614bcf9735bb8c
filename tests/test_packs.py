"""Packs on top of the content: --pack, sgs.yaml, rules that extend built-in ones, --heroes-from.

The packs are in tests/fixtures/packs/: ``scholar`` (one hero with a draw-phase skill, and a
rules file extending identity), ``loose`` (loose files), and packs with errors.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import DIAGNOSTIC_LINE, FIXTURES, ROOT, run_cli, same_file

PACKS = FIXTURES / "packs"
SCHOLAR = PACKS / "scholar"
SCHOLAR_HEROES = SCHOLAR / "heroes" / "scholar.yaml"
SCHOLAR_RULES = SCHOLAR / "rules" / "scholar_identity.yaml"


def diagnostics(text: str) -> list[dict[str, Any]]:
    return [m.groupdict() for line in text.splitlines() if (m := DIAGNOSTIC_LINE.match(line))]


def simulate_json(*args: str) -> dict[str, Any]:
    result = run_cli("simulate", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


# ------------------------------------------------------------------ loading


def test_a_pack_validates_on_top_of_the_builtin_content() -> None:
    result = run_cli("validate", "--pack", str(SCHOLAR))
    assert result.exit_code == 0, result.output
    assert "content is valid" in result.stdout


def test_a_pack_adds_to_the_builtin_content_instead_of_replacing_it() -> None:
    from sgs_dsl.loader import load_content

    builtin = load_content()
    content = load_content(packs=[SCHOLAR])
    assert "shusheng" in content.heroes and "dushu" in content.skills
    assert content.heroes["shusheng"].pack == "scholar"
    assert content.hero_packs["scholar"] == ["shusheng"]
    assert set(builtin.heroes) < set(content.heroes)
    assert set(builtin.rulesets) | {"scholar_identity"} == set(content.rulesets)
    assert "shusheng" not in builtin.heroes  # the built-in content (cached) is left as it was


def test_every_command_that_loads_content_takes_pack() -> None:
    for command in (["validate"], ["list", "heroes"], ["scenario", "run"], ["simulate"], ["play"], ["replay"]):
        result = run_cli(*command, "--help")
        assert "--pack" in result.stdout, command


def test_list_adds_a_pack_folder_and_still_filters_by_a_pack_id() -> None:
    result = run_cli("list", "heroes", "--pack", str(SCHOLAR), "--pack", "scholar", "--json")
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in json.loads(result.stdout)] == ["shusheng"]
    builtin = run_cli("list", "heroes", "--pack", "standard", "--json")
    assert builtin.exit_code == 0 and len(json.loads(builtin.stdout)) == 25
    missing = run_cli("list", "heroes", "--pack", "./no_such_folder")
    assert missing.exit_code == 2 and "does not exist" in missing.output


def test_a_pack_of_loose_files() -> None:
    result = run_cli("list", "heroes", "--pack", str(PACKS / "loose"), "--pack", "loose_readers", "--json")
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in json.loads(result.stdout)] == ["dushuren"]


def test_pack_goes_on_top_of_a_content_tree(tmp_path: Path) -> None:
    for kind in ("cards", "heroes", "rules"):
        shutil.copytree(ROOT / kind, tmp_path / kind)
    result = run_cli("list", "heroes", "--content", str(tmp_path), "--pack", str(SCHOLAR), "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert "shusheng" in {r["id"] for r in rows} and "guanyu" in {r["id"] for r in rows}


def test_a_missing_pack_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("validate", "--pack", str(tmp_path / "nowhere"))
    assert result.exit_code == 2
    assert "does not exist" in result.output


# ------------------------------------------------------------------ the hero in play


def test_scenario_run_plays_a_case_with_the_pack_hero(tmp_path: Path) -> None:
    case = tmp_path / "dushu.yaml"
    case.write_text("""\
name: the scholar draws three in his draw phase
seats:
  - hero: shusheng
    role: lord
  - hero: guanyu
    role: rebel
draw_pile: [slash S7, jink D2, peach H3, slash S8]
turn: shusheng
phase: draw
stop: {after_phase: draw}
state:
  shusheng: {hand: [slash S7, jink D2, peach H3]}
""", encoding="utf-8")
    result = run_cli("scenario", "run", str(case), "--pack", str(SCHOLAR))
    assert result.exit_code == 0, result.output
    assert "1 passed, 0 failed" in result.stdout
    without = run_cli("scenario", "run", str(case))
    assert without.exit_code == 1  # the built-in content has no such hero


@pytest.mark.parametrize("heroes_from", ["scholar", str(SCHOLAR)])
def test_simulate_heroes_from_puts_the_pack_hero_in_the_pool(heroes_from: str) -> None:
    rep = simulate_json("--pack", str(SCHOLAR), "--heroes", "caocao,liubei,sunquan,guanyu",
                        "--heroes-from", heroes_from, "--players", "5", "--games", "4", "--seed", "3")
    assert rep["errors"] == 0
    assert set(rep["heroes"]) == {"caocao", "liubei", "sunquan", "guanyu", "shusheng"}
    assert rep["heroes"]["shusheng"]["played"] == 4  # a pool of five for five seats: in every game
    assert rep["skill_uses"].get("dushu", 0) > 0


def test_heroes_from_joins_the_rules_pool() -> None:
    rep = simulate_json("--pack", str(SCHOLAR), "--heroes-from", "scholar", "--games", "30", "--seed", "1")
    assert rep["errors"] == 0
    assert "shusheng" in rep["heroes"]
    assert set(rep["heroes"]) <= {"shusheng"} | set(_standard_heroes())


def test_simulate_with_workers_loads_the_packs_in_each_worker() -> None:
    args = ("--pack", str(SCHOLAR), "--heroes", "caocao,liubei,sunquan,guanyu", "--heroes-from", "scholar",
            "--games", "4", "--seed", "5")
    one, two = simulate_json(*args), simulate_json(*args, "--workers", "2")
    assert one["errors"] == two["errors"] == 0
    assert one["heroes"] == two["heroes"] and one["wins"] == two["wins"]


def test_heroes_from_errors() -> None:
    unknown = run_cli("simulate", "--pack", str(SCHOLAR), "--heroes-from", "scholr", "--games", "1")
    assert unknown.exit_code == 2
    assert "did you mean 'scholar'" in unknown.output
    not_loaded = run_cli("simulate", "--heroes-from", str(SCHOLAR), "--games", "1")
    assert not_loaded.exit_code == 2
    assert f"--pack {SCHOLAR}" in not_loaded.output


def test_replay_needs_the_packs_of_the_game(tmp_path: Path) -> None:
    from sgs_dsl.loader import load_content
    from sgs_runtime.agents import RandomAgent
    from sgs_runtime.records.narrate import story
    from sgs_runtime.records.replay import transcript
    from sgs_runtime.resolution.game import Game

    content = load_content(packs=[SCHOLAR])
    game = Game(content, content.ruleset("scholar_identity"), players=4, seed=9)  # a seed that seats the scholar
    game.play([RandomAgent(i) for i in range(4)])
    assert "shusheng" in {p.hero.id for p in game.players}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(transcript(game)), encoding="utf-8")
    result = run_cli("replay", str(path), "--pack", str(SCHOLAR))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == story(game.log)
    assert run_cli("replay", str(path)).exit_code == 1  # played with other content


def _standard_heroes() -> list[str]:
    from sgs_dsl.loader import load_content

    return load_content().hero_packs["standard"]


# ------------------------------------------------------------------ rules that extend built-in ones


def test_a_pack_rules_file_extends_identity() -> None:
    from sgs_dsl.loader import load_content

    content = load_content(packs=[SCHOLAR])
    identity, mine = content.ruleset("identity"), content.ruleset("scholar_identity")
    assert mine.extends == "identity"
    assert mine.hero_packs == (*identity.hero_packs, "scholar")  # extended, not replaced
    assert mine.card_packs == identity.card_packs
    assert mine.options == {**identity.options, "library_open": False}
    assert mine.player_skills == (*identity.player_skills, "library")
    assert [p.id for p in mine.phases] == [p.id for p in identity.phases]
    assert set(mine.role_tables) == set(identity.role_tables)


def test_the_extended_rules_play_with_their_option() -> None:
    rep = simulate_json("--pack", str(SCHOLAR), "--rules", "scholar_identity", "--option", "library_open=true",
                        "--games", "10", "--seed", "2")
    assert rep["errors"] == 0 and rep["rules"] == "scholar_identity"
    assert rep["skill_uses"].get("library", 0) > 0  # every player has the rules' skill
    closed = simulate_json("--pack", str(SCHOLAR), "--rules", "scholar_identity", "--games", "5", "--seed", "2")
    assert closed["skill_uses"].get("library", 0) == 0  # the option is off by default


def test_add_player_skills_keeps_the_inherited_ones(tmp_path: Path) -> None:
    from sgs_dsl.loader import load_content

    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "classic_plus.yaml").write_text(
        "id: classic_plus\nextends: classic\nadd_player_skills: [yingzi]\nadd_cards: [maneuvering]\n", encoding="utf-8")
    content = load_content(packs=[tmp_path])
    classic, plus = content.ruleset("classic"), content.ruleset("classic_plus")
    assert plus.player_skills == (*classic.player_skills, "yingzi")
    assert plus.card_packs == (*classic.card_packs, "maneuvering")


def test_add_heroes_names_a_hero_pack(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    bad = tmp_path / "rules" / "mine.yaml"
    bad.write_text("id: mine\nextends: identity\nadd_heroes: [scholr]\nadd_player_skills: [dush]\n", encoding="utf-8")
    result = run_cli("validate", "--pack", str(SCHOLAR), "--pack", str(tmp_path))
    assert result.exit_code == 1
    found = {(d["line"], d["col"], d["code"]): d["message"] for d in diagnostics(result.stdout)
             if same_file(d["file"], bad)}
    assert "did you mean 'scholar'" in found[("3", "14", "E300")]
    assert "did you mean 'dushu'" in found[("4", "21", "E300")]


def test_an_unknown_extends_is_reported_at_its_position() -> None:
    result = run_cli("validate", "--pack", str(PACKS / "bad_extends"))
    assert result.exit_code == 1
    [d] = diagnostics(result.stdout)
    assert same_file(d["file"], PACKS / "bad_extends" / "rules" / "bad_extends.yaml")
    assert (d["line"], d["col"], d["code"]) == ("3", "10", "E300")
    assert "unknown rules 'identiy' to extend (did you mean 'identity'?)" in d["message"]


def test_rules_that_extend_each_other_are_an_error() -> None:
    result = run_cli("validate", "--pack", str(PACKS / "cycle"))
    assert result.exit_code == 1
    found = diagnostics(result.stdout)
    assert {(Path(d["file"]).name, d["line"], d["code"]) for d in found} == {
        ("cycle_a.yaml", "3", "E310"), ("cycle_b.yaml", "2", "E310")}
    assert any("cycle_a -> cycle_b -> cycle_a" in d["message"] for d in found)


# ------------------------------------------------------------------ clashes and errors in a pack


def test_ids_of_a_pack_that_clash_with_builtin_ones() -> None:
    result = run_cli("validate", "--pack", str(PACKS / "clash"))
    assert result.exit_code == 1
    clash = PACKS / "clash" / "heroes" / "clash.yaml"
    found = {(d["line"], d["col"]): d for d in diagnostics(result.stdout)}
    assert all(same_file(d["file"], clash) and d["code"] == "E310" for d in found.values()), result.stdout
    assert "duplicate hero pack id 'standard'" in found[("2", "7")]["message"]
    assert "heroes/standard.yaml" in found[("2", "7")]["message"]
    assert "duplicate id 'guanyu' (already a hero in" in found[("4", "9")]["message"]
    assert "duplicate id 'yingzi' (already a skill in" in found[("11", "9")]["message"]


def test_two_packs_may_not_share_a_pack_id(tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(PACKS / "loose", other)
    text = (other / "reader.yaml").read_text(encoding="utf-8").replace("dushuren", "dushuren2")
    (other / "reader.yaml").write_text(text, encoding="utf-8")
    result = run_cli("validate", "--pack", str(PACKS / "loose"), "--pack", str(other))
    assert result.exit_code == 1
    [d] = diagnostics(result.stdout)
    assert same_file(d["file"], other / "reader.yaml") and d["code"] == "E310"
    assert "duplicate hero pack id 'loose_readers'" in d["message"] and "the pack " in d["message"]


def test_an_error_in_a_pack_names_the_pack_file(tmp_path: Path) -> None:
    pack = tmp_path / "typo"
    shutil.copytree(SCHOLAR, pack)
    heroes = pack / "heroes" / "scholar.yaml"
    heroes.write_text(heroes.read_text(encoding="utf-8").replace("event.count += 1", "event.cuont += 1"),
                      encoding="utf-8")
    result = run_cli("simulate", "--pack", str(pack), "--games", "1")
    assert result.exit_code == 1
    [d] = diagnostics(result.stderr)
    assert same_file(d["file"], heroes) and d["code"] == "E304"
    assert d["line"] == "26"


def test_a_pack_loads_the_same_from_the_cache() -> None:
    first = run_cli("validate", "--pack", str(PACKS / "clash"), "--format", "json")
    again = run_cli("validate", "--pack", str(PACKS / "clash"), "--format", "json")
    assert first.stdout == again.stdout and first.exit_code == again.exit_code == 1
    ok = run_cli("validate", "--pack", str(SCHOLAR))
    assert ok.exit_code == 0 and "content is valid" in ok.stdout


# ------------------------------------------------------------------ sgs.yaml


def _project(tmp_path: Path, config: str) -> Path:
    shutil.copytree(SCHOLAR, tmp_path / "packs" / "scholar")
    (tmp_path / "sgs.yaml").write_text(config, encoding="utf-8")
    return tmp_path


def test_the_config_file_lists_the_packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_project(tmp_path, "# the packs of this folder\npacks:\n  - packs/scholar\n"))
    result = run_cli("list", "heroes", "--pack", "scholar", "--json")
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in json.loads(result.stdout)] == ["shusheng"]
    assert "content is valid" in run_cli("validate").stdout
    rep = simulate_json("--heroes", "caocao,liubei,sunquan,guanyu", "--heroes-from", "packs/scholar", "--games", "2")
    assert rep["heroes"]["shusheng"]["played"] == 2


def test_pack_on_the_command_line_replaces_the_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_project(tmp_path, "packs: [packs/scholar]\n"))
    result = run_cli("list", "heroes", "--pack", str(PACKS / "loose"), "--json")
    ids = {r["id"] for r in json.loads(result.stdout)}
    assert "dushuren" in ids and "shusheng" not in ids


def test_no_config_file_no_packs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("list", "heroes", "--json")
    assert result.exit_code == 0
    assert "shusheng" not in {r["id"] for r in json.loads(result.stdout)}


@pytest.mark.parametrize("config, line, col, code, words", [
    ("packs:\n  - packs/scholar\n  - packs/nowhere\n", 3, 5, "E105", "the pack folder 'packs/nowhere' does not exist"),
    ("packs: [packs/scholar\n", 2, 1, "E100", "YAML"),
    ("pakcs: [packs/scholar]\n", 1, 1, "E110", "did you mean 'packs'"),
    ("packs: packs/scholar\n", 1, 8, "E111", "a list of folders"),
    ("- packs/scholar\n", 1, 1, "E111", "a mapping with 'packs:'"),
])
def test_a_malformed_config_file_is_reported_at_its_position(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             config: str, line: int, col: int, code: str,
                                                             words: str) -> None:
    monkeypatch.chdir(_project(tmp_path, config))
    result = run_cli("validate")
    assert result.exit_code == 2
    found = diagnostics(result.stderr)
    assert found, result.output
    d = found[0]
    assert (d["file"], int(d["line"]), int(d["col"]), d["code"]) == ("sgs.yaml", line, col, code), result.stderr
    assert words in d["message"]
    assert "config file" in result.stderr
    # --pack given: the config file is not read
    assert run_cli("validate", "--pack", str(SCHOLAR)).exit_code == 0
