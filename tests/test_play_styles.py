"""benchmarks/play_styles.py: styles of play paired with the heuristic bot on the same deals.

The probe's premise is that a style differs from the heuristic bot only in its one habit: with no
habit changed, the styled bot plays the heuristic's very game.
"""

from __future__ import annotations

from typing import Any

from conftest import benchmark

from sgs_runtime.runs.simulate import game_seed, play_one


def _probe() -> Any:
    return benchmark("play_styles")


def test_a_style_without_a_changed_habit_plays_the_heuristic_game() -> None:
    content = _probe()._content()
    for index in range(4):
        seed = game_seed(11, index)
        plain = play_one(content, "identity", 5, seed, index, agents="heuristic")
        for spec in (f"heuristic:style=plain@{index % 5},heuristic", "heuristic:style=plain"):
            styled = play_one(content, "identity", 5, seed, index, agents=spec)
            assert (styled.winners, styled.turns, styled.events) == (plain.winners, plain.turns, plain.events)


def test_the_probe_pairs_every_style_with_the_heuristic_on_each_deal() -> None:
    probe = _probe()
    rows = [probe.play_deal((2026, 5, i, tuple(probe.STYLES))) for i in range(5)]
    assert not any(r.get("errors") for r in rows)
    for r in rows:
        expected = {s for s in probe.STYLES if r["role"] == "traitor" or not s.startswith("traitor_")}
        if r["role"] in ("loyalist", "rebel"):
            expected.discard("roles")  # the heuristic's own habits there
        assert set(r["styles"]) == expected
    report = probe.summarise(rows)
    assert report["all"]["deals"] == 5
    assert report["all"]["oracle"] >= report["all"]["heuristic"]
