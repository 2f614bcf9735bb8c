"""The `sgs` command: exit codes, output formats and reproducible simulation (design 7.1)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import PASSING_CASE, TESTS, copy_builtin_tree, run_cli

SUITS = {"spade", "heart", "club", "diamond"}
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed$")
TIMING = ("seconds", "games_per_second")


def no_traceback(result: Any) -> None:
    assert "Traceback" not in result.output


# ------------------------------------------------------------------ validate


def test_validate_builtin_content() -> None:
    result = run_cli("validate")
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "content is valid"


def test_validate_builtin_content_json() -> None:
    result = run_cli("validate", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == []


def test_validate_builtin_content_github() -> None:
    result = run_cli("validate", "--format", "github")
    assert result.exit_code == 0, result.output
    assert "::error" not in result.stdout


def test_validate_content_copy(tmp_path: Path) -> None:
    root = copy_builtin_tree(tmp_path / "copy")
    result = run_cli("validate", "--content", str(root))
    assert result.exit_code == 0, result.output


def test_installed_command_runs_from_any_folder(tmp_path: Path) -> None:
    exe = shutil.which("sgs") or str(Path(sys.executable).with_name("sgs"))
    proc = subprocess.run([exe, "validate"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "content is valid" in proc.stdout


def test_validate_errors_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("pack: x\nheroes:\n  - id: a\n    hp: four\n", encoding="utf-8")
    result = run_cli("validate", str(bad))
    assert result.exit_code == 1
    assert "E11" in result.stdout
    no_traceback(result)


@pytest.mark.parametrize("args", [
    ["validate", "--no-such-option"],
    ["validate", "does/not/exist.yaml"],
    ["validate", "--content", "does/not/exist"],
    ["validate", "--format", "xml"],
    ["validate", "--content", "pyproject.toml"],
    ["list"],
    ["list", "everything"],
    ["scenario", "run"],
    ["scenario", "run", "does/not/exist"],
    ["simulate", "--players", "11"],
    ["simulate", "--games", "0"],
    ["simulate", "--workers", "zero"],
    ["no-such-command"],
])
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = run_cli(*args)
    assert result.exit_code == 2, (args, result.output)
    no_traceback(result)
    assert "Error:" in result.output or "error:" in result.output


def test_missing_path_names_the_path() -> None:
    result = run_cli("validate", "does/not/exist.yaml")
    assert result.exit_code == 2
    assert "does/not/exist.yaml" in result.output


# ------------------------------------------------------------------ list


def list_json(*args: str) -> list[dict[str, Any]]:
    result = run_cli("list", *args, "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert isinstance(rows, list) and rows
    return rows


def test_list_deck_json() -> None:
    rows = list_json("deck")
    card_ids = {r["id"] for r in list_json("cards")}
    for r in rows:
        assert {"id", "name_zh", "name_en", "suit", "rank"} <= set(r)
        assert r["suit"] in SUITS
        assert isinstance(r["rank"], int) and not isinstance(r["rank"], bool) and 1 <= r["rank"] <= 13
        assert r["id"] in card_ids
        assert r["name_zh"] and r["name_en"]


def test_list_deck_standard_pack() -> None:
    rows = list_json("deck", "--pack", "standard")
    assert len(rows) == 104
    assert Counter(r["suit"] for r in rows) == {s: 26 for s in SUITS}
    # every suit and rank appears exactly twice in the standard deck
    assert set(Counter((r["suit"], r["rank"]) for r in rows).values()) == {2}
    assert Counter(r["id"] for r in rows)["slash"] == 30


def test_list_heroes_json() -> None:
    rows = list_json("heroes")
    skills = {r["id"] for r in list_json("skills")}
    for r in rows:
        assert {"id", "name_zh", "name_en", "kingdom", "gender", "hp", "skills", "pack"} <= set(r)
        assert r["gender"] in ("male", "female")
        assert isinstance(r["hp"], int) and 1 <= r["hp"] <= 10
        assert isinstance(r["skills"], list) and all(s in skills for s in r["skills"])
        assert isinstance(r["pack"], str) and r["pack"]
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids))
    by_id = {r["id"]: r for r in rows}
    assert by_id["caocao"]["kingdom"] == "wei" and by_id["caocao"]["name_zh"] == "曹操"
    assert by_id["xiahoudun"]["skills"] == ["ganglie"]


def test_list_heroes_pack_filter() -> None:
    rows = list_json("heroes", "--pack", "standard")
    assert rows and all(r["pack"] == "standard" for r in rows)


def test_list_unknown_pack() -> None:
    result = run_cli("list", "deck", "--pack", "no_such_pack")
    assert result.exit_code == 1
    assert "no_such_pack" in result.output
    no_traceback(result)


def test_list_text_rows() -> None:
    result = run_cli("list", "heroes")
    assert result.exit_code == 0
    assert "caocao" in result.stdout and "曹操" in result.stdout


def test_list_rules_json() -> None:
    rows = list_json("rules")
    assert "identity" in {r["id"] for r in rows}


def test_list_with_content_copy(tmp_path: Path) -> None:
    root = copy_builtin_tree(tmp_path / "copy")
    heroes = root / "heroes" / "standard.yaml"
    heroes.write_text(heroes.read_text(encoding="utf-8").replace("en: Cao Cao}", "en: Cao Mengde}", 1),
                      encoding="utf-8")
    result = run_cli("list", "heroes", "--json", "--content", str(root))
    assert result.exit_code == 0, result.output
    by_id = {r["id"]: r for r in json.loads(result.stdout)}
    assert by_id["caocao"]["name_en"] == "Cao Mengde"


def test_commands_refuse_broken_content(tmp_path: Path) -> None:
    root = copy_builtin_tree(tmp_path / "copy")
    (root / "heroes" / "broken.yaml").write_text("pack: broken\nheroes:\n  - id: x\n    hp: four\n", encoding="utf-8")
    result = run_cli("list", "heroes", "--content", str(root))
    assert result.exit_code == 1
    assert "broken.yaml:" in result.output
    no_traceback(result)


def test_default_rules_come_from_the_content(tmp_path: Path) -> None:
    root = copy_builtin_tree(tmp_path / "copy")
    ident = root / "rules" / "identity.yaml"
    ident.write_text(ident.read_text(encoding="utf-8").replace("default: true\n", "", 1), encoding="utf-8")
    three = root / "rules" / "three_players.yaml"
    three.write_text(three.read_text(encoding="utf-8").replace("\nextends:", "\ndefault: true\nextends:", 1),
                     encoding="utf-8")
    result = run_cli("simulate", "--players", "3", "--games", "2", "--json", "--content", str(root))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rules"] == "three_players"


def test_two_default_rules_files_are_an_error(tmp_path: Path) -> None:
    root = copy_builtin_tree(tmp_path / "copy")
    three = root / "rules" / "three_players.yaml"
    three.write_text(three.read_text(encoding="utf-8").replace("\nextends:", "\ndefault: true\nextends:", 1),
                     encoding="utf-8")
    result = run_cli("validate", "--content", str(root))
    assert result.exit_code == 1
    assert re.search(r"three_players\.yaml:\d+:\d+: E310 .*both marked default", result.output), result.output
    no_traceback(result)


def test_no_default_rules_asks_for_one(tmp_path: Path) -> None:
    root = copy_builtin_tree(tmp_path / "copy")
    ident = root / "rules" / "identity.yaml"
    ident.write_text(ident.read_text(encoding="utf-8").replace("default: true\n", "", 1), encoding="utf-8")
    result = run_cli("simulate", "--games", "1", "--content", str(root))
    assert result.exit_code == 2
    assert "no rules file is marked 'default: true'" in result.output
    no_traceback(result)


# ------------------------------------------------------------------ scenario run


def test_scenario_run_builtin_cases() -> None:
    result = run_cli("scenario", "run", str(TESTS / "scenarios"))
    lines = result.stdout.strip().splitlines()
    m = SUMMARY.match(lines[-1])
    assert m, lines[-1:]
    passed, failed = int(m[1]), int(m[2])
    assert passed + failed > 0
    assert result.exit_code == (0 if failed == 0 else 1)
    assert sum(1 for ln in lines if ln.startswith("FAIL ")) == failed


def test_scenario_run_json_agrees_with_text() -> None:
    text = run_cli("scenario", "run", str(TESTS / "scenarios"))
    m = SUMMARY.match(text.stdout.strip().splitlines()[-1])
    assert m
    js = run_cli("scenario", "run", str(TESTS / "scenarios"), "--json")
    data = json.loads(js.stdout)
    assert (data["passed"], data["failed"]) == (int(m[1]), int(m[2]))
    assert len(data["cases"]) == data["passed"] + data["failed"]


def test_scenario_run_counts_failures(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(PASSING_CASE, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(PASSING_CASE.replace("name: Ex Nihilo draws two", "name: Ex Nihilo draws three")
                                       .replace("hand: [slash S7, jink D2]}", "hand: [slash S7, jink D2, peach H3]}"),
                                       encoding="utf-8")
    result = run_cli("scenario", "run", str(tmp_path))
    assert result.exit_code == 1
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "1 passed, 1 failed"
    fails = [ln for ln in lines if ln.startswith("FAIL ")]
    assert len(fails) == 1 and "bad.yaml" in fails[0] and "Ex Nihilo draws three" in fails[0]


def test_scenario_run_all_passing(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text(PASSING_CASE, encoding="utf-8")
    result = run_cli("scenario", "run", str(tmp_path / "good.yaml"))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == "1 passed, 0 failed"


def test_scenario_run_reports_broken_cases_without_traceback(tmp_path: Path) -> None:
    (tmp_path / "bad_yaml.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    (tmp_path / "bad_key.yaml").write_text(PASSING_CASE.replace("decisions:", "decsions:"), encoding="utf-8")
    (tmp_path / "good.yaml").write_text(PASSING_CASE, encoding="utf-8")
    result = run_cli("scenario", "run", str(tmp_path))
    assert result.exit_code == 1
    no_traceback(result)
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "1 passed, 2 failed"
    fails = {ln.split(":", 1)[0].removeprefix("FAIL "): ln for ln in lines if ln.startswith("FAIL ")}
    assert len(fails) == 2
    bad_key = next(v for k, v in fails.items() if k.endswith("bad_key.yaml"))
    assert re.search(r"bad_key\.yaml:11:1: E110 unknown key 'decsions' \(did you mean 'decisions'\?\)", bad_key)
    bad_yaml = next(v for k, v in fails.items() if k.endswith("bad_yaml.yaml"))
    assert "E100" in bad_yaml


# ------------------------------------------------------------------ simulate


def simulate(*extra: str) -> dict[str, Any]:
    result = run_cli("simulate", "--players", "5", "--games", "30", "--seed", "7", "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def without_timing(report: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in report.items() if k not in TIMING}


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return simulate()


def test_simulate_report_fields(report: dict[str, Any]) -> None:
    for key in ("games", "errors", "wins", "seconds", "games_per_second", "turns_mean", "heroes"):
        assert key in report
    assert report["games"] == 30
    assert report["errors"] == 0, report.get("error_samples")
    assert isinstance(report["seconds"], (int, float)) and report["seconds"] >= 0
    assert report["turns_mean"] > 0
    assert set(report["wins"]) <= {"lord", "loyalist", "rebel", "traitor"}
    assert sum(report["wins"].values()) > 0
    for row in report["heroes"].values():
        assert {"played", "won"} <= set(row)
        assert 0 <= row["won"] <= row["played"]
    # five seats a game
    assert sum(row["played"] for row in report["heroes"].values()) == 5 * report.get("finished", 30)


def test_simulate_is_reproducible(report: dict[str, Any]) -> None:
    again = simulate()
    assert without_timing(again) == without_timing(report)


def test_simulate_other_seed_differs(report: dict[str, Any]) -> None:
    result = run_cli("simulate", "--players", "5", "--games", "30", "--seed", "8", "--json")
    assert result.exit_code == 0
    assert without_timing(json.loads(result.stdout)) != without_timing(report)


def test_simulate_workers_do_not_change_the_result(report: dict[str, Any]) -> None:
    assert without_timing(simulate("--workers", "2")) == without_timing(report)
    assert without_timing(simulate("--workers", "1")) == without_timing(report)


def test_simulate_json_stays_clean_with_progress() -> None:
    result = run_cli("simulate", "--players", "4", "--games", "5", "--seed", "1", "--json", "--progress")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 5


def test_simulate_unknown_rules() -> None:
    result = run_cli("simulate", "--rules", "no_such_rules", "--games", "1")
    assert result.exit_code == 2
    assert "no_such_rules" in result.output
    assert "identity" in result.output  # names the rules that exist
    no_traceback(result)


def test_simulate_unknown_hero() -> None:
    result = run_cli("simulate", "--heroes", "caocao,no_such_hero", "--games", "1")
    assert result.exit_code == 2
    assert "no_such_hero" in result.output
    no_traceback(result)


def test_simulate_text_report() -> None:
    result = run_cli("simulate", "--players", "2", "--games", "3", "--seed", "2")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("3 games, 2 players, rules identity, seed 2: 0 errors")


def test_play_rejects_a_bad_seat() -> None:
    result = run_cli("play", "--players", "4", "--seat", "7")
    assert result.exit_code == 2
    no_traceback(result)


def test_version() -> None:
    result = run_cli("--version")
    assert result.exit_code == 0
    assert re.search(r"\d+\.\d+", result.output)

