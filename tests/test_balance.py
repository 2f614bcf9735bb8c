"""Balance statistics (sgs_runtime/runs/stats.py, abtest.py): intervals and tests on known numbers, the
balanced deal, A/B runs that find a strengthened hero, and the report's files, warnings and fields."""

from __future__ import annotations

import csv
import importlib.util
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import copy_builtin_tree, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from sgs_dsl.loader import content_spec, load_content
from sgs_runtime.resolution.game import Limits
from sgs_runtime.runs.abtest import Arm, changed_heroes, compare
from sgs_runtime.runs.simulate import TIMING_FIELDS, play_one, run_report, simulate
from sgs_runtime.runs.stats import (
    MIN_SAMPLE,
    balanced_deals,
    chi2_sf,
    force_hero,
    heterogeneity,
    paired_difference,
    two_proportion,
    warnings,
    wilson,
)

BALANCE = Path(__file__).parent / "fixtures" / "balance"
WEAK, STRONG = BALANCE / "weak", BALANCE / "strong"


@pytest.fixture(scope="module")
def content():  # type: ignore[no-untyped-def]
    return load_content()


def _strip(rep: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in rep.items() if k not in TIMING_FIELDS}


# ---------------------------------------------------------------------- known numbers


def test_wilson_interval_on_known_numbers() -> None:
    assert wilson(0, 10) == (0.0, 0.2775)
    assert wilson(10, 10) == (0.7225, 1.0)
    assert wilson(5, 10) == (0.2366, 0.7634)
    assert wilson(0, 0) == (0.0, 0.0)


def test_two_proportion_z_test_on_known_numbers() -> None:
    d = two_proportion(45, 100, 60, 100)  # pooled rate 0.525: z = 0.15 / sqrt(0.525 * 0.475 * 0.02)
    assert d["diff"] == 0.15
    assert d["z"] == 2.124 and d["p"] == 0.0337
    assert d["ci95"] == (0.0132, 0.2868)  # 0.15 ± 1.96 * sqrt(0.45 * 0.55 / 100 + 0.6 * 0.4 / 100)
    same = two_proportion(0, 20, 0, 20)
    assert same["z"] == 0 and same["p"] == 1.0


def test_paired_difference_is_mcnemar_on_known_numbers() -> None:
    pairs = [(True, False)] * 5 + [(False, True)] * 15 + [(True, True)] * 40 + [(False, False)] * 40
    d = paired_difference(pairs)
    assert (d["pairs"], d["won_in_a_only"], d["won_in_b_only"]) == (100, 5, 15)
    assert d["diff"] == 0.1 and d["z"] == 2.2361 and d["p"] == 0.0253  # (15 - 5) / sqrt(20)
    assert d["ci95"] == (0.0146, 0.1854)  # 0.1 ± 1.96 * sqrt(20 - 10 ** 2 / 100) / 100
    alike = paired_difference([(True, True), (False, False)])
    assert alike["diff"] == 0 and alike["p"] == 1.0 and alike["ci95"] == (0.0, 0.0)


@pytest.mark.parametrize("paired", [True, False])
def test_tests_keep_their_false_positive_rate(paired: bool) -> None:
    # A and B alike (each seat wins with probability 0.4): at most about 5% of the runs are flagged
    rng = random.Random(11)
    runs, flagged = 600, 0
    for _ in range(runs):
        pairs = [(rng.random() < 0.4, rng.random() < 0.4) for _ in range(150)]
        if paired:
            p = paired_difference(pairs)["p"]
        else:
            p = two_proportion(sum(a for a, _ in pairs), 150, sum(b for _, b in pairs), 150)["p"]
        flagged += p < 0.05
    assert flagged / runs <= 0.075


# ---------------------------------------------------------------------- the balanced deal


def _role_counts(deals: list[dict[str, list[str]]]) -> Counter[tuple[str, str]]:
    return Counter((h, r) for d in deals for r, hs in d.items() for h in hs)


@settings(max_examples=40, deadline=None)
@given(heroes=st.integers(5, 30), games=st.integers(1, 120), seed=st.integers(0, 1000),
       table=st.sampled_from([["lord", "loyalist", "rebel", "rebel", "traitor"],
                              ["lord", "loyalist", "loyalist", "rebel", "rebel", "rebel", "rebel", "traitor"],
                              ["lord", "rebel"]]),
       not_lords=st.integers(0, 3))
def test_balanced_deal_gives_each_hero_each_role_within_one(heroes: int, games: int, seed: int, table: list[str],
                                                             not_lords: int) -> None:
    pool = [f"h{i}" for i in range(max(heroes, len(table) + 1))]  # one hero to spare, and two lords or more:
    barred = set(pool[:min(not_lords, len(pool) - 2)])              # else a fair deal may not exist (below)
    deals = balanced_deals(pool, table, games, seed, "lord", lambda h: h not in barred)
    assert len(deals) == games
    for d in deals:
        dealt = [h for hs in d.values() for h in hs]
        assert len(dealt) == len(set(dealt)) == len(table)  # one hero a seat, no hero twice
        assert {r: len(hs) for r, hs in d.items()} == Counter(table)
        assert not set(d["lord"]) & barred  # the rules' lord choices
    counts = _role_counts(deals)
    for role in set(table):
        got = [counts[(h, role)] for h in pool if role != "lord" or h not in barred]
        assert max(got) - min(got) <= 1, (role, got)
    assert balanced_deals(pool, table, games, seed, "lord", lambda h: h not in barred) == deals


def test_a_pool_that_cannot_be_dealt_fairly_is_refused() -> None:
    # five heroes for five seats: each plays every game, and the one that may not be lord would need
    # more seats of the other roles than a fair share gives
    from sgs_runtime.errors import UsageError

    with pytest.raises(UsageError, match="cannot be dealt fairly"):
        balanced_deals(["a", "b", "c", "d", "e"], ["lord", "loyalist", "rebel", "rebel", "traitor"], 5, 0, "lord",
                       lambda h: h != "a")
    with pytest.raises(UsageError, match="at least 5 heroes"):
        balanced_deals(["a", "b", "c", "d"], ["lord", "loyalist", "rebel", "rebel", "traitor"], 5, 0, "lord")


def test_fair_pool_simulation_is_balanced_with_workers(content) -> None:  # type: ignore[no-untyped-def]
    pool = [*content.hero_packs["standard"], "old_ganning"]  # old_ganning may not be the lord (seed 001)
    one = simulate(content, players=5, games=26, seed=3, fair_pool=True, hero_pool=pool)
    two = simulate(content, players=5, games=26, seed=3, fair_pool=True, hero_pool=pool, workers=2, batch_size=5)
    assert _strip(one) == _strip(two)
    fair = two["fair_pool"]
    assert all(spread <= 1 for spread in fair["spread"].values())
    assert "lord" not in fair["counts"]["old_ganning"]
    lords = [c.get("lord", 0) for h, c in fair["counts"].items() if h != "old_ganning"]
    assert sum(lords) == 26 and max(lords) - min(lords) <= 1
    assert two["pool"] == "fair" and one["hero_roles"]["old_ganning"]["roles"].get("lord") is None


def test_forced_hero_goes_round_the_seats() -> None:
    deals = balanced_deals([f"h{i}" for i in range(8)], ["lord", "loyalist", "rebel", "rebel", "traitor"], 50, 1,
                           "lord")
    forced, replaced = force_hero(deals, "x", 1, "lord", hero_can_be_lord=False)
    roles = Counter(r for d in forced for r, hs in d.items() if "x" in hs)
    # four places it may take (one loyalist, two rebels, one traitor), in turn: 12 or 13 games each
    assert sum(roles.values()) == 50 and "lord" not in roles
    assert roles["loyalist"] in (12, 13) and roles["traitor"] in (12, 13) and 24 <= roles["rebel"] <= 26
    for d, old, new in zip(deals, replaced, forced):
        assert old in [h for hs in d.values() for h in hs] and old not in [h for hs in new.values() for h in hs]


# ---------------------------------------------------------------------- A/B


@pytest.fixture(scope="module")
def arms() -> tuple[Arm, Arm]:
    return (Arm("weak", load_content(packs=[WEAK]), content_spec(None, [WEAK])),
            Arm("strong", load_content(packs=[STRONG]), content_spec(None, [STRONG])))


def test_compare_finds_the_strengthened_hero(arms: tuple[Arm, Arm]) -> None:
    weak, strong = arms
    assert changed_heroes(weak.content, strong.content) == ["tester"]
    rep = compare(weak, strong, players=5, games=40, seed=5, force="tester")
    c = rep["compare"]
    d = c["focus"]["tester"]
    assert d["pairs"] == 40 and d["diff"] > 0 and d["ci95"][0] > 0 and d["p"] < 0.05 and d["significant"]
    assert d["test"].startswith("paired")
    assert sum(c["forced_roles"].values()) == 40 and set(c["forced_roles"]) == {"lord", "loyalist", "rebel", "traitor"}
    assert rep["baseline"]["games"] == rep["games"] == 40


def test_compare_of_a_tree_with_itself_flags_nothing(arms: tuple[Arm, Arm]) -> None:
    weak, _ = arms
    rep = compare(weak, weak, players=5, games=12, seed=2, force="tester")
    c = rep["compare"]
    assert c["changed_heroes"] == []
    for table in (c["focus"], c["roles"], c["heroes"]):
        assert all(d["diff"] == 0 and d["p"] == 1.0 and not d["significant"] for d in table.values())


def test_compare_checks_the_invariants_of_both_arms(arms: tuple[Arm, Arm], monkeypatch: pytest.MonkeyPatch) -> None:
    weak, strong = arms
    from sgs_runtime.runs import invariants

    real = invariants.check

    def planted(g: Any, **kw: Any) -> list[str]:  # a broken invariant in the strong arm's games only
        return ["planted"] if g.content is strong.content else real(g, **kw)

    monkeypatch.setattr(invariants, "check", planted)
    rep = compare(weak, strong, players=[2, 5], games=3, seed=3, force="tester", check=True)
    assert rep["checked"] and rep["violations"] == 6
    assert {(v["arm"], v["players"]) for v in rep["violation_samples"]} == {("strong", 2), ("strong", 5)}
    assert rep["baseline"]["violations"] == 0
    monkeypatch.setattr(invariants, "check", real)
    clean = compare(weak, strong, players=5, games=3, seed=3, force="tester", check=True)
    assert clean["violations"] == 0 and clean["compare"] == compare(weak, strong, players=5, games=3, seed=3,
                                                                    force="tester")["compare"]


def test_cli_compare_with_check_reports_the_invariants() -> None:
    result = run_cli("simulate", "--games", "3", "--players", "5", "--compare", str(WEAK), str(STRONG),
                     "--force-hero", "tester", "--check")
    assert result.exit_code == 0, result.output
    assert "invariants checked after every step of both arms: 0 violation(s)" in result.output


def test_compare_over_several_player_counts_pools_the_pairs(arms: tuple[Arm, Arm]) -> None:
    weak, strong = arms
    rep = compare(weak, strong, players=[5, 6], games=16, seed=3, force="tester")
    c = rep["compare"]
    assert c["players"] == [5, 6] and c["paired_by"].startswith("player count")
    by = {n: rep["by_players"][n]["compare"] for n in ("5", "6")}
    one = compare(weak, strong, players=6, games=16, seed=3, force="tester")["compare"]
    assert by["6"]["focus"] == one["focus"]  # each count's figures are that count's run
    d = c["focus"]["tester"]
    assert d["pairs"] == 32 == sum(f["focus"]["tester"]["pairs"] for f in by.values())
    # the pooled B − A is the mean of the counts' (the same number of pairs in each)
    assert d["diff"] == pytest.approx(sum(f["focus"]["tester"]["diff"] for f in by.values()) / 2, abs=1e-4)
    assert d["diff"] > 0 and d["significant"]
    # the rebels' seats: two a game at 5 players, three at 6
    assert c["roles"]["rebel"]["pairs"] == 16 * 2 + 16 * 3
    assert sum(c["forced_roles"].values()) == 32
    assert rep["games"] == rep["baseline"]["games"] == 32
    assert all(w.startswith(("5 players: ", "6 players: ")) for w in rep["warnings"])
    het = d["counts_differ"]
    assert het["df"] == 1 and 0 <= het["p"] <= 1 and het == heterogeneity([f["focus"]["tester"] for f in by.values()])


def test_chi_squared_tail_and_heterogeneity_on_known_numbers() -> None:
    # the 5% points of chi-squared with 1 to 4 degrees of freedom, and the median of 1 degree
    for x, df in ((3.841459, 1), (5.991465, 2), (7.814728, 3), (9.487729, 4)):
        assert chi2_sf(x, df) == pytest.approx(0.05, abs=1e-6)
    assert chi2_sf(0.454936, 1) == pytest.approx(0.5, abs=1e-6)
    assert chi2_sf(0.0, 3) == 1.0
    # two counts with opposite differences of 20 points (40 changed pairs of 100 each): Q = 2·0.2²/var
    a = {"pairs": 100, "won_in_a_only": 10, "won_in_b_only": 30}
    b = {"pairs": 100, "won_in_a_only": 30, "won_in_b_only": 10}
    var = (40 - 20 ** 2 / 100) / 100 ** 2
    got = heterogeneity([a, b])
    assert got is not None and got["q"] == pytest.approx(2 * 0.2 ** 2 / var, abs=1e-3) and got["df"] == 1
    assert heterogeneity([a, dict(a), dict(a)]) == {"test": "Cochran's Q over the player counts", "q": 0.0, "df": 2,
                                                     "p": 1.0, "counts": 3}
    # a count where no pair changed tells nothing of the noise: left out, and one count is no test
    assert heterogeneity([a, {"pairs": 50, "won_in_a_only": 0, "won_in_b_only": 0}]) is None


def test_cli_compare_two_content_trees(tmp_path: Path) -> None:
    a, b = copy_builtin_tree(tmp_path / "a"), copy_builtin_tree(tmp_path / "b")
    heroes = b / "heroes" / "standard.yaml"
    text = heroes.read_text(encoding="utf-8")
    # B's 夏侯惇 has 10 HP instead of 4, and 英姿 (one more card each draw phase) beside 刚烈
    strong, n = re.subn(r"(- id: xiahoudun\n(?:    .*\n)*?    hp: )4\n    skills: \[ganglie\]",
                        r"\g<1>10\n    skills: [ganglie, yingzi]", text)
    assert n == 1
    heroes.write_text(strong, encoding="utf-8")
    out = tmp_path / "report"
    charts = importlib.util.find_spec("matplotlib") is not None  # the report needs the report extra
    result = run_cli("simulate", "--players", "5", "--games", "30", "--seed", "4", "--json", "--agents", "heuristic",
                     "--compare", str(a), str(b), "--force-hero", "xiahoudun", *(["--report", str(out)] if charts else []))
    assert result.exit_code == 0, result.output
    rep = json.loads(result.stdout)
    c = rep["compare"]
    assert c["changed_heroes"] == ["xiahoudun"] and c["forced"] == "xiahoudun"
    d = c["focus"]["xiahoudun"]
    assert d["diff"] > 0 and d["p"] < 0.05 and d["significant"]
    if not charts:
        return
    with (out / "compare.csv").open(encoding="utf-8") as f:
        rows = {(r["kind"], r["name"]): r for r in csv.DictReader(f)}
    assert float(rows[("focus", "xiahoudun")]["diff"]) == d["diff"]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert '<h2 id="compare">A/B</h2>' in page and "xiahoudun" in page and page.count("<svg") == 3


def test_cli_forced_hero_against_a_baseline() -> None:
    result = run_cli("simulate", "--games", "10", "--seed", "1", "--json", "--force-hero", "guanyu")
    assert result.exit_code == 0, result.output
    c = json.loads(result.stdout)["compare"]
    assert c["mode"] == "baseline" and c["forced"] == "guanyu" and c["focus"]["guanyu"]["pairs"] == 10


def test_cli_forced_hero_over_two_player_counts(tmp_path: Path) -> None:
    result = run_cli("simulate", "--games", "6", "--seed", "1", "--players", "5,6", "--force-hero", "guanyu")
    assert result.exit_code == 0, result.output
    assert "all of 5, 6 players, pooled:" in result.output
    assert "  5 players:" in result.output and "  6 players:" in result.output
    result = run_cli("simulate", "--games", "6", "--seed", "1", "--players", "5,6", "--force-hero", "guanyu", "--json")
    rep = json.loads(result.stdout)
    assert rep["compare"]["players"] == [5, 6] and rep["compare"]["focus"]["guanyu"]["pairs"] == 12
    assert rep["by_players"]["5"]["compare"]["focus"]["guanyu"]["pairs"] == 6
    if importlib.util.find_spec("matplotlib") is None:  # the report needs the report extra
        return
    out = tmp_path / "report"
    result = run_cli("simulate", "--games", "6", "--seed", "1", "--players", "5,6", "--force-hero", "guanyu",
                     "--report", str(out))
    assert result.exit_code == 0, result.output
    with (out / "compare.csv").open(encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    rows = [(r["players"], r["kind"], r["name"]) for r in table]
    assert ("all", "focus", "guanyu") in rows and ("5", "focus", "guanyu") in rows and ("6", "role", "lord") in rows
    pooled = next(r for r in table if (r["players"], r["kind"], r["name"]) == ("all", "focus", "guanyu"))
    het = rep["compare"]["focus"]["guanyu"]["counts_differ"]
    assert pooled["counts_differ_p"] == ("" if het is None else str(het["p"]))
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "<h3>5 players</h3>" in page and "<h3>6 players</h3>" in page


@pytest.mark.parametrize("args, message", [
    (["--force-hero", "guanyo"], "no hero 'guanyo' (did you mean 'guanyu'?)"),
    (["--compare", "docs", str(WEAK)], "is not content"),
    (["--compare", "no_such_folder", str(WEAK)], "no_such_folder does not exist"),
    (["--compare", "README.md", str(WEAK)], "is not a folder"),
])
def test_cli_balance_usage_errors(args: list[str], message: str) -> None:
    result = run_cli("simulate", "--games", "2", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


# ---------------------------------------------------------------------- report and JSON


def test_json_carries_the_balance_fields() -> None:
    result = run_cli("simulate", "--players", "5", "--games", "12", "--seed", "6", "--json", "--fair-pool")
    assert result.exit_code == 0, result.output
    rep = json.loads(result.stdout)
    for key in ("hero_roles", "card_stats", "skill_stats", "fair_pool", "warnings", "produced_by", "limit_kinds"):
        assert key in rep
    assert rep["pool"] == "fair" and rep["lord_role"] == "lord"
    assert rep["produced_by"]["agents"] == "random" and rep["produced_by"]["games"] == 12
    assert rep["produced_by"]["engine_version"] and rep["produced_by"]["content_fingerprint"].startswith("sha256:")
    entry = next(iter(rep["hero_roles"].values()))
    assert set(entry) == {"roles", "not_lord", "all", "vs_roles"}
    assert {"played", "won", "rate", "ci95", "small"} <= set(entry["all"])
    seats = sum(v["all"]["played"] for v in rep["hero_roles"].values())
    assert seats == rep["finished"] * 5
    slash = rep["card_stats"]["slash"]
    assert slash["uses"] == rep["card_uses"]["slash"] and 0 < slash["seats"] <= rep["finished"] * 5
    assert any("fewer than 30 seats" in w for w in rep["warnings"])


def test_rate_against_the_roles_average(content) -> None:  # type: ignore[no-untyped-def]
    rep = simulate(content, players=5, games=10, seed=7, agents="heuristic")
    roles = {r: v["rate"] for r, v in rep["roles"].items()}
    seats = sum(v["all"]["played"] for v in rep["hero_roles"].values())
    for hero, v in rep["hero_roles"].items():
        expected = sum(roles[r] * e["played"] for r, e in v["roles"].items()) / v["all"]["played"]
        assert v["vs_roles"]["expected"] == pytest.approx(expected, abs=1e-3)
        assert v["vs_roles"]["excess"] == pytest.approx(v["all"]["rate"] - expected, abs=1e-3)
    # over all heroes, seats weighted, the excess is nothing: the roles' rates are the heroes' own
    total = sum(v["vs_roles"]["excess"] * v["all"]["played"] for v in rep["hero_roles"].values()) / seats
    assert total == pytest.approx(0, abs=1e-3)


def test_skill_win_rate_when_used_counts_each_seat_once(content) -> None:  # type: ignore[no-untyped-def]
    rep = simulate(content, players=5, games=8, seed=2, agents="heuristic")
    for sid, e in rep["skill_stats"].items():
        assert e["uses"] == rep["skill_uses"][sid]
        assert e["seats"] <= rep["finished"] * 5 and e["won"] <= e["seats"]


def test_skills_that_work_without_being_invoked_count_for_their_holders(content) -> None:  # type: ignore[no-untyped-def]
    # every hero of the game: 红颜 and 武神 (filters) and 黄天 (given by 张角 to the others) among them
    games = [play_one(content, "identity_all", 8, seed, seed, agents="heuristic") for seed in range(40)]
    used = {sid for g in games for sid in g.skills}
    for g in games:
        assert set(g.skills) == set(g.skill_users), "a skill counted in a game has the seats that used it"
        for sid in {"hongyan", "wushen", "huangtian"} & set(g.skill_users):
            for seat in g.skill_users[sid]:  # the seat whose hero has it: 张角 for 黄天, not who gave him cards
                skills = content.heroes[g.heroes[seat][0]].skills
                assert sid in skills or "weidi" in skills, (sid, seat, g.heroes[seat])  # (伪帝 copies 黄天)
    assert {"hongyan", "wushen", "huangtian"} <= used


def test_report_warns_of_limits_and_small_samples(content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    from sgs_runtime.runs.report import write_report

    rules = content.ruleset()
    summaries = [play_one(content, rules.id, 5, 100 + i, i, limits=Limits(turns=3 if i < 2 else 600))
                 for i in range(6)]
    rep = run_report(content, summaries, rules_id=rules.id, players=5, seed=0, seconds=1.0, agents="random")
    assert rep["limits"] == 2 and rep["limit_kinds"] == {"turn": 2}
    assert any("cut short" in w and "2 by the turn limit" in w for w in rep["warnings"])
    assert rep["warnings"] == warnings(rep)
    files = {f.name for f in write_report(rep, tmp_path)}
    assert {"hero_roles.csv", "hero_roles.svg", "cards.csv", "skills.csv", "index.html"} <= files
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<div class="warnings"' in page and "a bot limit was hit" in page
    assert f"fewer than {MIN_SAMPLE} seats" in page and 'id="produced-by"' in page and "agents <b>random</b>" in page
    assert '<h2 id="hero-roles">' in page
    with (tmp_path / "hero_roles.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert sum(int(r["played"]) for r in rows if r["role"] == "all") == 4 * 5
    with (tmp_path / "skills.csv").open(encoding="utf-8") as f:
        assert "rate_when_used" in next(csv.DictReader(f))
