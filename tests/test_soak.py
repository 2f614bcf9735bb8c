"""A short soak: games over every rules file and both kinds of bots, none may err."""

from __future__ import annotations

from conftest import benchmark


def test_short_soak_has_no_engine_errors() -> None:
    result = benchmark("soak").soak(240, seed=7, check=True)  # with the invariants checked after every step
    assert result["games"] == 240
    assert result["errors"] == 0, result["error_list"][:3]
    assert result["violations"] == 0, result["violation_list"][:3]
    # every rules file was played
    from sgs_dsl.loader import load_content

    assert set(result["games_by_rules"]) == set(load_content().rulesets)
