"""Heuristic bots, the balance report and the Dask backend."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from sgs_dsl.loader import load_content
from sgs_runtime.runs.simulate import TIMING_FIELDS, simulate


@pytest.fixture(scope="module")
def content():  # type: ignore[no-untyped-def]
    return load_content()


def _strip(rep: dict) -> dict:  # type: ignore[type-arg]
    return {k: v for k, v in rep.items() if k not in TIMING_FIELDS}


def test_heuristic_side_beats_random_side(content) -> None:  # type: ignore[no-untyped-def]
    # the lord's side played by heuristic bots, the rest by random bots, and the other way round
    lord_side = simulate(content, players=5, games=60, seed=21, agents="heuristic@lord+loyalist")
    rebels = simulate(content, players=5, games=60, seed=22, agents="heuristic@rebel")
    assert lord_side["errors"] == rebels["errors"] == 0
    assert lord_side["wins"].get("lord", 0) / lord_side["finished"] > 0.8
    assert rebels["wins"].get("rebel", 0) / rebels["finished"] > 0.8


def test_heuristic_games_are_reproducible(content) -> None:  # type: ignore[no-untyped-def]
    a = simulate(content, players=6, games=15, seed=5, agents="heuristic")
    b = simulate(content, players=6, games=15, seed=5, agents="heuristic")
    assert a["errors"] == 0
    assert _strip(a) == _strip(b)


def test_report_writes_csv_and_page_with_charts(content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("matplotlib")
    from sgs_runtime.runs.report import write_report
    from sgs_runtime.runs.simulate import combine

    rep = combine({n: simulate(content, players=n, games=20, seed=8) for n in (5, 8)})
    files = write_report(rep, tmp_path)
    names = {f.name for f in files}
    assert {"heroes.csv", "roles.csv", "report.json", "heroes.svg", "roles.svg", "index.html"} <= names
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert page.count("<svg") == 2 and "Hero win rates" in page and "Role win rates by player count" in page
    with (tmp_path / "roles.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["players"] for r in rows} == {"5", "8"}
    assert {r["role"] for r in rows} == {"lord", "loyalist", "rebel", "traitor"}
    with (tmp_path / "heroes.csv").open(encoding="utf-8") as f:
        heroes = list(csv.DictReader(f))
    assert sum(int(h["played"]) for h in heroes) == 20 * 5 + 20 * 8
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["games"] == 40


def test_dask_backend_gives_the_same_result(content) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("dask.distributed")
    local = simulate(content, players=5, games=30, seed=13, workers=1)
    remote = simulate(content, players=5, games=30, seed=13, workers=2, backend="dask", batch_size=10)
    assert remote["errors"] == 0
    assert _strip(local) == _strip(remote)


def test_report_counts_cards_and_skills(content) -> None:  # type: ignore[no-untyped-def]
    rep = simulate(content, players=5, games=10, seed=4)
    assert rep["errors"] == 0
    cards, skills = rep["card_uses"], rep["skill_uses"]
    assert cards["slash"] > 0 and cards["jink"] > 0
    assert skills and all(n > 0 for n in skills.values())
    assert set(cards) <= set(content.cards)
    assert list(cards) == sorted(cards) and list(skills) == sorted(skills)  # sorted by id
    # every "skill" log record is counted under its skill
    assert sum(skills.values()) == rep["event_counts"]["skill"]


def test_card_and_skill_counts_do_not_depend_on_workers(content) -> None:  # type: ignore[no-untyped-def]
    one = simulate(content, players=5, games=10, seed=4, workers=1)
    two = simulate(content, players=5, games=10, seed=4, workers=2, batch_size=3)
    assert one["card_uses"] == two["card_uses"] and one["skill_uses"] == two["skill_uses"]
    assert _strip(one) == _strip(two)


def test_card_and_skill_counts_add_up_over_player_counts(content, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from sgs_runtime.runs.simulate import combine

    rep = combine({n: simulate(content, players=n, games=6, seed=9) for n in (4, 6)})
    for key in ("card_uses", "skill_uses"):
        per = [r[key] for r in rep["by_players"].values()]
        assert rep[key] == {k: sum(p.get(k, 0) for p in per) for k in sorted(set().union(*per))}
    pytest.importorskip("matplotlib")
    from sgs_runtime.runs.report import write_report

    write_report(rep, tmp_path)
    with (tmp_path / "cards.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["card"]: int(r["uses"]) for r in rows} == rep["card_uses"]
    assert [int(r["uses"]) for r in rows] == sorted((int(r["uses"]) for r in rows), reverse=True)
    with (tmp_path / "skills.csv").open(encoding="utf-8") as f:
        assert {r["skill"]: int(r["uses"]) for r in csv.DictReader(f)} == rep["skill_uses"]
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert '<h2 id="cards">' in page and '<h2 id="skills">' in page and "<td>slash</td>" in page
    assert json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["card_uses"] == rep["card_uses"]


@pytest.mark.parametrize("agents", ["random", "heuristic"])
def test_every_card_of_the_maneuvering_pack_comes_up(content, agents: str) -> None:  # type: ignore[no-untyped-def]
    rep = simulate(content, rules_id="maneuvering", players=5, games=60, seed=3, agents=agents)
    assert rep["errors"] == 0
    pack = {dc.kind for dc in content.decks["maneuvering"]}
    unused = sorted(k for k in pack if rep["card_uses"].get(k, 0) == 0)
    assert unused == []
    assert rep["event_counts"].get("chain", 0) > 0 and rep["event_counts"].get("recast", 0) > 0
