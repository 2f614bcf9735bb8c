"""Hostile effect snippets: each ends in the project's own error, at its file, line and column.

Deeply nested expressions and blocks (E201), a quantity defined in terms of itself (E312),
type errors the checker must catch (E301/E306), and usage errors of `sgs simulate`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import copy_builtin_tree, run_cli

from sgs_dsl.loader import check_content
from sgs_dsl.parser import MAX_NESTING

HERO_PACK = """\
pack: hostile_test
name: {{zh: 测试, en: Test}}
heroes:
  - id: hostile_hero
    name: {{zh: 测试者, en: Tester}}
    kingdom: wei
    gender: male
    hp: 4
    skills: [hostile_skill]
skills:
  - id: hostile_skill
    name: {{zh: 测试, en: Test}}
    trigger:
      on: damaged
      if: {cond}
      do: |
{body}
"""


def _pack(tmp_path: Path, cond: str = "true", body: str = "draw 1") -> Path:
    text = HERO_PACK.format(cond=cond, body="\n".join("        " + line for line in body.splitlines()))
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _codes(diags: list) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    return [(d.code, d.line) for d in diags if d.severity == "error"]


@pytest.mark.parametrize("cond", ["1" + " + 1" * 400 + " > 0", "not " * 300 + "true",
                                  "(" * 150 + "1" + " + 1)" * 150 + " > 0", "me" + ".hp" * 1 + " ==" + " -" * 300 + "1"])
def test_a_deep_condition_is_E201(tmp_path: Path, cond: str) -> None:
    diags = check_content(None, [_pack(tmp_path, cond=cond)])
    assert ("E201", 15) in _codes(diags), diags


def test_deeply_nested_blocks_are_E201(tmp_path: Path) -> None:
    body = "".join("  " * i + "if true:\n" for i in range(120)) + "  " * 120 + "draw 1"
    diags = check_content(None, [_pack(tmp_path, body=body)])
    codes = _codes(diags)
    assert codes and codes[0][0] == "E201", diags


def test_redundant_parentheses_do_not_nest(tmp_path: Path) -> None:
    assert _codes(check_content(None, [_pack(tmp_path, cond="(" * 300 + "true" + ")" * 300)])) == []


def test_nesting_below_the_limit_is_fine(tmp_path: Path) -> None:
    cond = "1" + " + 1" * (MAX_NESTING // 3) + " > 0"
    assert _codes(check_content(None, [_pack(tmp_path, cond=cond)])) == []


@pytest.mark.parametrize("body, code, line", [
    ("event.count += players", "E301", 17),
    ("me.mark(x) = jink", "E301", 17),
    ("choose -1 hand card as c", "E301", 17),
    ("event.amount += 1", "E306", 17),
])
def test_type_errors_are_caught_at_validate(tmp_path: Path, body: str, code: str, line: int) -> None:
    text = _pack(tmp_path, body=body).read_text(encoding="utf-8")
    if "count +=" in body:
        text = text.replace("on: damaged", "on: before_draw")
    if "mark(x)" in body:
        text = text.replace("skills:\n  - id: hostile_skill\n", "skills:\n  - id: hostile_skill\n    marks: {x: {}}\n")
        line += 1
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    got = _codes(check_content(None, [path]))
    assert (code, line) in got, got


def test_a_quantity_defined_in_terms_of_itself_is_E312(tmp_path: Path) -> None:
    tree = copy_builtin_tree(tmp_path / "tree")
    rules = tree / "rules" / "identity.yaml"
    text = rules.read_text(encoding="utf-8")
    text = text.replace("    base: p.hp\n", "    base: hand_limit(p) + 1\n", 1)
    rules.write_text(text, encoding="utf-8")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "hand_limit(p) + 1" in ln)
    diags = check_content(tree)
    assert ("E312", line) in _codes(diags), diags
    assert any("hand_limit -> hand_limit" in d.message for d in diags)
    result = run_cli("validate", "--content", str(tree))
    assert result.exit_code == 1 and "E312" in result.output and "Traceback" not in result.output


def test_a_deep_expectation_in_a_rule_case_is_a_failure_not_a_traceback(tmp_path: Path) -> None:
    case = tmp_path / "deep.yaml"
    case.write_text("name: deep\nseats:\n  - hero: caocao\n    role: lord\n  - hero: liubei\n    role: rebel\n"
                    "turn: caocao\nphase: play\ndecisions:\n  - caocao: end\nstop: {after_phase: play}\n"
                    "expect:\n  - " + "not " * 300 + "true\n", encoding="utf-8")
    result = run_cli("scenario", "run", str(case))
    assert result.exit_code == 1
    assert "E201" in result.output and "Traceback" not in result.output


def test_a_hero_pool_too_small_is_one_usage_error() -> None:
    result = run_cli("simulate", "--heroes", "caocao,liubei", "--players", "5", "--games", "3")
    assert result.exit_code == 2
    assert result.output.count("each seat needs one") == 1


def test_deep_snippets_in_a_game_run(tmp_path: Path) -> None:
    """Just below the limit, a snippet compiles and runs inside a game's deep stack."""
    from sgs_dsl.loader import load_content
    from sgs_runtime.agents import RandomAgent
    from sgs_runtime.resolution.game import Game

    cond = "1" + " + 1" * (MAX_NESTING - 5) + " > 0"
    content = load_content(None, [_pack(tmp_path, cond=cond)])
    g = Game(content, content.ruleset(), players=4, seed=2, hero_pool=["hostile_hero", "caocao", "liubei",
                                                                       "sunquan", "zhangfei", "guanyu"])
    g.play([RandomAgent(i) for i in range(4)])
    assert g.result is not None


@pytest.mark.parametrize("args, code, words", [
    (["simulate", "--agents", "heuristic@emperor", "--games", "1"], 2, "no role 'emperor'"),
    (["simulate", "--agents", "heuristic@", "--games", "1"], 2, "names no role"),
    (["simulate", "--games", "1", "--report", "/proc/no/such/folder"], 1, "cannot write the report"),
])
def test_simulate_usage_is_a_sentence(args: list[str], code: int, words: str) -> None:
    result = run_cli(*args)
    assert result.exit_code == code and words in result.output and "Traceback" not in result.output
