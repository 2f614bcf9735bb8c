"""Engine mechanisms shown with small test content next to the built-in packs."""

from __future__ import annotations

from pathlib import Path

import pytest

from sgs_dsl.loader import build
from sgs_dsl.scenarios import run_document
from sgs_dsl.yamlsafe import load_text

HEROES = """# yaml-language-server: $schema=../sgs_dsl/schemas/heroes.schema.json
pack: mechanisms_test
heroes:
  - id: tester
    name: {zh: 测试, en: Tester}
    kingdom: qun
    gender: male
    hp: 3
    skills: [shrink]
skills:
  - id: shrink
    name: {zh: 缩减, en: Shrink}
    active:
      do: |
        me.max_hp -= 5
"""

RULES = """# yaml-language-server: $schema=../sgs_dsl/schemas/rules.schema.json
id: after_card_only
extends: identity
runtime:
  skills_after_card: true
"""


@pytest.fixture(scope="module")
def content(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    folder: Path = tmp_path_factory.mktemp("mechanisms")
    (folder / "heroes_test.yaml").write_text(HEROES, encoding="utf-8")
    (folder / "rules_test.yaml").write_text(RULES, encoding="utf-8")
    loaded, diags = build(None, [folder / "heroes_test.yaml", folder / "rules_test.yaml"])
    assert [d for d in diags if d.severity == "error"] == []
    return loaded


def case(content, text: str):  # type: ignore[no-untyped-def]
    return run_document(content, load_text(text, "case.yaml"))


def test_max_hp_down_to_zero_kills(content) -> None:  # type: ignore[no-untyped-def]
    result = case(content, """
name: max HP 0 is death
seats:
  - {hero: tester, role: rebel}
  - {hero: caocao, role: lord}
  - {hero: guanyu, role: loyalist}
draw_pile: [jink D2, jink D3, jink D4]
turn: tester
phase: play
decisions:
  - tester: {skill: shrink}
stop: {after_phase: play}
expect:
  - not tester.alive
  - tester.max_hp == 0
events:
  - {event: max_hp, player: tester, max_hp: 0}
  - {event: death, player: tester}
""")
    assert result.passed, result.reason


def test_skills_after_card_alone_keeps_a_dying_players_skills(content) -> None:  # type: ignore[no-untyped-def]
    # 陆逊 rescues himself with his last card: 连营 waits for the Peach to resolve, then draws
    result = case(content, """
name: 连营 after a self-rescue under skills_after_card
rules: after_card_only
seats:
  - {hero: zhangfei, role: lord, hand: [slash S7]}
  - {hero: luxun, role: rebel, hp: 1, hand: [peach H3]}
  - {hero: guanyu, role: loyalist}
draw_pile: [jink D2, jink D3, jink D4]
turn: zhangfei
phase: play
decisions:
  - zhangfei: {use: slash S7, targets: [luxun]}
  - luxun: {respond: peach H3}
  - luxun: {invoke: lianying}
stop: {after_phase: play}
expect:
  - luxun.alive
  - count(luxun.hand) == 1
events:
  - {event: recover, player: luxun, card: peach H3}
  - {event: skill, player: luxun, skill: lianying}
  - {event: draw, player: luxun, count: 1}
""")
    assert result.passed, result.reason
