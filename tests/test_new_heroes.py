"""The heroes of the wind pack, the gods, 杨修 and 袁术 as reference.md 4d/4e list them,
and the rules files that put them in the pool."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli

REFERENCE = {  # id: (名, kingdom, gender, HP, skills) — reference.md 4d and 4e
    "xiahouyuan": ("夏侯渊", "wei", "male", 4, ["shensu"]),
    "caoren": ("曹仁", "wei", "male", 4, ["jushou"]),
    "huangzhong": ("黄忠", "shu", "male", 4, ["liegong"]),
    "weiyan": ("魏延", "shu", "male", 4, ["kuanggu"]),
    "xiaoqiao": ("小乔", "wu", "female", 3, ["tianxiang", "hongyan"]),
    "zhoutai": ("周泰", "wu", "male", 4, ["buqu"]),
    "zhangjiao": ("张角", "qun", "male", 3, ["leiji", "guidao", "huangtian"]),
    "yuji": ("于吉", "qun", "male", 3, ["guhuo"]),
    "shenguanyu": ("神关羽", "god", "male", 5, ["wushen", "wuhun"]),
    "shenlvmeng": ("神吕蒙", "god", "male", 3, ["shelie", "gongxin"]),
    "yangxiu": ("杨修", "wei", "male", 3, ["jilei", "danlao"]),
    "yuanshu": ("袁术", "qun", "male", 4, ["yongsi", "weidi"]),
}


@pytest.mark.parametrize("pack,ids", [("wind", list(REFERENCE)[:8]), ("god", ["shenguanyu", "shenlvmeng"]),
                                      ("sp", ["yangxiu", "yuanshu"])])
def test_hero_packs_match_the_reference(pack: str, ids: list[str]) -> None:
    result = run_cli("list", "heroes", "--pack", pack, "--json")
    assert result.exit_code == 0
    got = {h["id"]: (h["name_zh"], h["kingdom"], h["gender"], h["hp"], h["skills"]) for h in json.loads(result.output)}
    assert got == {i: REFERENCE[i] for i in ids}


def test_the_pools_hold_every_new_hero() -> None:
    from sgs_dsl.loader import load_content
    from sgs_runtime.resolution.game import Game
    from sgs_runtime.resolution.turn import hero_pool

    content = load_content()
    for rules_id in ("identity_all", "maneuvering_all", "wind_revised"):
        pool = hero_pool(Game(content, content.ruleset(rules_id), players=5))
        assert set(REFERENCE) <= set(pool), rules_id
    revised = content.ruleset("wind_revised").skill_overrides
    assert revised["guhuo"] == "re_guhuo" and revised["buqu"] == "re_buqu"


def test_hero_packs_option_picks_the_pool() -> None:
    result = run_cli("simulate", "--rules", "identity_all", "--hero-packs", "wind,god", "--games", "3", "--json")
    assert result.exit_code == 0, result.output
    played = set(json.loads(result.output)["heroes"])
    assert played and played <= set(list(REFERENCE)[:10])
    bad = run_cli("simulate", "--hero-packs", "windy", "--games", "1")
    assert bad.exit_code == 2 and "unknown hero pack" in bad.output
